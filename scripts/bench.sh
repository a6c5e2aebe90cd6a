#!/usr/bin/env bash
# Speed benchmarks of the self-repair binary (what `just bench` runs). See reference/benchmarks.md.
#
#   scripts/bench.sh [--quick] [--keep] [--nice] [--profile] [--out FILE] [--bin PATH]
#                    [--scale | --scale-only] [--sizes N,N,...]
#
#   --quick     fewer runs per benchmark (a smoke test; figures are noisier)
#   --keep      keep the generated data (its folder is printed)
#   --nice      run hyperfine at raised priority (nice -10; needs root) on a busy machine
#   --profile   also count instructions of the hook runs with valgrind (load-independent), say
#               where they go (state parse, state write, drop), and time state.json codecs in
#               process (bench/bench-support, example state_codec)
#   --out FILE  also write the results table (markdown) to FILE (with --scale, each size's
#               figures, every stop's time, to FILE less .md plus .scaleN.json)
#   --bin PATH  benchmark this self-repair binary instead of building target/release/self-repair
#   --scale     also drive whole runs through the hook at each size (row 8; minutes: opt-in)
#   --scale-only  only row 8 (no hyperfine needed): what issue 45's before -> after compares
#   --sizes L   the sizes of row 8, comma-separated (default 10000,50000,100000)
#
# Measures, with hyperfine, on data generated in a temp folder:
#   1. `hook stop` with no run in the project vs spawning /bin/true   (target: within 2x)
#      1b. `hook pre-tool-use` (the permission gate) on a sub-agent's submit: it runs before
#          every Bash call of every session                            (reported, no target)
#   2. `hook stop` on an active run of 10,000 / 100,000 items           (target: median <= 5 / 50 ms)
#      - steady state: run bound to the session, every in-flight item reported running in
#        background_tasks, so nothing is dispatched and nothing is written ("allow silently")
#      - dispatch: 8 submissions to fold, 8 new items dispatched, state.json rewritten ("block")
#      2b. with cost accounting: 10,000 items and 5,000 agent transcripts, nothing grew / 8 grew
#      2c. a stalled run: 10,000 findings of 37 rules (default settings), a later stop of the
#          session with nothing running: allowed silently, nothing written (target: <= 5 ms)
#      2d. `statusline` (Claude Code's status line) and `status` on the same runs  (statusline: as the hook)
#      2e. a run of 10,000 findings at the default batches, driven to its end: the stop after a
#          wave of 20 batch results (fold 160 verdicts, dispatch 20; goal <= 5 ms), and the stop
#          that finalizes it (`--until triage`; reported)
#   3. `submit` at 1,000 vs 100,000 items                              (target: ratio <= 1.5)
#   4. `start` on 100,000 SARIF results over 1,000 source files        (target: <= 3 s, <= 300 MB RSS)
#   5. `known baseline` on the same 100,000 results: into an empty registry, and again over the
#      100,000 it wrote (time and peak RSS, reported)
#   6. `git merge` of two branches that each baselined 500 findings: union, then merge driver
#      (0 conflicts and 1,200 entries required, time reported)
#   7. not speed: the security corpus (OWASP Benchmark for Python, 568 Bandit findings) driven to
#      its end by a scripted model (scripts/bench/security_eval.py): agents per 1,000 findings,
#      on opus, unsafe closures (targets <= 200, <= 50, <= 2 %; reference/quality.md); and again
#      with the calibrated scripted model (false alarms <= 5 %, unsafe closures 0)
#   8. with --scale: stops at scale (scripts/bench/scale_run.py): a triage run of N findings of
#      37 rules over 400 files (every rule surveyed, answered triage_each; batches of 8, 20 a
#      wave) driven to its end through the Stop hook by a scripted model, every `hook stop`
#      timed from outside: stops, median and p90 wave stop, the slowest other, the finalizing
#      stop, a stalled stop, the hook with empty stdin; the instructions of the mid-run wave stop
#      (valgrind, when installed); `status`, `status --findings`, `statusline`, `runs` at the
#      end and mid-run, `export sarif`, `eval`, `merge` (of the run's two partitions) at the end.
#      Fails when the run does not end complete with every finding decided, a stop answers
#      other than expected (a block with a dispatch; the last one allows), or the stops fall
#      outside what the batch size implies. About 1, 4 and 8 minutes at the three sizes.
#
# Exits non-zero only when a tool fails (build, hyperfine, a self-repair command); a missed
# target is reported in the table, not as a failure. Total time is about 1.5 minutes on 2 cores
# (2.5 with --profile; reference/benchmarks.md).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
here="$root/scripts/bench"
quick=0
keep=0
out=""
prebuilt=""
nice_level=0
profile=0
scale=0
sizes=10000,50000,100000
while [[ $# -gt 0 ]]; do
    case $1 in
    --quick) quick=1 ;;
    --keep) keep=1 ;;
    --nice) nice_level=-10 ;;
    --profile) profile=1 ;;
    --scale) ((scale)) || scale=1 ;;
    --scale-only) scale=2 ;;
    --sizes)
        sizes=${2:?--sizes needs a list such as 10000,50000}
        [[ $sizes =~ ^[0-9]+(,[0-9]+)*$ ]] || { echo "bench.sh: --sizes takes whole numbers separated by commas, not $sizes" >&2; exit 2; }
        shift
        ;;
    --out)
        out=${2:?--out needs a file}
        shift
        ;;
    --bin)
        prebuilt=${2:?--bin needs a path}
        shift
        ;;
    -h | --help)
        sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d' | sed 's/^# \{0,1\}//'
        exit 0
        ;;
    *)
        echo "bench.sh: unknown argument $1 (try --help)" >&2
        exit 2
        ;;
    esac
    shift
done

if ((quick)); then
    fast_runs=60 hook_runs=15 slow_runs=2
else
    fast_runs=400 hook_runs=60 slow_runs=5
fi

say() { printf '\n== [%ss] %s\n' "$SECONDS" "$*" >&2; }
die() {
    echo "bench.sh: $*" >&2
    exit 1
}

# --- tools ------------------------------------------------------------------------------------

if ((scale < 2)) && ! command -v hyperfine >/dev/null 2>&1; then
    say "installing hyperfine (Debian package)"
    sudo=""
    if [[ $(id -u) -ne 0 ]]; then
        command -v sudo >/dev/null 2>&1 || die "hyperfine is missing and this is not root: install it (apt-get install hyperfine)"
        sudo=sudo
    fi
    $sudo apt-get install -y hyperfine >/dev/null 2>&1 ||
        { $sudo apt-get update >/dev/null && $sudo apt-get install -y hyperfine >/dev/null; } ||
        die "could not install hyperfine with apt-get"
fi
for tool in awk cargo /usr/bin/time; do
    command -v "$tool" >/dev/null 2>&1 || die "$tool is required"
done
((!profile)) || command -v valgrind >/dev/null 2>&1 || die "--profile needs valgrind (apt-get install valgrind)"
nice -n "$nice_level" true 2>/dev/null || die "--nice needs root (nice -n $nice_level failed)"
# hyperfine >= 1.16 feeds stdin itself (--input), so stdin-fed commands run without a shell too.
if ((scale == 2)); then
    has_input=0 via=""
elif hyperfine --help | grep -q -- '--input'; then
    has_input=1 via="-N --input"
else
    has_input=0 via="sh corrected"
fi

if [[ -n $prebuilt ]]; then
    bin=$(cd "$(dirname "$prebuilt")" && pwd)/$(basename "$prebuilt")
    [[ -x $bin ]] || die "--bin $prebuilt is not an executable"
    built_from="prebuilt"
else
    say "building the release binary"
    (cd "$root" && cargo build --release --quiet --bin self-repair)
    target_dir=${CARGO_TARGET_DIR:-$root/target}
    [[ $target_dir = /* ]] || target_dir="$root/$target_dir"
    bin="$target_dir/release/self-repair"
    [[ -x $bin ]] || die "no binary at $bin after the build"
    built_from="commit $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)$(git -C "$root" diff --quiet HEAD 2>/dev/null || echo ' + local changes')"
fi

# The hook must find runs only where the benchmark puts them.
unset CLAUDE_PROJECT_DIR CLAUDE_CODE_SESSION_ID
export SELF_REPAIR_NOW=1763800000

load_start=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)
work=$(mktemp -d "${TMPDIR:-/tmp}/self-repair-bench.XXXXXX")
cleanup() {
    if ((keep)); then
        echo "bench data kept in $work" >&2
    else
        rm -rf "$work"
    fi
}
trap cleanup EXIT
results="$work/results.tsv"
: >"$results"

# --- 8. stops at scale (--scale, --scale-only) ------------------------------------------------------

# scale_rows: drives a whole run at each of $sizes through the hook (scripts/bench/scale_run.py:
# every stop timed, its answer checked) and prints the markdown of the figures.
scale_rows() {
    local n jsons=() extra=()
    command -v valgrind >/dev/null 2>&1 && extra+=(--callgrind)
    ((quick)) && extra+=(--repeat 3)
    for n in ${sizes//,/ }; do
        say "8. stops at scale: a run of $n findings driven to its end through the hook"
        mkdir -p "$work/scale$n"
        nice -n "$nice_level" python3 "$here/scale_run.py" "$bin" "$work/scale$n" "$n" --commands "${extra[@]}" \
            >"$work/scale$n.json" || die "scale_run.py failed at $n findings (its data: rerun with --keep)"
        jsons+=("$work/scale$n.json")
        # With --out, each size's figures (every stop's time and load) are kept beside it.
        [[ -z $out ]] || cp "$work/scale$n.json" "${out%.md}.scale$n.json"
        # The big folders go once measured (100,000 findings leave about a gigabyte).
        ((keep)) || rm -rf "$work/scale$n"
    done
    printf '\nStops at scale (row 8; wall time of each process from outside, the load average beside it; '
    printf 'commands: median of %s runs):\n\n' "$( ((quick)) && echo 3 || echo 5)"
    python3 "$here/scale_run.py" table "${jsons[@]}"
}
if ((scale == 2)); then
    machine="$(nproc) cores, $(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null)"
    report=$(
        printf '# self-repair stops at scale, %s\n\n' "$(date -u '+%Y-%m-%d %H:%M UTC')"
        printf 'Machine: %s, load average %s at start. Binary: %s (%s).\n' "$machine" "$load_start" "$bin" "$built_from"
        scale_rows
    )
    printf '\n%s\n' "$report"
    [[ -z $out ]] || printf '%s\n' "$report" >"$out"
    exit 0
fi

# hyperfine wrapper: bench NAME HYPERFINE_ARGS... (one command, named with -n, no commas);
# appends "name median mean sd min max user+sys" in ms to the results.
bench() {
    local name=$1
    shift
    local csv="$work/$name.csv"
    nice -n "$nice_level" hyperfine --style basic --export-csv "$csv" "$@" >&2 || die "hyperfine failed on $name"
    # CSV columns: command,mean,stddev,median,user,system,min,max (seconds); names have no commas.
    awk -F, -v name="$name" 'NR == 2 { printf "%s\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\n", name, $4 * 1000, $2 * 1000, $3 * 1000, $7 * 1000, $8 * 1000, ($5 + $6) * 1000 }' "$csv" >>"$results"
}
# fed FILE CMD: hyperfine arguments that run CMD with FILE on stdin: without a shell when
# hyperfine has --input, else through sh with hyperfine's shell-startup correction.
fed() {
    if ((has_input)); then
        printf '%s\n' -N --input "$1" "$2"
    else
        printf '%s\n' "$2 < $1"
    fi
}
# callgrind NAME STDIN [CMD...]: counts the instructions of one `hook stop` (or CMD) and where
# they go; appends "name total load% save% drop%" to the profile table.
profile_rows="$work/profile.tsv"
callgrind() {
    ((profile)) || return 0
    local out="$work/$1.callgrind" name=$1 input=$2
    shift 2
    [[ $# -gt 0 ]] || set -- "$bin" hook stop
    valgrind --tool=callgrind --callgrind-out-file="$out" "$@" <"$input" >/dev/null 2>"$work/$name.valgrind.log" ||
        die "valgrind failed on $name (see $work/$name.valgrind.log)"
    callgrind_annotate --inclusive=yes "$out" 2>/dev/null | awk -v name="$name" '
        /PROGRAM TOTALS/ { gsub(",", "", $1); total = $1 }
        /RunDir::load_state/ { gsub(",", "", $1); load = $1 }
        /RunDir::save_state/ { gsub(",", "", $1); save = $1 }
        /drop_in_place<self_repair_engine::run_state::RunState>/ { gsub(",", "", $1); drop = $1 }
        END { printf "%s\t%d\t%.1f\t%.1f\t%.1f\n", name, total, 100 * load / total, 100 * save / total, 100 * drop / total }
    ' >>"$profile_rows"
}
median_ms() { awk -F'\t' -v name="$1" '$1 == name { print $2 }' "$results"; }

# start_run DIR INPUT FORMAT RUN_ID: creates a run inside session s1 (bound to it, as the skill's
# `start` binds it; a stop never binds a run started from a terminal).
start_run() {
    local dir=$1 input=$2 format=$3 id=$4
    CLAUDE_CODE_SESSION_ID=s1 "$bin" -C "$dir" start "$input" --format "$format" --run-id "$id" >"$work/start-$id.log" 2>&1 ||
        { cat "$work/start-$id.log" >&2; die "start failed for $id"; }
}

# hook_json DIR [ITEM...]: a Stop hook input for session s1 in DIR, the items running in background.
hook_json() {
    local dir=$1 tasks="" item
    shift
    for item in "$@"; do
        tasks+="${tasks:+,}{\"id\":\"agent-$item\",\"type\":\"subagent\",\"status\":\"running\",\"description\":\"triage $item\",\"agent_type\":\"self-repair:triage-investigator\"}"
    done
    printf '{"session_id":"s1","transcript_path":"/dev/null","cwd":"%s","hook_event_name":"Stop","stop_hook_active":true,"background_tasks":[%s]}\n' "$dir" "$tasks"
}

# --- data ---------------------------------------------------------------------------------------

files=1000 lines=100
say "generating a project of $files source files and the findings"
base="$work/base"
"$here/generate.sh" project "$base" "$files" "$lines"
"$here/generate.sh" sarif 100000 "$files" "$lines" >"$work/100k.sarif"
for n in 1000 10000 100000; do
    "$here/generate.sh" jsonl "$n" "$files" "$lines" >"$work/$n.jsonl"
done
printf '{"verdict":"real","root_cause":"unused import","reason":"the import is never used anywhere","confidence":0.9}\n' >"$work/verdict.json"

# A project folder sharing the generated sources (start reads source lines for fingerprints).
project() {
    mkdir -p "$work/$1/.self-repair"
    ln -s "$base/src" "$work/$1/src"
    # One item per finding in waves of 8: the rows measure the hook and submit on the item
    # counts their targets were set for (a batched run of N findings holds N + N/8 items), with
    # no rule survey holding them back (design note 26); started at once, without waiting for
    # a user's go on the estimate (`confirm_above_usd`, reference/cost.md).
    printf '%s\n' '{"triage_batch": 1, "fan_out": 8, "survey_min": 0, "confirm_above_usd": null}' >"$work/$1/.self-repair/config.json"
    echo "$work/$1"
}

# --- 1. hook with no run ------------------------------------------------------------------------

say "1. hook stop with no run in the project vs /bin/true"
norun=$(mkdir -p "$work/norun" && echo "$work/norun")
hook_json "$norun" >"$work/norun.json"
[[ ! -e /tmp/.self-repair && ! -e /.self-repair ]] || echo "warning: a .self-repair above $work: the no-run case may find it" >&2
cd "$norun"
bench true-N -N --warmup 50 --runs "$fast_runs" -n "/bin/true (-N)" /bin/true
bench hook-empty-N -N --warmup 50 --runs "$fast_runs" -n "hook stop with empty stdin (-N)" "$bin hook stop"
mapfile -t cmd < <(fed "$work/norun.json" /bin/true)
bench true-fed --warmup 50 --runs "$fast_runs" -n "/bin/true < stop.json ($via)" "${cmd[@]}"
mapfile -t cmd < <(fed "$work/norun.json" "$bin hook stop")
bench hook-norun --warmup 50 --runs "$fast_runs" -n "hook stop with no run ($via)" "${cmd[@]}"
[[ -z $("$bin" hook stop <"$work/norun.json") ]] || die "hook with no run printed something"
# The status line in a project with no run: what it costs every refresh everywhere else.
mapfile -t cmd < <(fed "$work/norun.json" "$bin statusline")
bench statusline-norun --warmup 50 --runs "$fast_runs" -n "statusline with no run ($via)" "${cmd[@]}"
[[ -z $("$bin" statusline <"$work/norun.json") ]] || die "statusline with no run printed something"
callgrind true "$work/norun.json" /bin/true
callgrind hook-norun "$work/norun.json"

# --- 1b. the permission gate (PreToolUse): it runs before every Bash call of every session --------

say "1b. hook pre-tool-use: a sub-agent's submit with a JSON heredoc"
printf '%s\n' '{"session_id":"s1","cwd":"'"$norun"'","hook_event_name":"PreToolUse","tool_name":"Bash","agent_type":"self-repair:triage-investigator","agent_id":"a1","tool_input":{"command":"self-repair submit t-00042 --run r-1 <<'"'"'SELF_REPAIR_EOF'"'"'\n{\"verdict\":\"real\",\"root_cause\":\"unused import\",\"reason\":\"never used\",\"confidence\":0.9}\nSELF_REPAIR_EOF"}}' >"$work/gate.json"
"$bin" hook pre-tool-use <"$work/gate.json" | grep -q '"permissionDecision":"allow"' || die "the gate did not allow an agent's submit"
mapfile -t cmd < <(fed "$work/gate.json" "$bin hook pre-tool-use")
bench hook-gate --warmup 50 --runs "$fast_runs" -n "hook pre-tool-use on an agent submit heredoc ($via)" "${cmd[@]}"

# --- 2. hook on an active run -------------------------------------------------------------------

# hook_run N: creates run rN in its own project, bound to session s1, dispatches the first
# items, then benchmarks the two paths the hook takes most.
hook_run() {
    local n=$1 dir run items state journal runs=$hook_runs
    ((n < 100000)) && runs=$((hook_runs * 2))
    dir=$(project "hook$n")
    start_run "$dir" "$work/$n.jsonl" jsonl "r$n"
    run="$dir/.self-repair/runs/r$n"
    cd "$dir"
    # First stop of s1 (the run is bound to it at start): dispatches the first items (block).
    hook_json "$dir" | "$bin" hook stop >"$work/hook-$n.first.out"
    grep -q '"additionalContext"' "$work/hook-$n.first.out" || die "first stop on r$n did not dispatch"
    read -r -a items <<<"$(grep -o 't-[0-9]\{5\}' "$work/hook-$n.first.out" | sort -u | tr '\n' ' ')"
    [[ ${#items[@]} -gt 0 ]] || die "no dispatched items in the first stop on r$n"
    # Second stop: the items are reported running (marked seen, state written once).
    hook_json "$dir" "${items[@]}" >"$work/hook-$n.steady.json"
    "$bin" hook stop <"$work/hook-$n.steady.json" >/dev/null
    # Steady state: same stop again; nothing to dispatch, nothing changes, nothing is written.
    state=$(cksum <"$run/state.json")
    journal=$(cksum <"$run/journal.jsonl")
    mapfile -t cmd < <(fed "$work/hook-$n.steady.json" "$bin hook stop")
    bench "hook-steady-$n" --warmup 3 --runs "$runs" \
        -n "hook stop at $n items: steady (allow; no write)" "${cmd[@]}"
    [[ $(cksum <"$run/state.json") == "$state" && $(cksum <"$run/journal.jsonl") == "$journal" ]] ||
        die "the steady stop on r$n changed the run: not the no-write path"
    [[ -z $("$bin" hook stop <"$work/hook-$n.steady.json") ]] || die "the steady stop on r$n printed something"
    callgrind "hook-steady-$n" "$work/hook-$n.steady.json"
    # The status line (issue 24): what Claude Code's statusLine runs at every refresh, on the
    # same run (one row, read-only), against `status` (the whole report).
    printf '{"session_id":"s1","cwd":"%s","workspace":{"current_dir":"%s","project_dir":"%s"},"version":"2.1.330","model":{"id":"claude-opus-5-5","display_name":"Opus"},"cost":{"total_cost_usd":0.5}}\n' \
        "$dir" "$dir" "$dir" >"$work/statusline-$n.json"
    "$bin" statusline <"$work/statusline-$n.json" | grep -q "^self-repair r$n · triage" || die "statusline on r$n printed no row"
    mapfile -t cmd < <(fed "$work/statusline-$n.json" "$bin statusline")
    bench "statusline-$n" --warmup 3 --runs "$runs" -n "statusline at $n items (one row; read-only)" "${cmd[@]}"
    bench "status-$n" -N --warmup 3 --runs "$runs" -n "status at $n items (the whole report)" "$bin status"
    [[ $(cksum <"$run/state.json") == "$state" ]] || die "statusline or status on r$n changed state.json"
    # Dispatch path: the running agents submit and end; the next stop folds the submissions,
    # dispatches as many new items and rewrites state.json. Restored before each run as new
    # files (rm, then cp): `cp` over the old files would truncate them, and ext4 then flushes them
    # on close (auto_da_alloc), so the hook would pay 0.2-1.4 ms to unlink a file under writeback,
    # a cost no real stop sees (its state.json was written by the previous hook, never truncated).
    for item in "${items[@]}"; do
        "$bin" -C "$dir" submit "$item" --file "$work/verdict.json" >/dev/null
    done
    mkdir -p "$work/snap$n"
    cp "$run/state.json" "$run/journal.jsonl" "$work/snap$n/"
    hook_json "$dir" >"$work/hook-$n.dispatch.json"
    mapfile -t cmd < <(fed "$work/hook-$n.dispatch.json" "$bin hook stop")
    bench "hook-dispatch-$n" --warmup 3 --runs "$runs" \
        --prepare "rm -f $run/state.json $run/journal.jsonl && cp $work/snap$n/state.json $work/snap$n/journal.jsonl $run/" \
        -n "hook stop at $n items: fold ${#items[@]} + dispatch (block; write)" "${cmd[@]}"
    cp "$work/snap$n/state.json" "$work/snap$n/journal.jsonl" "$run/"
    callgrind "hook-dispatch-$n" "$work/hook-$n.dispatch.json"
    cp "$work/snap$n/state.json" "$work/snap$n/journal.jsonl" "$run/"
    "$bin" hook stop <"$work/hook-$n.dispatch.json" >"$work/hook-$n.dispatch.out"
    grep -q '"additionalContext"' "$work/hook-$n.dispatch.out" || die "the dispatch stop on r$n did not dispatch"
}

for n in 10000 100000; do
    say "2. hook stop on an active run of $n items"
    hook_run "$n"
done

# --- 2b. hook with cost accounting -------------------------------------------------------------

# A 10,000-item run whose session has 5,000 finished agent transcripts (items t-00101..t-05100)
# besides the 8 in flight: the hook reads what the transcripts grew by (reference/cost.md).
say "2b. hook stop with cost accounting: 10,000 items, 5,000 agent transcripts"
cost_dir=$(project "cost10000")
start_run "$cost_dir" "$work/10000.jsonl" jsonl "rc"
cost_run="$cost_dir/.self-repair/runs/rc"
session="$work/cost-session"
"$here/generate.sh" transcripts "$session" 5000 rc
# Finished a minute ago: a finished agent's transcript is closed only once it has been left
# alone for 2 s (reference/cost.md), as it would be by a later stop of a real run.
find "$session/s1/subagents" -name 'agent-*.jsonl' -exec touch -d '-1 minute' {} +
cost_json() {
    hook_json "$@" | sed "s|\"transcript_path\":\"/dev/null\"|\"transcript_path\":\"$session/s1.jsonl\"|"
}
cd "$cost_dir"
# First stop of s1: dispatches 8, and reads the 5,000 transcripts once (timed once, reported).
first_ns=$(date +%s%N)
cost_json "$cost_dir" | "$bin" hook stop >"$work/cost.first.out"
first_ms=$((($(date +%s%N) - first_ns) / 1000000))
grep -q '"additionalContext"' "$work/cost.first.out" || die "first stop on rc did not dispatch"
read -r -a items <<<"$(grep -o 't-[0-9]\{5\}' "$work/cost.first.out" | sort -u | tr '\n' ' ')"
# The next stop finds the 5,000 unchanged and closes them: never stat'ed again.
cost_json "$cost_dir" "${items[@]}" | "$bin" hook stop >/dev/null
[[ $(wc -l <"$cost_run/cost-closed.txt") -eq 5000 ]] || die "the first two stops did not read and close the 5,000 finished transcripts"
# The 8 dispatched agents start writing: their transcripts are the ones a stop reads.
for item in "${items[@]}"; do
    printf '{"type":"user","message":{"role":"user","content":"self-repair item %s --run rc"}}\n' "$item" >"$session/s1/subagents/agent-run-$item.jsonl"
done
# As at a later stop of a real run: the folder's last change is not in the current mtime tick.
touch -d '-1 minute' "$session/s1/subagents"
cost_json "$cost_dir" "${items[@]}" >"$work/cost.steady.json"
"$bin" hook stop <"$work/cost.steady.json" >/dev/null
"$bin" hook stop <"$work/cost.steady.json" >/dev/null
ledger=$(cksum <"$cost_run/cost.json")
mapfile -t cmd < <(fed "$work/cost.steady.json" "$bin hook stop")
bench hook-cost-steady-10000 --warmup 3 --runs "$((hook_runs * 2))" \
    -n "hook stop at 10000 items with 5000 agent transcripts: nothing grew (allow; no write)" "${cmd[@]}"
[[ $(cksum <"$cost_run/cost.json") == "$ledger" ]] || die "a stop where no transcript grew rewrote cost.json"
# Each of the 8 running agents writes one response: the stop reads those 8 rows only.
for item in "${items[@]}"; do
    printf '{"type":"assistant","requestId":"req_%s","message":{"id":"msg_%s","model":"claude-haiku-5-5","stop_reason":"tool_use","usage":{"input_tokens":12,"output_tokens":250,"cache_read_input_tokens":12000,"cache_creation_input_tokens":900}}}\n' "$item" "$item" >>"$session/s1/subagents/agent-run-$item.jsonl"
done
mkdir -p "$work/snapcost"
cp "$cost_run/cost.json" "$cost_run/cost.jsonl" "$work/snapcost/"
records=$(wc -l <"$cost_run/cost.jsonl")
bench hook-cost-grow-10000 --warmup 3 --runs "$((hook_runs * 2))" \
    --prepare "rm -f $cost_run/cost.json $cost_run/cost.jsonl && cp $work/snapcost/cost.json $work/snapcost/cost.jsonl $cost_run/" \
    -n "hook stop at 10000 items with 5000 agent transcripts: 8 grew (allow; cost write)" "${cmd[@]}"
[[ $(wc -l <"$cost_run/cost.jsonl") -eq $((records + ${#items[@]})) ]] ||
    die "the stop after 8 agents grew did not record exactly their 8 new responses"
# Instructions of both paths: nothing grew (as left by the last run), then 8 grew (restored).
callgrind "hook-cost-steady-10000" "$work/cost.steady.json"
rm -f "$cost_run/cost.json" "$cost_run/cost.jsonl" && cp "$work/snapcost/cost.json" "$work/snapcost/cost.jsonl" "$cost_run/"
callgrind "hook-cost-grow-10000" "$work/cost.steady.json"
say "first stop with cost accounting (reads all 5,000 transcripts once): $first_ms ms"

# --- 2c. hook on a stalled run ---------------------------------------------------------------------

# A 10,000-finding run of 37 rules with the default settings (rule surveys, batched triage,
# fan-out 20), bound to s1, whose stops come with nothing running: each block's launches are
# never seen, so they go back to pending and the no-progress guard stalls the run after
# `stall_blocks` blocks. Every later stop of the same turn (`stop_hook_active: true`, nothing
# running, nothing submitted) is allowed silently and changes nothing.
say "2c. hook stop on a stalled run: 10,000 findings of 37 rules, nothing running"
"$here/generate.sh" jsonl 10000 "$files" "$lines" 37 >"$work/10000x37.jsonl"
stall_dir="$work/stall10000"
mkdir -p "$stall_dir/.self-repair"
ln -s "$base/src" "$stall_dir/src"
printf '%s\n' '{"confirm_above_usd": null}' >"$stall_dir/.self-repair/config.json"
start_run "$stall_dir" "$work/10000x37.jsonl" jsonl "rs10000"
stall_run="$stall_dir/.self-repair/runs/rs10000"
cd "$stall_dir"
hook_json "$stall_dir" >"$work/stall.json"
stalled=0
for _ in 1 2 3 4 5 6 7 8; do
    if "$bin" hook stop <"$work/stall.json" | grep -q 'stalled'; then
        stalled=1
        break
    fi
done
((stalled)) || die "the run of 10,000 findings of 37 rules did not stall within 8 stops with nothing running"
state=$(cksum <"$stall_run/state.json")
journal=$(cksum <"$stall_run/journal.jsonl")
mapfile -t cmd < <(fed "$work/stall.json" "$bin hook stop")
bench hook-stalled-10000 --warmup 3 --runs "$((hook_runs * 2))" \
    -n "hook stop at 10000 findings of 37 rules: stalled with nothing running (allow; no write)" "${cmd[@]}"
[[ $(cksum <"$stall_run/state.json") == "$state" && $(cksum <"$stall_run/journal.jsonl") == "$journal" ]] ||
    die "a stop of the stalled run changed it: not the no-write path"
[[ -z $("$bin" hook stop <"$work/stall.json") ]] || die "a stop of the stalled run printed something"
callgrind "hook-stalled-10000" "$work/stall.json"

# --- 2e. a real run's heavy stops: a wave of batch results, and the finalize -------------------

# A triage run of 10,000 findings at the default settings (batches of 8, 20 at a time), driven
# to its end by answering every batch: the stop after a wave of 20 batch results (it folds
# about 160 verdicts and dispatches the next 20 batches) and the stop that finalizes the run
# (`start --until triage`: the verdicts, the report, the registry and the cost ledger written).
say "2e. hook stop at 10,000 findings in batches: a wave of 20 batch results; the finalize"
wave_dir="$work/wave10000"
mkdir -p "$wave_dir/.self-repair"
ln -s "$base/src" "$wave_dir/src"
printf '%s\n' '{"survey_min": 0, "confirm_above_usd": null}' >"$wave_dir/.self-repair/config.json"
CLAUDE_CODE_SESSION_ID=s1 "$bin" -C "$wave_dir" start "$work/10000.jsonl" --format jsonl --run-id rw \
    --until triage >"$work/start-rw.log" 2>&1 || { cat "$work/start-rw.log" >&2; die "start failed for rw"; }
wave_run="$wave_dir/.self-repair/runs/rw"
cd "$wave_dir"
hook_json "$wave_dir" >"$work/wave.json"
answer_wave() { python3 "$here/answer_wave.py" "$bin" "$wave_dir" "$wave_run" "$1"; }
"$bin" hook stop <"$work/wave.json" >"$work/wave.0.out"
[[ $(answer_wave "$work/wave.0.out") -eq 20 ]] || die "the first stop on rw did not dispatch 20 batches"
mkdir -p "$work/snapwave"
cp "$wave_run/state.json" "$wave_run/journal.jsonl" "$work/snapwave/"
mapfile -t cmd < <(fed "$work/wave.json" "$bin hook stop")
bench hook-wave-10000 --warmup 3 --runs "$((hook_runs * 2))" \
    --prepare "rm -f $wave_run/state.json $wave_run/journal.jsonl && cp $work/snapwave/state.json $work/snapwave/journal.jsonl $wave_run/" \
    -n "hook stop at 10000 findings: fold a wave of 20 batch results (160 verdicts) + dispatch 20 (block; write)" "${cmd[@]}"
cp "$work/snapwave/state.json" "$work/snapwave/journal.jsonl" "$wave_run/"
callgrind "hook-wave-10000" "$work/wave.json"
cp "$work/snapwave/state.json" "$work/snapwave/journal.jsonl" "$wave_run/"
# The rest of the run, wave by wave, until the stop that finalizes it; the project's store as
# it was before that stop is kept (the finalize writes the report, the registry, the ledger).
waves=0
while :; do
    rm -rf "$work/snapfinal" && cp -a "$wave_dir/.self-repair" "$work/snapfinal"
    "$bin" hook stop <"$work/wave.json" >"$work/wave.out"
    grep -q 'tb-' "$work/wave.out" || break
    answer_wave "$work/wave.out" >/dev/null
    waves=$((waves + 1))
    ((waves < 200)) || die "rw did not finish triage within 200 waves"
done
grep -q 'complete' "$work/wave.out" || die "the last stop on rw did not finalize the run"
restore_final="rm -rf $wave_dir/.self-repair && cp -a $work/snapfinal $wave_dir/.self-repair"
bench hook-finalize-10000 --warmup 1 --runs "$hook_runs" --prepare "$restore_final" \
    -n "hook stop at 10000 findings: the finalize (report + registry + ledger; allow)" "${cmd[@]}"
eval "$restore_final"
callgrind "hook-finalize-10000" "$work/wave.json"

if ((profile)); then
    say "in-process state.json codec timings at 100,000 items"
    (cd "$root" && cargo build --release --quiet -p self-repair-bench-support --example state_codec)
    codec="${CARGO_TARGET_DIR:-$root/target}/release/examples/state_codec"
    [[ $codec = /* ]] || codec="$root/$codec"
    "$codec" "$work/hook100000/.self-repair/runs/r100000/state.json" 11 >"$work/codec.txt" ||
        die "state_codec failed"
fi

# --- 3. submit ----------------------------------------------------------------------------------

for n in 1000 100000; do
    say "3. submit at $n items"
    dir=$(project "submit$n")
    start_run "$dir" "$work/$n.jsonl" jsonl "s$n"
    result="$dir/.self-repair/runs/s$n/items/t-00500.json"
    # `submit` accepts only items the hook dispatched (its marker); the bench measures submit alone.
    mkdir -p "$dir/.self-repair/runs/s$n/items" && touch "$dir/.self-repair/runs/s$n/items/t-00500.dispatched"
    bench "submit-$n" -N --warmup 5 --runs "$((fast_runs / 4))" --prepare "rm -f $result" \
        -n "submit at $n items" "$bin -C $dir submit t-00500 --file $work/verdict.json"
    [[ -f $result ]] || die "submit at $n items wrote no result file"
done

# --- 4. start -----------------------------------------------------------------------------------

say "4. start on 100,000 SARIF results over $files files"
sarif_dir="$base"
bench start-sarif -N --warmup 1 --runs "$slow_runs" --prepare "rm -rf $sarif_dir/.self-repair" \
    -n "start: 100k SARIF results (--format sarif)" "$bin -C $sarif_dir start $work/100k.sarif --format sarif --run-id bench"
bench start-auto -N --warmup 0 --runs "$slow_runs" --prepare "rm -rf $sarif_dir/.self-repair" \
    -n "start: 100k SARIF results (--format auto)" "$bin -C $sarif_dir start $work/100k.sarif --format auto --run-id bench"
rss_kb() {
    rm -rf "$sarif_dir/.self-repair"
    /usr/bin/time -v "$bin" -C "$sarif_dir" start "$work/100k.sarif" --format "$1" --run-id bench \
        >"$work/start-rss.log" 2>&1 || { cat "$work/start-rss.log" >&2; die "start --format $1 failed"; }
    awk -F': ' '/Maximum resident set size/ { print $2 }' "$work/start-rss.log"
}
rss_sarif=$(rss_kb sarif)
grep -q '100000 findings, 100000 unique' "$work/start-rss.log" ||
    echo "warning: start did not report 100000 unique findings: $(grep created "$work/start-rss.log")" >&2
rss_auto=$(rss_kb auto)

# --- 5. known baseline ----------------------------------------------------------------------------

say "5. known baseline on the 100,000 SARIF results"
baseline_dir="$work/baseline"
mkdir -p "$baseline_dir"
ln -s "$base/src" "$baseline_dir/src"
baseline_cmd="$bin -C $baseline_dir known baseline $work/100k.sarif --verdict intended --reason bench"
bench baseline-empty -N --warmup 1 --runs "$slow_runs" --prepare "rm -rf $baseline_dir/.self-repair" \
    -n "known baseline: 100k SARIF results into an empty registry" "$baseline_cmd"
baseline_rss() {
    /usr/bin/time -v $baseline_cmd >"$work/baseline-rss.log" 2>&1 || { cat "$work/baseline-rss.log" >&2; die "known baseline failed"; }
    awk -F': ' '/Maximum resident set size/ { print $2 }' "$work/baseline-rss.log"
}
rm -rf "$baseline_dir/.self-repair"
rss_baseline=$(baseline_rss)
grep -q '100000 recorded' "$work/baseline-rss.log" || die "known baseline did not record 100000 findings: $(cat "$work/baseline-rss.log")"
known_bytes=$(wc -c <"$baseline_dir/.self-repair/known.json")
# Again over the registry it filled: 100,000 lines read and checked, nothing to add or write.
bench baseline-again -N --warmup 1 --runs "$slow_runs" \
    -n "known baseline: the same 100k again (100k in the registry)" "$baseline_cmd"
rss_baseline_again=$(baseline_rss)
grep -q '0 recorded' "$work/baseline-rss.log" || die "the second baseline recorded findings: $(cat "$work/baseline-rss.log")"

# --- 6. git merge of two branches' registry additions ----------------------------------------------

# Base: 200 entries; branches a and b each baseline 500 other findings; `git merge` with only the
# committed .self-repair/.gitattributes (union), then again with the merge driver registered.
say "6. git merge: two branches adding 500 known.json entries each"
merge_dir="$work/merge"
mkdir -p "$merge_dir"
ln -s "$base/src" "$merge_dir/src"
"$here/generate.sh" jsonl 1200 "$files" "$lines" >"$work/1200.jsonl"
head -n 200 "$work/1200.jsonl" >"$work/merge-base.jsonl"
sed -n '201,700p' "$work/1200.jsonl" >"$work/merge-a.jsonl"
sed -n '701,1200p' "$work/1200.jsonl" >"$work/merge-b.jsonl"
g() { git -C "$merge_dir" -c user.email=bench@example.com -c user.name=bench "$@"; }
g init -q -b main
printf 'src\n' >"$merge_dir/.gitignore"
"$bin" -C "$merge_dir" known baseline "$work/merge-base.jsonl" --verdict intended --reason base >/dev/null
g add -A && g commit -q -m base
for side in a b; do
    g checkout -q -b "$side" main
    "$bin" -C "$merge_dir" known baseline "$work/merge-$side.jsonl" --verdict intended --reason "$side" >/dev/null
    g commit -q -am "$side"
done
# merge_once LABEL: merges b into a fresh copy of a; prints "ms conflicts entries lines": the
# entries as self-repair reads them, the lines of known.json after its header.
merge_once() {
    g checkout -q -B merged a
    local t0 ms conflicts entries
    t0=$(date +%s%N)
    g merge -q --no-edit b >"$work/merge-$1.log" 2>&1 || true
    ms=$((($(date +%s%N) - t0) / 1000000))
    conflicts=$(g diff --name-only --diff-filter=U | wc -l)
    entries=$("$bin" -C "$merge_dir" known list --json 2>/dev/null | grep -c '"fingerprint":' || true)
    printf '%s %s %s %s\n' "$ms" "$conflicts" "$entries" "$(($(wc -l <"$merge_dir/.self-repair/known.json") - 1))"
    g merge --abort >/dev/null 2>&1 || true
    g checkout -q a
}
read -r merge_union_ms merge_union_conflicts merge_union_entries merge_union_lines <<<"$(merge_once union)"
g config merge.self-repair-known.driver "$bin known merge-driver %O %A %B %P"
attributes=$(g rev-parse --path-format=absolute --git-path info/attributes)
mkdir -p "$(dirname "$attributes")"
printf '.self-repair/known.json merge=self-repair-known\n' >"$attributes"
read -r merge_driver_ms merge_driver_conflicts merge_driver_entries merge_driver_lines <<<"$(merge_once driver)"
[[ $merge_union_conflicts == 0 && $merge_driver_conflicts == 0 ]] || die "the registry merge conflicted: union $merge_union_conflicts, driver $merge_driver_conflicts"
[[ $merge_union_entries == 1200 && $merge_driver_entries == 1200 ]] || die "the merged registry holds $merge_union_entries (union) / $merge_driver_entries (driver) entries, not 1200"

# --- 7. a security corpus driven to its end: agents and quality -------------------------------------
# Not a speed figure: what the run on the OWASP Benchmark for Python corpus (Bandit, 568 findings)
# launches and closes with the scripted model of reference/quality.md, scored by `eval`.

say "7. the security corpus (568 Bandit findings) driven to its end with the scripted model"
security=$(python3 "$here/security_eval.py" "$bin" "$root/tests/fixtures/eval/owasp-python-0.1" \
    bandit-1.9.4.json expectedresults-0.1.csv) || die "security_eval.py failed"
security_row=$(printf '%s' "$security" | python3 -c '
import json, sys
d = json.load(sys.stdin)
c = d["eval"]["confusion"]
real = c["real_kept"] + c["real_closed"]
false = c["false_kept"] + c["false_closed"]
ok = d["agents_per_1000"] <= 200 and d["top_tier_per_1000"] <= 50 and c["real_closed"] * 50 <= real
print("| security corpus: 568 findings, scripted model: agents per 1,000 (opus) | %d (%d) | | | | <= 200 (<= 50), unsafe closures <= 2 %% | %s: %d agents, %d on opus; unsafe closures %d of %d real, false alarms %d of %d; start said %d likely |" % (
    d["agents_per_1000"], d["top_tier_per_1000"], "met" if ok else "MISSED", d["agents"],
    d["agents_by_tier"].get("opus", 0), c["real_closed"], real, c["false_kept"], false,
    d["estimate"]["agents_likely"]))
')
# The same corpus with the calibrated scripted model (--calibrated: a wrong answer says
# confidence 0.6 seven times in ten, a right one once in ten): the second looks of reals below
# verify_below. security_eval.py fails when the run differs from what the rules imply.
calibrated=$(python3 "$here/security_eval.py" "$bin" "$root/tests/fixtures/eval/owasp-python-0.1" \
    bandit-1.9.4.json expectedresults-0.1.csv --calibrated) || die "security_eval.py --calibrated failed"
calibrated_row=$(printf '%s' "$calibrated" | python3 -c '
import json, sys
d = json.load(sys.stdin)
c = d["eval"]["confusion"]
false = c["false_kept"] + c["false_closed"] + c["false_abstained"]
ok = (d["agents_per_1000"] <= 200 and d["top_tier_per_1000"] <= 50 and c["real_closed"] == 0
      and c["false_kept"] * 20 <= false)
print("| security corpus, calibrated scripted model: agents per 1,000 (opus) | %d (%d) | | | | <= 200 (<= 50), false alarms <= 5 %%, unsafe closures 0 | %s: %d agents, %d on opus, %d second looks of reals; false alarms %d of %d, unsafe closures %d |" % (
    d["agents_per_1000"], d["top_tier_per_1000"], "met" if ok else "MISSED", d["agents"],
    d["agents_by_tier"].get("opus", 0), d["measured"]["second_looks_of_reals"],
    c["false_kept"], false, c["real_closed"]))
')

# --- table ----------------------------------------------------------------------------------------

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'; }
check() { awk -v v="$1" -v t="$2" 'BEGIN { print (v == "n/a" ? "n/a" : v + 0 <= t + 0 ? "met" : "MISSED") }'; }

t_true=$(median_ms true-N)
r_norun=$(ratio "$(median_ms hook-norun)" "$t_true")
r_empty=$(ratio "$(median_ms hook-empty-N)" "$t_true")
r_gate=$(ratio "$(median_ms hook-gate)" "$(median_ms true-fed)")
if ((has_input)); then
    norun_verdict="$(check "$r_norun" 2) (${r_norun}×)"
else
    # sh correction is too coarse for a 1 ms command on a busy machine: judge by the -N run
    # with empty stdin (same start-up work: arguments, stdin, a few stats) and show both.
    norun_verdict="$(check "$r_empty" 2) (${r_empty}× with empty stdin under -N; ${r_norun}× sh corrected)"
fi
r_submit=$(ratio "$(median_ms submit-100000)" "$(median_ms submit-1000)")

table=$(
    printf '| benchmark | median | mean ± σ | min … max | user+sys | target | result |\n'
    printf '|---|---:|---:|---:|---:|---|---|\n'
    while IFS=$'\t' read -r name median mean sd min max cpu; do
        target="" verdict=""
        case $name in
        hook-norun) target="≤ 2× /bin/true (-N)" verdict=$norun_verdict ;;
        hook-gate) target="(reported: ${r_gate}× /bin/true, same start-up as hook stop)" verdict="" ;;
        hook-steady-10000 | hook-dispatch-10000 | hook-cost-steady-10000 | hook-cost-grow-10000 | hook-stalled-10000 | statusline-10000) target="≤ 5 ms" verdict=$(check "$median" 5) ;;
        hook-steady-100000 | hook-dispatch-100000 | statusline-100000) target="≤ 50 ms" verdict=$(check "$median" 50) ;;
        hook-wave-10000) target="≤ 5 ms (goal)" verdict=$(check "$median" 5) ;;
        hook-finalize-10000) target="(reported)" verdict="" ;;
        submit-100000) target="≤ 1.5× submit at 1,000" verdict="$(check "$r_submit" 1.5) (${r_submit}×)" ;;
        start-sarif | start-auto) target="≤ 3 s" verdict=$(check "$median" 3000) ;;
        baseline-empty | baseline-again) target="(reported)" verdict="" ;;
        esac
        label=$(awk -F, 'NR == 2 { print $1 }' "$work/$name.csv")
        printf '| %s | %.2f ms | %.2f ± %.2f ms | %.2f … %.2f ms | %.2f ms | %s | %s |\n' \
            "$label" "$median" "$mean" "$sd" "$min" "$max" "$cpu" "$target" "$verdict"
    done <"$results"
    printf '| start: 100k SARIF results: peak RSS (--format sarif) | %.0f MB | | | | ≤ 300 MB | %s |\n' \
        "$(awk -v k="$rss_sarif" 'BEGIN { print k / 1024 }')" "$(check "$rss_sarif" $((300 * 1024)))"
    printf '| start: 100k SARIF results: peak RSS (--format auto) | %.0f MB | | | | ≤ 300 MB | %s |\n' \
        "$(awk -v k="$rss_auto" 'BEGIN { print k / 1024 }')" "$(check "$rss_auto" $((300 * 1024)))"
    printf '| known baseline: 100k SARIF results: peak RSS (empty registry; known.json %.1f MB after) | %.0f MB | | | | (reported) | |\n' \
        "$(awk -v b="$known_bytes" 'BEGIN { print b / 1048576 }')" "$(awk -v k="$rss_baseline" 'BEGIN { print k / 1024 }')"
    printf '| known baseline: the same 100k again: peak RSS | %.0f MB | | | | (reported) | |\n' \
        "$(awk -v k="$rss_baseline_again" 'BEGIN { print k / 1024 }')"
    printf '| git merge: 500 + 500 known.json entries, union (committed .gitattributes) | %s ms | | | | 0 conflicts | %s conflicts, %s entries in %s lines |\n' \
        "$merge_union_ms" "$merge_union_conflicts" "$merge_union_entries" "$merge_union_lines"
    printf '| git merge: 500 + 500 known.json entries, merge driver registered | %s ms | | | | 0 conflicts | %s conflicts, %s entries in %s lines |\n' \
        "$merge_driver_ms" "$merge_driver_conflicts" "$merge_driver_entries" "$merge_driver_lines"
    printf '%s\n' "$security_row"
    printf '%s\n' "$calibrated_row"
)

machine="$(nproc) cores, $(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null), load average $load_start at start, $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null) at end"
((nice_level == 0)) || machine+=", hyperfine at nice $nice_level"
report=$(
    printf '# self-repair benchmarks, %s\n\n' "$(date -u '+%Y-%m-%d %H:%M UTC')"
    printf 'Machine: %s. Binary: %s (%s). hyperfine %s.\n\n' "$machine" "$bin" "$built_from" \
        "$(hyperfine --version | cut -d' ' -f2)"
    printf '%s\n' "$table"
    printf '\nFirst stop with cost accounting on the 5,000 agent transcripts (read once, then closed): %s ms (one run).\n' "$first_ms"
    if [[ -s $profile_rows ]]; then
        printf '\nInstructions per hook stop (valgrind callgrind; independent of machine load):\n\n'
        printf '| run | instructions | parse state.json | write state.json | drop the state |\n'
        printf '|---|---:|---:|---:|---:|\n'
        awk -F'\t' '{ printf "| %s | %d | %.1f %% | %.1f %% | %.1f %% |\n", $1, $2, $3, $4, $5 }' "$profile_rows"
    fi
    ((scale == 0)) || scale_rows
    if [[ -s $work/codec.txt ]]; then
        fence='```'
        printf '\nIn-process state.json codec timings (example state_codec, median of 11):\n\n%s\n%s\n%s\n' \
            "$fence" "$(cat "$work/codec.txt")" "$fence"
    fi
)
printf '\n%s\n' "$report"
[[ -z $out ]] || printf '%s\n' "$report" >"$out"
