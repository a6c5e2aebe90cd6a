#!/usr/bin/env python3
"""Answers the triage batches one Stop hook output dispatched, as their agents would: for each
`tb-` item the output names, one `real` verdict per finding of the batch (its members are in
`items/<id>.input.json`), submitted with the binary under test. Used by scripts/bench.sh (2e).

    answer_wave.py BIN PROJECT RUN_DIR STOP_OUTPUT   prints how many batches it answered
"""
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

binary, project, run_dir, output = sys.argv[1:5]
batches = sorted(set(re.findall(r"tb-\d{5}", Path(output).read_text())))
for batch in batches:
    spec = json.loads((Path(run_dir) / "items" / f"{batch}.input.json").read_text())
    if isinstance(spec, list):
        # The batches one stop dispatched share one file, a list of their inputs.
        spec = next(s for s in spec if s.get("item") == batch)
    members = spec["inputs"]
    result = {
        "verdicts": [
            {
                "item": member,
                "verdict": "real",
                "root_cause": "unused import",
                "reason": "the import is never used anywhere",
                "confidence": 0.9,
            }
            for member in members
        ]
    }
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(result, f)
    subprocess.run(
        [binary, "-C", project, "submit", batch, "--file", f.name],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    Path(f.name).unlink()
print(len(batches))
