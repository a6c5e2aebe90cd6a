#!/usr/bin/env python3
"""Drives a triage run on a labelled corpus to its end through the binary under test, as a
session and its agents would, with a scripted model whose every look errs at a set rate per
tier, then scores the run with `eval --json`. Used by scripts/bench.sh (row 5) and by hand:

    security_eval.py BIN CORPUS_DIR INPUT LABELS [--config JSON] [--keep DIR] [--adversarial]
                     [--calibrated [--seed N]]

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

`--calibrated` (issue 48): the same errors, and every answer's confidence says how likely it is
to be right, as a calibrated model's would: a wrong answer says 0.6 seven times in ten (else
0.9), a right one once in ten. Which answers say 0.6 is drawn per finding and tier from a
generator seeded by `--seed` (48 unless given), so a run is repeatable and asking the same tier
again gives the same confidence. The script then works out, from the model's answers alone,
what the rules imply (reference/state-machine.md, "Verification": a dismissal on the security
route gets a blind second look at the verify tier; a `real` below `verify_below` gets one too
and ends `unsure` when it disagrees; a dismissal below it elsewhere is checked one tier up; the
blind ones are batched per route and rule, `verify_batch` at a time), and exits 1 when the run
differs: the JSON's `implied` and `measured` hold both, and `expected` the same figures from the
model's parameters alone (the share of wrong and right answers that say 0.6).

`--adversarial` (issue 40): the first look answers the schema's other answers on real
findings instead, by the finding's rank among the real ones: a third `duplicate` of another
real finding (its batch's when it has one, so two name each other: cycles), a third `unsure`
with `reroute: "generic"`, a third `unsure`; any later first look at a re-routed finding is
fooled once (`false_positive`, 0.95); every second look is honest. The JSON then adds the
real findings the run closed and the known.json entries it wrote as decided for real findings.
"""
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from hook_answer import dispatch_ids

EVERY = {"haiku": 4, "sonnet": 10, "opus": None}
TIERS = ["haiku", "sonnet", "opus"]
# The calibrated model (--calibrated): the share of wrong and of right answers that say LOW.
LOW, HIGH = 0.6, 0.9
SAYS_LOW = {"wrong": 0.7, "right": 0.1}
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
    def __init__(self, cases, findings, adversarial=False, calibrated=False, seed=48):
        self.cases = cases
        self.adversarial = adversarial
        self.calibrated = calibrated
        self.seed = seed
        # Each finding's first look: (item, route, tier, says real, confidence, batch rule).
        self.first = {}
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

    def confidence(self, path, line, rule, tier, right):
        """0.9, or with --calibrated LOW as often as SAYS_LOW says for a right or wrong answer:
        drawn once per finding and tier from the seeded generator."""
        if not self.calibrated:
            return HIGH
        draw = random.Random(f"{self.seed}|{path}|{line}|{rule}|{tier}").random()
        return LOW if draw < SAYS_LOW["right" if right else "wrong"] else HIGH

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

    def verdict(self, prompt, item, tier, first_look=False, group=None):
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
        loc = (path, int(line), rule)
        confidence = self.confidence(*loc, tier, real == self.by_location[loc][0])
        if first_look and not self.adversarial:
            route = re.search(r"route `([^`]+)`", prompt)
            self.first[loc] = (item, route.group(1) if route else None, tier, real, confidence,
                               group)
        return {
            "confidence": confidence,
            "verdict": "real" if real else "false_positive",
            "root_cause": f"scripted {rule}",
            "reason": f"scripted ({tier}): {rule} at {path}:{line}",
        }


second_looks = []
first_looks = []


def ceil_div(a, b):
    return -(-a // b)


def batches(n, size):
    """Agents for n blind second looks of one route and rule: balanced batches of at most
    `size`, one left alone going out on its own (verification.rs, `batch_second_looks`)."""
    if size < 2:
        return n
    return ceil_div(n, ceil_div(n, ceil_div(n, size)))


def implied(model, first_look_agents, verify_below, verify_tier, verify_batch):
    """What the rules imply for the model's first looks (never adversarial ones): each
    finding's end, the second looks and the agents they take (reference/state-machine.md,
    "Verification")."""
    ends, groups, own, of_reals = {}, {}, 0, 0
    for loc, (item, route, tier, real, confidence, group) in model.first.items():
        blind = TIERS[max(TIERS.index(verify_tier), TIERS.index(tier))]
        up = TIERS[min(TIERS.index(tier) + 1, 2)]
        if real and confidence >= verify_below:
            ends[item] = "real"
            continue
        if real:
            of_reals += 1
            ends[item] = "real" if model.says_real(*loc, blind) else "unsure"
        elif route == "security":
            ends[item] = "real" if model.says_real(*loc, blind) else "false_positive"
        elif confidence < verify_below:
            own += 1
            ends[item] = "real" if model.says_real(*loc, up) else "false_positive"
            continue
        else:
            ends[item] = "false_positive"
            continue
        # A blind second look, batched with its route's and rule's others.
        groups[(route, group)] = groups.get((route, group), 0) + 1
    agents = first_look_agents + own + sum(batches(n, verify_batch) for n in groups.values())
    return ends, {"second_looks": sum(groups.values()) + own, "second_looks_of_reals": of_reals,
                  "agents": agents}


def expected(model):
    """The figures from the model's parameters alone: how many first-look answers are wrong
    and right, times the share of each that says LOW."""
    wrong = {True: 0, False: 0}
    right = {True: 0, False: 0}
    for loc, (_, _, tier, real, _, _) in model.first.items():
        truth = model.by_location[loc][0]
        (right if real == truth else wrong)[real] += 1
    return {
        "first_look_reals_right": right[True],
        "first_look_false_alarms": wrong[True],
        "false_alarms_left": round(wrong[True] * (1 - SAYS_LOW["wrong"]), 1),
        "reals_checked": round(wrong[True] * SAYS_LOW["wrong"] + right[True] * SAYS_LOW["right"],
                               1),
    }

def work(binary, project, model, item):
    shown = json.loads(run(binary, project, "show", item, "--json").stdout)
    prompt, tier, kind = shown["prompt"], shown["model"], shown["kind"]
    if kind == "triage":
        answer = model.verdict(prompt, item, tier, first_look=True)
        first_looks.append(item)
    elif kind == "verify":
        # A second look on its own lists its finding by the triage item's id.
        answer = model.verdict(prompt, item.replace("vf-", "t-", 1), tier)
        second_looks.append(item)
    elif kind == "triage_batch":
        ids = shown["output_schema"]["properties"]["verdicts"]["items"]["properties"]["item"]["enum"]
        # A batch formed by rule hands its rule to its findings' second looks.
        rules = {r[3] for r in model.rows(prompt)}
        group = rules.pop() if len(rules) == 1 else None
        # A batch of second looks lists its findings by their triage items' ids.
        answer = {"verdicts": [
            dict(model.verdict(prompt, i, tier, first_look=not i.startswith("vf-"),
                               group=group), item=i)
            for i in ids]}
        second_looks.extend(i for i in ids if i.startswith("vf-"))
        if not any(i.startswith("vf-") for i in ids):
            first_looks.append(item)
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


def check_implied(binary, project, model, config, launches):
    """The figures the rules imply for the model's answers, those the run measured, and
    those the model's parameters lead one to expect."""
    settings = json.loads(config or "{}")
    ends, figures = implied(
        model, len(first_looks), settings.get("verify_below", 0.8),
        settings.get("tiers", {}).get("verify", "opus"), settings.get("verify_batch", 20))
    status = json.loads(run(binary, project, "status", "--findings", "--json").stdout)
    verdicts = {l.get("item"): l.get("verdict") for l in status if l.get("item")}
    truth = {i: model.by_location[loc][0] for loc, (i, *_) in model.first.items()}
    said_real = {i: real for (i, _, _, real, _, _) in model.first.values()}
    count = lambda e, end, real: sum(1 for i, v in e.items() if v == end and truth[i] == real)
    measured_ends = {i: verdicts.get(i) for i in ends}
    reals_checked = sum(1 for v in second_looks if said_real.get(v.replace("vf-", "t-", 1)))
    return {
        "implied": {**figures, "false_alarms": count(ends, "real", False),
                    "unsure": sum(1 for e in ends.values() if e == "unsure"),
                    "real_closed": count(ends, "false_positive", True)},
        "measured": {"second_looks": len(second_looks), "second_looks_of_reals": reals_checked,
                     "agents": launches,
                     "false_alarms": count(measured_ends, "real", False),
                     "unsure": sum(1 for e in measured_ends.values() if e == "unsure"),
                     "real_closed": count(measured_ends, "false_positive", True)},
        "expected": expected(model),
    }


def main():
    binary, corpus, input_name, labels_name = sys.argv[1:5]
    # Commands run in the project: a relative path to the binary must not depend on it.
    binary = os.path.abspath(binary) if os.sep in binary else shutil.which(binary) or binary
    project_bin.append(binary)
    rest = sys.argv[5:]
    config = rest[rest.index("--config") + 1] if "--config" in rest else None
    keep = rest[rest.index("--keep") + 1] if "--keep" in rest else None
    adversarial = "--adversarial" in rest
    calibrated = "--calibrated" in rest
    seed = int(rest[rest.index("--seed") + 1]) if "--seed" in rest else 48
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
        calibrated=calibrated,
        seed=seed,
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
    checked = {}
    if not adversarial:
        checked = check_implied(binary, project, model, config, len(launches))
    mode = "adversarial first look" if adversarial else "scripted"
    if calibrated:
        mode += f", calibrated (seed {seed})"
    print(json.dumps({
        "mode": mode,
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
        **checked,
    }, indent=1))
    if checked and checked["implied"] != checked["measured"]:
        sys.exit("the run differs from what the rules imply for the model's answers (above)")
    if not keep:
        shutil.rmtree(project.parent)


main()
