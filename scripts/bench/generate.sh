#!/usr/bin/env bash
# Data generators for scripts/bench.sh (POSIX awk only, no other tools).
#
#   generate.sh project DIR FILES LINES     DIR/src/pkgK/module_N.py, LINES distinct lines each
#   generate.sh sarif   N FILES LINES        SARIF 2.1.0 log with N results over FILES files (stdout)
#   generate.sh jsonl   N FILES LINES        N generic JSONL findings over FILES files (stdout)
#
# Result i lands in file (i % FILES) on line (i / FILES) % LINES + 1 with its own symbol, so no two
# findings share a fingerprint (nothing is merged) and every fingerprint reads a real source line.
set -euo pipefail

usage() {
    echo "usage: generate.sh project DIR FILES LINES | sarif N FILES LINES | jsonl N FILES LINES" >&2
    exit 2
}

[[ $# -eq 4 ]] || usage
kind=$1
case $kind in
project)
    dir=$2 files=$3 lines=$4
    for ((k = 0; k < 20 && k < files; k++)); do mkdir -p "$dir/src/pkg$k"; done
    awk -v dir="$dir" -v files="$files" -v lines="$lines" 'BEGIN {
        for (f = 0; f < files; f++) {
            path = sprintf("%s/src/pkg%d/module_%d.py", dir, f % 20, f)
            for (l = 1; l <= lines; l++)
                printf "import mod_%d_%d  # generated line %d\n", f, l, l > path
            close(path)
        }
    }'
    ;;
sarif)
    n=$2 files=$3 lines=$4
    awk -v n="$n" -v files="$files" -v lines="$lines" 'BEGIN {
        print "{\"$schema\":\"https://json.schemastore.org/sarif-2.1.0.json\",\"version\":\"2.1.0\",\"runs\":[{"
        print "\"tool\":{\"driver\":{\"name\":\"ruff\",\"informationUri\":\"https://docs.astral.sh/ruff\",\"rules\":["
        print "{\"id\":\"F401\",\"shortDescription\":{\"text\":\"unused-import\"},\"defaultConfiguration\":{\"level\":\"warning\"}}]}},"
        print "\"results\":["
        for (i = 0; i < n; i++) {
            f = i % files; l = int(i / files) % lines + 1
            printf "%s{\"ruleId\":\"F401\",\"level\":\"warning\",\"message\":{\"text\":\"`mod_%d_%d` imported but unused\"},", (i ? ",\n" : ""), f, l
            printf "\"locations\":[{\"physicalLocation\":{\"artifactLocation\":{\"uri\":\"src/pkg%d/module_%d.py\"},", f % 20, f
            printf "\"region\":{\"startLine\":%d,\"startColumn\":8,\"endLine\":%d,\"endColumn\":%d}}}]}", l, l, 8 + length(sprintf("mod_%d_%d", f, l))
        }
        print "\n]}]}"
    }'
    ;;
jsonl)
    n=$2 files=$3 lines=$4
    awk -v n="$n" -v files="$files" -v lines="$lines" 'BEGIN {
        for (i = 0; i < n; i++) {
            f = i % files; l = int(i / files) % lines + 1
            printf "{\"tool\":\"ruff\",\"rule_id\":\"F401\",\"level\":\"warning\",\"message\":\"`mod_%d_%d` imported but unused\",\"path\":\"src/pkg%d/module_%d.py\",\"line\":%d,\"symbol\":\"mod_%d_%d\"}\n", f, l, f % 20, f, l, f, l
        }
    }'
    ;;
*) usage ;;
esac
