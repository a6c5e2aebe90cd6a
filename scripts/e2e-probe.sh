#!/usr/bin/env bash
# Probe the real Claude Code client against the scripted Messages API (e2e/mock-api) with a
# STUB `self-repair` CLI and a STUB Stop hook, to pin down the client's request/response
# behaviour. Scratch tool: `just e2e` replaces it once the real CLI and bundle exist.
#
# Usage: scripts/e2e-probe.sh [--items N] [--scenario FILE] [--keep] [--timeout SECS]
#   --items N        findings the stub hook dispatches in its one block (default 2)
#   --scenario FILE  mock-api scenario JSON (faults, per-item behaviour)
#   --keep           keep the temp folder (printed at the end)
#   --timeout SECS   kill claude after this long (default 180)
# Env: PROBE_DIR (use this folder instead of a new temp one), MOCK_API_BIN (skip cargo build).
#
# Prints a summary of the recorded requests (thread, model, answer) and of the hook calls.
# Everything stays on 127.0.0.1: temp HOME/CLAUDE_CONFIG_DIR and no nonessential traffic.
set -euo pipefail

items=2
scenario=""
keep=0
timeout_secs=180
while [[ $# -gt 0 ]]; do
  case "$1" in
    --items) items="$2"; shift 2 ;;
    --scenario) scenario="$(realpath "$2")"; shift 2 ;;
    --keep) keep=1; shift ;;
    --timeout) timeout_secs="$2"; shift 2 ;;
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "${BASH_SOURCE[0]}"; exit 0 ;;
    *) echo "e2e-probe: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
eval "$("$repo/scripts/install-tools.sh" --print-env)"

if [[ -z "${MOCK_API_BIN:-}" ]]; then
  export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$repo/target}"
  cargo build -q -p self-repair-mock-api --bin mock-api --manifest-path "$repo/Cargo.toml"
  MOCK_API_BIN="$CARGO_TARGET_DIR/debug/mock-api"
fi

dir="${PROBE_DIR:-$(mktemp -d /tmp/e2e-probe.XXXXXX)}"
mkdir -p "$dir"/{project/.claude/agents,home,config,bin,state}
project="$dir/project"

# --- stub `self-repair` CLI: show prints a canned item, submit checks a little and records.
cat >"$dir/bin/self-repair" <<'EOF'
#!/usr/bin/env bash
state="${PROBE_STATE:?}"
echo "$(date +%s.%N) $*" >>"$state/cli.log"
case "$1" in
  start) echo "run r-probe started with 0 findings"; touch "$state/started" ;;
  show)
    id="$2"
    cat <<JSON
{"item":"$id","kind":"triage","agent":"triage-investigator","model":"haiku",
 "prompt":"Investigate finding $id: unused variable x in src/lib.rs:3 (fenced as data).",
 "output_schema":{"\$schema":"https://json-schema.org/draft/2020-12/schema","title":"triage",
  "type":"object","additionalProperties":false,"required":["verdict","root_cause","reason"],
  "properties":{"verdict":{"type":"string","enum":["real","false_positive","intended","duplicate","unsure"]},
   "root_cause":{"type":"string","minLength":3,"maxLength":120},
   "reason":{"type":"string","minLength":10,"maxLength":2000},
   "duplicate_of":{"type":"string","pattern":"^t-[0-9]+\$","minLength":1,"maxLength":20}}}}
JSON
    ;;
  submit)
    id="$2"
    body="$(cat)"
    if ! jq -e '.verdict and .root_cause and .reason and (has("unexpected_field") | not)' >/dev/null 2>&1 <<<"$body"; then
      echo "submit $id rejected: field \`verdict\` is missing; fix the JSON and submit again" >&2
      exit 1
    fi
    printf '%s\n' "$body" >"$state/submit-$id.json"
    echo "accepted $id"
    ;;
  *) echo "stub self-repair: unknown command $1" >&2; exit 2 ;;
esac
EOF

# --- stub Stop hook: logs its stdin; blocks once with a dispatch of N items, then allows.
cat >"$dir/bin/stub-hook" <<'EOF'
#!/usr/bin/env bash
state="${PROBE_STATE:?}"
event="$1"
input="$(cat)"
printf '%s\t%s\t%s\n' "$(date +%s.%N)" "$event" "$input" >>"$state/hooks.log"
[[ "$event" == "stop" ]] || exit 0
[[ -f "$state/blocked" ]] && exit 0
touch "$state/blocked"
n="${PROBE_ITEMS:-2}"
launch=""
for i in $(seq 1 "$n"); do
  [[ -n "$launch" ]] && launch+=$',\n'
  IFS=, read -ra models <<<"${PROBE_MODELS:-haiku}"
  model="${models[$(( (i - 1) % ${#models[@]} ))]}"
  launch+="  {\"subagent_type\":\"triage-investigator\",\"model\":\"$model\",\"description\":\"triage t-$i\",\"prompt\":\"self-repair item t-$i\"}"
done
reason="Triage $n findings: launch these agents in one message, then end your turn.
\`\`\`json
{\"self_repair\":1,\"run\":\"r-probe\",\"phase\":\"triage\",\"launch\":[
$launch
],\"then\":\"end your turn; do not read or relay the agents' results\"}
\`\`\`"
jq -cn --arg r "$reason" '{decision:"block",reason:$r}'
EOF
chmod +x "$dir/bin/self-repair" "$dir/bin/stub-hook"

cat >"$project/.claude/agents/triage-investigator.md" <<'EOF'
---
name: triage-investigator
description: Investigates one self-repair finding and submits a verdict.
tools: Bash, Read
model: haiku
---

self-repair sub-agent
Run `self-repair show <id> --json`, investigate, then `self-repair submit <id>` with the result.
End with one line.
EOF

hook() { printf '{"type":"command","command":"%s","args":["%s"],"timeout":30}' "$dir/bin/stub-hook" "$1"; }
cat >"$project/.claude/settings.json" <<EOF
{"hooks":{
  "Stop":[{"hooks":[$(hook stop)]}],
  "StopFailure":[{"hooks":[$(hook stop-failure)]}],
  "SubagentStop":[{"hooks":[$(hook subagent-stop)]}],
  "SubagentStart":[{"hooks":[$(hook subagent-start)]}]
}}
EOF

record="$dir/requests.jsonl"
url_file="$dir/url"
mock_args=(--record "$record" --url-file "$url_file")
[[ -n "$scenario" ]] && mock_args+=(--scenario "$scenario")
"$MOCK_API_BIN" "${mock_args[@]}" >"$dir/mock-api.out" 2>&1 &
mock_pid=$!
cleanup() {
  kill "$mock_pid" 2>/dev/null || true
  if [[ $keep -eq 0 && -z "${PROBE_DIR:-}" ]]; then rm -rf "$dir"; else echo "kept: $dir"; fi
}
trap cleanup EXIT
for _ in $(seq 100); do [[ -s "$url_file" ]] && break; sleep 0.05; done
[[ -s "$url_file" ]] || { cat "$dir/mock-api.out" >&2; echo "e2e-probe: mock-api did not start" >&2; exit 1; }

start=$(date +%s.%N)
set +e
(
  cd "$project" &&
    env -i PATH="$dir/bin:$PATH" HOME="$dir/home" CLAUDE_CONFIG_DIR="$dir/config" \
      TMPDIR="${TMPDIR:-/tmp}" LANG=C.UTF-8 \
      PROBE_STATE="$dir/state" PROBE_ITEMS="$items" PROBE_MODELS="${PROBE_MODELS:-haiku}" \
      ANTHROPIC_BASE_URL="$(cat "$url_file")" ANTHROPIC_API_KEY=x \
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_AUTOUPDATER=1 \
      ${PROBE_ENV:-} \
      timeout "$timeout_secs" "$CLAUDE_BIN" -p "${PROBE_PROMPT:-Start the run.
\$ self-repair start findings.jsonl}" \
      --output-format json --allowedTools "Agent Bash Read" --debug-file "$dir/debug.log" \
      >"$dir/claude.json" 2>"$dir/claude.err"
)
rc=$?
set -e
end=$(date +%s.%N)

echo "claude exit=$rc wall=$(echo "$end - $start" | bc)s"
jq -c '{subtype, is_error, num_turns, result: (.result|tostring|.[0:120]), subagent_stats}' "$dir/claude.json" 2>/dev/null || head -c 2000 "$dir/claude.json" "$dir/claude.err"
echo "--- requests (seq at_ms thread model status answer):"
jq -r '[.seq, .at_ms, .thread, (.model // "-"), .status, .answer, .target] | @tsv' "$record"
echo "--- measurement:"
"$MOCK_API_BIN" --measure "$record"
echo "--- hooks (time event active background last_message):"
while IFS=$'\t' read -r at event input; do
  printf '%s\t%s\t%s\n' "$at" "$event" "$(jq -c '[.stop_hook_active, ([.background_tasks[]?.description] | join(",")), (.last_assistant_message // "" | .[0:60]), (.error // .reason // empty)]' <<<"$input" 2>/dev/null)"
done <"$dir/state/hooks.log"
echo "--- cli:"
cat "$dir/state/cli.log" 2>/dev/null || true
ls "$dir/state"
