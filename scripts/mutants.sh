#!/usr/bin/env bash
# Mutation testing of the library crates with cargo-mutants (reference/mutants.md): each mutant
# changes one spot of a crate's code (a function returns a default, `==` becomes `!=`, a match
# arm goes), and the crate's own tests must fail on it. Prints one line a crate and a score:
# caught (timeouts count as caught) out of caught + missed; unviable mutants (they do not build)
# and the equivalent ones .cargo/mutants.toml excludes, each argued there, do not count.
#
# Usage: scripts/mutants.sh [--ci] [--with-cli] [CRATE...] [-- CARGO_MUTANTS_ARGS...]
#   CRATE   a folder under crates/ (gate, store, ...); default: every one of them.
#   --ci    what CI runs: the gate and the store's commit protocol (result_commit.rs,
#           journal.rs and the submit markers and fold of run_dir.rs), each at 100 %.
#   --with-cli  also run the root package's tests (the CLI suite, tests/cli, through the
#           binary) on each mutant: `app`'s commands are tested there, not in the crate.
#   -- ...  passed to cargo-mutants as they are (`-- --file crates/gate/src/shell_line.rs`,
#           `-- --re harmless_redirect`, `-- --list`): re-run only the mutants a test targets.
#           A second `--` passes what follows to `cargo test`, a third to the test binaries
#           (`-- --shard 0/52 -- -- --test-threads=4`); `-- --test-tool nextest` runs each
#           mutant's tests with cargo-nextest, which stops at the first failed test.
# Env:
#   SELF_REPAIR_MUTANTS_DIR      scratch folder (default: <repo>/.cache/mutants): tree/ is a copy
#                                of this checkout (uncommitted changes too) that cargo-mutants
#                                mutates in place, target/ its build (kept between runs), out/
#                                one mutants.out folder a crate (missed.txt, caught.txt, ...).
#   SELF_REPAIR_MUTANTS_FLOOR    the score a crate must reach, in % (default 85; 100 with --ci).
#   SELF_REPAIR_MUTANTS_TIMEOUT  seconds a mutant's tests may run (default 60).
#   SELF_REPAIR_TOOLS_DIR        where cargo-mutants is installed (scripts/install-mutants.sh).
#
# One mutant at a time (`--jobs 1`), for a two-core machine. Exits 1 when a crate is below the
# floor or a run fails (its unmutated tests fail, a mutant's build hangs), or is void: a mutant
# counted caught whose log holds no failed test (scripts/mutants-caught-check.py: a test
# command that fails on its arguments catches every mutant); 2 on a usage error.
#
# With `--with-cli`, the unmutated tests of the crate and of the CLI suite run first in the
# scratch copy, with the same test command and arguments the mutants get (cargo-mutants' own
# baseline runs only the mutated crate's tests); `-- --baseline skip` skips both.
set -euo pipefail

script_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$script_dir/.." && pwd)"
scratch="${SELF_REPAIR_MUTANTS_DIR:-$repo/.cache/mutants}"
timeout="${SELF_REPAIR_MUTANTS_TIMEOUT:-60}"

# The store's commit protocol: what decides that a submitted result is acknowledged (the journal
# append and its sync, the marker an interrupted submit leaves, the answer to a second submit)
# and the fold that applies it. The other code of run_dir.rs is measured with the whole crate.
readonly COMMIT_PROTOCOL_RE='^crates/store/src/(result_commit|journal)\.rs:|^crates/store/src/run_dir\.rs:.*RunDir::(fold|record|append_applied|mark_submitting|clear_submitting|committed_without_copy|read_result|items_with_submit_marker|submitting_marker)\b'

ci=0
with_cli=0
crates=()
extra=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --ci) ci=1 ;;
    --with-cli) with_cli=1 ;;
    --) shift; extra=("$@"); break ;;
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "${BASH_SOURCE[0]}"; exit 0 ;;
    -*) echo "mutants: unknown option '$1' (use --ci, --with-cli, --help or -- before cargo-mutants options)" >&2; exit 2 ;;
    *)
      [[ -f "$repo/crates/$1/Cargo.toml" ]] ||
        { echo "mutants: no crate '$1' under crates/ (name its folder: gate, store, ...)" >&2; exit 2; }
      crates+=("$1") ;;
  esac
  shift
done
floor="${SELF_REPAIR_MUTANTS_FLOOR:-$([[ $ci -eq 1 ]] && echo 100 || echo 85)}"
if [[ $ci -eq 1 && ${#crates[@]} -eq 0 ]]; then
  crates=(gate store)
elif [[ ${#crates[@]} -eq 0 ]]; then
  for dir in "$repo"/crates/*/; do crates+=("$(basename "$dir")"); done
fi

eval "$(bash "$script_dir/install-mutants.sh" --print-env)"

# Copies the checkout's files (tracked and new, not ignored) into tree/, only those that differ,
# so cargo rebuilds what changed and nothing else, and drops files the checkout no longer has.
sync_tree() {
  local tree="$1" list="$scratch/files"
  mkdir -p "$tree"
  (cd "$repo" && git ls-files -z --cached --others --exclude-standard) >"$list"
  declare -A keep=()
  local file
  while IFS= read -r -d '' file; do
    [[ -f "$repo/$file" ]] || continue
    keep["$file"]=1
    if ! cmp -s "$repo/$file" "$tree/$file"; then
      mkdir -p "$(dirname "$tree/$file")"
      cp "$repo/$file" "$tree/$file"
    fi
  done <"$list"
  while IFS= read -r -d '' file; do
    file="${file#./}"
    [[ -n "${keep[$file]:-}" ]] || rm -f "$tree/$file"
  done < <(cd "$tree" && find . -path ./.git -prune -o -type f -print0)
}

# With the CLI suite, the scratch copy is made a git checkout of its own, one commit of what it
# holds: the binary then carries a commit in `--version` (build.rs), as one built in the
# checkout does, which the suite's doctor tests read. Without it one CLI test fails on every
# mutant, whatever it changed, and every mutant counts as caught.
commit_tree() {
  local tree="$1"
  [[ -d "$tree/.git" ]] || git -C "$tree" init -q
  git -C "$tree" add -A
  git -C "$tree" -c user.name=mutants -c user.email=mutants@localhost \
    commit -q --allow-empty --no-verify -m "scratch copy for mutation testing"
}

# The baseline of `--with-cli`: the crate's tests and the CLI suite, unmutated, in the scratch
# copy, run as cargo-mutants runs a mutant's (`cargo test` or `cargo nextest run` with
# `--test-tool nextest`, the packages, then what follows cargo-mutants' own `--`), so a test that
# fails there, or arguments the test command refuses, stop the run before any mutant counts.
cli_baseline() {
  local package="$1" log="$2" tool=(test) test_args=() after_dashes=0 previous="" arg
  for arg in "${extra[@]}"; do
    if [[ $after_dashes -eq 1 ]]; then
      test_args+=("$arg")
    elif [[ "$arg" == -- ]]; then
      after_dashes=1
    elif [[ "$arg" == --test-tool=nextest || ( "$previous" == --test-tool && "$arg" == nextest ) ]]; then
      tool=(nextest run)
    fi
    previous="$arg"
  done
  echo "mutants: the unmutated crate and CLI suite first: cargo ${tool[*]} --package $package --package self-repair ${test_args[*]}"
  (cd "$tree" && INSTA_UPDATE=no INSTA_FORCE_PASS=0 cargo "${tool[@]}" --package "$package" \
    --package self-repair "${test_args[@]}") >"$log" 2>&1
}

# Prints `caught missed timeout unviable` from a run's outcomes.json.
counts() {
  python3 - "$1" <<'EOF'
import json, sys
outcomes = json.load(open(sys.argv[1]))["outcomes"]
n = {"CaughtMutant": 0, "MissedMutant": 0, "Timeout": 0, "Unviable": 0}
for o in outcomes:
    summary = o.get("summary")
    if summary in n and o.get("scenario") != "Baseline":
        n[summary] += 1
print(n["CaughtMutant"], n["MissedMutant"], n["Timeout"], n["Unviable"])
EOF
}

tree="$scratch/tree"
sync_tree "$tree"
[[ $with_cli -eq 1 ]] && commit_tree "$tree"
export CARGO_TARGET_DIR="$scratch/target"
failed=()
listing=0
skip_baseline=0
for index in "${!extra[@]}"; do
  arg="${extra[$index]}"
  [[ "$arg" == --list* ]] && listing=1
  [[ "$arg" == --baseline=skip || ( "$arg" == --baseline && "${extra[$((index + 1))]:-}" == skip ) ]] &&
    skip_baseline=1
done
for crate in "${crates[@]}"; do
  package="self-repair-$crate"
  out="$scratch/out/$crate"
  args=(--in-place --timeout "$timeout" --package "$package" --test-package "$package" --output "$out")
  if [[ $with_cli -eq 1 ]]; then
    args+=(--test-package self-repair)
  fi
  if [[ $ci -eq 1 && "$crate" == store ]]; then
    args+=(--re "$COMMIT_PROTOCOL_RE")
  fi
  mkdir -p "$out"
  started=$(date +%s)
  if [[ $with_cli -eq 1 && $listing -eq 0 && $skip_baseline -eq 0 ]] &&
    ! cli_baseline "$package" "$out/cli-baseline.log"; then
    echo "mutants: $crate: the unmutated tests of the crate and the CLI suite fail in the scratch copy (see $out/cli-baseline.log): no mutant can count" >&2
    failed+=("$crate")
    continue
  fi
  status=0
  (cd "$tree" && "$CARGO_MUTANTS_BIN" mutants "${args[@]}" "${extra[@]}") || status=$?
  [[ $listing -eq 1 ]] && continue
  outcomes="$out/mutants.out/outcomes.json"
  if [[ ! -f "$outcomes" ]] || [[ $status -ne 0 && $status -ne 2 && $status -ne 3 ]]; then
    echo "mutants: $crate: cargo-mutants exited $status (see $out/mutants.out/debug.log)" >&2
    failed+=("$crate")
    continue
  fi
  if ! python3 "$script_dir/mutants-caught-check.py" "$out/mutants.out"; then
    echo "mutants: $crate: void: a mutant counted caught with no failed test (above)" >&2
    failed+=("$crate")
    continue
  fi
  read -r caught missed timed_out unviable < <(counts "$outcomes")
  detected=$((caught + timed_out))
  total=$((detected + missed))
  score=$(python3 -c "print(f'{100 * $detected / $total:.1f}' if $total else '100.0')")
  echo "mutants: $crate: $total mutants that build, $caught caught, $timed_out timed out, $missed missed ($unviable unviable); score $score % ($(($(date +%s) - started)) s)"
  if [[ $missed -gt 0 ]]; then
    sed 's/^/mutants:   missed: /' "$out/mutants.out/missed.txt"
  fi
  if python3 -c "import sys; sys.exit(0 if $detected * 100 >= $floor * $total else 1)"; then :; else
    failed+=("$crate")
  fi
done
if [[ ${#failed[@]} -gt 0 ]]; then
  echo "mutants: below $floor % or failed: ${failed[*]} (reference/mutants.md says how to read it)" >&2
  exit 1
fi
