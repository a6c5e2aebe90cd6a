#!/usr/bin/env bash
# Install the real CLIs our tests drive (Claude Code, Backlog.md, just, Microsoft's SARIF
# Multitool) from the npm registry into a cache folder that is never committed, then the Python
# tools of the fix-loop scenarios (Ruff, pytest, vulture) into a venv there
# (scripts/install-py-tools.sh). Fails when tmux, which the interactive scenarios need, is not on
# PATH.
#
# Two Claude Code clients, the ends of the tested range (reference/claude-cli-notes.md, "Tested
# clients"): the oldest supported one next to backlog and just (<cache>/node_modules), the newest
# published one in a folder of its own (<cache>/claude-<version>/node_modules).
#
# Usage: scripts/install-tools.sh [--print-env] [--force]
#   --print-env  after installing, print `export NAME=value` lines for `eval`:
#                PATH (cache bin dir first), CLAUDE_BIN (the oldest supported client),
#                CLAUDE_NEWEST_BIN (the newest), BACKLOG_BIN, JUST_BIN when installed,
#                SARIF_MULTITOOL_BIN (the validator `export sarif` is checked with),
#                and PY_TOOLS_BIN, RUFF_BIN, PYTEST_BIN, VULTURE_BIN (the venv; not on PATH).
#   --force      reinstall even if the pinned versions are already there.
# Env:
#   SELF_REPAIR_TOOLS_DIR  cache folder (default: <repo>/.cache/tools).
#
# Silent on success (apart from --print-env). Idempotent: when the stamps match the pinned
# versions and the binaries are present, it returns at once without running npm or node.
# npm's output goes to <cache>/install.log (<cache>/claude-<version>/install.log) and is shown
# only on failure.
set -euo pipefail

# The oldest client we support: CI runs a representative subset of the e2e suite on it
# (scripts/e2e.sh). Raise it only when dropping support for it: say so in
# reference/claude-cli-notes.md ("Tested clients") and reference/e2e.md.
readonly CLAUDE_VERSION="2.1.330"
# The newest published client: CI runs the whole e2e suite on it. Bump it on purpose: set it to
# `npm view @anthropic-ai/claude-code version`, run `just e2e` (both clients), read what the
# release changed for hooks, then update "Tested clients" in reference/claude-cli-notes.md and the
# tested range the hook warns outside of.
readonly CLAUDE_NEWEST_VERSION="2.1.337"
readonly BACKLOG_VERSION="1.52.0"
readonly JUST_VERSION="1.57.0"   # npm package rust-just ships the just binary
# Microsoft's SARIF validator (`Sarif.Multitool validate`): the real-tool tests check what
# `export sarif` writes with it (reference/export.md). Its platform package ships the binary.
readonly SARIF_MULTITOOL_VERSION="5.7.0"

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
    *) echo "install-tools: unknown argument '$arg' (use --print-env, --force or --help)" >&2; exit 2 ;;
  esac
done

die() {
  echo "install-tools: ERROR: $*" >&2
  exit 1
}

bin_dir="$tools_dir/node_modules/.bin"
claude_bin="$bin_dir/claude"
backlog_bin="$bin_dir/backlog"
just_bin="$bin_dir/just"
stamp="$tools_dir/.installed"
log="$tools_dir/install.log"
want_stamp="claude-code=$CLAUDE_VERSION backlog.md=$BACKLOG_VERSION rust-just=$JUST_VERSION"
newest_dir="$tools_dir/claude-$CLAUDE_NEWEST_VERSION"
newest_claude_bin="$newest_dir/node_modules/.bin/claude"
newest_stamp="$newest_dir/.installed"
newest_want_stamp="claude-code=$CLAUDE_NEWEST_VERSION"
sarif_dir="$tools_dir/sarif-multitool-$SARIF_MULTITOOL_VERSION"
sarif_stamp="$sarif_dir/.installed"
sarif_want_stamp="sarif-multitool=$SARIF_MULTITOOL_VERSION"
# The platform package's binary, the one the wrapper package's index.js names.
case "$(uname -s)" in
  Darwin) sarif_platform=darwin ;;
  *) sarif_platform=linux ;;
esac
sarif_bin="$sarif_dir/node_modules/@microsoft/sarif-multitool-$sarif_platform/Sarif.Multitool"

# The Python tools: their own script, stamp and log (it is silent and fast when current).
py_env=""
install_py_tools() {
  local args=(--print-env)
  [[ $force -eq 1 ]] && args+=(--force)
  py_env="$(bash "$script_dir/install-py-tools.sh" "${args[@]}")" ||
    die "scripts/install-py-tools.sh failed; see its message above"
}

emit_env() {
  install_py_tools
  [[ $print_env -eq 1 ]] || return 0
  printf '%s\n' "$py_env"
  # shellcheck disable=SC2016 # $PATH must stay literal for the caller's eval
  printf 'export PATH=%q:"$PATH"\n' "$bin_dir"
  printf 'export CLAUDE_BIN=%q\n' "$claude_bin"
  printf 'export CLAUDE_NEWEST_BIN=%q\n' "$newest_claude_bin"
  printf 'export BACKLOG_BIN=%q\n' "$backlog_bin"
  if [[ -x "$just_bin" ]]; then
    printf 'export JUST_BIN=%q\n' "$just_bin"
  fi
  printf 'export SARIF_MULTITOOL_BIN=%q\n' "$sarif_bin"
}

main_is_current() {
  [[ $force -eq 0 && -f "$stamp" && -x "$claude_bin" && -x "$backlog_bin" ]] || return 1
  [[ "$(cat "$stamp")" == "$want_stamp"* ]]
}

newest_is_current() {
  [[ $force -eq 0 && -f "$newest_stamp" && -x "$newest_claude_bin" ]] || return 1
  [[ "$(cat "$newest_stamp")" == "$newest_want_stamp" ]]
}

sarif_is_current() {
  [[ $force -eq 0 && -f "$sarif_stamp" && -x "$sarif_bin" ]] || return 1
  [[ "$(cat "$sarif_stamp")" == "$sarif_want_stamp" ]]
}

is_current() {
  main_is_current && newest_is_current && sarif_is_current
}

# The interactive e2e scenarios drive the client's terminal UI in tmux (reference/e2e.md): not an
# npm package, so checked, not installed, loudly and first.
command -v tmux >/dev/null 2>&1 ||
  die "tmux not found on PATH; the interactive e2e scenarios drive Claude Code's terminal UI in it: install it (e.g. apt-get install -y tmux) and rerun"

# Fast path: nothing to do.
if is_current; then
  emit_env
  exit 0
fi

command -v npm >/dev/null 2>&1 || die "npm not found on PATH; install Node.js >= 18 with npm (e.g. apt-get install -y nodejs npm) and rerun"
command -v node >/dev/null 2>&1 || die "node not found on PATH; install Node.js >= 18 and rerun"

mkdir -p "$tools_dir" || die "cannot create $tools_dir; set SELF_REPAIR_TOOLS_DIR to a writable folder"

# Serialize concurrent runs (parallel tests) on one cache folder.
if command -v flock >/dev/null 2>&1; then
  exec 9>"$tools_dir/.lock"
  flock 9 || die "cannot lock $tools_dir/.lock"
  # Another run may have finished the install while we waited.
  if is_current; then
    emit_env
    exit 0
  fi
fi

# Writes <dir>/package.json: the given dependency lines, claude-code's scripts allowed.
write_package_json() {
  local dir="$1" claude_version="$2" dependencies="$3"
  cat >"$dir/package.json" <<EOF
{
  "name": "self-repair-test-tools",
  "private": true,
  "description": "Generated by scripts/install-tools.sh; not committed",
  "dependencies": {
$dependencies
  },
  "allowScripts": {
    "@anthropic-ai/claude-code@$claude_version": true
  }
}
EOF
}

# npm install in <dir>, its output to <log>.
npm_install() {
  local dir="$1" log="$2"
  # Optional deps carry the native binaries; postinstall of claude-code copies its binary into
  # place, so scripts must run. Override any ambient npm config that would skip either.
  if ! (
    cd "$dir" &&
      CI=true npm install \
        --no-audit --no-fund --no-update-notifier --loglevel=warn \
        --include=optional --omit=dev --ignore-scripts=false --engine-strict=false \
        </dev/null >"$log" 2>&1
  ); then
    echo "install-tools: npm install failed in $dir; last lines of $log:" >&2
    tail -n 30 "$log" >&2 || true
    die "npm install failed (is the npm registry reachable? see $log)"
  fi
}

fail_verify() {
  local log="$1"
  shift
  echo "install-tools: last lines of $log:" >&2
  tail -n 15 "$log" >&2 || true
  die "$*"
}

# Checks that the client npm installed in <dir> runs and prints <version>, offline.
verify_claude() {
  local dir="$1" bin="$2" version="$3" log="$4"
  [[ -x "$bin" ]] || fail_verify "$log" "claude missing at $bin after install"
  # If npm skipped the postinstall (scripts blocked by config), bin/claude.exe is still the
  # placeholder stub: run the package's own installer, which copies the native binary in place.
  local pkg="$dir/node_modules/@anthropic-ai/claude-code"
  if ! DISABLE_AUTOUPDATER=1 "$bin" --version </dev/null >/dev/null 2>&1 && [[ -f "$pkg/install.cjs" ]]; then
    (cd "$pkg" && node install.cjs) >>"$log" 2>&1 || true
  fi
  # --version makes no model call.
  local out
  out="$(DISABLE_AUTOUPDATER=1 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 "$bin" --version </dev/null 2>&1)" ||
    fail_verify "$log" "'claude --version' failed: $out (is the optional dependency @anthropic-ai/claude-code-linux-x64 installed? npm must not run with --omit=optional or --ignore-scripts)"
  [[ "$out" == "$version"* ]] ||
    fail_verify "$log" "'claude --version' printed '$out', expected $version"
}

# The oldest supported client, backlog and just, in <cache>/node_modules.
install_main() {
  rm -f "$stamp"
  write_package_json "$tools_dir" "$CLAUDE_VERSION" "    \"@anthropic-ai/claude-code\": \"$CLAUDE_VERSION\",
    \"backlog.md\": \"$BACKLOG_VERSION\",
    \"rust-just\": \"$JUST_VERSION\""
  npm_install "$tools_dir" "$log"
  verify_claude "$tools_dir" "$claude_bin" "$CLAUDE_VERSION" "$log"

  [[ -x "$backlog_bin" ]] || fail_verify "$log" "backlog missing at $backlog_bin after install"
  local backlog_out
  backlog_out="$("$backlog_bin" --version </dev/null 2>&1)" ||
    fail_verify "$log" "'backlog --version' failed: $backlog_out (is the optional dependency backlog.md-linux-x64 installed?)"
  [[ "$backlog_out" == "$BACKLOG_VERSION" ]] ||
    fail_verify "$log" "'backlog --version' printed '$backlog_out', expected $BACKLOG_VERSION"

  # just is nice to have only; CI does not need it.
  local just_note just_out
  if [[ -x "$just_bin" ]] && just_out="$("$just_bin" --version </dev/null 2>&1)" && [[ "$just_out" == "just $JUST_VERSION" ]]; then
    just_note=" just=ok"
  else
    just_note=" just=missing"
  fi
  printf '%s%s\n' "$want_stamp" "$just_note" >"$stamp"
}

# The newest client, alone in <cache>/claude-<version> (a folder holds one version of a package).
install_newest() {
  local newest_log="$newest_dir/install.log"
  mkdir -p "$newest_dir" || die "cannot create $newest_dir; set SELF_REPAIR_TOOLS_DIR to a writable folder"
  rm -f "$newest_stamp"
  write_package_json "$newest_dir" "$CLAUDE_NEWEST_VERSION" \
    "    \"@anthropic-ai/claude-code\": \"$CLAUDE_NEWEST_VERSION\""
  npm_install "$newest_dir" "$newest_log"
  verify_claude "$newest_dir" "$newest_claude_bin" "$CLAUDE_NEWEST_VERSION" "$newest_log"
  printf '%s\n' "$newest_want_stamp" >"$newest_stamp"
}

# The SARIF Multitool, alone in <cache>/sarif-multitool-<version>.
install_sarif_multitool() {
  local sarif_log="$sarif_dir/install.log"
  mkdir -p "$sarif_dir" || die "cannot create $sarif_dir; set SELF_REPAIR_TOOLS_DIR to a writable folder"
  rm -f "$sarif_stamp"
  printf '{"name": "self-repair-sarif-multitool", "private": true, "description": "Generated by scripts/install-tools.sh; not committed", "dependencies": {"@microsoft/sarif-multitool": "%s"}}\n' \
    "$SARIF_MULTITOOL_VERSION" >"$sarif_dir/package.json"
  npm_install "$sarif_dir" "$sarif_log"
  # Its postinstall only makes the binary executable, and npm may skip it (install scripts not
  # allowed): do it here.
  [[ -f "$sarif_bin" ]] ||
    fail_verify "$sarif_log" "the SARIF Multitool is missing at $sarif_bin after install (is the optional dependency @microsoft/sarif-multitool-$sarif_platform installed?)"
  chmod u+x "$sarif_bin"
  local out
  out="$(DOTNET_CLI_TELEMETRY_OPTOUT=1 "$sarif_bin" --version </dev/null 2>&1)" ||
    fail_verify "$sarif_log" "'Sarif.Multitool --version' failed: $out"
  [[ "$out" == *"$SARIF_MULTITOOL_VERSION"* ]] ||
    fail_verify "$sarif_log" "'Sarif.Multitool --version' printed '$out', expected $SARIF_MULTITOOL_VERSION"
  printf '%s\n' "$sarif_want_stamp" >"$sarif_stamp"
}

main_is_current || install_main
newest_is_current || install_newest
sarif_is_current || install_sarif_multitool
emit_env
