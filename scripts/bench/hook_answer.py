"""What a Stop hook answer asks of the session, read as the skill reads it: shared by the
scripted-model drivers of scripts/bench (security_eval.py, scratch_shape.py, scale_run.py)."""
import json

DISPATCH_START = '{"self_repair":'


def dispatch_ids(out):
    """The items a Stop hook answer dispatches, or None when it dispatches nothing: its
    continuation (the Stop event's `additionalContext`, or a block's `reason`) holds the
    dispatch JSON."""
    try:
        answer = json.loads(out)
    except ValueError:
        return None
    text = answer.get("hookSpecificOutput", {}).get("additionalContext")
    if text is None and answer.get("decision") == "block":
        text = answer.get("reason", "")
    start = (text or "").find(DISPATCH_START)
    if start < 0:
        return None
    dispatch, _ = json.JSONDecoder().raw_decode(text[start:])
    return [launch["prompt"].split()[2] for launch in dispatch["launch"]]
