#!/usr/bin/env bash
# End-to-end scenarios on the real Claude Code CLI with a scripted model (issue 4; `just e2e`).
#
# Usage: scripts/e2e.sh [--client newest|oldest] [--only SCENARIO]... [--timeout SECS]
#   Installs the two Claude Code clients of the tested range and the backlog CLI into
#   .cache/tools, and Ruff, pytest and vulture into a venv there (scripts/install-tools.sh), builds
#   `self-repair` and the scenario runner (e2e/mock-api, bin `e2e`), runs the tests that need the
#   real npm CLIs (features `real-tools` and `real-client`; the SARIF Multitool's `validate` on
#   what `export sarif` writes), then runs every scenario
#   on the newest client and the representative subset (`e2e --subset`) on the oldest one
#   (`--client` runs one of the two only; `--only` narrows both):
#   `claude -p ... --output-format json` sessions in temp projects (own HOME and
#   CLAUDE_CONFIG_DIR, no nonessential traffic) against the scripted Messages API on 127.0.0.1,
#   with self-repair loaded as a plugin (--plugin-dir) or by `self-repair install --project`.
#   Prints, per client, each scenario's failed assertions and the measured table, then the
#   clients' times and, last, `e2e: N passed, M failed` over both.
# Env:
#   E2E_PROFILE  release (default: the hook times users see) or debug (reuses `cargo test` builds;
#                the default with E2E_WHEEL, where only the runner is built)
#   E2E_KEEP=1   keep the temp folder (it is kept anyway when a scenario fails)
#   E2E_LARGE=1  also run `scale-corpus-large` (the pyparsing corpus, about 3 minutes) and
#                `drive-partitions` (about 2.5 minutes); left out by default; `--only NAME` runs
#                one, `just e2e-large` both
#   CARGO_TARGET_DIR  honoured; default <repo>/target
#   E2E_WHEEL    a self-repair wheel (scripts/build-wheel.sh): instead of building self-repair,
#                pip-install it into a fresh venv and run that venv's binary, with every folder
#                holding cargo, rustc or rustup left off the scenarios' PATH; adds the
#                `wheel-installed` scenario (issue 23, reference/install.md)
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
started=$(date +%s)

bash scripts/install-tools.sh
eval "$(bash scripts/install-tools.sh --print-env)"

# With E2E_WHEEL the binary under test is the wheel's (a release build): only the runner is
# built, in the debug profile `cargo test` already built unless E2E_PROFILE says otherwise.
if [[ -n "${E2E_WHEEL:-}" ]]; then
  profile="${E2E_PROFILE:-debug}"
  packages=(-p self-repair-mock-api)
  building="the scenario runner (self-repair comes from $E2E_WHEEL)"
else
  profile="${E2E_PROFILE:-release}"
  packages=(-p self-repair -p self-repair-mock-api)
  building="self-repair and the scenario runner"
fi
case "$profile" in
  release) build_flags=(--release) ;;
  debug) build_flags=() ;;
  *) echo "e2e: E2E_PROFILE must be release or debug, not '$profile'" >&2; exit 2 ;;
esac
echo "e2e: building $building ($profile)"
if ! cargo build "${build_flags[@]}" -q "${packages[@]}" --bins; then
  echo "e2e: cargo build failed; nothing was run" >&2
  echo "e2e: 0 passed, 1 failed"
  exit 1
fi
bin_dir="${CARGO_TARGET_DIR:-$repo/target}/$profile"
built=$(date +%s)

# The tests that drive the real npm CLIs, kept out of plain `cargo test` by features: the tasks we
# write read back by the real Backlog.md CLI, and the stub-pipeline probe of the real client.
echo "e2e: the real-tool tests (Backlog.md CLI: tests/cli backlog_cli, analyzer_fix, fix_loop; client probe: e2e/mock-api real-client; SARIF Multitool validate on export sarif: tests/cli export_multitool, crates/export multitool; the config init writes run by detect with the real Ruff: tests/cli init_real_ruff)"
if ! cargo test -q --features real-tools --test cli -- backlog_cli analyzer_fix fix_loop export_multitool init_real_ruff ||
  ! cargo test -q -p self-repair-mock-api --features real-client --test real-client ||
  ! cargo test -q -p self-repair-export --features real-tools multitool; then
  echo "e2e: a real-tool test failed; no scenario was run" >&2
  echo "e2e: 0 passed, 1 failed"
  exit 1
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/self-repair-e2e.XXXXXX")"

# The wheel route: a fresh venv, the wheel installed offline, its binary under test.
self_repair="$bin_dir/self-repair"
runner_path="$PATH"
wheel_args=()
if [[ -n "${E2E_WHEEL:-}" ]]; then
  [[ -f "$E2E_WHEEL" ]] || { echo "e2e: E2E_WHEEL=$E2E_WHEEL is not a file (scripts/build-wheel.sh prints the wheel it built)" >&2; exit 2; }
  venv="$work/wheel-venv"
  wheel_started=$(date +%s%3N)
  python3 -m venv "$venv" && "$venv/bin/python" -m pip install --no-index --no-input --quiet \
    --disable-pip-version-check "$E2E_WHEEL" || { echo "e2e: installing $E2E_WHEEL into a fresh venv failed" >&2; exit 1; }
  wheel_installed=$(date +%s%3N)
  echo "e2e: $(basename "$E2E_WHEEL") installed into a fresh venv in $((wheel_installed - wheel_started)) ms"
  self_repair="$venv/bin/self-repair"
  runner_path=""
  IFS=: read -ra path_dirs <<<"$PATH"
  for dir in "${path_dirs[@]}"; do
    [[ -z "$dir" || -e "$dir/cargo" || -e "$dir/rustc" || -e "$dir/rustup" ]] && continue
    runner_path="${runner_path:+$runner_path:}$dir"
  done
  wheel_args=(--wheel-venv "$venv" --wheel-installed-at-ms "$wheel_installed")
fi

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
  PATH="$runner_path" "$bin_dir/e2e" \
    --self-repair "$self_repair" \
    --claude "$claude" \
    --backlog "$BACKLOG_BIN" \
    --py-tools "$PY_TOOLS_BIN" \
    --sarif-multitool "$SARIF_MULTITOOL_BIN" \
    --plugin-dir "$repo/plugin" \
    --repo "$repo" \
    --work "$dir" \
    --table "$dir/table.md" \
    ${wheel_args[@]+"${wheel_args[@]}"} \
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
