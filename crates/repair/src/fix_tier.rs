//! Who makes a fix attempt: the main session itself, or the `fixer` sub-agent at a model tier.

use std::fmt;

use self_repair_engine::Tier;
use serde::{Deserialize, Serialize};

/// One entry of `--tiers`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FixTier {
    /// The main session fixes the code itself (the block reason is the feedback).
    Main,
    /// The `fixer` sub-agent at this model tier.
    #[serde(untagged)]
    Agent(Tier),
}

impl FixTier {
    /// Parses `main,sonnet,opus`.
    pub fn parse_list(text: &str) -> Result<Vec<FixTier>, String> {
        let tiers: Result<Vec<FixTier>, String> = text
            .split(',')
            .map(str::trim)
            .map(|t| match t {
                "main" => Ok(FixTier::Main),
                other => Tier::parse(other).map(FixTier::Agent).ok_or_else(|| {
                    format!("unknown tier `{other}`; use main, haiku, sonnet or opus")
                }),
            })
            .collect();
        let tiers = tiers?;
        if tiers.is_empty() {
            return Err("give at least one tier, e.g. main,sonnet,opus".to_owned());
        }
        Ok(tiers)
    }

    /// The tier's name.
    pub fn as_str(self) -> &'static str {
        match self {
            FixTier::Main => "main",
            FixTier::Agent(tier) => tier.as_str(),
        }
    }
}

impl fmt::Display for FixTier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_default_list_and_refuses_unknown_tiers() {
        assert_eq!(
            FixTier::parse_list("main, sonnet,opus").unwrap(),
            [
                FixTier::Main,
                FixTier::Agent(Tier::Sonnet),
                FixTier::Agent(Tier::Opus)
            ]
        );
        assert!(FixTier::parse_list("main,gpt").unwrap_err().contains("gpt"));
        let json = serde_json::to_string(&[FixTier::Main, FixTier::Agent(Tier::Haiku)]).unwrap();
        assert_eq!(json, r#"["main","haiku"]"#);
        let back: Vec<FixTier> = serde_json::from_str(&json).unwrap();
        assert_eq!(back[1], FixTier::Agent(Tier::Haiku));
    }
}
