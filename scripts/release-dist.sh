#!/usr/bin/env bash
# What a release publishes besides the wheels (issue 46; reference/install.md, "What a release
# publishes"): one archive per platform with its SHA-256 sum, the installer, the sums of
# everything in one file, and a Homebrew formula written from those same sums. The release
# workflow (.github/workflows/release.yml) and the local release check
# (scripts/release-check.sh) run it; nothing here uses the network.
#
# Usage:
#   scripts/release-dist.sh archive --binary PATH --target TRIPLE --out DIR
#       DIR/self-repair-TRIPLE.tar.gz (the folder self-repair-TRIPLE/ holding the binary,
#       README.md, LICENSE and CHANGELOG.md) and DIR/self-repair-TRIPLE.tar.gz.sha256
#       (`sha256sum` format). On Linux the binary must be PIE (ELF type DYN).
#   scripts/release-dist.sh finish --out DIR [--all-platforms]
#       DIR/self-repair-installer.sh (scripts/install.sh, its default version checked against
#       Cargo.toml's), DIR/self-repair.rb (the Homebrew formula, one url and sha256 per archive
#       in DIR) and DIR/sha256.sum (every file's sum). --all-platforms: refuse unless the four
#       platforms' archives are all there (the release workflow's publish job).
#
# The archive's binary is the one the wheel holds (the release workflow packs the binary
# scripts/build-wheel.sh built: one release build per platform). Runs on macOS's bash 3.2.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
readonly PLATFORMS="x86_64-unknown-linux-gnu aarch64-unknown-linux-gnu aarch64-apple-darwin x86_64-apple-darwin"
readonly RELEASES="https://github.com/self-repair/self-repair/releases/download"

die() {
  echo "release-dist: ERROR: $*" >&2
  exit 1
}

sha256() {
  if command -v sha256sum >/dev/null 2>&1; then sha256sum "$1" | cut -d ' ' -f 1; else shasum -a 256 "$1" | cut -d ' ' -f 1; fi
}

# The version Cargo.toml gives the package.
cargo_version() {
  sed -n '/^\[package\]/,/^\[/s/^version = "\(.*\)"/\1/p' "$repo/Cargo.toml" | head -n 1
}

archive() {
  local binary="" target="" out=""
  while [[ $# -gt 0 ]]; do
    case "$1" in
      --binary) binary="${2:?--binary needs a path}"; shift 2 ;;
      --target) target="${2:?--target needs a Rust target triple}"; shift 2 ;;
      --out) out="${2:?--out needs a folder}"; shift 2 ;;
      *) die "archive: unknown argument '$1' (use --binary PATH --target TRIPLE --out DIR)" ;;
    esac
  done
  [[ -n "$binary" && -n "$target" && -n "$out" ]] || die "archive needs --binary PATH --target TRIPLE --out DIR"
  [[ -x "$binary" ]] || die "$binary is not an executable: build it first (scripts/build-wheel.sh makes target/release/self-repair)"
  case " $PLATFORMS " in
    *" $target "*) ;;
    *) die "$target is not a platform the release ships ($PLATFORMS)" ;;
  esac
  if [[ "$target" == *-linux-* ]]; then
    # e_type, the two bytes at offset 16 of the ELF header: 3 is DYN (PIE), 2 is EXEC.
    local elf_type
    elf_type="$(od -An -t u2 -j 16 -N 2 "$binary" | tr -d ' ')"
    [[ "$elf_type" == 3 ]] || die "$binary is not position-independent (ELF type $elf_type, not 3 = DYN): the release keeps PIE"
  fi
  local name="self-repair-$target" stage
  stage="$(mktemp -d "${TMPDIR:-/tmp}/self-repair-dist.XXXXXX")"
  mkdir -p "$stage/$name" "$out"
  cp "$binary" "$stage/$name/self-repair"
  chmod 755 "$stage/$name/self-repair"
  cp "$repo/README.md" "$repo/LICENSE" "$repo/CHANGELOG.md" "$stage/$name/"
  # Reproducible metadata where tar allows it: owner and group 0, sorted names (GNU tar).
  if tar --version 2>/dev/null | grep -q GNU; then
    tar --owner=0 --group=0 --numeric-owner --sort=name -C "$stage" -czf "$out/$name.tar.gz" "$name"
  else
    tar -C "$stage" -czf "$out/$name.tar.gz" "$name"
  fi
  rm -rf "$stage"
  (cd "$out" && printf '%s  %s\n' "$(sha256 "$name.tar.gz")" "$name.tar.gz" >"$name.tar.gz.sha256")
  echo "release-dist: $out/$name.tar.gz ($(wc -c <"$out/$name.tar.gz" | tr -d ' ') bytes)" >&2
}

# One `url`/`sha256` pair of the formula, or nothing when that archive is not in DIR.
formula_platform() { # OUT TARGET INDENT
  local sum_file="$1/self-repair-$2.tar.gz.sha256"
  [[ -f "$sum_file" ]] || return 0
  printf '%surl "%s/v%s/self-repair-%s.tar.gz"\n' "$3" "$RELEASES" "$version" "$2"
  printf '%ssha256 "%s"\n' "$3" "$(cut -d ' ' -f 1 <"$sum_file")"
}

formula() { # OUT
  local out="$1" os arch
  cat <<EOF
# Homebrew formula of self-repair $version, written by scripts/release-dist.sh from the
# release's SHA-256 sums. Put it in a tap (Formula/self-repair.rb) to \`brew install\` it.
class SelfRepair < Formula
  desc "Claude Code Stop-hook driver that works through every analyzer finding"
  homepage "https://github.com/self-repair/self-repair"
  version "$version"
  license "MIT"

EOF
  for os in macos linux; do
    local arm intel
    if [[ $os == macos ]]; then arm=aarch64-apple-darwin intel=x86_64-apple-darwin; else arm=aarch64-unknown-linux-gnu intel=x86_64-unknown-linux-gnu; fi
    [[ -f "$out/self-repair-$arm.tar.gz.sha256" || -f "$out/self-repair-$intel.tar.gz.sha256" ]] || continue
    echo "  on_$os do"
    for arch in arm intel; do
      local triple
      if [[ $arch == arm ]]; then triple=$arm; else triple=$intel; fi
      [[ -f "$out/self-repair-$triple.tar.gz.sha256" ]] || continue
      echo "    on_$arch do"
      formula_platform "$out" "$triple" "      "
      echo "    end"
    done
    echo "  end"
    echo
  done
  cat <<'EOF'
  def install
    bin.install "self-repair"
  end

  test do
    assert_match version.to_s, shell_output("#{bin}/self-repair --version")
  end
end
EOF
}

finish() {
  local out="" all=0
  while [[ $# -gt 0 ]]; do
    case "$1" in
      --out) out="${2:?--out needs a folder}"; shift 2 ;;
      --all-platforms) all=1; shift ;;
      *) die "finish: unknown argument '$1' (use --out DIR [--all-platforms])" ;;
    esac
  done
  [[ -d "$out" ]] || die "finish needs --out DIR, the folder the archives are in"
  version="$(cargo_version)"
  local installer_version
  installer_version="$(sed -n 's/^version="${SELF_REPAIR_VERSION:-\(.*\)}"$/\1/p' "$repo/scripts/install.sh")"
  [[ "$installer_version" == "$version" ]] ||
    die "scripts/install.sh installs $installer_version by default, Cargo.toml says $version: set its default version to $version"
  local target found=0
  for target in $PLATFORMS; do
    if [[ -f "$out/self-repair-$target.tar.gz" ]]; then
      found=$((found + 1))
      (cd "$out" && sha256sum_check "self-repair-$target.tar.gz")
    elif [[ $all -eq 1 ]]; then
      die "no $out/self-repair-$target.tar.gz: every platform's archive must be there before the release"
    fi
  done
  [[ $found -gt 0 ]] || die "no archive in $out: run \`release-dist.sh archive\` first"
  cp "$repo/scripts/install.sh" "$out/self-repair-installer.sh"
  chmod 755 "$out/self-repair-installer.sh"
  formula "$out" >"$out/self-repair.rb"
  (cd "$out" && for file in *; do
    case "$file" in sha256.sum | *.sha256) continue ;; esac
    printf '%s  %s\n' "$(sha256 "$file")" "$file"
  done >sha256.sum)
  echo "release-dist: $out: $found archive(s), self-repair-installer.sh, self-repair.rb, sha256.sum" >&2
}

# The archive still has the sum its .sha256 file says.
sha256sum_check() {
  [[ "$(sha256 "$1")" == "$(cut -d ' ' -f 1 <"$1.sha256")" ]] || die "$1 does not match $1.sha256"
}

command="${1:-}"
shift || true
case "$command" in
  archive) archive "$@" ;;
  finish) finish "$@" ;;
  -h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "${BASH_SOURCE[0]}" ;;
  *) die "give archive or finish (--help says more)" ;;
esac
