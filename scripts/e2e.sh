#!/usr/bin/env bash
# End-to-end scenarios on the real Claude Code CLI with a scripted model (issue 4; `just e2e`).
#
# Usage: scripts/e2e.sh [--only SCENARIO]... [--timeout SECS]
#   Installs Claude Code and the backlog CLI into .cache/tools, and Ruff, pytest and vulture into
#   a venv there (scripts/install-tools.sh), builds
#   `self-repair` and the scenario runner (e2e/mock-api, bin `e2e`), runs the tests that need the
#   real npm CLIs (features `real-tools` and `real-client`), then runs every scenario:
#   `claude -p ... --output-format json` sessions in temp projects (own HOME and
#   CLAUDE_CONFIG_DIR, no nonessential traffic) against the scripted Messages API on 127.0.0.1,
#   with self-repair loaded as a plugin (--plugin-dir) or by `self-repair install --project`.
#   Prints each scenario's failed assertions, the measured table, then `e2e: N passed, M failed`.
# Env:
#   E2E_PROFILE  release (default: the hook times users see) or debug (reuses `cargo test` builds)
#   E2E_KEEP=1   keep the temp folder (it is kept anyway when a scenario fails)
#   CARGO_TARGET_DIR  honoured; default <repo>/target
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
started=$(date +%s)

bash scripts/install-tools.sh
eval "$(bash scripts/install-tools.sh --print-env)"

profile="${E2E_PROFILE:-release}"
case "$profile" in
  release) build_flags=(--release) ;;
  debug) build_flags=() ;;
  *) echo "e2e: E2E_PROFILE must be release or debug, not '$profile'" >&2; exit 2 ;;
esac
echo "e2e: building self-repair and the scenario runner ($profile)"
if ! cargo build "${build_flags[@]}" -q -p self-repair -p self-repair-mock-api --bins; then
  echo "e2e: cargo build failed; nothing was run" >&2
  echo "e2e: 0 passed, 1 failed"
  exit 1
fi
bin_dir="${CARGO_TARGET_DIR:-$repo/target}/$profile"
built=$(date +%s)

# The tests that drive the real npm CLIs, kept out of plain `cargo test` by features: the tasks we
# write read back by the real Backlog.md CLI, and the stub-pipeline probe of the real client.
echo "e2e: the real-tool tests (Backlog.md CLI: tests/cli backlog_cli, analyzer_fix, fix_loop; client probe: e2e/mock-api real-client)"
if ! cargo test -q --features real-tools --test cli -- backlog_cli analyzer_fix fix_loop ||
  ! cargo test -q -p self-repair-mock-api --features real-client --test real-client; then
  echo "e2e: a real-tool test failed; no scenario was run" >&2
  echo "e2e: 0 passed, 1 failed"
  exit 1
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/self-repair-e2e.XXXXXX")"
set +e
"$bin_dir/e2e" \
  --self-repair "$bin_dir/self-repair" \
  --claude "$CLAUDE_BIN" \
  --backlog "$BACKLOG_BIN" \
  --py-tools "$PY_TOOLS_BIN" \
  --plugin-dir "$repo" \
  --work "$work" \
  --table "$work/table.md" \
  "$@" | tee "$work/e2e.out"
rc=${PIPESTATUS[0]}
set -e

# The runner's summary line must stay the last line: read it before the folder goes.
summary="$(grep -E '^e2e: [0-9]+ passed, [0-9]+ failed$' "$work/e2e.out" | tail -n 1 || true)"
if [[ -z "$summary" ]]; then
  echo "e2e: the scenario runner exited $rc without a summary" >&2
  summary="e2e: 0 passed, 1 failed"
  rc=1
fi
echo "e2e: build $((built - started)) s, scenarios $(($(date +%s) - built)) s, total $(($(date +%s) - started)) s"
if [[ $rc -ne 0 || "${E2E_KEEP:-0}" == 1 ]]; then
  echo "e2e: projects, request records and claude debug logs kept in $work"
else
  rm -rf "$work"
fi
echo "$summary"
[[ $rc -eq 0 ]] || exit 1
