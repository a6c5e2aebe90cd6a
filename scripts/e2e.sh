#!/usr/bin/env bash
# End-to-end scenarios on the real Claude Code CLI with a scripted model (issue 4; `just e2e`).
#
# Usage: scripts/e2e.sh [--client newest|oldest] [--only SCENARIO]... [--timeout SECS]
#   Installs the two Claude Code clients of the tested range and the backlog CLI into
#   .cache/tools, and Ruff, pytest and vulture into a venv there (scripts/install-tools.sh), builds
#   `self-repair` and the scenario runner (crates/mock-api, bin `e2e`), then runs every scenario
#   on the newest client and the representative subset (`e2e --subset`) on the oldest one
#   (`--client` runs one of the two only; `--only` narrows both):
#   `claude -p ... --output-format json` sessions in temp projects (own HOME and
#   CLAUDE_CONFIG_DIR, no nonessential traffic) against the scripted Messages API on 127.0.0.1,
#   with self-repair loaded as a plugin (--plugin-dir) or by `self-repair install --project`.
#   Prints, per client, each scenario's failed assertions and the measured table, then the
#   clients' times and, last, `e2e: N passed, M failed` over both.
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

work="$(mktemp -d "${TMPDIR:-/tmp}/self-repair-e2e.XXXXXX")"
passed=0
failed=0
timings=()

# Runs the scenarios on one client: run_client LABEL CLAUDE_BIN [runner args...]. Adds its
# counts to passed/failed and its time to timings.
run_client() {
  local label="$1" claude="$2"
  shift 2
  local dir="$work/$label" version rc summary
  mkdir -p "$dir"
  version="$(DISABLE_AUTOUPDATER=1 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 "$claude" --version </dev/null 2>&1 | head -n 1)"
  version="${version%% *}" # `2.1.332 (Claude Code)`
  echo "e2e: Claude Code $version ($label client)"
  local client_started
  client_started=$(date +%s)
  set +e
  "$bin_dir/e2e" \
    --self-repair "$bin_dir/self-repair" \
    --claude "$claude" \
    --backlog "$BACKLOG_BIN" \
    --py-tools "$PY_TOOLS_BIN" \
    --plugin-dir "$repo" \
    --work "$dir" \
    --table "$dir/table.md" \
    "$@" | tee "$dir/e2e.out"
  rc=${PIPESTATUS[0]}
  set -e
  # The runner's summary line must stay the last line.
  summary="$(grep -E '^e2e: [0-9]+ passed, [0-9]+ failed$' "$dir/e2e.out" | tail -n 1 || true)"
  if [[ -z "$summary" ]]; then
    echo "e2e: the scenario runner exited $rc without a summary on the $label client" >&2
    summary="e2e: 0 passed, 1 failed"
  elif [[ $rc -ne 0 && "$summary" == *", 0 failed" ]]; then
    summary="e2e: 0 passed, 1 failed"
  fi
  passed=$((passed + $(sed -E 's/^e2e: ([0-9]+) passed.*/\1/' <<<"$summary")))
  failed=$((failed + $(sed -E 's/.* ([0-9]+) failed$/\1/' <<<"$summary")))
  timings+=("$label client, Claude Code $version: scenarios $(($(date +%s) - client_started)) s")
}

clients=(newest oldest)
args=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --client)
      [[ "${2:-}" == newest || "${2:-}" == oldest ]] ||
        { echo "e2e: --client takes newest or oldest, not '${2:-}'" >&2; exit 2; }
      clients=("$2")
      shift 2
      ;;
    *) args+=("$1"); shift ;;
  esac
done
for client in "${clients[@]}"; do
  case "$client" in
    newest) run_client newest "$CLAUDE_NEWEST_BIN" ${args[@]+"${args[@]}"} ;;
    oldest) run_client oldest "$CLAUDE_BIN" --subset ${args[@]+"${args[@]}"} ;;
  esac
done

echo "e2e: build $((built - started)) s, total $(($(date +%s) - started)) s"
for timing in "${timings[@]}"; do
  echo "e2e: $timing"
done
if [[ $failed -ne 0 || "${E2E_KEEP:-0}" == 1 ]]; then
  echo "e2e: projects, request records and claude debug logs kept in $work"
else
  rm -rf "$work"
fi
echo "e2e: $passed passed, $failed failed"
[[ $failed -eq 0 && $passed -gt 0 ]] || exit 1
