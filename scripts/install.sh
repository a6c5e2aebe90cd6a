#!/bin/sh
# The self-repair installer: short on purpose, read it before you run it.
#
#   curl -LsSf https://github.com/self-repair/self-repair/releases/latest/download/self-repair-installer.sh | sh
#
# It picks the archive of this platform (Linux x86-64/aarch64 with glibc >= 2.34, macOS
# arm64/x86-64), downloads it and its SHA-256 sum from the release, refuses it when the sum does
# not match, installs the one binary `self-repair` into a folder of yours (~/.local/bin), runs
# it once, records how it was installed (~/.config/self-repair/install-receipt.json, which
# `self-repair doctor` reads) and says how to put the folder on PATH. It edits no shell profile
# and needs no root. Published as a release asset by .github/workflows/release.yml.
#
# Environment (all optional):
#   SELF_REPAIR_VERSION       the version to install (default: this installer's, below)
#   SELF_REPAIR_INSTALL_DIR   where the binary goes (default: ~/.local/bin)
#   SELF_REPAIR_DOWNLOAD_URL  where the archives are (default: the release of that version on
#                             GitHub; scripts/release-check.sh points it at 127.0.0.1)
set -eu

version="${SELF_REPAIR_VERSION:-0.1.0}"
base_url="${SELF_REPAIR_DOWNLOAD_URL:-https://github.com/self-repair/self-repair/releases/download/v$version}"
install_dir="${SELF_REPAIR_INSTALL_DIR:-${HOME:?HOME is not set}/.local/bin}"
from_source="install from source instead: cargo install --locked --git https://github.com/self-repair/self-repair --tag v$version self-repair (Rust >= 1.89)"

say() { printf 'self-repair-installer: %s\n' "$*"; }
refuse() {
  printf 'self-repair-installer: %s\n' "$*" >&2
  exit 1
}

# The Rust target of this machine, as the release names its archives.
target() {
  os="$(uname -s)"
  arch="$(uname -m)"
  case "$os-$arch" in
    Linux-x86_64 | Linux-amd64) triple=x86_64-unknown-linux-gnu ;;
    Linux-aarch64 | Linux-arm64) triple=aarch64-unknown-linux-gnu ;;
    Darwin-arm64 | Darwin-aarch64) triple=aarch64-apple-darwin ;;
    Darwin-x86_64)
      # A shell under Rosetta says x86_64 on Apple silicon: take the native build.
      if [ "$(sysctl -n hw.optional.arm64 2>/dev/null || echo 0)" = 1 ]; then
        triple=aarch64-apple-darwin
      else
        triple=x86_64-apple-darwin
      fi
      ;;
    *) refuse "no prebuilt self-repair for $os $arch (there are Linux x86-64 and aarch64, macOS arm64 and x86-64; on Windows use WSL): $from_source" ;;
  esac
  case "$triple" in
    *-linux-gnu)
      libc="$(ldd --version 2>&1 | head -n 1 || true)"
      case "$libc" in
        *musl*) refuse "this Linux uses musl (Alpine?), and the prebuilt self-repair needs glibc >= 2.34: $from_source" ;;
      esac
      glibc="${libc##* }"
      major="${glibc%%.*}"
      minor="${glibc#*.}"
      minor="${minor%%[!0-9]*}"
      case "$major.$minor" in
        *[!0-9.]* | .* | *.) ;; # not a version: let the binary's own run below tell
        *) if [ "$major" -lt 2 ] || { [ "$major" -eq 2 ] && [ "$minor" -lt 34 ]; }; then
          refuse "this Linux has glibc $glibc, and the prebuilt self-repair needs glibc >= 2.34 (Ubuntu 22.04, Debian 12, RHEL 9 or newer): $from_source"
        fi ;;
      esac
      ;;
  esac
  echo "$triple"
}

download() { # URL FILE
  if command -v curl >/dev/null 2>&1; then
    curl --fail --location --silent --show-error --retry 3 --output "$2" "$1" || return 1
  elif command -v wget >/dev/null 2>&1; then
    wget --quiet --tries=3 --output-document="$2" "$1" || return 1
  else
    refuse "neither curl nor wget is installed: install one of them and run this again"
  fi
}

sha256_of() { # FILE
  if command -v sha256sum >/dev/null 2>&1; then
    sha256sum "$1" | cut -d ' ' -f 1
  elif command -v shasum >/dev/null 2>&1; then
    shasum -a 256 "$1" | cut -d ' ' -f 1
  elif command -v openssl >/dev/null 2>&1; then
    openssl dgst -sha256 "$1" | sed 's/.*= *//'
  else
    refuse "no sha256sum, shasum or openssl to check the download with: install one of them and run this again"
  fi
}

triple="$(target)"
archive="self-repair-$triple.tar.gz"
work="$(mktemp -d "${TMPDIR:-/tmp}/self-repair-install.XXXXXX")"
trap 'rm -rf "$work"' EXIT
trap 'exit 1' INT TERM

say "downloading self-repair $version for $triple from $base_url"
download "$base_url/$archive" "$work/$archive" ||
  refuse "could not download $base_url/$archive (is version $version released? the releases: https://github.com/self-repair/self-repair/releases). Nothing was installed; or $from_source"
download "$base_url/$archive.sha256" "$work/$archive.sha256" ||
  refuse "could not download $base_url/$archive.sha256, so the archive cannot be checked. Nothing was installed; run this again, or $from_source"

expected="$(cut -d ' ' -f 1 <"$work/$archive.sha256" | tr 'A-F' 'a-f')"
actual="$(sha256_of "$work/$archive")"
case "$expected" in
  [0-9a-f][0-9a-f][0-9a-f][0-9a-f]*) ;;
  *) refuse "$archive.sha256 holds no SHA-256 sum. Nothing was installed; run this again, or $from_source" ;;
esac
[ "$expected" = "$actual" ] ||
  refuse "checksum mismatch: $archive has SHA-256 $actual, its release says $expected. The download is damaged or was altered; nothing was installed. Run this again; if it fails the same way, report it at https://github.com/self-repair/self-repair/issues, or $from_source"
say "checksum verified (SHA-256 $actual)"

tar -xzf "$work/$archive" -C "$work"
binary="$work/self-repair-$triple/self-repair"
[ -f "$binary" ] || refuse "$archive holds no self-repair-$triple/self-repair: nothing was installed; $from_source"
mkdir -p "$install_dir" || refuse "cannot create $install_dir: set SELF_REPAIR_INSTALL_DIR to a folder you can write"
# Copied beside the old binary, then renamed over it: a hook running the old one is not disturbed.
cp "$binary" "$install_dir/.self-repair.new.$$"
chmod 755 "$install_dir/.self-repair.new.$$"
mv -f "$install_dir/.self-repair.new.$$" "$install_dir/self-repair"
installed="$("$install_dir/self-repair" --version 2>&1)" ||
  refuse "$install_dir/self-repair does not run on this machine: $installed. Remove it and $from_source"
installed="$(printf '%s\n' "$installed" | head -n 1)"
say "installed $installed to $install_dir/self-repair"

# How it was installed, for `self-repair doctor` (its upgrade advice).
receipt_dir="$HOME/.config/self-repair"
if mkdir -p "$receipt_dir" 2>/dev/null; then
  json() { printf '%s' "$1" | sed 's/\\/\\\\/g; s/"/\\"/g'; }
  printf '{"installed_by": "self-repair-installer.sh", "version": "%s", "binary": "%s", "source": "%s"}\n' \
    "$(json "$version")" "$(json "$install_dir/self-repair")" "$(json "$base_url")" \
    >"$receipt_dir/install-receipt.json"
fi

case ":${PATH:-}:" in
  *":$install_dir:"*) say "$install_dir is on PATH: run \`self-repair demo\`, then see the README's \"Use it\"" ;;
  *)
    say "$install_dir is not on PATH. Add it, in your shell's profile (~/.profile, ~/.bashrc or ~/.zshrc):"
    say "    export PATH=\"$install_dir:\$PATH\""
    say "then open a new terminal (and start Claude Code from it: its hooks and agents call self-repair by name)"
    ;;
esac
