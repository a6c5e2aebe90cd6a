#!/usr/bin/env bash
# One command from a labelled corpus to its quality table: copy the corpus into a fresh project,
# start a triage run on its findings, drive it unattended (`self-repair drive`: headless
# `claude -p` sessions, so a real model needs your API key or login), then score it with
# `self-repair eval`. Every figure it prints names the model that gave the verdicts.
#
#   scripts/eval-drive.sh CORPUS_DIR [--into DIR] [--budget USD] [--install] [--model MODEL]
#                         [--bin PATH] [-- DRIVE_ARGS...]
#
#   CORPUS_DIR   a folder with corpus.json ({"name", "input", "format", "labels"}), the
#                analyzer's output, the labels and the code (tests/fixtures/eval/*)
#   --into DIR   where the project is made (default: a new temp folder); must not exist
#   --budget USD the run's budget and drive's (default 5)
#   --install    register the hooks in the project (`self-repair install --project`), for a
#                machine without the self-repair plugin
#   --model M    name the model in the figures (default: the main session's, from the cost
#                ledger)
#   --bin PATH   the self-repair binary (default: self-repair on PATH)
#   DRIVE_ARGS   passed to `self-repair drive` (`--claude PATH`, `-- --plugin-dir DIR`, ...)
#
# Exit: drive's exit code when it fails (reference/cli.md), else eval's.
set -euo pipefail

die() {
    printf 'eval-drive: %s\n' "$*" >&2
    exit 2
}

[[ $# -ge 1 ]] || die "usage: scripts/eval-drive.sh CORPUS_DIR [--into DIR] [--budget USD] [--install] [--model MODEL] [--bin PATH] [-- DRIVE_ARGS...]"
corpus=$(cd "$1" 2>/dev/null && pwd) || die "no corpus folder $1"
shift
into=""
budget=5
install=0
model=()
bin=self-repair
while [[ $# -gt 0 ]]; do
    case $1 in
    --into) into=${2:?--into needs a folder}; shift ;;
    --budget) budget=${2:?--budget needs dollars}; shift ;;
    --install) install=1 ;;
    --model) model=(--model "${2:?--model needs a name}"); shift ;;
    --bin) bin=${2:?--bin needs a path}; shift ;;
    --) shift; break ;;
    *) die "unknown option $1 (options: --into, --budget, --install, --model, --bin, then -- and drive's)" ;;
    esac
    shift
done
manifest="$corpus/corpus.json"
[[ -f $manifest ]] || die "$corpus has no corpus.json (name, input, format, labels); the shipped corpora are in tests/fixtures/eval"
field() { python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$manifest" "$1"; }
name=$(field name) input=$(field input) format=$(field format) labels=$(field labels)
if [[ -z $into ]]; then
    into=$(mktemp -d "${TMPDIR:-/tmp}/eval-drive.XXXXXX")/project
fi
[[ ! -e $into ]] || die "$into exists; name a new folder with --into"
mkdir -p "$(dirname "$into")"
cp -R "$corpus" "$into"
git -C "$into" init -q
printf 'eval-drive: %s in %s\n' "$name" "$into" >&2
cd "$into"
((install == 0)) || "$bin" install --project >&2
"$bin" start "$input" --format "$format" --run-id r-eval --until triage --budget "$budget" >&2
"$bin" drive r-eval --budget "$budget" "$@" >&2
"$bin" eval r-eval --labels "$labels" --corpus "$name" "${model[@]}"
printf 'eval-drive: eval.md and eval.svg are in %s/.self-repair/runs/r-eval\n' "$into" >&2
