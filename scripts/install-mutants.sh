#!/usr/bin/env bash
# Install cargo-mutants, the mutation tester `just mutants` and CI run (reference/mutants.md),
# from crates.io with `cargo install --locked` into the tools cache folder, never ~/.cargo:
# `<cache>/cargo-mutants-<version>` (scripts/mutants.sh calls this; so does CI through it).
#
# Usage: scripts/install-mutants.sh [--print-env] [--force]
#   --print-env  after installing, print `export CARGO_MUTANTS_BIN=...` for `eval`.
#   --force      reinstall even if the pinned version is already there.
# Env:
#   SELF_REPAIR_TOOLS_DIR  cache folder (default: <repo>/.cache/tools).
#
# Silent on success (apart from --print-env). Idempotent: when the stamp matches the pin and the
# binary is there, it returns at once without running cargo. cargo's output goes to
# <cache>/cargo-mutants-<version>/install.log and is shown only on failure. The first install
# compiles cargo-mutants (a few minutes on two cores).
set -euo pipefail

# Bump on purpose: read the release notes (mutation operators change between releases, and so
# do the scores), rerun `just mutants` and update reference/mutants.md.
readonly CARGO_MUTANTS_VERSION="27.1.0"

script_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$script_dir/.." && pwd)"
tools_dir="${SELF_REPAIR_TOOLS_DIR:-$repo/.cache/tools}"

print_env=0
force=0
for arg in "$@"; do
  case "$arg" in
    --print-env) print_env=1 ;;
    --force) force=1 ;;
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "${BASH_SOURCE[0]}"; exit 0 ;;
    *) echo "install-mutants: unknown argument '$arg' (use --print-env, --force or --help)" >&2; exit 2 ;;
  esac
done

die() {
  echo "install-mutants: ERROR: $*" >&2
  exit 1
}

root="$tools_dir/cargo-mutants-$CARGO_MUTANTS_VERSION"
bin="$root/bin/cargo-mutants"
stamp="$root/.installed"
log="$root/install.log"
want_stamp="cargo-mutants=$CARGO_MUTANTS_VERSION"

emit_env() {
  [[ $print_env -eq 1 ]] || return 0
  printf 'export CARGO_MUTANTS_BIN=%q\n' "$bin"
}

is_current() {
  [[ $force -eq 0 && -f "$stamp" && -x "$bin" ]] || return 1
  [[ "$(cat "$stamp")" == "$want_stamp" ]]
}

if is_current; then
  emit_env
  exit 0
fi

command -v cargo >/dev/null 2>&1 || die "cargo not found on PATH; install the Rust toolchain (rustup) and rerun"
mkdir -p "$root" || die "cannot create $root; set SELF_REPAIR_TOOLS_DIR to a writable folder"

# Serialize concurrent runs on one cache folder.
if command -v flock >/dev/null 2>&1; then
  exec 7>"$root/.lock"
  flock 7 || die "cannot lock $root/.lock"
  if is_current; then
    emit_env
    exit 0
  fi
fi

rm -f "$stamp"
# Its own target folder (cargo install's temporary one), not the workspace's CARGO_TARGET_DIR;
# one job, for a shared two-core machine.
if ! env -u CARGO_TARGET_DIR -u CARGO_BUILD_TARGET_DIR cargo install --locked --jobs 1 \
  --root "$root" --version "$CARGO_MUTANTS_VERSION" cargo-mutants </dev/null >"$log" 2>&1; then
  echo "install-mutants: cargo install failed; last lines of $log:" >&2
  tail -n 30 "$log" >&2 || true
  die "cargo install cargo-mutants@$CARGO_MUTANTS_VERSION failed (is crates.io reachable? see $log)"
fi

out="$("$bin" mutants --version </dev/null 2>&1)" || die "'cargo-mutants mutants --version' failed: $out"
[[ "$out" == *"$CARGO_MUTANTS_VERSION"* ]] ||
  die "'cargo-mutants mutants --version' printed '$out', expected $CARGO_MUTANTS_VERSION"

printf '%s' "$want_stamp" >"$stamp"
emit_env
