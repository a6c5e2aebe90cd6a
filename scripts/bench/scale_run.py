#!/usr/bin/env python3
"""Stops at scale (issue 45): a whole triage run of N findings driven to its end through the
binary under test's Stop hook, as a session and its scripted agents would, every `hook stop`
timed from outside (a monotonic clock around the process). Used by scripts/bench.sh
(`--scale`, row 8; reference/benchmarks.md) and by hand:

    scale_run.py BIN WORK N [--files 400] [--rules 37] [--commands] [--callgrind] [--repeat R]
    scale_run.py table JSON...      the markdown tables of earlier runs' JSON

WORK is an empty folder the runs are made in (the caller removes it). Prints one JSON object
(stdout): the stops (count, median and p90 of the wave stops, the slowest other than the
finalizing one, the finalizing stop, each stop's time and load average), a stalled stop,
the hook with empty stdin and /bin/true spawned the same way, `start`; with `--commands` the
read commands timed on the finished run and mid-run, and `merge` of the run's two
partitions; with `--callgrind` (valgrind present) the instructions of the mid-run wave stop.
Progress goes to stderr.

The run: N findings of `--rules` rules over `--files` files (scripts/bench/generate.sh: no
two share a fingerprint), the default settings but `confirm_above_usd: null`, started with
`--until triage` in session s1. Each rule is surveyed and its surveyor answers `triage_each`,
so every finding goes to batched triage (8 a batch, 20 agents a wave); every triage agent
answers `real` (so nothing needs a second look). The agents' answers are submitted between
two stops, so every stop sees nothing running.

Known answers the harness asserts (it exits 1 otherwise, naming the stop): every stop but
the last dispatches, never an item already answered, 20 items unless it is the last wave;
the last stop dispatches nothing, allows with the run's `complete` line and leaves the run
`complete`, every finding decided (`status --json`); the number of stops lies in the range
the batch size implies (`stop_range`); a stalled stop (a later stop of the session, nothing
running, nothing submitted, after the run stalled) allows silently; each command exits 0 and
prints what it should (`status` names the run, `statusline` its row mid-run and nothing once
complete, `export sarif` a SARIF log of N results, `eval` N labelled findings, `merge` N
findings combined).
"""
import json
import math
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import hook_answer

HERE = Path(__file__).resolve().parent
RUN = "rscale"


def say(*args):
    print(f"[scale {time.strftime('%H:%M:%S')}]", *args, file=sys.stderr, flush=True)


def fail(message):
    sys.exit(f"scale_run.py: {message}")


def loadavg():
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "unknown"


class Project:
    def __init__(self, binary, root, run_id):
        self.binary = binary
        self.root = root
        self.run_id = run_id
        self.findings = self.rules = 0
        self.cpu_ms = self.sys_ms = 0.0
        env = {k: v for k, v in os.environ.items()
               if k not in ("CLAUDE_PROJECT_DIR", "CLAUDE_CODE_SESSION_ID", "SELF_REPAIR_RUN")}
        env.setdefault("SELF_REPAIR_NOW", "1763800000")
        env["HOME"] = str(root / ".home")
        self.env = env
        self.hook_input = json.dumps({
            "session_id": "s1", "transcript_path": "/dev/null", "cwd": str(root),
            "hook_event_name": "Stop", "stop_hook_active": True, "background_tasks": []}) + "\n"
        self.statusline_input = json.dumps({
            "session_id": "s1", "cwd": str(root),
            "workspace": {"current_dir": str(root), "project_dir": str(root)},
            "version": "2.1.330", "model": {"id": "claude-opus-5-5", "display_name": "Opus"},
            "cost": {"total_cost_usd": 0.5}}) + "\n"

    @property
    def run_dir(self):
        return self.root / ".self-repair" / "runs" / self.run_id

    def timed(self, args, stdin=None, stdout=subprocess.PIPE, env=None):
        """Runs BIN ARGS in the project; returns (ms, completed process). The process's CPU
        time (user + sys, ms: what it cost whatever the load) is left in `self.cpu_ms`."""
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter_ns()
        out = subprocess.run([self.binary, *args], input=stdin, stdout=stdout,
                             stderr=subprocess.PIPE, cwd=self.root, env=env or self.env,
                             text=True)
        ms = (time.perf_counter_ns() - t0) / 1e6
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        self.cpu_ms = 1000 * (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
        # The kernel's share: it splits a process's (exact) CPU time between user and system by
        # the timer ticks each got, so one short stop's split is coarse; summed over a run's
        # stops it says where their time goes.
        self.sys_ms = 1000 * (after.ru_stime - before.ru_stime)
        return ms, out

    def run(self, args, stdin=None, env=None):
        ms, out = self.timed(args, stdin=stdin, env=env)
        if out.returncode != 0:
            fail(f"`self-repair {' '.join(args)}` exited {out.returncode}:\n{out.stdout}\n{out.stderr}")
        return out

    def stop(self):
        return self.timed(["hook", "stop"], stdin=self.hook_input)

    def status(self):
        return json.loads(self.run(["status", "--json"]).stdout)


def dispatch_ids(out):
    """The items a Stop hook answer dispatches, or None; an answer that is not JSON fails."""
    if out.strip():
        try:
            json.loads(out)
        except ValueError:
            fail(f"the Stop hook printed something that is not JSON: {out[:500]}")
    return hook_answer.dispatch_ids(out)


def verdict(item):
    return {"item": item, "verdict": "real", "root_cause": "unused import",
            "reason": "the import is never used anywhere", "confidence": 0.9}


class Model:
    """The scripted agents: answers each dispatched item by its kind, read from its input
    file (what `self-repair show` renders its task from), and submits it."""

    def __init__(self, project, survey):
        self.project = project
        self.survey = survey
        self.answered = set()
        self.decided = 0
        self.tmp = Path(tempfile.mkdtemp(prefix="answers-", dir=project.root.parent))

    def task(self, item):
        """The item's kind and members: from its input file when the store keeps one (no
        process to start), else as `show --json` gives them (the schema's member ids)."""
        spec_file = self.project.run_dir / "items" / f"{item}.input.json"
        if spec_file.is_file():
            spec = json.loads(spec_file.read_text())
            if isinstance(spec, list):
                # The items one stop dispatched share one file, a list of their inputs.
                spec = next(s for s in spec if s.get("item") == item)
            return spec.get("kind"), spec.get("inputs", [])
        shown = json.loads(self.project.run(["show", item, "--json"]).stdout)
        members = []
        if shown["kind"] == "triage_batch":
            verdicts = shown["output_schema"]["properties"]["verdicts"]
            members = verdicts["items"]["properties"]["item"]["enum"]
        return shown["kind"], members

    def answer(self, item):
        if item in self.answered:
            fail(f"the hook dispatched {item} again after its answer was submitted")
        kind, members = self.task(item)
        if kind == "rule_survey":
            if self.survey == "fix_all":
                result = {"policy": "fix_all", "root_cause": "unused import",
                          "reason": "every finding of the sample is an import never used"}
            else:
                result = {"policy": "triage_each",
                          "reason": "the sample needs a look at each finding on its own"}
        elif kind == "triage_batch":
            if any(not m.startswith("t-") for m in members):
                fail(f"{item} holds a second look ({members}): no answer asked for one")
            result = {"verdicts": [verdict(m) for m in members]}
            self.decided += len(members)
        elif kind == "triage" or (kind is None and item.startswith("t-")):
            result = {k: v for k, v in verdict(item).items() if k != "item"}
            self.decided += 1
        else:
            fail(f"a run until triage dispatched {item} of kind {kind}")
        path = self.tmp / f"{item}.json"
        path.write_text(json.dumps(result))
        self.project.run(["submit", item, "--file", str(path)])
        path.unlink()
        self.answered.add(item)
        return kind


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, math.ceil(p * len(ordered)) - 1)]


def median_of(project, args, repeat, stdin=None, check=None, to_null=False):
    """Median wall time of `repeat` runs of BIN ARGS (after one untimed run whose output
    `check` verifies)."""
    ms, out = project.timed(args, stdin=stdin)
    if out.returncode != 0:
        fail(f"`self-repair {' '.join(args)}` exited {out.returncode}: {out.stderr[:500]}")
    if check is not None:
        check(out.stdout)
    times, cpu = [], []
    for _ in range(repeat):
        if to_null:
            ms, out = project.timed(args, stdin=stdin, stdout=subprocess.DEVNULL)
        else:
            ms, out = project.timed(args, stdin=stdin)
        if out.returncode != 0:
            fail(f"`self-repair {' '.join(args)}` exited {out.returncode} on a timed run")
        times.append(ms)
        cpu.append(project.cpu_ms)
    return {"median_ms": round(statistics.median(times), 2),
            "median_cpu_ms": round(statistics.median(cpu), 2), "runs": repeat, "load": loadavg()}


def tree_digest(folder):
    return sorted((str(p.relative_to(folder)), p.stat().st_size, p.stat().st_mtime_ns)
                  for p in folder.rglob("*") if p.is_file())


def new_project(binary, root, findings_file, run_id, extra_start=(), src=None):
    """A project at ROOT (its sources generated, or SRC linked) with a run of FINDINGS_FILE
    bound to session s1, `--until triage`; returns (project, start ms)."""
    (root / ".self-repair").mkdir(parents=True)
    (root / ".home").mkdir()
    if src is not None:
        (root / "src").symlink_to(src)
    (root / ".self-repair" / "config.json").write_text('{"confirm_above_usd": null}\n')
    project = Project(binary, root, run_id)
    env_s1 = dict(project.env, CLAUDE_CODE_SESSION_ID="s1")
    ms, out = project.timed(["start", str(findings_file), "--format", "jsonl", "--run-id",
                             run_id, "--until", "triage", *extra_start], env=env_s1)
    if out.returncode != 0 or not project.run_dir.is_dir():
        fail(f"start of {run_id} failed ({out.returncode}): {out.stdout}\n{out.stderr}")
    return project, ms


def stop_range(n, rules):
    """The stops a run of N findings of RULES rules (N/RULES each) takes with every survey
    answering triage_each: one dispatch of 20 items a stop (the surveys, then the batches of
    8 that each stop's released findings form), then the finalizing stop. Batches are cut per
    stop's release, so a release may leave one short batch: at most one more per rule."""
    least = math.ceil(n / 8) + rules
    return math.ceil(least / 20) + 1, math.ceil((least + rules) / 20) + 1


def drive(project, model, snapshot=None):
    """Stops until the run ends, answering every dispatch before the next stop; returns the
    stops (each timed) and the index of the first stop made with half the findings answered
    (the project's store as that stop found it is copied to SNAPSHOT)."""
    n = project.findings
    least, most = stop_range(n, project.rules) if model.survey == "triage_each" else (2, 50)
    stops, mid = [], None
    while True:
        if len(stops) >= most:
            fail(f"{project.run_id} did not end within {most} stops ({model.decided} of {n} "
                 "answered)")
        if snapshot is not None and mid is None and model.decided >= n // 2:
            shutil.copytree(project.root / ".self-repair", snapshot, symlinks=True)
            mid = len(stops)
        ms, out = project.stop()
        if out.returncode != 0:
            fail(f"stop {len(stops) + 1} exited {out.returncode}: {out.stderr[:500]}")
        ids = dispatch_ids(out.stdout)
        record = {"stop": len(stops) + 1, "ms": round(ms, 2), "cpu_ms": round(project.cpu_ms, 2),
                  "sys_ms": round(project.sys_ms, 2), "load": loadavg()}
        if not ids:
            # The finalizing stop: it allows the session's end, with the run's last words.
            if '"decision":"block"' in out.stdout.replace(" ", "") or "complete" not in out.stdout:
                fail(f"stop {len(stops) + 1} of {project.run_id} dispatched nothing and is not "
                     f"the finalize's allow: {out.stdout[:500]}")
            record.update(kind="final", answer=out.stdout.strip()[:300])
            stops.append(record)
            break
        if model.survey == "triage_each" and stops and stops[-1]["dispatched"] < 20:
            fail(f"stop {len(stops)} dispatched {stops[-1]['dispatched']} items, fewer than 20, "
                 "and was not the run's last wave")
        kinds = [model.answer(item) for item in ids]
        record.update(kind="wave", dispatched=len(ids), surveys=kinds.count("rule_survey"))
        stops.append(record)
        if len(stops) % 50 == 0:
            say(f"stop {len(stops)}: {ms:.1f} ms, {model.decided} of {n} answered")
    status = project.status()
    if status.get("status") != "complete":
        fail(f"the stop that dispatched nothing left {project.run_id} {status.get('status')} at "
             f"{status.get('phase')}: {out.stdout[:500]}")
    triage = next(p for p in status["phases"] if p["phase"] == "triage")
    left = {k: triage[k] for k in ("pending", "running", "failed", "quarantined")}
    if any(left.values()) or triage["done"] < n or (model.survey == "triage_each"
                                                    and model.decided != n):
        fail(f"{project.run_id} is complete but not every finding was decided: {triage}, "
             f"{model.decided} answered of {n}")
    if not least <= len(stops) <= most:
        fail(f"{project.run_id} took {len(stops)} stops, outside {least}..{most}")
    return stops, mid


def summary(stops, mid):
    waves = [s for s in stops if s["kind"] == "wave"]
    others = stops[:-1]
    figures = {"stops": len(stops), "wave_stops": len(waves)}
    # Wall time (what the client waits) and CPU time (what the stop costs, whatever the load).
    for key, suffix in (("ms", "ms"), ("cpu_ms", "cpu_ms")):
        figures.update({
            f"median_wave_{suffix}": round(statistics.median(s[key] for s in waves), 2),
            f"p90_wave_{suffix}": round(percentile([s[key] for s in waves], 0.9), 2),
            f"slowest_other_{suffix}": max(s[key] for s in others),
            f"final_{suffix}": stops[-1][key],
        })
    cpu = sum(s["cpu_ms"] for s in waves)
    figures["wave_sys_share"] = round(sum(s["sys_ms"] for s in waves) / cpu, 3) if cpu else None
    return {
        **figures,
        "slowest_other_stop": max(others, key=lambda s: s["ms"])["stop"],
        "slowest_other_cpu_stop": max(others, key=lambda s: s["cpu_ms"])["stop"],
        "final_load": stops[-1]["load"],
        "mid_stop": mid + 1 if mid is not None else None,
        "mid_stop_ms": stops[mid]["ms"] if mid is not None else None,
        "load_during_run": [stops[0]["load"], stops[len(stops) // 2]["load"], stops[-1]["load"]],
    }


def spawn_reference(project, repeat):
    """The hook with empty stdin and /bin/true, spawned as every stop is."""
    empty, empty_cpu = [], []
    for _ in range(max(20, repeat)):
        empty.append(project.timed(["hook", "stop"], stdin="")[0])
        empty_cpu.append(project.cpu_ms)
    true_ms = []
    for _ in range(max(20, repeat)):
        t0 = time.perf_counter_ns()
        subprocess.run(["/bin/true"], input="", capture_output=True, text=True)
        true_ms.append((time.perf_counter_ns() - t0) / 1e6)
    return {"hook_empty_ms": round(statistics.median(empty), 2),
            "hook_empty_cpu_ms": round(statistics.median(empty_cpu), 2),
            "true_ms": round(statistics.median(true_ms), 2)}


def restore(project, snapshot):
    shutil.rmtree(project.root / ".self-repair")
    shutil.copytree(snapshot, project.root / ".self-repair", symlinks=True)


def main():
    args = sys.argv[1:]
    if args[:1] == ["table"]:
        return table(args[1:])
    if len(args) < 3:
        fail(__doc__.split("\n\n")[1])
    binary, work, n = os.path.abspath(args[0]), Path(args[1]).resolve(), int(args[2])
    opt = lambda name, default: args[args.index(name) + 1] if name in args else default
    files, rules = int(opt("--files", 400)), int(opt("--rules", 37))
    repeat = int(opt("--repeat", 5))
    commands, callgrind = "--commands" in args, "--callgrind" in args
    lines = max(10, math.ceil(n / files))
    findings = work / f"{n}.jsonl"
    say(f"{n} findings of {rules} rules over {files} files x {lines} lines (load {loadavg()})")
    subprocess.run([HERE / "generate.sh", "project", work / "base", str(files), str(lines)],
                   check=True)
    with open(findings, "w") as f:
        subprocess.run([HERE / "generate.sh", "jsonl", str(n), str(files), str(lines), str(rules)],
                       stdout=f, check=True)
    project, start_ms = new_project(binary, work / "run", findings, RUN, src=work / "base/src")
    project.findings, project.rules = n, rules
    say(f"start: {start_ms:.0f} ms")
    result = {"findings": n, "rules": rules, "files": files, "binary": binary,
              "start_ms": round(start_ms, 1), "stop_range": stop_range(n, rules),
              "load_at_start": loadavg(), **spawn_reference(project, repeat)}
    snapshot = work / "mid-snapshot"
    stops, mid = drive(project, Model(project, "triage_each"), snapshot)
    result.update(summary(stops, mid))
    result["state_bytes"] = sum(p.stat().st_size for p in project.run_dir.rglob("*")
                                if p.is_file())
    say(f"{len(stops)} stops: median wave {result['median_wave_ms']:.1f} ms, "
        f"finalize {result['final_ms']:.0f} ms")
    # The stops' figures, kept in the log should a later step fail.
    say("stops: " + json.dumps({**result, "per_stop": [(s["ms"], s["cpu_ms"]) for s in stops]}))
    if commands:
        result["end"] = read_commands(project, repeat, finished=True, work=work,
                                      findings_file=findings)
        result["end"]["merge"] = merge(binary, work, findings, n, rules, repeat)
    restore(project, snapshot)
    if commands:
        result["mid"] = read_commands(project, repeat, finished=False)
    callgrind = callgrind and shutil.which("valgrind") is not None
    if callgrind:
        result["callgrind_mid_wave"] = count_instructions(project, "mid-wave", dispatches=True)
        restore(project, snapshot)
    result["stalled"] = stalled(project, repeat, callgrind)
    result["load_at_end"] = loadavg()
    result["per_stop"] = stops
    print(json.dumps(result, indent=1))


def merge(binary, work, findings, n, rules, repeat):
    """`merge` of the two shares of the same findings (`start --partition hash:K/2 --until
    triage`), each driven to its end with every survey answering fix_all (a few stops a share:
    the surveys, their spot checks, the finalize), timed into a new project each time."""
    shares = []
    for k in (1, 2):
        share, _ = new_project(binary, work / f"share{k}", findings, f"share{k}",
                               extra_start=("--partition", f"hash:{k}/2"),
                               src=work / "base/src")
        share.findings = json.loads(share.run(["status", "--json"]).stdout)["intake"]["routed"]
        share.rules = rules
        drive(share, Model(share, "fix_all"))
        shares.append(str(share.run_dir))
    say(f"merge: two shares of {n} findings triaged")
    times, cpu = [], []
    for i in range(1 + max(1, repeat // 2)):
        root = work / f"merged{i}"
        (root / ".self-repair").mkdir(parents=True)
        (root / "src").symlink_to(work / "base/src")
        project = Project(binary, root, "merged")
        ms, out = project.timed(["merge", *shares, "--run-id", "merged", "--json"])
        if out.returncode != 0:
            fail(f"merge exited {out.returncode}: {out.stdout[:500]} {out.stderr[:500]}")
        got = json.loads(out.stdout)
        findings_merged = sum(s.get("unique", 0) for s in got.get("shares", []))
        if findings_merged != n:
            fail(f"merge combined {findings_merged} findings, not {n}: {out.stdout[:500]}")
        if i:
            times.append(ms)
            cpu.append(project.cpu_ms)
        shutil.rmtree(root)
    return {"median_ms": round(statistics.median(times), 2),
            "median_cpu_ms": round(statistics.median(cpu), 2), "runs": len(times),
            "load": loadavg()}


def count_instructions(project, name, dispatches):
    """Instructions of one `hook stop` on the project as it is (valgrind callgrind); the stop
    must dispatch (DISPATCHES) or allow silently."""
    out_file = project.root.parent / f"{name}.callgrind"
    done = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out_file}",
                           project.binary, "hook", "stop"], input=project.hook_input,
                          capture_output=True, cwd=project.root, env=project.env, text=True)
    answered = bool(dispatch_ids(done.stdout)) if dispatches else not done.stdout.strip()
    if done.returncode != 0 or not answered:
        fail(f"the {name} stop under valgrind did not answer as expected: {done.stdout[:300]} "
             f"{done.stderr[-500:]}")
    total = re.search(r"Collected : (\d+)", done.stderr)
    if not total:
        fail("valgrind printed no instruction count")
    return int(total.group(1))


def stalled(project, repeat, callgrind):
    """From the mid-run state: stops with nothing running and nothing submitted until the run
    stalls, then `repeat` later stops of the session (each must allow silently)."""
    for _ in range(10):
        ms, out = project.stop()
        if out.returncode != 0:
            fail(f"a stop towards the stall exited {out.returncode}")
        if "stalled" in out.stdout:
            break
    else:
        fail("the run did not stall within 10 stops with nothing running")
    before = tree_digest(project.run_dir)
    times, cpu = [], []
    for _ in range(repeat):
        ms, out = project.stop()
        if out.returncode != 0 or out.stdout.strip():
            fail(f"a stop of the stalled run did not allow silently: {out.stdout[:300]}")
        times.append(ms)
        cpu.append(project.cpu_ms)
    result = {"median_ms": round(statistics.median(times), 2),
              "median_cpu_ms": round(statistics.median(cpu), 2), "runs": repeat,
              "load": loadavg(), "wrote": tree_digest(project.run_dir) != before}
    if callgrind:
        result["instructions"] = count_instructions(project, "stalled", dispatches=False)
    return result


def read_commands(project, repeat, finished, work=None, findings_file=None):
    """The commands that read a run, timed on it as it is."""
    def names_run(out):
        if project.run_id not in out:
            fail(f"status does not name the run: {out[:300]}")

    def row(out):
        # A row for a run in progress, nothing once it is complete (reference/install.md).
        if finished and out.strip():
            fail(f"the status line printed a row for a complete run: {out[:300]}")
        if not finished and not out.startswith(f"self-repair {project.run_id}"):
            fail(f"the status line printed no row of the run: {out[:300]}")

    def lists_run(out):
        if project.run_id not in out:
            fail(f"runs does not list the run: {out[:300]}")

    timed = {
        "status": median_of(project, ["status"], repeat, check=names_run),
        "status --findings": median_of(project, ["status", "--findings"], repeat, to_null=True),
        "statusline": median_of(project, ["statusline"], repeat, stdin=project.statusline_input,
                                check=row),
        "runs": median_of(project, ["runs"], repeat, check=lists_run),
    }
    if not finished:
        return timed

    def sarif(out):
        log = json.loads(out)
        results = sum(len(r.get("results", [])) for r in log.get("runs", []))
        # One run for the one tool, cut to GitHub's 25,000 results a run (reference/export.md).
        if results != min(project.findings, 25000):
            fail(f"export sarif wrote {results} results, not {min(project.findings, 25000)}")

    timed["export sarif"] = median_of(project, ["export", "sarif"], repeat, check=sarif)
    labels = work / "labels.jsonl"
    with open(findings_file) as src, open(labels, "w") as dst:
        for i, line in enumerate(src):
            f = json.loads(line)
            # Every 10th finding labelled not real: the run's `real` verdicts then score as
            # false alarms there, so eval has both sides to count.
            dst.write(json.dumps({"path": f["path"], "line": f["line"], "rule": f["rule_id"],
                                  "label": "false" if i % 10 == 0 else "true"}) + "\n")

    def scored(out):
        d = json.loads(out)
        c = d["all"]["confusion"]
        total = sum(c.get(k, 0) for k in ("real_kept", "real_closed", "false_kept", "false_closed"))
        if total != project.findings:
            fail(f"eval scored {total} labelled findings, not {project.findings}: {c}")

    timed["eval"] = median_of(project, ["eval", project.run_id, "--labels", str(labels), "--model",
                                                "scripted:every answer real", "--json"], repeat,
                              check=scored)
    return timed


def goals(r):
    """The goals of a stop that costs the same at every size, each `met` or `MISSED` by the
    wall time and, on a machine whose load makes wall times wait for a core, by CPU time."""
    def judge(key, bound, label, figures=r):
        wall, cpu = figures.get(f"{key}ms"), figures.get(f"{key}cpu_ms")
        text = f"{label}: {'met' if wall <= bound else 'MISSED'}"
        if cpu is not None:
            text += f" (by CPU time: {'met' if cpu <= bound else 'MISSED'})"
        return text

    out = [judge("median_wave_", 5, "median wave stop ≤ 5 ms"),
           judge("slowest_other_", 50, "no stop but the finalizing one over 50 ms"),
           judge("median_", 5, "stalled stop ≤ 5 ms", r["stalled"])]
    if r["findings"] >= 100000:
        out.append(judge("final_", 1000, "finalizing stop ≤ 1 s"))
        if "mid" in r:
            out.append(judge("median_", 100, "`status` ≤ 100 ms (mid-run)", r["mid"]["status"]))
            out.append(judge("median_", 100, "`status` ≤ 100 ms (at the end)", r["end"]["status"]))
            line, idle = r["mid"]["statusline"]["median_ms"], r["hook_empty_ms"]
            out.append(f"status line ≤ 3× the idle hook (mid-run): "
                       f"{'met' if line <= 3 * idle else 'MISSED'} ({line / idle:.1f}×)")
    return out


def table(files):
    """The markdown tables of `scale_run.py table JSON...` (one JSON a size)."""
    runs = [json.loads(Path(f).read_text()) for f in files]
    ms = lambda v: "—" if v is None else (f"{v:,.0f} ms" if v >= 100 else f"{v:.1f} ms")
    print("| findings | stops | median wave stop | p90 | slowest other stop | finalizing stop "
          "| stalled stop | hook, empty stdin | instructions: mid-run wave stop, stalled stop "
          "| load average (start → end) |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for r in runs:
        count, still = r.get("callgrind_mid_wave"), r["stalled"].get("instructions")
        for what, key in (("wall", "ms"), ("CPU", "cpu_ms")):
            if r.get(f"final_{key}") is None:
                continue
            first = what == "wall"
            print(f"| {r['findings']:,} {what} | {r['stops'] if first else ''} "
                  f"| {ms(r[f'median_wave_{key}'])} | {ms(r[f'p90_wave_{key}'])} "
                  f"| {ms(r[f'slowest_other_{key}'])} (stop "
                  f"{r['slowest_other_stop' if first else 'slowest_other_cpu_stop']}) "
                  f"| {ms(r[f'final_{key}'])} | {ms(r['stalled'].get(f'median_{key}'))} "
                  f"| {ms(r.get(f'hook_empty_{key}'))} "
                  f"| {f'{count:,}, {still:,}' if count and first else ''} "
                  f"| {r['load_at_start'] + ' → ' + r['load_at_end'] if first else ''} |")
    print()
    for r in runs:
        share = r.get("wave_sys_share")
        split = (f" The wave stops' CPU time: {100 * share:.0f} % system, {100 - 100 * share:.0f} %"
                 " user." if share is not None else "")
        print(f"- {r['findings']:,} findings: " + "; ".join(goals(r)) + "." + split)
    with_commands = [r for r in runs if "end" in r]
    if not with_commands:
        return
    names = list(with_commands[0]["end"]) + [c for c in with_commands[0]["mid"]
                                             if c not in with_commands[0]["end"]]
    cell = lambda t: "—" if t is None else (
        ms(t["median_ms"]) + (f" ({ms(t['median_cpu_ms'])})" if "median_cpu_ms" in t else ""))
    print()
    print("Wall time (CPU time), median:")
    print()
    print("| command | " + " | ".join(f"{r['findings']:,}: end | mid-run" for r in with_commands)
          + " |")
    print("|---|" + "---:|---:|" * len(with_commands))
    for name in names:
        cells = [f"{cell(r['end'].get(name))} | {cell(r['mid'].get(name))}"
                 for r in with_commands]
        print(f"| `{name}` | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
