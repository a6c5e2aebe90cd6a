//! Prices the steps of one wave stop in process, on a copy of a run folder taken just before
//! that stop: load the state, fold the journal's new lines, decide, journal the stop, save. What
//! the hook does around them (the transcript, the cost ledger, the answer) is left out.
//!
//! `cargo run --release -p self-repair-bench-support --example wave_stop -- RUN_DIR [RUNS]`
//!
//! `RUN_DIR` is a run folder (`.self-repair/runs/<id>`) as the stop to price found it, e.g. the
//! mid-run snapshot `scripts/bench/scale_run.py` keeps. It is copied to a temporary folder
//! before each run, so it is never changed.
//!
//! With `WAVE_STOP_OUT=DIR` set, the first run's decision (`decision.txt`) and the run folder's
//! files as the stop left them are copied to `DIR`: two builds' answers compare byte for byte.
//!
//! `wave_stop RUN_DIR --resave` instead rewrites `RUN_DIR/state.json` in place in this build's
//! layout, folding nothing (the journal offset stays): a snapshot taken by an older build then
//! prices the stops of a run this build wrote from the start.

use std::error::Error;
use std::path::{Path, PathBuf};
use std::time::Instant;

use self_repair_bench_support::Timing;
use self_repair_engine::{Event, JournalEntry, StopEvent, decide_stop};
use self_repair_store::RunDir;

fn copy_dir(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let target = to.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            // `items/` is not read by the steps priced here, but `ensure_input` writes to it.
            std::fs::create_dir_all(&target)?;
        } else {
            std::fs::copy(entry.path(), &target)?;
        }
    }
    Ok(())
}

fn main() -> Result<(), Box<dyn Error>> {
    let mut args = std::env::args().skip(1);
    let source = PathBuf::from(
        args.next()
            .ok_or("usage: wave_stop RUN_DIR [RUNS | --resave]")?,
    );
    let runs = args.next();
    if runs.as_deref() == Some("--resave") {
        let dir = RunDir::at(source);
        let _lock = dir.lock()?;
        let state = dir.load_state()?;
        dir.save_state(&state, state.items.len())?;
        return Ok(());
    }
    let runs: usize = runs.map_or(Ok(9), |a| a.parse())?;
    let session = std::env::var("WAVE_SESSION").unwrap_or_else(|_| "s1".to_owned());
    let now: u64 = 1_763_800_000;
    let names = ["load", "fold", "decide", "journal", "save", "total"];
    let mut steps: Vec<Vec<f64>> = vec![Vec::new(); names.len()];
    for _ in 0..runs.max(1) {
        let temp = tempfile_dir()?;
        let dir_path = temp.join("run");
        copy_dir(&source, &dir_path)?;
        let dir = RunDir::at(dir_path.clone());
        let mut marks = [0.0f64; 6];
        let started = Instant::now();
        let mut last = started;
        let mut mark = |i: usize| {
            let now = Instant::now();
            marks[i] = (now - last).as_secs_f64() * 1e3;
            last = now;
        };
        let lock = dir.lock()?;
        let mut state = dir.load_state()?;
        let items_before = state.items.len();
        mark(0);
        dir.fold(&mut state)?;
        mark(1);
        let stop = StopEvent {
            session: Some(session.clone()),
            running: Some(Vec::new()),
            new_turn: false,
            ..StopEvent::default()
        };
        let outcome = decide_stop(&mut state, &stop, now);
        mark(2);
        let decision = format!("{outcome:#?}\n");
        if outcome.changed {
            dir.append_applied(
                &mut state,
                &[JournalEntry {
                    at: now,
                    event: Event::Stop(stop),
                }],
            )?;
        }
        mark(3);
        dir.save_state(&state, items_before)?;
        mark(4);
        drop(lock);
        std::mem::forget(state);
        marks[5] = started.elapsed().as_secs_f64() * 1e3;
        for (i, m) in marks.iter().enumerate() {
            steps[i].push(*m);
        }
        if let Some(out) = std::env::var_os("WAVE_STOP_OUT").filter(|_| steps[5].len() == 1) {
            let out = PathBuf::from(out);
            copy_dir(&dir_path, &out)?;
            std::fs::write(out.join("decision.txt"), decision)?;
        }
        std::fs::remove_dir_all(&temp)?;
    }
    for (name, runs) in names.iter().zip(steps) {
        println!("{}", Timing::from_runs(runs).render(name));
    }
    Ok(())
}

fn tempfile_dir() -> std::io::Result<PathBuf> {
    let base = std::env::temp_dir().join(format!("wave-stop-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&base);
    std::fs::create_dir_all(&base)?;
    Ok(base)
}
