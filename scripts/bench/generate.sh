#!/usr/bin/env bash
# Data generators for scripts/bench.sh (POSIX awk only, no other tools).
#
#   generate.sh project DIR FILES LINES     DIR/src/pkgK/module_N.py, LINES distinct lines each
#   generate.sh sarif   N FILES LINES        SARIF 2.1.0 log with N results over FILES files (stdout)
#   generate.sh jsonl   N FILES LINES [RULES]
#                                            N generic JSONL findings over FILES files (stdout):
#                                            all of Ruff's F401, or with RULES, finding i of rule
#                                            X(1 + i % RULES) (X001 ... X037 for 37)
#   generate.sh transcripts DIR N RUN        a Claude Code session DIR/s1.jsonl and N sub-agent
#                                            transcripts DIR/s1/subagents/agent-<i>.jsonl, agent i
#                                            on item t-(100+i) of run RUN, 6 responses each
#
# Result i lands in file (i % FILES) on line (i / FILES) % LINES + 1 with its own symbol, so no two
# findings share a fingerprint (nothing is merged) and every fingerprint reads a real source line.
set -euo pipefail

usage() {
    echo "usage: generate.sh project DIR FILES LINES | sarif N FILES LINES | jsonl N FILES LINES [RULES] | transcripts DIR N RUN" >&2
    exit 2
}

[[ $# -eq 4 || ($# -eq 5 && $1 == jsonl) ]] || usage
kind=$1
case $kind in
transcripts)
    dir=$2 n=$3 run=$4
    mkdir -p "$dir/s1/subagents"
    awk -v dir="$dir" -v n="$n" -v run="$run" '
    function response(path, id, input, output) {
        printf "{\"type\":\"assistant\",\"requestId\":\"req_%s\",\"message\":{\"id\":\"msg_%s\",\"model\":\"claude-haiku-5-5\",\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"working on it\"}],\"stop_reason\":\"tool_use\",\"usage\":{\"input_tokens\":%d,\"output_tokens\":%d,\"cache_read_input_tokens\":12000,\"cache_creation_input_tokens\":900}}}\n", id, id, input, output > path
    }
    BEGIN {
        main = dir "/s1.jsonl"
        for (r = 0; r < 200; r++) response(main, "main" r, 30, 400)
        close(main)
        for (i = 1; i <= n; i++) {
            path = sprintf("%s/s1/subagents/agent-%016d.jsonl", dir, i)
            printf "{\"type\":\"user\",\"isSidechain\":true,\"message\":{\"role\":\"user\",\"content\":\"self-repair item t-%05d --run %s\"}}\n", 100 + i, run > path
            for (r = 0; r < 6; r++) response(path, i "_" r, 12, 250)
            close(path)
        }
    }'
    ;;
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
    n=$2 files=$3 lines=$4 rules=${5:-0}
    awk -v n="$n" -v files="$files" -v lines="$lines" -v rules="$rules" 'BEGIN {
        for (i = 0; i < n; i++) {
            f = i % files; l = int(i / files) % lines + 1
            rule = rules > 0 ? sprintf("X%03d", 1 + i % rules) : "F401"
            printf "{\"tool\":\"ruff\",\"rule_id\":\"%s\",\"level\":\"warning\",\"message\":\"`mod_%d_%d` imported but unused\",\"path\":\"src/pkg%d/module_%d.py\",\"line\":%d,\"symbol\":\"mod_%d_%d\"}\n", rule, f, l, f % 20, f, l, f, l
        }
    }'
    ;;
*) usage ;;
esac
