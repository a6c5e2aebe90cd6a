//! What each stage of a strictly read command line is: a `self-repair` subcommand, a read-only
//! program whose arguments cannot make it write or run anything, `cd`, or something else.

use std::path::{Component, Path};

use crate::shell_line::{Joint, ShellLine, ShellLineError};

/// One stage of a command line, classified.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stage {
    /// `self-repair SUBCOMMAND ARGS...`.
    SelfRepair {
        subcommand: String,
        args: Vec<String>,
    },
    /// A read-only program (`grep`, `rg`, `find`, `cat`, ...) with safe arguments.
    ReadOnly { program: String },
    /// `cd DIR` inside the project.
    ChangeDir,
    /// Anything else; `why` says what made it so.
    Other { why: String },
}

/// A command line whose stages are classified.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandLine {
    /// The stages, in order.
    pub stages: Vec<Stage>,
    /// How they are joined.
    pub joints: Vec<Joint>,
    /// The stage a heredoc feeds, if any.
    pub heredoc_stage: Option<usize>,
}

/// Programs that only read files and print, with the arguments that would make them write or
/// run something else.
const READ_ONLY: [(&str, &[&str]); 18] = [
    ("grep", &[]),
    ("egrep", &[]),
    ("fgrep", &[]),
    (
        "rg",
        &[
            "--pre",
            "--pre-glob",
            "--search-zip",
            "-z",
            "--hostname-bin",
        ],
    ),
    (
        "find",
        &[
            "-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf",
            "-fls",
        ],
    ),
    ("ls", &[]),
    ("cat", &[]),
    ("head", &[]),
    ("tail", &[]),
    ("wc", &[]),
    ("sort", &["-o", "--output", "--compress-program"]),
    ("cut", &[]),
    ("pwd", &[]),
    ("echo", &[]),
    ("printf", &["-v"]),
    ("file", &[]),
    ("stat", &[]),
    ("realpath", &[]),
];

/// Short options that, bundled into a cluster like `-nz`, would make the program unsafe.
fn unsafe_cluster(program: &str, arg: &str) -> bool {
    let Some(cluster) = arg.strip_prefix('-').filter(|c| !c.starts_with('-')) else {
        return false;
    };
    match program {
        "rg" => cluster.contains('z'),
        "sort" => cluster.contains('o'),
        _ => false,
    }
}

/// Whether `arg`, read as a path, stays inside `project`: relative with no `..`, or absolute
/// under the project. Patterns read as paths pass or fail the same way, which is strict but safe.
pub(crate) fn stays_inside(arg: &str, project: Option<&Path>) -> bool {
    if arg.starts_with('~') {
        return false;
    }
    let path = Path::new(arg);
    if path.components().any(|c| c == Component::ParentDir) {
        return false;
    }
    if path.is_absolute() {
        return project.is_some_and(|project| path.starts_with(project));
    }
    true
}

fn classify(words: &[String], project: Option<&Path>, own_exe: Option<&Path>) -> Stage {
    let Some((program, args)) = words.split_first() else {
        return Stage::Other {
            why: "an empty command".to_owned(),
        };
    };
    let is_self_repair =
        program == "self-repair" || own_exe.is_some_and(|exe| Path::new(program) == exe);
    if is_self_repair {
        let Some((subcommand, rest)) = args.split_first().filter(|(s, _)| !s.starts_with('-'))
        else {
            return Stage::Other {
                why: "`self-repair` without a subcommand first".to_owned(),
            };
        };
        return Stage::SelfRepair {
            subcommand: subcommand.clone(),
            args: rest.to_vec(),
        };
    }
    if program == "cd" {
        return match args {
            [dir] if stays_inside(dir, project) => Stage::ChangeDir,
            _ => Stage::Other {
                why: "`cd` to a folder outside the project".to_owned(),
            },
        };
    }
    let Some((_, denied)) = READ_ONLY.iter().find(|(name, _)| name == program) else {
        return Stage::Other {
            why: format!("`{program}` is not a self-repair command nor a read-only search"),
        };
    };
    for arg in args {
        let option = arg.split('=').next().unwrap_or(arg);
        if denied.contains(&option) || unsafe_cluster(program, arg) {
            return Stage::Other {
                why: format!("`{program} {arg}` can write or run other programs"),
            };
        }
        if !arg.starts_with('-') && !stays_inside(arg, project) {
            return Stage::Other {
                why: format!("`{arg}` is outside the project"),
            };
        }
    }
    Stage::ReadOnly {
        program: program.clone(),
    }
}

impl CommandLine {
    /// Reads `command` strictly and classifies each stage. `project` bounds the paths read-only
    /// programs may name; `own_exe` is this binary, which may be named by its absolute path.
    pub fn parse(
        command: &str,
        project: Option<&Path>,
        own_exe: Option<&Path>,
    ) -> Result<CommandLine, ShellLineError> {
        let line = ShellLine::parse(command)?;
        Ok(CommandLine {
            stages: line
                .stages
                .iter()
                .map(|words| classify(words, project, own_exe))
                .collect(),
            joints: line.joints,
            heredoc_stage: line.heredoc.map(|h| h.stage),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stages(command: &str) -> Vec<Stage> {
        CommandLine::parse(command, Some(Path::new("/p")), None)
            .unwrap()
            .stages
    }

    #[test]
    fn read_only_programs_with_safe_arguments_are_read_only() {
        assert_eq!(
            stages("grep -rn foo /p/src"),
            [Stage::ReadOnly {
                program: "grep".to_owned()
            }]
        );
    }

    #[test]
    fn arguments_that_write_or_run_make_a_program_other() {
        for command in [
            "find . -name x -exec rm '{}' +",
            "find . -delete",
            "rg --pre ./evil foo",
            "rg -nz foo",
            "sort -o out x",
            "sort --output=out x",
            "grep foo /etc/passwd",
            "cat ~/.ssh/id_rsa",
            "cat ../secret",
            "curl https://x",
            "sh -c id",
            "cd /tmp",
        ] {
            let stage = &stages(command)[0];
            assert!(matches!(stage, Stage::Other { .. }), "{command}: {stage:?}");
        }
    }

    #[test]
    fn self_repair_is_named_bare_or_by_this_binary_s_path() {
        let exe = Path::new("/usr/local/bin/self-repair");
        let line = CommandLine::parse("/usr/local/bin/self-repair show t-1", None, Some(exe));
        assert!(matches!(
            &line.unwrap().stages[0],
            Stage::SelfRepair { subcommand, .. } if subcommand == "show"
        ));
        let other = CommandLine::parse("/tmp/self-repair show t-1", None, Some(exe)).unwrap();
        assert!(matches!(other.stages[0], Stage::Other { .. }));
    }
}
