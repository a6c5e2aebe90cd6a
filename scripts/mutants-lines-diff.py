#!/usr/bin/env python3
"""Prints a unified diff that touches exactly the lines of the mutants named, for cargo-mutants'
`--in-diff`: re-running misses by name with `--re` alone also runs every "delete field" mutant
of the crate, which cargo-mutants 27.1.0 never filters by name (reference/mutants.md, "Reading a
miss").

Usage (from the checkout's root): mutants-lines-diff.py MISSED_TXT > missed.diff

MISSED_TXT holds one mutant a line as cargo-mutants names it (`FILE:LINE:COL: what changed`,
its missed.txt). The diff's new side is the checkout's file; its old side has each named line
marked, so the diff's new text matches the source, as `--in-diff` checks.
"""

import collections
import os
import subprocess
import sys
import tempfile


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: mutants-lines-diff.py MISSED_TXT > missed.diff", file=sys.stderr)
        return 2
    lines = collections.defaultdict(set)
    with open(argv[1]) as names:
        for name in filter(None, map(str.strip, names)):
            path, line = name.split(":")[:2]
            lines[path].add(int(line))
    for path, wanted in sorted(lines.items()):
        with open(path) as source:
            new = source.read().splitlines(keepends=True)
        old = [text.rstrip("\n") + " // before\n" if n + 1 in wanted else text
               for n, text in enumerate(new)]
        with tempfile.NamedTemporaryFile("w", delete=False) as before:
            before.writelines(old)
        try:
            diff = subprocess.run(
                ["diff", "-u", "--label", "a/" + path, "--label", "b/" + path, before.name, path],
                capture_output=True, text=True, check=False).stdout
        finally:
            os.unlink(before.name)
        sys.stdout.write(diff)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
