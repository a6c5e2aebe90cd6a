#!/usr/bin/env bash
# One command from a labelled corpus to its quality table: copy the corpus's code and analyzer
# output into a fresh project (never its labels: they stay in the corpus folder, outside the
# project the agents read, and only `eval` reads them), start a triage run on its findings,
# drive it unattended (`self-repair drive`: headless `claude -p` sessions, so a real model needs
# your API key or login), then score it with `self-repair eval`. Every figure it prints names
# the model that gave the verdicts.
#
#   scripts/eval-drive.sh CORPUS_DIR [--into DIR] [--budget USD] [--install] [--model MODEL]
#                         [--bin PATH] [--code DIR] [-- DRIVE_ARGS...]
#
#   CORPUS_DIR   a folder with corpus.json ({"name", "input", "format", "labels"}, and
#                "fetch" when it ships no code), the analyzer's output, the labels and the
#                code (tests/fixtures/eval/*)
#   --into DIR   where the project is made (default: a new temp folder); must not exist, unless
#                it holds the run r-eval of an earlier call: then that run goes on
#   --budget USD the run's budget and drive's (default 5)
#   --install    register the hooks in the project (`self-repair install --project`), for a
#                machine without the self-repair plugin
#   --model M    name the model in the figures (default: the main session's, from the cost
#                ledger)
#   --bin PATH   the self-repair binary (default: self-repair on PATH)
#   --code DIR   the code the analyzer ran on, for a corpus that ships none (its corpus.json
#                "fetch" says how to get it); copied into the project
#   DRIVE_ARGS   passed to `self-repair drive` (`--claude PATH`, `-- --plugin-dir DIR`, ...)
#
# Exit: 2 for bad arguments or a corpus without code; drive's exit code when it stops before
# the run is done (reference/cli.md; the command that goes on is printed), else eval's.
set -euo pipefail

die() {
    printf 'eval-drive: %s\n' "$*" >&2
    exit 2
}

usage="usage: scripts/eval-drive.sh CORPUS_DIR [--into DIR] [--budget USD] [--install] [--model MODEL] [--bin PATH] [--code DIR] [-- DRIVE_ARGS...]"
[[ $# -ge 1 ]] || die "$usage"
corpus=$(cd "$1" 2>/dev/null && pwd) || die "no corpus folder $1"
shift
into=""
budget=5
install=0
model=()
bin=self-repair
code=""
# The command line again, for the line that says how to go on after a stop.
again=(scripts/eval-drive.sh "$corpus")
while [[ $# -gt 0 ]]; do
    case $1 in
    --into) into=${2:?--into needs a folder}; shift ;;
    --budget) budget=${2:?--budget needs dollars}; again+=(--budget "$budget"); shift ;;
    --install) install=1 ;;
    --model) model=(--model "${2:?--model needs a name}"); again+=("${model[@]}"); shift ;;
    --bin) bin=${2:?--bin needs a path}; again+=(--bin "$bin"); shift ;;
    --code) code=$(cd "${2:?--code needs a folder}" 2>/dev/null && pwd) || die "no code folder $2"; shift ;;
    --) shift; break ;;
    *) die "unknown option $1 (options: --into, --budget, --install, --model, --bin, --code, then -- and drive's)" ;;
    esac
    shift
done
manifest="$corpus/corpus.json"
[[ -f $manifest ]] || die "$corpus has no corpus.json (name, input, format, labels); the shipped corpora are in tests/fixtures/eval"
field() { python3 -c 'import json, sys; print(json.load(open(sys.argv[1])).get(sys.argv[2], ""))' "$manifest" "$1"; }
name=$(field name) input=$(field input) format=$(field format) labels=$(field labels) fetch=$(field fetch)
[[ -n $name && -n $input && -n $format && -n $labels ]] || die "$manifest must name name, input, format and labels"

# What the project gets of the corpus: everything but the labels and the manifest.
corpus_code() {
    local entry base
    for entry in "$corpus"/* "$corpus"/.[!.]*; do
        [[ -e $entry ]] || continue
        base=$(basename "$entry")
        [[ $base == corpus.json || $base == "$labels" ]] && continue
        printf '%s\n' "$base"
    done
}
# A corpus whose folder holds only its manifest, labels, report and notices has no code for an
# agent to read: its verdicts would be guesses from the report alone.
has_code() {
    local base
    while IFS= read -r base; do
        case $base in
        "$input" | LICENSE* | COPYING* | NOTICE* | README*) ;;
        *) return 0 ;;
        esac
    done < <(corpus_code)
    return 1
}
if [[ -z $code ]] && ! has_code; then
    die "$name ships no code (only its analyzer's report and labels), so agents would judge findings they cannot read. ${fetch:-Fetch the code the analyzer ran on}; then pass its folder with --code DIR"
fi

if [[ -z $into ]]; then
    into=$(mktemp -d "${TMPDIR:-/tmp}/eval-drive.XXXXXX")/project
fi
mkdir -p "$(dirname "$into")"
into=$(cd "$(dirname "$into")" && pwd)/$(basename "$into")
case $into/ in
"$corpus"/*) die "$into is inside the corpus folder, whose labels the agents must not read; name a folder elsewhere with --into" ;;
esac
again+=(--into "$into")
((install == 0)) || again+=(--install)
[[ -z $code ]] || again+=(--code "$code")
if [[ -d $into/.self-repair/runs/r-eval ]]; then
    printf 'eval-drive: going on with run r-eval of %s in %s\n' "$name" "$into" >&2
    cd "$into"
else
    [[ ! -e $into ]] || die "$into exists and holds no run r-eval of an earlier call; name a new folder with --into"
    mkdir "$into"
    while IFS= read -r base; do
        cp -R "$corpus/$base" "$into/"
    done < <(corpus_code)
    if [[ -n $code ]]; then
        (cd "$code" && tar --exclude=.git -cf - .) | (cd "$into" && tar -xf -)
    fi
    git -C "$into" init -q
    printf 'eval-drive: %s in %s (its labels stay in %s)\n' "$name" "$into" "$corpus" >&2
    cd "$into"
    ((install == 0)) || "$bin" install --project >&2
    "$bin" start "$input" --format "$format" --run-id r-eval --until triage --budget "$budget" >&2
fi
status=0
"$bin" drive r-eval --budget "$budget" "$@" >&2 || status=$?
if ((status != 0)); then
    (($# == 0)) || again+=(-- "$@")
    printf 'eval-drive: drive stopped with exit %s (reference/cli.md, "Exit codes"); once that is dealt with, go on where it stopped with:\n  %s\n' \
        "$status" "$(printf '%q ' "${again[@]}")" >&2
    exit "$status"
fi
"$bin" eval r-eval --labels "$corpus/$labels" --corpus "$name" "${model[@]}"
printf 'eval-drive: eval.md and eval.svg are in %s/.self-repair/runs/r-eval\n' "$into" >&2
