#!/usr/bin/env bash
# Install the real Python tools the fix-loop e2e scenarios run (Ruff, pytest, vulture) into a
# venv in the cache folder, never the machine's own: `<cache>/py` (scripts/install-tools.sh
# calls this; so do CI and `just e2e`).
#
# Usage: scripts/install-py-tools.sh [--print-env] [--force]
#   --print-env  after installing, print `export NAME=value` lines for `eval`: PY_TOOLS_BIN (the
#                venv's bin folder), RUFF_BIN, PYTEST_BIN, VULTURE_BIN. PATH is left alone.
#   --force      recreate the venv even if the pinned versions are already there.
# Env:
#   SELF_REPAIR_TOOLS_DIR  cache folder (default: <repo>/.cache/tools); the venv is <cache>/py.
#
# Silent on success (apart from --print-env). Idempotent: when the stamp matches the pins and
# the three programs are there, it returns at once without running python or pip. pip's output
# goes to <cache>/py-install.log and is shown only on failure.
set -euo pipefail

# Every package pinned, the tools' own dependencies too, so every machine runs the same.
readonly PY_PACKAGES=(
  "ruff==0.17.6"      # the version of the committed Ruff outputs (tests/fixtures/formats)
  "vulture==2.16"     # the version of tests/fixtures/formats/vulture-2.16.txt
  "pytest==9.2.0"
  "iniconfig==2.3.1"  # pytest's dependencies, pinned as pip resolved them
  "packaging==26.3"
  "pluggy==1.7.0"
  "pygments==2.21.0"
)

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
    *) echo "install-py-tools: unknown argument '$arg' (use --print-env, --force or --help)" >&2; exit 2 ;;
  esac
done

die() {
  echo "install-py-tools: ERROR: $*" >&2
  exit 1
}

venv="$tools_dir/py"
bin_dir="$venv/bin"
stamp="$venv/.installed"
log="$tools_dir/py-install.log"
want_stamp="${PY_PACKAGES[*]}"

emit_env() {
  [[ $print_env -eq 1 ]] || return 0
  printf 'export PY_TOOLS_BIN=%q\n' "$bin_dir"
  printf 'export RUFF_BIN=%q\n' "$bin_dir/ruff"
  printf 'export PYTEST_BIN=%q\n' "$bin_dir/pytest"
  printf 'export VULTURE_BIN=%q\n' "$bin_dir/vulture"
}

is_current() {
  [[ $force -eq 0 && -f "$stamp" && -x "$bin_dir/ruff" && -x "$bin_dir/pytest" && -x "$bin_dir/vulture" ]] || return 1
  [[ "$(cat "$stamp")" == "$want_stamp" ]]
}

if is_current; then
  emit_env
  exit 0
fi

command -v python3 >/dev/null 2>&1 || die "python3 not found on PATH; install Python >= 3.9 with its venv module (e.g. apt-get install -y python3 python3-venv) and rerun"
mkdir -p "$tools_dir" || die "cannot create $tools_dir; set SELF_REPAIR_TOOLS_DIR to a writable folder"

# Serialize concurrent runs on one cache folder.
if command -v flock >/dev/null 2>&1; then
  exec 8>"$tools_dir/.py-lock"
  flock 8 || die "cannot lock $tools_dir/.py-lock"
  if is_current; then
    emit_env
    exit 0
  fi
fi

rm -rf "$venv"
if ! python3 -m venv "$venv" </dev/null >"$log" 2>&1; then
  tail -n 20 "$log" >&2 || true
  die "'python3 -m venv $venv' failed (is the venv module installed? e.g. apt-get install -y python3-venv)"
fi
if ! PIP_DISABLE_PIP_VERSION_CHECK=1 "$bin_dir/python" -m pip install --no-input --quiet \
  "${PY_PACKAGES[@]}" </dev/null >>"$log" 2>&1; then
  echo "install-py-tools: pip install failed; last lines of $log:" >&2
  tail -n 30 "$log" >&2 || true
  die "pip install failed (is the PyPI registry reachable? see $log)"
fi

# Offline checks: each tool says its version.
check_version() {
  local name="$1" want="$2" out
  out="$("$bin_dir/$name" --version </dev/null 2>&1)" || die "'$name --version' failed: $out"
  [[ "$out" == *"$want"* ]] || die "'$name --version' printed '$out', expected $want"
}
check_version ruff "ruff 0.17.6"
check_version vulture "vulture 2.16"
check_version pytest "pytest 9.2.0"

printf '%s' "$want_stamp" >"$stamp"
emit_env
