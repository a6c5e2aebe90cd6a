//! Links the `self-repair` binary as a position-dependent executable on Linux.
//!
//! Every Claude Code stop in every project spawns the binary, most often to answer "no run
//! here". In a PIE binary the dynamic loader first applies about 8,800 relative relocations:
//! a quarter of the no-run hook's instructions (467k -> 349k). Packagers who want PIE anyway set
//! `SELF_REPAIR_PIE=1` at build time. reference/design-notes.md (note 14) has the trade-off.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=SELF_REPAIR_PIE");
    let linux = std::env::var("CARGO_CFG_TARGET_OS").is_ok_and(|os| os == "linux");
    let pie_wanted = std::env::var("SELF_REPAIR_PIE").is_ok_and(|v| v == "1");
    if linux && !pie_wanted {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
}
