//! `.self-repair/config.json`: the project's run settings.

use std::path::{Path, PathBuf};

use self_repair_engine::Config;

use crate::AppError;

/// Reads the config at `explicit`, else `<store>/config.json` when present, else defaults.
/// Returns the config and whether the file set `agent_prefix` itself.
pub fn load_config(store_dir: &Path, explicit: Option<&Path>) -> Result<(Config, bool), AppError> {
    let path: PathBuf = if let Some(p) = explicit {
        p.to_path_buf()
    } else {
        let default = store_dir.join("config.json");
        if !default.is_file() {
            return Ok((Config::default(), false));
        }
        default
    };
    let text = std::fs::read_to_string(&path).map_err(AppError::io("read config", &path))?;
    let config_error = |message: String| AppError::Config {
        path: path.clone(),
        message,
    };
    let raw: serde_json::Value = serde_json::from_str(&text)
        .map_err(|e| config_error(format!("not valid JSON ({e}); fix the file or remove it")))?;
    let sets_prefix = raw.get("agent_prefix").is_some();
    let config: Config = serde_json::from_value(raw).map_err(|e| {
        config_error(format!(
            "{e}; see reference/config.md for the keys and their defaults"
        ))
    })?;
    config.validate().map_err(|e| config_error(e.to_string()))?;
    Ok((config, sets_prefix))
}
