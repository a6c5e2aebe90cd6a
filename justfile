# Recipes; `just ci` runs exactly what CI runs.

default: test

# The test suite (what the README says).
test:
    cargo test --workspace

# The whole pipeline on bundled real findings with a simulated agent.
demo:
    cargo run --release -- demo

# Speed: hook, submit and start against their targets (reference/benchmarks.md). Flags pass through:
# `just bench --scale-only --bin PATH` drives whole runs of 10,000 to 100,000 findings through the
# hook (issue 45's rows; minutes).
bench *ARGS:
    bash scripts/bench.sh {{ARGS}}

# Mutation fuzzing of a run's files: SELF_REPAIR_FUZZ_SECS seconds (default 600), a new seed each
# time unless SELF_REPAIR_FUZZ_SEED is set (reference/fuzz.md). `just test` runs 16 executions of it.
fuzz:
    SELF_REPAIR_FUZZ_SECS="${SELF_REPAIR_FUZZ_SECS:-600}" SELF_REPAIR_FUZZ_SEED="${SELF_REPAIR_FUZZ_SEED:-$(date +%s)}" cargo test --test cli fuzz:: -- --nocapture

# Mutation testing (reference/mutants.md): cargo-mutants on every library crate, or the ones named
# (`just mutants gate store`; `just mutants gate -- --file crates/gate/src/shell_line.rs` re-runs
# one file's mutants), one mutant at a time in a scratch copy under .cache/mutants. Fails when a
# crate scores below 85 %. CI runs `scripts/mutants.sh --ci`: the gate and the store's commit
# protocol, at 100 %.
mutants *ARGS:
    bash scripts/mutants.sh {{ARGS}}

# End-to-end scenarios on the real Claude Code CLI with a scripted model: every scenario on the
# newest client of the tested range, a representative subset on the oldest (what CI runs).
e2e:
    bash scripts/e2e.sh

# The scenarios kept out of `just e2e`: the larger real corpus (pyparsing 3.2.3, 2,936 unique
# findings; about 3 minutes of a debug build on the shared 2-core machine), `scale-corpus-large`,
# and `drive --partitions 4` against one session (about 2.5 minutes), `drive-partitions`.
e2e-large:
    bash scripts/e2e.sh --client newest --only scale-corpus-large --only drive-partitions

# The plugin and the marketplace, validated by the real Claude Code CLI.
validate-plugin:
    bash scripts/validate-plugin.sh

# The release of this platform built, served on 127.0.0.1 and installed by the installer into a
# fresh HOME (needs the release binary: `bash scripts/build-wheel.sh` first; reference/install.md).
release-check:
    bash scripts/release-check.sh

# Formatting and lints.
lint:
    cargo fmt --all --check
    cargo clippy --workspace --all-targets -- -D warnings
    # The real-client and real-tools tests too (they build only under their features).
    cargo clippy --workspace --all-targets --all-features -- -D warnings
    python3 scripts/layout-figures.py --check
    python3 scripts/check-docs.py

# The layout figures of issues 25 and 33: lines of src/, longest functions, file cycles of every
# crate, command -> command and upward imports (`--check` exits 1 when one is over its target).
layout:
    python3 scripts/layout-figures.py

# The docs' links, anchors and citations, offline (scripts/check-docs.py).
docs:
    python3 scripts/check-docs.py

# Everything CI runs.
ci:
    bash .ci/run
