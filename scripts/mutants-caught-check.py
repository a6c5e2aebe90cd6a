#!/usr/bin/env python3
"""Checks that every mutant a cargo-mutants run counts as caught was caught by a failed test.

Usage: mutants-caught-check.py MUTANTS_OUT

MUTANTS_OUT is a run's `mutants.out` folder (outcomes.json and log/). cargo-mutants counts a
mutant caught whenever its test command exits non-zero, whatever the reason: a `cargo test`
that fails on its own arguments, or a test binary that refuses an option, fails on every
mutant before any test runs, and every mutant then counts as caught. This reads the test
phase of each caught mutant's log and looks for a failed test: libtest's `test result: FAILED`
or `test NAME ... FAILED`, a `panicked at`, nextest's `FAIL [`, `SIGSEGV [` or `TIMEOUT [`
lines, a stack overflow, or a test binary killed by a signal. A timeout (cargo-mutants'
`Timeout`) is the tests not passing and is not checked.

Prints each caught mutant without one, with its log, and exits 1; exits 0 when every caught
mutant has one, 2 on a usage error or a folder without outcomes.json.
"""

import json
import re
import sys
from pathlib import Path

FAILED_TEST = re.compile(
    r"test result: FAILED"
    r"|^\s*test \S.* \.\.\. FAILED\s*$"
    r"|panicked at"
    r"|^\s*(FAIL|SIG[A-Z]+|ABORT|TIMEOUT)\s+\["
    r"|has overflowed its stack"
    r"|process didn't exit successfully: .*\(signal: ",
    re.MULTILINE,
)


def test_phase(log: str) -> str:
    """The log from its last test command on (`*** cargo test ...` or `*** cargo nextest run
    ...` without `--no-run`): a build's output is not a test's."""
    start = 0
    for line in re.finditer(r"^\*\*\* cargo .*$", log, re.MULTILINE):
        if "--no-run" not in line.group(0) and re.search(r" (test|nextest run) ", line.group(0)):
            start = line.start()
    return log[start:]


def caught_without_failed_test(out: Path) -> list[tuple[str, str]]:
    """(mutant name, log path) of each caught mutant whose log holds no failed test."""
    outcomes = json.loads((out / "outcomes.json").read_text())["outcomes"]
    unproven = []
    for outcome in outcomes:
        if outcome.get("scenario") == "Baseline" or outcome.get("summary") != "CaughtMutant":
            continue
        name = outcome["scenario"]["Mutant"]["name"]
        log_path = out / outcome["log_path"]
        log = log_path.read_text(errors="replace") if log_path.is_file() else ""
        if not FAILED_TEST.search(test_phase(log)):
            unproven.append((name, str(log_path)))
    return unproven


def main(argv: list[str]) -> int:
    if len(argv) != 2 or not (Path(argv[1]) / "outcomes.json").is_file():
        print("usage: mutants-caught-check.py MUTANTS_OUT (a folder holding outcomes.json)",
              file=sys.stderr)
        return 2
    unproven = caught_without_failed_test(Path(argv[1]))
    for name, log in unproven:
        print(f"mutants:   caught with no failed test: {name} (log: {log})")
    if unproven:
        print(f"mutants: {len(unproven)} mutant(s) counted caught though no test failed: the test "
              "command failed before or outside the tests (its arguments, a build); the run "
              "is void", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
