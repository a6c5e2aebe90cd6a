# Recipes; `just ci` runs exactly what CI runs.

default: test

# The test suite (what the README says).
test:
    cargo test --workspace

# The whole pipeline on bundled real findings with a simulated agent.
demo:
    cargo run --release -- demo

# Speed: hook, submit and start against their targets (reference/benchmarks.md).
bench:
    bash scripts/bench.sh

# End-to-end scenarios on the real Claude Code CLI with a scripted model.
e2e:
    bash scripts/e2e.sh

# The plugin and the marketplace, validated by the real Claude Code CLI.
validate-plugin:
    bash scripts/validate-plugin.sh

# Formatting and lints.
lint:
    cargo fmt --all --check
    cargo clippy --workspace --all-targets -- -D warnings

# Everything CI runs.
ci:
    bash .ci/run
