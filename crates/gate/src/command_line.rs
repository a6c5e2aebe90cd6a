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
    ("file", &["-C", "--compile"]),
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
        "file" => cluster.contains('C'),
        _ => false,
    }
}

/// Whether `option` (an argument up to its `=`) names one of the `denied` options: exactly, or
/// as an abbreviation of a denied long option, which GNU programs accept (`sort --out=FILE` is
/// `sort --output=FILE`). Any abbreviation is refused, even one the program would find
/// ambiguous: refusing too much is safe, too little is not.
fn names_denied(option: &str, denied: &[&str]) -> bool {
    denied
        .iter()
        .any(|d| *d == option || (option.len() > 2 && d.starts_with("--") && d.starts_with(option)))
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
        if names_denied(option, denied) || unsafe_cluster(program, arg) {
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

    /// Every way a write or a run can hide in arguments of a read-only program, each one a
    /// mutant of `classify`, `unsafe_cluster` or `names_denied` lets through (issue 47).
    #[test]
    fn a_write_hidden_in_bundled_short_options_is_refused() {
        for command in [
            "sort -uo out x",
            "sort -ouout x",
            "sort -oout x",
            "rg -zn foo",
            "rg -nz foo",
            "file -C -m magic",
            "file -zC -m magic",
        ] {
            let stage = &stages(command)[0];
            assert!(matches!(stage, Stage::Other { .. }), "{command}: {stage:?}");
        }
    }

    /// GNU's `getopt_long` takes any unambiguous prefix of a long option: `sort --out=FILE`
    /// wrote FILE while the gate allowed it as read-only search, as did `sort --co=PROGRAM`
    /// (runs PROGRAM) and `file --comp` (writes a `.mgc` file), since only the full names were
    /// refused.
    #[test]
    fn an_abbreviated_long_option_that_writes_or_runs_is_refused() {
        for command in [
            "sort --out=out x",
            "sort --outp out x",
            "sort --outpu=out x",
            "sort --co=sh x",
            "sort --compress-prog=sh x",
            "rg --pre-g '*' foo",
            "rg --search-z foo",
            "rg --hostname foo",
            "file --comp -m magic",
            "file --compile -m magic",
        ] {
            let stage = &stages(command)[0];
            assert!(matches!(stage, Stage::Other { .. }), "{command}: {stage:?}");
        }
    }

    /// What the refusals above must not catch: options that only read, short or long, and the
    /// bare `-` and `--` (stdin, end of options).
    #[test]
    fn read_only_options_near_the_refused_ones_stay_read_only() {
        for command in [
            "sort --ignore-case x",
            "sort --reverse --unique x",
            "sort -u -r x",
            "sort - x",
            "sort -- x",
            "rg --no-heading -n foo",
            "file -b x",
            "file --mime-type x",
            "cat -",
            "grep -c -- foo x",
            "find . -name '*.rs' -type f",
            "ls",
            "ls -la src",
        ] {
            let stage = &stages(command)[0];
            assert!(
                matches!(stage, Stage::ReadOnly { .. }),
                "{command}: {stage:?}"
            );
        }
    }

    #[test]
    fn paths_stay_inside_the_project_or_the_stage_is_other() {
        let inside = Some(Path::new("/p"));
        for (arg, project, stays) in [
            ("src/main.rs", inside, true),
            ("/p/src", inside, true),
            ("/pq/src", inside, false),
            ("/etc/passwd", inside, false),
            ("/p/src", None, false),
            ("src/../../x", inside, false),
            ("~/x", inside, false),
            ("a~b", inside, true),
        ] {
            assert_eq!(stays_inside(arg, project), stays, "{arg} in {project:?}");
        }
    }

    #[test]
    fn cd_takes_exactly_one_folder_inside_the_project() {
        for (command, change_dir) in [
            ("cd src", true),
            ("cd /p/src", true),
            ("cd", false),
            ("cd src lib", false),
            ("cd /tmp", false),
            ("cd ..", false),
        ] {
            let stage = &stages(command)[0];
            assert_eq!(
                *stage == Stage::ChangeDir,
                change_dir,
                "{command}: {stage:?}"
            );
        }
    }

    #[test]
    fn self_repair_needs_a_subcommand_first() {
        assert_eq!(
            stages("self-repair show t-1 --run r-1"),
            [Stage::SelfRepair {
                subcommand: "show".to_owned(),
                args: vec!["t-1".to_owned(), "--run".to_owned(), "r-1".to_owned()],
            }]
        );
        for command in ["self-repair", "self-repair --help show"] {
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
