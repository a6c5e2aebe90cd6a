#!/usr/bin/env python3
"""Drives a triage run on a labelled corpus to its end through the binary under test, as a
session and its agents would, with a scripted model whose every look errs at a set rate per
tier, then scores the run with `eval --json`. Used by scripts/bench.sh (row 5) and by hand:

    security_eval.py BIN CORPUS_DIR INPUT LABELS [--config JSON] [--keep DIR] [--adversarial]

prints one JSON object: agents in all, per 1,000 findings and on the top tier, second looks,
unsafe closures, false alarms, the dollars the cost ledger priced and the estimate `start`
gave, and `eval`'s figures.

The scripted model (the plan of reference/quality.md): haiku errs on 1 finding in 4, sonnet
on 1 in 10, opus never. Which findings a tier errs on is fixed by the finding's rank among
the findings of its truth (the 1st, the n+1-th, ...), so asking the same tier again gives the
same wrong answer: a second look helps only when it is another tier, as with a real model
whose errors on one finding are alike from one call to the next. A finding's truth is its
test case's (`real vulnerability` of the labels file, by the case name in its path), whatever
its CWE: a finding `eval` leaves unlabelled still needs an answer.

`--adversarial` (issue 40): the first look answers the schema's other answers on real
findings instead, by the finding's rank among the real ones: a third `duplicate` of another
real finding (its batch's when it has one, so two name each other: cycles), a third `unsure`
with `reroute: "generic"`, a third `unsure`; any later first look at a re-routed finding is
fooled once (`false_positive`, 0.95); every second look is honest. The JSON then adds the
real findings the run closed and the known.json entries it wrote as decided for real findings.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from hook_answer import dispatch_ids

EVERY = {"haiku": 4, "sonnet": 10, "opus": None}
STOPS = 2000


def run(binary, project, *args, stdin=None, check=True):
    out = subprocess.run(
        [binary, "-C", str(project), *args],
        input=stdin,
        cwd=project,
        capture_output=True,
        text=True,
        env={"PATH": "/usr/bin:/bin", "HOME": str(project / ".home"), "CLAUDE_CODE_SESSION_ID": "s1"},
    )
    if check and out.returncode != 0:
        sys.exit(f"{' '.join(args)}: exit {out.returncode}\n{out.stdout}\n{out.stderr}")
    return out


def truths(labels_file):
    """Each test case's truth, from the labels file's case, label columns."""
    cases = {}
    for line in Path(labels_file).read_text().splitlines():
        cells = [c.strip() for c in line.split(",")]
        if line.startswith("#") or len(cells) < 3:
            continue
        cases[cells[0]] = cells[2].lower() == "true"
    return cases


class ErringModel:
    def __init__(self, cases, findings, adversarial=False):
        self.cases = cases
        self.adversarial = adversarial
        self.rerouted = set()
        self.fooled = set()
        self.item_of = {(f["path"], f["line"], f["rule"]): f["item"] for f in findings}
        rank = {True: 0, False: 0}
        self.by_location = {}
        for f in findings:
            real = self.truth(f["path"])
            self.by_location[(f["path"], f["line"], f["rule"])] = (real, rank[real])
            rank[real] += 1

    def truth(self, path):
        case = re.search(r"(BenchmarkTest\d+)", path)
        return self.cases.get(case.group(1), True) if case else True

    def says_real(self, path, line, rule, tier):
        real, rank = self.by_location[(path, line, rule)]
        every = EVERY[tier]
        errs = every is not None and rank % every == 0
        return real != errs

    def rows(self, prompt):
        """The findings a task lists: (item, path, line, rule)."""
        out = []
        for l in prompt.splitlines():
            words = l.split()
            if len(words) > 3 and re.fullmatch(r"t-\d+", words[0]) and ":" in words[1]:
                path, line = words[1].split(":")[:2]
                if line.isdigit():
                    out.append((words[0], path, int(line), words[3]))
        return out

    def first_look_lie(self, prompt, item, path, line, rule):
        """The adversarial first look's answer on a real finding, or None to answer honestly."""
        real, rank = self.by_location[(path, line, rule)]
        if not real:
            return None
        lie = {"confidence": 0.95, "root_cause": f"scripted {rule}",
               "reason": f"scripted adversarial first look: {rule} at {path}:{line}"}
        if item in self.rerouted and item not in self.fooled:
            self.fooled.add(item)
            return dict(lie, verdict="false_positive")
        if item in self.rerouted:
            return None
        if rank % 3 == 0:
            # Another real finding: its batch's when it has one (they name each other), else
            # the next real one of the run.
            others = [r[0] for r in self.rows(prompt)
                      if r[0] != item and self.by_location.get(r[1:], (False,))[0]]
            if not others:
                others = [i for (loc, i) in self.item_of.items()
                          if i and i != item and self.by_location[loc][0]]
            if others:
                return dict(lie, verdict="duplicate", duplicate_of=others[0])
            return dict(lie, verdict="unsure")
        if rank % 3 == 1:
            self.rerouted.add(item)
            return dict(lie, verdict="unsure", reroute="generic")
        return dict(lie, verdict="unsure")

    def verdict(self, prompt, item, tier, first_look=False):
        # A batch of second looks lists its findings by their `vf-` ids.
        ids = [item, item.replace("t-", "vf-", 1)]
        row = next(
            (l for i in ids for l in prompt.splitlines() if l.split()[:1] == [i]), None
        )
        if row is None:
            sys.exit(f"{item} is not in its task")
        words = row.split()
        path, line = words[1].split(":")[:2]
        rule = words[3]
        if self.adversarial and first_look:
            lie = self.first_look_lie(prompt, item, path, int(line), rule)
            if lie is not None:
                return lie
        if self.adversarial and not first_look:
            # Every second look is honest.
            real = self.by_location[(path, int(line), rule)][0]
        else:
            real = self.says_real(path, int(line), rule, tier)
        return {
            "confidence": 0.9,
            "verdict": "real" if real else "false_positive",
            "root_cause": f"scripted {rule}",
            "reason": f"scripted ({tier}): {rule} at {path}:{line}",
        }


def work(binary, project, model, item):
    shown = json.loads(run(binary, project, "show", item, "--json").stdout)
    prompt, tier, kind = shown["prompt"], shown["model"], shown["kind"]
    if kind == "triage":
        answer = model.verdict(prompt, item, tier, first_look=True)
    elif kind == "verify":
        # A second look on its own lists its finding by the triage item's id.
        answer = model.verdict(prompt, item.replace("vf-", "t-", 1), tier)
    elif kind == "triage_batch":
        ids = shown["output_schema"]["properties"]["verdicts"]["items"]["properties"]["item"]["enum"]
        # A batch of second looks lists its findings by their triage items' ids.
        answer = {"verdicts": [
            dict(model.verdict(prompt, i, tier, first_look=not i.startswith("vf-")), item=i)
            for i in ids]}
    else:
        sys.exit(f"{item}: a run until triage launched a {kind} agent")
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(answer, f)
    out = run(binary, project, "submit", item, "--file", f.name, check=False)
    if out.returncode != 0:
        # A refused answer (a second look may not answer `duplicate`): the run goes on, as
        # it would with an agent that then ends.
        print(f"{item}: submit refused: {out.stdout.strip()} {out.stderr.strip()}",
              file=sys.stderr)
    Path(f.name).unlink()
    return tier


def closures(project, model, full):
    """Real findings (by the labels) the run ended closed, and those known.json holds as
    decided (a closing verdict without `proposed`)."""
    closing = {"false_positive", "intended", "duplicate"}
    status = json.loads(run(project_bin[0], project, "status", "--findings", "--json").stdout)
    lines = status if isinstance(status, list) else status.get("findings", [])
    real_fp = {r["fingerprint"] for r in full
               if model.by_location[(r["finding"]["path"], r["finding"]["line"],
                                     r["finding"]["rule_id"])][0]}
    closed = sum(1 for l in lines
                 if l.get("fingerprint") in real_fp and l.get("verdict") in closing)
    known_file = project / ".self-repair/known.json"
    decided = 0
    if known_file.exists():
        # A header line, then one entry a line, each naming its fingerprint.
        for line in known_file.read_text().splitlines()[1:]:
            try:
                e = json.loads(line)
            except ValueError:
                continue
            if (isinstance(e, dict) and e.get("fingerprint") in real_fp
                    and e.get("verdict") in closing and not e.get("proposed")):
                decided += 1
    return closed, decided


project_bin = []


def main():
    binary, corpus, input_name, labels_name = sys.argv[1:5]
    # Commands run in the project: a relative path to the binary must not depend on it.
    binary = os.path.abspath(binary) if os.sep in binary else shutil.which(binary) or binary
    project_bin.append(binary)
    rest = sys.argv[5:]
    config = rest[rest.index("--config") + 1] if "--config" in rest else None
    keep = rest[rest.index("--keep") + 1] if "--keep" in rest else None
    adversarial = "--adversarial" in rest
    project = Path(keep) if keep else Path(tempfile.mkdtemp(prefix="security-eval-")) / "p"
    shutil.rmtree(project, ignore_errors=True)
    shutil.copytree(corpus, project)
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    (project / ".self-repair").mkdir(exist_ok=True)
    (project / ".self-repair/config.json").write_text(config or '{"survey_min": 0}')
    started = json.loads(
        run(binary, project, "start", input_name, "--run-id", "r-eval", "--until", "triage",
            "--budget", "10000", "--json").stdout
    )
    full = json.loads((project / ".self-repair/runs/r-eval/findings.json").read_text())
    records = [r["finding"] for r in full]
    model = ErringModel(
        truths(project / labels_name),
        [{"path": r["finding"]["path"], "line": r["finding"]["line"],
          "rule": r["finding"]["rule_id"], "item": r.get("item")} for r in full],
        adversarial=adversarial,
    )
    launches = []
    tiers = {}
    hook = json.dumps({"session_id": "s1", "hook_event_name": "Stop", "stop_hook_active": True,
                       "cwd": str(project)})
    for _ in range(STOPS):
        out = run(binary, project, "hook", "stop", stdin=hook).stdout
        ids = dispatch_ids(out)
        if not ids:
            break
        for item in ids:
            tier = work(binary, project, model, item)
            tiers[tier] = tiers.get(tier, 0) + 1
        launches.extend(ids)
    status = json.loads(run(binary, project, "status", "--json").stdout)
    scored = json.loads(
        run(binary, project, "eval", "r-eval", "--labels", labels_name, "--model",
            "scripted:errs haiku 25%, sonnet 10%, opus 0%", "--json").stdout
    )
    n = len(records)
    closed, decided = closures(project, model, full)
    print(json.dumps({
        "mode": "adversarial first look" if adversarial else "scripted",
        "real_closed": closed,
        "real_decided_in_known": decided,
        "findings": n,
        "status": status.get("status") or status.get("run", {}).get("status"),
        "agents": len(launches),
        "agents_per_1000": round(1000 * len(launches) / n),
        "agents_by_tier": tiers,
        "top_tier_per_1000": round(1000 * tiers.get("opus", 0) / n),
        "second_looks": sum(1 for i in launches if i.startswith("vf-")),
        "estimate": started.get("estimate"),
        "eval": scored["all"],
    }, indent=1))
    if not keep:
        shutil.rmtree(project.parent)


main()
