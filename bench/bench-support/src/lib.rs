//! Helpers for `scripts/bench.sh` and the in-process benchmarks under `examples/`: time a step
//! many times and report its median, so a hot spot found with a profiler can be priced before
//! and after a change.

mod timing;

pub use timing::Timing;
