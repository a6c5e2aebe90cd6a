#!/usr/bin/env python3
"""Times `self-repair audit` in a real terminal (tmux) with scripted keystrokes.

A temp project of the pyparsing corpus (tests/fixtures/corpus), its 2,936 Ruff findings the
known registry dismisses (`known baseline`), a second run that closes them all; then
`self-repair audit r-2 --size 30` in a detached tmux session of its own (its own socket), each
answer typed once its prompt shows: `a`, and `d` with a reason for every tenth (3 of 30). Prints
the wall time of the whole audit and each prompt's latency: the tool's share of a person's
time (their reading is not in it). reference/audit.md, "Measured".

    python3 scripts/audit-terminal-timing.py [BINARY]   # default target/debug/self-repair
"""

import os
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BINARY = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "target/debug/self-repair"))
CORPUS = os.path.join(ROOT, "tests/fixtures/corpus/pyparsing-3.2.3")
AGENT_VARIABLES = ["CLAUDECODE", "CLAUDE_CODE_ENTRYPOINT", "CLAUDE_AGENT_SDK_VERSION", "GEMINI_CLI",
                   "CODEX_SANDBOX", "CODEX_THREAD_ID", "COPILOT_CLI", "CURSOR_AGENT"]
LIMIT = 60  # seconds any one prompt may take to show


def main():
    work = tempfile.mkdtemp(prefix="audit-timing-")
    project = os.path.join(work, "project")
    shutil.copytree(CORPUS, project)
    os.mkdir(os.path.join(project, ".git"))
    env = {k: v for k, v in os.environ.items() if k not in AGENT_VARIABLES}
    env["SELF_REPAIR_NOW"] = "1796600000"
    sarif = "ruff-0.17.6-select-all.sarif"
    for args in (["start", sarif, "--run-id", "r-1"],
                 ["known", "baseline", "--verdict", "intended", "--reason", "accepted debt", sarif],
                 ["start", sarif, "--run-id", "r-2", "--replace"]):
        subprocess.run([BINARY, *args], cwd=project, env=env, check=True, capture_output=True)
    socket = os.path.join(work, "tmux.sock")

    def tmux(*args):
        return subprocess.run(["tmux", "-S", socket, *args], capture_output=True, text=True, env=env).stdout

    command = f"{BINARY} audit r-2 --size 30 --seed 44 --by timing-script; echo AUDIT-EXIT=$?; sleep 30"
    tmux("-f", "/dev/null", "new-session", "-d", "-s", "audit", "-x", "160", "-y", "50", "-c", project, command)
    tmux("set-option", "-t", "audit", "history-limit", "50000")
    started = time.time()

    def wait_for(predicate):
        since = time.time()
        while time.time() - since < LIMIT:
            screen = tmux("capture-pane", "-p", "-J", "-t", "audit", "-S", "-")
            if predicate(screen):
                return screen, time.time() - since
            time.sleep(0.02)
        tmux("kill-server")
        sys.exit("a prompt did not show within %d s" % LIMIT)

    latencies, asked = [], 0
    while True:
        screen, waited = wait_for(lambda s: s.count("[a]gree / [d]isagree") > asked or "AUDIT-EXIT" in s)
        if "AUDIT-EXIT" in screen:
            break
        latencies.append(waited)
        asked += 1
        if asked % 10 == 3:
            tmux("send-keys", "-t", "audit", "d", "Enter")
            wait_for(lambda s: s.count("(one line) >") >= (asked + 7) // 10)
            tmux("send-keys", "-t", "audit", "-l", f"scripted disagreement {asked}")
            tmux("send-keys", "-t", "audit", "Enter")
        else:
            tmux("send-keys", "-t", "audit", "a", "Enter")
    total = time.time() - started
    for line in screen.splitlines():
        if line.startswith(("audit:", "AUDIT-EXIT")) or "answered:" in line:
            print(line)
    print(f"{asked} prompts in {total:.2f} s; latency per prompt: first {latencies[0]:.3f} s, "
          f"mean {sum(latencies) / len(latencies):.3f} s, max {max(latencies):.3f} s")
    tmux("kill-server")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
