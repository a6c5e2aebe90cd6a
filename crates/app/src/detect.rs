//! `self-repair detect` and `start --detect`: run the configured analyzers (argv, working
//! folder, timeout, accepted exit codes) and capture their output.

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use self_repair_ingest::Format;

use crate::{AppError, Detector, InputSpec};

/// What one detector produced.
#[derive(Debug, Clone)]
pub struct Detection {
    pub name: String,
    pub exit_code: i32,
    pub stdout: String,
    pub stderr: String,
    pub seconds: f64,
    pub input: InputSpec,
}

/// Runs every detector (or the one named `only`) in the project at `root`.
pub fn run_detectors(
    root: &Path,
    detectors: &[Detector],
    only: Option<&str>,
) -> Result<Vec<Detection>, AppError> {
    let chosen: Vec<&Detector> = detectors
        .iter()
        .filter(|d| only.is_none_or(|o| o == d.name))
        .collect();
    if chosen.is_empty() {
        return Err(AppError::Usage(match only {
            Some(name) => format!("no detector `{name}` in .self-repair/config.json"),
            None => "no detectors in .self-repair/config.json: add {\"detectors\": [{\"name\": ..., \"argv\": [...]}]} (reference/config.md)".to_owned(),
        }));
    }
    chosen.into_iter().map(|d| run_one(root, d)).collect()
}

fn run_one(root: &Path, detector: &Detector) -> Result<Detection, AppError> {
    let format: Option<Format> = detector
        .format
        .as_deref()
        .map(|f| {
            f.parse()
                .map_err(|e| AppError::Usage(format!("detector `{}`: format: {e}", detector.name)))
        })
        .transpose()?;
    let dir = root.join(detector.cwd.as_deref().unwrap_or("."));
    let started = Instant::now();
    let mut child = Command::new(&detector.argv[0])
        .args(&detector.argv[1..])
        .current_dir(&dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| {
            AppError::Usage(format!(
                "detector `{}`: cannot run `{}` in {}: {e}",
                detector.name,
                detector.argv[0],
                dir.display()
            ))
        })?;
    let stdout = child.stdout.take().map(reader);
    let stderr = child.stderr.take().map(reader);
    let timeout = Duration::from_secs(detector.timeout_secs);
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if started.elapsed() < timeout => {
                std::thread::sleep(Duration::from_millis(20));
            }
            Ok(None) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(AppError::Usage(format!(
                    "detector `{}` timed out after {} s; raise its timeout_secs",
                    detector.name, detector.timeout_secs
                )));
            }
            Err(e) => return Err(AppError::io("wait for detector", dir.clone())(e)),
        }
    };
    let stdout = stdout.and_then(|h| h.join().ok()).unwrap_or_default();
    let stderr = stderr.and_then(|h| h.join().ok()).unwrap_or_default();
    let exit_code = status.code().unwrap_or(-1);
    if !detector.ok_exit_codes.contains(&exit_code) {
        let tail: Vec<&str> = stderr.lines().rev().take(10).collect();
        return Err(AppError::Usage(format!(
            "detector `{}` exited {exit_code} (accepted: {:?}); its stderr ends:\n{}",
            detector.name,
            detector.ok_exit_codes,
            tail.into_iter().rev().collect::<Vec<_>>().join("\n")
        )));
    }
    Ok(Detection {
        name: detector.name.clone(),
        exit_code,
        input: InputSpec {
            source: format!("detector {}", detector.name),
            text: stdout.clone(),
            format,
            relative_to: detector.cwd.clone(),
        },
        stdout,
        stderr,
        seconds: started.elapsed().as_secs_f64(),
    })
}

fn reader<R: Read + Send + 'static>(mut pipe: R) -> std::thread::JoinHandle<String> {
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = pipe.read_to_end(&mut bytes);
        String::from_utf8_lossy(&bytes).into_owned()
    })
}

/// Saves each detector's output as `<dir>/<name>.out` and `.err`.
pub fn save_detections(dir: &Path, detections: &[Detection]) -> Result<(), AppError> {
    std::fs::create_dir_all(dir).map_err(AppError::io("create", dir))?;
    for d in detections {
        let safe: String = d
            .name
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        for (ext, text) in [("out", &d.stdout), ("err", &d.stderr)] {
            let path = dir.join(format!("{safe}.{ext}"));
            std::fs::write(&path, text).map_err(AppError::io("write", &path))?;
        }
    }
    Ok(())
}
