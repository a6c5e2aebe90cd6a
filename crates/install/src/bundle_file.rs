//! One file of the agents + skill bundle that `install` copies into `.claude/`.

use crate::install_error::InstallError;

/// One file of the bundle, as laid out in the repository.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BundleFile {
    /// Path inside the repository, `/`-separated: `agents/triage-investigator.md`,
    /// `skill/self-repair/SKILL.md`.
    pub rel_path: &'static str,
    /// The file's text.
    pub contents: &'static str,
}

/// Every file under the repository's `agents/` and `skill/` directories, embedded at build time.
pub fn embedded_bundle() -> &'static [BundleFile] {
    include!(concat!(env!("OUT_DIR"), "/bundle.rs"))
}

impl BundleFile {
    /// Where this file goes, relative to the `.claude` directory: `agents/x.md` stays,
    /// `skill/self-repair/...` becomes `skills/self-repair/...` (Claude Code's folder name).
    pub(crate) fn target_in_claude_dir(&self) -> Result<String, InstallError> {
        let invalid = || InstallError::BundlePath {
            rel_path: self.rel_path.to_owned(),
        };
        let mut parts = self.rel_path.split('/');
        let top = match parts.next() {
            Some("agents") => "agents",
            Some("skill") => "skills",
            _ => return Err(invalid()),
        };
        let mut target = top.to_owned();
        for part in parts {
            if part.is_empty() || part == "." || part == ".." || part.contains('\\') {
                return Err(invalid());
            }
            target.push('/');
            target.push_str(part);
        }
        // A bare `agents` or `skill` names a folder, not a file.
        if target == top {
            return Err(invalid());
        }
        Ok(target)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(rel_path: &'static str) -> BundleFile {
        BundleFile {
            rel_path,
            contents: "",
        }
    }

    #[test]
    fn skill_maps_to_skills_dir_and_agents_stay() {
        assert_eq!(
            file("skill/self-repair/templates/a.md")
                .target_in_claude_dir()
                .unwrap(),
            "skills/self-repair/templates/a.md"
        );
        assert_eq!(
            file("agents/fix-planner.md")
                .target_in_claude_dir()
                .unwrap(),
            "agents/fix-planner.md"
        );
    }

    #[test]
    fn escaping_or_foreign_paths_are_rejected() {
        for bad in [
            "hooks/hooks.json",
            "agents/../x.md",
            "agents",
            "agents//x",
            "/etc/x",
        ] {
            assert!(
                file(bad).target_in_claude_dir().is_err(),
                "{bad} should be rejected"
            );
        }
    }

    #[test]
    fn embedded_bundle_only_holds_agents_and_skill_files() {
        for f in embedded_bundle() {
            assert!(f.target_in_claude_dir().is_ok(), "{}", f.rel_path);
        }
    }

    #[test]
    fn the_embedded_bundle_holds_the_skill_and_the_triage_agent_with_their_text() {
        let bundle = embedded_bundle();
        for rel_path in [
            "skill/self-repair/SKILL.md",
            "agents/triage-investigator.md",
        ] {
            let found = bundle.iter().find(|f| f.rel_path == rel_path);
            assert!(
                found.is_some_and(|f| !f.contents.trim().is_empty()),
                "{rel_path} missing or empty"
            );
        }
    }

    #[test]
    fn every_kind_of_bad_part_is_rejected_and_a_deep_path_kept_whole() {
        for bad in [
            "skill",
            "skill/",
            "skill/./a.md",
            "skill/a\\b.md",
            "agents/x/..",
            "",
        ] {
            assert!(
                file(bad).target_in_claude_dir().is_err(),
                "{bad} should be rejected"
            );
        }
        assert_eq!(
            file("skill/a/b/c/d.md").target_in_claude_dir().unwrap(),
            "skills/a/b/c/d.md"
        );
    }
}
