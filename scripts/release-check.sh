#!/usr/bin/env bash
# The local release check (issue 46; reference/install.md, "What CI checks"): what a release
# would publish for this platform, installed as a user installs it, with no network.
#
# It packs the release binary the way the release workflow does (scripts/release-dist.sh:
# archive, sums, installer, Homebrew formula), serves the folder on 127.0.0.1
# (`python3 -m http.server`), and runs the installer against it in a clean folder (a fresh
# HOME, PATH=/usr/bin:/bin: no cargo), then `self-repair --version`, `self-repair doctor` (it
# must say the installer installed it) and `self-repair demo`. Then the refusals: a tampered
# archive (checksum mismatch), an unknown platform and a version that is not released each
# make the installer exit 1 with what to do, and install nothing. Prints the install's time.
#
# Usage: scripts/release-check.sh [--binary PATH] [--keep]
#   --binary PATH  the binary to pack (default: <target dir>/release/self-repair, which
#                  scripts/build-wheel.sh leaves: .ci/run makes no second release build)
#   --keep         keep the scratch folder (its path is printed)
# Exits 1 on the first check that fails, saying which.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
binary="${CARGO_TARGET_DIR:-$repo/target}/release/self-repair"
keep=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    --binary) binary="${2:?--binary needs a path}"; shift 2 ;;
    --keep) keep=1; shift ;;
    -h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "${BASH_SOURCE[0]}"; exit 0 ;;
    *) echo "release-check: unknown argument '$1' (use --binary PATH, --keep or --help)" >&2; exit 2 ;;
  esac
done

die() {
  echo "release-check: FAILED: $*" >&2
  exit 1
}
[[ -x "$binary" ]] || die "no release binary at $binary: run scripts/build-wheel.sh (or cargo build --release), or give --binary"
binary="$(cd "$(dirname "$binary")" && pwd)/$(basename "$binary")"

scratch="$(mktemp -d "${TMPDIR:-/tmp}/self-repair-release-check.XXXXXX")"
server_pid=""
cleanup() {
  [[ -n "$server_pid" ]] && kill "$server_pid" 2>/dev/null
  if [[ $keep -eq 1 ]]; then echo "release-check: kept $scratch" >&2; else rm -rf "$scratch"; fi
}
trap cleanup EXIT

# The target this machine's archive is named after: the installer's own choice (its uname
# mapping), so the check fails if the two ever disagree.
case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) target=x86_64-unknown-linux-gnu ;;
  Linux-aarch64) target=aarch64-unknown-linux-gnu ;;
  Darwin-arm64) target=aarch64-apple-darwin ;;
  Darwin-x86_64) target=x86_64-apple-darwin ;;
  *) die "$(uname -s) $(uname -m) is not a platform the release ships" ;;
esac

version="$(sed -n '/^\[package\]/,/^\[/s/^version = "\(.*\)"/\1/p' "$repo/Cargo.toml" | head -n 1)"
serve="$scratch/serve"
dist="$serve/v$version"
bash "$repo/scripts/release-dist.sh" archive --binary "$binary" --target "$target" --out "$dist"
bash "$repo/scripts/release-dist.sh" finish --out "$dist"
grep -q "sha256 \"$(cut -d ' ' -f 1 <"$dist/self-repair-$target.tar.gz.sha256")\"" "$dist/self-repair.rb" ||
  die "the Homebrew formula does not carry the archive's sum"
(cd "$dist" && sha256sum -c --quiet sha256.sum) || die "sha256.sum does not match the files"
# A tampered copy: the same files, one byte of the archive changed, the sum left as published.
tampered="$serve/tampered"
cp -a "$dist" "$tampered"
python3 - "$tampered/self-repair-$target.tar.gz" <<'PY'
import sys
path = sys.argv[1]
data = bytearray(open(path, "rb").read())
data[len(data) // 2] ^= 0xFF
open(path, "wb").write(bytes(data))
PY

# The server: python3's, on a free port of 127.0.0.1, its port read from its first line.
python3 -u -m http.server --bind 127.0.0.1 --directory "$serve" 0 >"$scratch/server.log" 2>&1 &
server_pid=$!
port=""
for _ in $(seq 1 100); do
  port="$(sed -n 's/.* port \([0-9][0-9]*\) .*/\1/p' "$scratch/server.log" | head -n 1)"
  [[ -n "$port" ]] && break
  sleep 0.1
done
[[ -n "$port" ]] || die "python3 -m http.server did not start: $(cat "$scratch/server.log")"
url="http://127.0.0.1:$port"

# A clean machine: a fresh HOME, the system's folders only on PATH (no cargo, no rustc).
clean_env() { # HOME PATH_DIRS... -- COMMAND...
  local home="$1" path="$2"
  shift 2
  env -i HOME="$home" PATH="$path" LANG=C.UTF-8 TMPDIR="$scratch" "$@"
}
system_path=/usr/bin:/bin
for tool in cargo rustc rustup; do
  ! PATH="$system_path" command -v "$tool" >/dev/null 2>&1 ||
    echo "release-check: note: $tool is in $system_path (the check still runs the installed binary only)" >&2
done

home="$scratch/home"
mkdir -p "$home"
started=$(python3 -c 'import time; print(time.time())')
clean_env "$home" "$system_path" SELF_REPAIR_DOWNLOAD_URL="$url/v$version" sh "$dist/self-repair-installer.sh" \
  >"$scratch/install.log" 2>&1 || die "the installer failed: $(cat "$scratch/install.log")"
seconds=$(python3 -c "import time; print(f'{time.time() - $started:.2f}')")
installed="$home/.local/bin/self-repair"
[[ -x "$installed" ]] || die "the installer put no $installed: $(cat "$scratch/install.log")"
cmp -s "$installed" "$binary" || die "$installed is not the binary that was packed"
grep -q "checksum verified" "$scratch/install.log" || die "the installer did not say it verified the checksum"
grep -q 'export PATH="'"$home/.local/bin"':$PATH"' "$scratch/install.log" ||
  die "the installer did not say how to put $home/.local/bin on PATH: $(cat "$scratch/install.log")"
printed="$(clean_env "$home" "$system_path" "$installed" --version)"
[[ "$printed" == "self-repair $version" || "$printed" == "self-repair $version ("* ]] ||
  die "'self-repair --version' printed '$printed', expected self-repair $version"
receipt="$home/.config/self-repair/install-receipt.json"
[[ -f "$receipt" ]] || die "the installer wrote no $receipt"

# doctor, with the folder on PATH as the installer advised: it knows the installer put it there.
doctor="$(cd "$home" && clean_env "$home" "$home/.local/bin:$system_path" "$installed" doctor --json || true)"
python3 - "$doctor" <<'PY' || die "doctor did not name the installer as the install route: $doctor"
import json, sys
checks = {c["check"]: c for c in json.loads(sys.argv[1])["setup"]}
found = checks["install"]["found"]
assert "installer" in found and "self-repair-installer.sh" in found, found
PY

# The demo, from the installed binary alone.
clean_env "$home" "$home/.local/bin:$system_path" self-repair demo --dir "$scratch/demo" >"$scratch/demo.log" 2>&1 ||
  die "self-repair demo failed: $(tail -n 20 "$scratch/demo.log")"
grep -q "^status complete" "$scratch/demo.log" || die "the demo did not complete: $(tail -n 20 "$scratch/demo.log")"

# Refusals: each exits 1 with what to do, and installs nothing.
refused() { # NAME EXPECTED_TEXT ENV...
  local name="$1" expected="$2" home2="$scratch/home-$1"
  shift 2
  mkdir -p "$home2"
  if clean_env "$home2" "$system_path" "$@" sh "$dist/self-repair-installer.sh" >"$scratch/$name.log" 2>&1; then
    die "$name: the installer succeeded: $(cat "$scratch/$name.log")"
  fi
  grep -q -- "$expected" "$scratch/$name.log" || die "$name: the installer did not say '$expected': $(cat "$scratch/$name.log")"
  [[ ! -e "$home2/.local/bin/self-repair" ]] || die "$name: the installer installed a binary anyway"
}
refused tampered "checksum mismatch" SELF_REPAIR_DOWNLOAD_URL="$url/tampered"
refused unreleased "is version 9.9.9 released" SELF_REPAIR_VERSION=9.9.9 SELF_REPAIR_DOWNLOAD_URL="$url/v9.9.9"
fake_uname="$scratch/fake-uname"
mkdir -p "$fake_uname"
printf '#!/bin/sh\ncase "$1" in -s) echo FreeBSD ;; -m) echo riscv64 ;; *) echo FreeBSD ;; esac\n' >"$fake_uname/uname"
chmod 755 "$fake_uname/uname"
mkdir -p "$scratch/home-platform"
if env -i HOME="$scratch/home-platform" PATH="$fake_uname:$system_path" sh "$dist/self-repair-installer.sh" \
  >"$scratch/platform.log" 2>&1; then
  die "an unknown platform: the installer succeeded"
fi
grep -q "no prebuilt self-repair for FreeBSD riscv64" "$scratch/platform.log" && grep -q "cargo install --locked" "$scratch/platform.log" ||
  die "an unknown platform: $(cat "$scratch/platform.log")"

echo "release-check: installed self-repair $version ($target) from local artifacts into a fresh HOME in ${seconds} s; checksum verified, --version, doctor and demo passed; tampered archive, unknown platform and unreleased version refused" >&2
