#!/usr/bin/env bash
# Build the PyPI wheel of `self-repair` (issue 23): maturin, pinned, from PyPI into a venv in
# the cache folder, then `maturin build --release --locked` on pyproject.toml (`bindings =
# "bin"`): the release profile of Cargo.toml (fat LTO, PIE), the binary alone in the wheel's
# scripts folder, so `pip install` puts `self-repair` on PATH. CI (.ci/run) and the release
# workflow (.github/workflows/release.yml) run this script; reference/install.md.
#
# Usage: scripts/build-wheel.sh [--out DIR] [--print-env] [-- MATURIN_BUILD_ARGS...]
#   --out DIR    where the wheel goes (default: <target dir>/wheels); older self-repair wheels
#                there are removed first, so exactly one is left.
#   --print-env  print `export SELF_REPAIR_WHEEL=<the wheel>` for `eval` (else the path alone).
#   after --      more `maturin build` arguments (e.g. `--target aarch64-apple-darwin`).
# Env:
#   SELF_REPAIR_TOOLS_DIR  cache folder (default: <repo>/.cache/tools); maturin is in <cache>/maturin.
#   CARGO_TARGET_DIR       honoured (maturin builds with cargo).
#
# Checks the wheel before printing it: it holds `self-repair` as a script (the one file pip puts
# on PATH); on Linux that binary is position-independent (ELF type DYN: PIE); and `pip install`
# of the wheel alone (--no-index) into a fresh venv gives a `self-repair` that, run with only the
# venv and the system folders on PATH (no cargo), prints the wheel's version. Prints the build
# time on stderr. Exits 1 with maturin's last lines when the build fails. Runs on macOS's bash 3.2.
set -euo pipefail

readonly MATURIN_VERSION="1.16.0"

script_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$script_dir/.." && pwd)"
tools_dir="${SELF_REPAIR_TOOLS_DIR:-$repo/.cache/tools}"
out="${CARGO_TARGET_DIR:-$repo/target}/wheels"

print_env=0
maturin_args=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --out) [[ $# -ge 2 ]] || { echo "build-wheel: --out needs a folder" >&2; exit 2; }; out="$2"; shift 2 ;;
    --print-env) print_env=1; shift ;;
    --) shift; maturin_args=("$@"); break ;;
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "${BASH_SOURCE[0]}"; exit 0 ;;
    *) echo "build-wheel: unknown argument '$1' (use --out DIR, --print-env, -- MATURIN_ARGS or --help)" >&2; exit 2 ;;
  esac
done

die() {
  echo "build-wheel: ERROR: $*" >&2
  exit 1
}

command -v python3 >/dev/null 2>&1 || die "python3 not found on PATH; install Python >= 3.8 with its venv module (e.g. apt-get install -y python3 python3-venv) and rerun"
command -v cargo >/dev/null 2>&1 || die "cargo not found on PATH; building the wheel needs Rust >= 1.89 (https://rustup.rs)"

# maturin, pinned, in its own venv (idempotent: a stamp names the installed version).
venv="$tools_dir/maturin"
maturin="$venv/bin/maturin"
stamp="$venv/.installed"
log="$tools_dir/maturin-install.log"
if [[ ! -x "$maturin" || "$(cat "$stamp" 2>/dev/null)" != "maturin==$MATURIN_VERSION" ]]; then
  mkdir -p "$tools_dir" || die "cannot create $tools_dir; set SELF_REPAIR_TOOLS_DIR to a writable folder"
  rm -rf "$venv"
  python3 -m venv "$venv" </dev/null >"$log" 2>&1 ||
    { tail -n 20 "$log" >&2; die "'python3 -m venv $venv' failed (is the venv module installed? e.g. apt-get install -y python3-venv)"; }
  PIP_DISABLE_PIP_VERSION_CHECK=1 "$venv/bin/python" -m pip install --no-input --quiet \
    "maturin==$MATURIN_VERSION" </dev/null >>"$log" 2>&1 ||
    { tail -n 30 "$log" >&2; die "pip install maturin==$MATURIN_VERSION failed (is the PyPI registry reachable? see $log)"; }
  printf 'maturin==%s' "$MATURIN_VERSION" >"$stamp"
fi

mkdir -p "$out" || die "cannot create $out"
rm -f "$out"/self_repair-*.whl
started=$(date +%s)
build_log="$out/maturin-build.log"
if ! (cd "$repo" && "$maturin" build --release --locked --out "$out" ${maturin_args[@]+"${maturin_args[@]}"}) \
  </dev/null >"$build_log" 2>&1; then
  tail -n 40 "$build_log" >&2
  die "maturin build failed (full output in $build_log)"
fi
seconds=$(($(date +%s) - started))

shopt -s nullglob
wheels=("$out"/self_repair-*.whl)
[[ ${#wheels[@]} -eq 1 ]] || die "maturin build left ${#wheels[@]} self_repair wheels in $out, expected 1 (see $build_log)"
wheel="${wheels[0]}"

# The wheel holds the binary as a script: pip installs it into the environment's bin folder.
member="$(python3 - "$wheel" <<'PY'
import sys, zipfile
names = [n for n in zipfile.ZipFile(sys.argv[1]).namelist() if n.endswith(".data/scripts/self-repair")]
print(names[0] if len(names) == 1 else "")
PY
)"
[[ -n "$member" ]] || die "$wheel holds no self_repair-*.data/scripts/self-repair (see $build_log)"

# PIE: on Linux the binary's ELF header says DYN (an executable built without PIE says EXEC).
if [[ "$(uname -s)" == Linux ]]; then
  elf_type="$(python3 - "$wheel" "$member" <<'PY'
import struct, sys, zipfile
head = zipfile.ZipFile(sys.argv[1]).read(sys.argv[2])[:18]
kind = struct.unpack("<H", head[16:18])[0] if head[:4] == b"\x7fELF" else None
print({2: "EXEC", 3: "DYN"}.get(kind, "not-ELF"))
PY
)"
  [[ "$elf_type" == DYN ]] || die "the self-repair in $wheel is ELF type $elf_type, not DYN: it lost PIE"
fi

# Installed as a user installs it: a fresh venv, the wheel alone, no Rust toolchain on PATH.
version="$(basename "$wheel" | cut -d- -f2)"
check_dir="$(mktemp -d "${TMPDIR:-/tmp}/self-repair-wheel-check.XXXXXX")"
trap 'rm -rf "$check_dir"' EXIT
python3 -m venv "$check_dir/venv" </dev/null >"$check_dir/log" 2>&1 &&
  PIP_DISABLE_PIP_VERSION_CHECK=1 "$check_dir/venv/bin/python" -m pip install --no-index --no-input \
    --quiet "$wheel" </dev/null >>"$check_dir/log" 2>&1 ||
  { tail -n 20 "$check_dir/log" >&2; die "pip install of $wheel into a fresh venv failed"; }
printed="$(PATH="$check_dir/venv/bin:/usr/bin:/bin" self-repair --version </dev/null 2>&1)" ||
  die "'self-repair --version' from the venv failed: $printed"
# The semver first; the commit and its date follow when the wheel was built in a git clone.
[[ "$printed" == "self-repair $version" || "$printed" == "self-repair $version ("* ]] ||
  die "'self-repair --version' from the venv printed '$printed', expected 'self-repair $version'"

echo "build-wheel: $(basename "$wheel") in ${seconds} s (maturin $MATURIN_VERSION; installs and runs from a fresh venv)" >&2
if [[ $print_env -eq 1 ]]; then
  printf 'export SELF_REPAIR_WHEEL=%q\n' "$wheel"
else
  echo "$wheel"
fi
