//! The GitHub Release the CI recipes install `self-repair` from, served on 127.0.0.1: the
//! `self-repair` under test packed by `scripts/release-dist.sh` as the release workflow packs it
//! (the archive of this platform, its `.sha256`, the installer), under `/v<version>/`, and a
//! plain static file server that records every path asked for, so a scenario can tell a cache
//! hit (no download) from a miss.

use std::fs;
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::thread;

use crate::e2e::e2e_error::E2eError;
use crate::e2e::tools::Tools;
use crate::e2e::workflow_job::quoted_value;

/// The Rust target the installer picks on this machine (scripts/install.sh's mapping).
fn this_target() -> Option<&'static str> {
    match (std::env::consts::OS, std::env::consts::ARCH) {
        ("linux", "x86_64") => Some("x86_64-unknown-linux-gnu"),
        ("linux", "aarch64") => Some("aarch64-unknown-linux-gnu"),
        ("macos", "aarch64") => Some("aarch64-apple-darwin"),
        ("macos", "x86_64") => Some("x86_64-apple-darwin"),
        _ => None,
    }
}

/// The version `Cargo.toml` gives the package (the release's tag is `v` and it).
pub(crate) fn package_version(repo: &Path) -> Result<String, E2eError> {
    quoted_value(&repo.join("Cargo.toml"), "version = \"")
}

/// The packed release, made once per e2e process (packing a debug binary takes seconds): the
/// folder `<work>/release/`, which the server serves, holds `good/v<version>/` (what the
/// release workflow would publish for this platform) and `tampered/v<version>/` (the same
/// files, one byte of the archive changed, its `.sha256` as published). A recipe's
/// `SELF_REPAIR_RELEASES` is `<url>/good`, `<url>/tampered`, or `<url>/none` (no release: 404).
pub(crate) fn packed_release(tools: &Tools) -> Result<PathBuf, E2eError> {
    static PACKED: Mutex<Option<PathBuf>> = Mutex::new(None);
    let mut packed = PACKED
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some(root) = packed.as_ref() {
        return Ok(root.clone());
    }
    let root = tools.work.join("release");
    let version = package_version(&tools.repo)?;
    let dist = root.join("good").join(format!("v{version}"));
    let target = this_target().ok_or_else(|| E2eError::Unexpected {
        path: root.clone(),
        message: "no release archive is made for this platform".to_owned(),
    })?;
    let _ = fs::remove_dir_all(&root);
    let script = tools.repo.join("scripts/release-dist.sh");
    let binary = std::path::absolute(&tools.self_repair).unwrap_or(tools.self_repair.clone());
    for args in [
        vec![
            "archive".to_owned(),
            "--binary".to_owned(),
            binary.display().to_string(),
            "--target".to_owned(),
            target.to_owned(),
            "--out".to_owned(),
            dist.display().to_string(),
        ],
        vec![
            "finish".to_owned(),
            "--out".to_owned(),
            dist.display().to_string(),
        ],
    ] {
        let out = Command::new("bash")
            .arg(&script)
            .args(&args)
            .output()
            .map_err(|source| E2eError::Spawn {
                program: script.display().to_string(),
                source,
            })?;
        if !out.status.success() {
            return Err(E2eError::Unexpected {
                path: script,
                message: String::from_utf8_lossy(&out.stderr).into_owned(),
            });
        }
    }
    let tampered = root.join("tampered").join(format!("v{version}"));
    fs::create_dir_all(&tampered).map_err(E2eError::io(&tampered))?;
    for entry in fs::read_dir(&dist).map_err(E2eError::io(&dist))? {
        let entry = entry.map_err(E2eError::io(&dist))?;
        let to = tampered.join(entry.file_name());
        fs::copy(entry.path(), &to).map_err(E2eError::io(&to))?;
    }
    let archive = tampered.join(format!("self-repair-{target}.tar.gz"));
    let mut bytes = fs::read(&archive).map_err(E2eError::io(&archive))?;
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0xFF;
    fs::write(&archive, bytes).map_err(E2eError::io(&archive))?;
    *packed = Some(root.clone());
    Ok(root)
}

/// A static file server on 127.0.0.1 (GET only; 404 for what is not a file under its root).
#[derive(Debug)]
pub(crate) struct ReleaseServer {
    port: u16,
    requests: Arc<Mutex<Vec<String>>>,
}

impl ReleaseServer {
    /// The server of [`packed_release`] the recipe scenarios share (one per e2e process).
    pub(crate) fn shared(tools: &Tools) -> Result<Arc<ReleaseServer>, E2eError> {
        static SHARED: Mutex<Option<Arc<ReleaseServer>>> = Mutex::new(None);
        let root = packed_release(tools)?;
        let mut shared = SHARED
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(server) = shared.as_ref() {
            return Ok(Arc::clone(server));
        }
        let server = Arc::new(ReleaseServer::start(root)?);
        *shared = Some(Arc::clone(&server));
        Ok(server)
    }

    /// Serves `root` until the process ends.
    pub(crate) fn start(root: PathBuf) -> Result<ReleaseServer, E2eError> {
        let listener = TcpListener::bind("127.0.0.1:0").map_err(E2eError::io(&root))?;
        let port = listener.local_addr().map_err(E2eError::io(&root))?.port();
        let requests = Arc::new(Mutex::new(Vec::new()));
        let seen = Arc::clone(&requests);
        thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let _ = serve(stream, &root, &seen);
            }
        });
        Ok(ReleaseServer { port, requests })
    }

    /// `http://127.0.0.1:PORT` (the release `v<version>` is under `/v<version>`).
    pub(crate) fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Every path asked for so far, in order.
    pub(crate) fn requests(&self) -> Vec<String> {
        self.requests.lock().map(|r| r.clone()).unwrap_or_default()
    }
}

fn serve(stream: TcpStream, root: &Path, seen: &Mutex<Vec<String>>) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut line = String::new();
    reader.read_line(&mut line)?;
    // The headers, to the blank line (bounded: a request of ours has a handful).
    for _ in 0..100 {
        let mut header = String::new();
        if reader.read_line(&mut header)? == 0 || header.trim().is_empty() {
            break;
        }
    }
    let path = line.split_whitespace().nth(1).unwrap_or("/").to_owned();
    if let Ok(mut seen) = seen.lock() {
        seen.push(path.clone());
    }
    let relative = path.trim_start_matches('/');
    let file = root.join(relative);
    let body = if relative
        .split('/')
        .any(|part| part == ".." || part.is_empty())
    {
        None
    } else {
        fs::read(&file).ok()
    };
    let mut stream = stream;
    let (status, body) = match body {
        Some(body) => ("200 OK", body),
        None => ("404 Not Found", b"Not Found".to_vec()),
    };
    write!(
        stream,
        "HTTP/1.1 {status}\r\nContent-Length: {}\r\nContent-Type: application/octet-stream\r\nConnection: close\r\n\r\n",
        body.len()
    )?;
    stream.write_all(&body)?;
    stream.flush()
}
