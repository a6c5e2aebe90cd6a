#!/usr/bin/env python3
"""The finalize and the read commands of a large run, timed on copies of one run's snapshots
(issue 45; reference/benchmarks.md, "Finalize and commands at 100,000, after").

    finalize_at_scale.py make BIN WORK [N]     drive a run of N findings (100,000) to its end
    finalize_at_scale.py time BIN WORK LABEL [--repeat R] [--only finalize,status,...]

`make`: N findings of 37 rules over 1,000 files (scripts/bench/generate.sh), `start --until
triage` with `triage_batch` 40, every survey answering `triage_each` and every batch `real`
(scale_run.py's scripted model), driven through BIN's Stop hook; keeps WORK/snap-mid (the store
once half the findings are answered), WORK/snap-prefinal (the store before the finalizing
stop), WORK/snap-complete, and two shares of the same findings (`start --partition hash:K/2`,
surveys answering `fix_all`) driven to their end for `merge`.

`time`: the CPU time (user + system, of the process and its children) of the finalizing
`hook stop` on a fresh copy of snap-prefinal, of `status`, `status --findings` (finished and
mid-run), `runs`, `export sarif`, `eval` on copies of snap-complete, and `merge` of the two
shares, each R times (3; the median is printed), by BIN. Compare CPU time, not wall time, on a
shared machine. Prints one line a command and writes WORK/t-LABEL/results.json.
"""
import json
import math
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import scale_run as S  # noqa: E402

FILES, RULES, BATCH = 1000, 37, 40


def project_at(binary, work, findings, root, run_id, extra=()):
    (root / ".self-repair").mkdir(parents=True)
    (root / ".home").mkdir()
    (root / "src").symlink_to(work / "base/src")
    (root / ".self-repair" / "config.json").write_text(
        json.dumps({"confirm_above_usd": None, "triage_batch": BATCH}) + "\n")
    p = S.Project(binary, root, run_id)
    env = dict(p.env, CLAUDE_CODE_SESSION_ID="s1")
    _, out = p.timed(["start", str(findings), "--format", "jsonl", "--run-id", run_id,
                      "--until", "triage", *extra], env=env)
    if out.returncode != 0:
        S.fail(f"start of {run_id} failed: {out.stderr[:500]}")
    return p


def drive(p, model, work=None, n=0):
    """Stops until the run ends; with WORK, keeps the mid-run and pre-finalize snapshots."""
    while True:
        if work and model.decided >= n // 2 and not (work / "snap-mid").exists():
            shutil.copytree(p.root / ".self-repair", work / "snap-mid", symlinks=True)
        if work and model.decided >= n:
            shutil.rmtree(work / "snap-prefinal", ignore_errors=True)
            shutil.copytree(p.root / ".self-repair", work / "snap-prefinal", symlinks=True)
        _, out = p.stop()
        if out.returncode != 0:
            S.fail(f"a stop exited {out.returncode}: {out.stderr[:500]}")
        ids = S.dispatch_ids(out.stdout)
        if not ids:
            return
        for item in ids:
            model.answer(item)


def make(binary, work, n):
    work.mkdir(parents=True, exist_ok=True)
    lines = max(10, math.ceil(n / FILES))
    findings = work / f"{n}.jsonl"
    subprocess.run([S.HERE / "generate.sh", "project", work / "base", str(FILES), str(lines)],
                   check=True)
    with open(findings, "w") as f:
        subprocess.run([S.HERE / "generate.sh", "jsonl", str(n), str(FILES), str(lines),
                        str(RULES)], stdout=f, check=True)
    p = project_at(binary, work, findings, work / "run", "rscale")
    drive(p, S.Model(p, "triage_each"), work, n)
    shutil.copytree(p.root / ".self-repair", work / "snap-complete", symlinks=True)
    for k in (1, 2):
        share = project_at(binary, work, findings, work / f"share{k}", f"share{k}",
                           ("--partition", f"hash:{k}/2"))
        drive(share, S.Model(share, "fix_all"))
    with open(findings) as src, open(work / "labels.jsonl", "w") as dst:
        for i, line in enumerate(src):
            f = json.loads(line)
            dst.write(json.dumps({"path": f["path"], "line": f["line"], "rule": f["rule_id"],
                                  "label": "false" if i % 10 == 0 else "true"}) + "\n")
    S.say(f"{work}: snapshots made")


def copy_of(work, out, name, snap):
    root = out / name
    if root.exists():
        shutil.rmtree(root)
    root.mkdir(parents=True)
    if snap:
        shutil.copytree(work / snap, root / ".self-repair", symlinks=True)
    else:
        (root / ".self-repair").mkdir()
    (root / "src").symlink_to(work / "base/src")
    (root / ".home").mkdir()
    return root


def run(binary, root, args, stdin=None):
    env = {k: v for k, v in os.environ.items()
           if k not in ("CLAUDE_PROJECT_DIR", "CLAUDE_CODE_SESSION_ID", "SELF_REPAIR_RUN")}
    env.update(SELF_REPAIR_NOW="1763800000", HOME=str(root / ".home"))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    out = subprocess.run([binary, *args], input=stdin, capture_output=True, cwd=root, env=env,
                         text=True)
    wall = (time.perf_counter() - t0) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if out.returncode != 0:
        S.fail(f"`{' '.join(args)}` exited {out.returncode}: {out.stderr[:500]}")
    user = (after.ru_utime - before.ru_utime) * 1000
    system = (after.ru_stime - before.ru_stime) * 1000
    return {"user": user, "sys": system, "wall": wall, "out": out.stdout}


def timed(binary, work, label, repeat, only):
    out = work / f"t-{label}"
    results = {}

    def record(name, samples):
        cpu = [s["user"] + s["sys"] for s in samples]
        s = samples[cpu.index(statistics.median_low(cpu))]
        results[name] = {k: round(s[k], 1) for k in ("user", "sys", "wall")}
        results[name]["cpu"] = round(s["user"] + s["sys"], 1)
        print(f"{label} {name}: CPU {s['user'] + s['sys']:.0f} ms (user {s['user']:.0f} + sys "
              f"{s['sys']:.0f}), wall {s['wall']:.0f} ms; all {[round(c) for c in cpu]}",
              flush=True)

    want = lambda name: only is None or name in only  # noqa: E731
    if want("finalize"):
        samples = []
        for _ in range(repeat):
            root = copy_of(work, out, "finalize", "snap-prefinal")
            hook = json.dumps({"session_id": "s1", "transcript_path": "/dev/null",
                               "cwd": str(root), "hook_event_name": "Stop",
                               "stop_hook_active": True, "background_tasks": []}) + "\n"
            samples.append(run(binary, root, ["hook", "stop"], stdin=hook))
            if "complete" not in samples[-1]["out"]:
                S.fail(f"the finalizing stop did not complete the run: {samples[-1]['out'][:300]}")
        record("finalize", samples)
    end = copy_of(work, out, "end", "snap-complete")
    mid = copy_of(work, out, "mid", "snap-mid")
    commands = [
        ("status", end, ["status"]), ("status mid-run", mid, ["status"]),
        ("status --findings", end, ["status", "--findings"]),
        ("status --findings mid-run", mid, ["status", "--findings"]),
        ("runs", end, ["runs"]), ("export sarif", end, ["export", "sarif"]),
        ("eval", end, ["eval", "rscale", "--labels", str(work / "labels.jsonl"), "--model",
                       "scripted:every answer real", "--json"]),
    ]
    for name, root, args in commands:
        if want(name.removesuffix(" mid-run")):
            run(binary, root, args)
            record(name, [run(binary, root, args) for _ in range(repeat)])
    if want("merge"):
        shares = [str(work / f"share{k}/.self-repair/runs/share{k}") for k in (1, 2)]
        record("merge", [run(binary, copy_of(work, out, "merged", None),
                             ["merge", *shares, "--run-id", "merged", "--json"])
                         for _ in range(repeat)])
    (out / "results.json").write_text(json.dumps(results, indent=1) + "\n")
    print(f"load average: {S.loadavg()}")


def main():
    args = sys.argv[1:]
    if len(args) >= 3 and args[0] == "make":
        return make(os.path.abspath(args[1]), Path(args[2]).resolve(),
                    int(args[3]) if len(args) > 3 else 100_000)
    if len(args) >= 4 and args[0] == "time":
        opt = lambda name, default: args[args.index(name) + 1] if name in args else default  # noqa: E731
        only = opt("--only", None)
        return timed(os.path.abspath(args[1]), Path(args[2]).resolve(), args[3],
                     int(opt("--repeat", 3)), only.split(",") if only else None)
    S.fail(__doc__.split("\n\n")[1])


if __name__ == "__main__":
    main()
