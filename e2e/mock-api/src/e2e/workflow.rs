//! A GitHub Actions workflow file, read as far as the CI recipes' scenarios run it: the
//! workflow's and each job's `env`, `needs`, `strategy.matrix`, the workflow's `concurrency`,
//! and job-level `if` (equalities of two values joined by `&&`/`||`: [`job_condition_holds`]), and each job's steps (`name`, `if`, `env`, `run` or `uses`
//! with its `with`). The `${{ ... }}` expressions are substituted from a table the scenario
//! documents; an expression outside it is an error, so a recipe cannot use a context the test
//! does not give a value.

use yaml_rust2::{Yaml, YamlLoader};

/// One step of a job.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WorkflowStep {
    /// `name`, else the `run` script's first line, else `uses`.
    pub name: String,
    /// `if` (absent: `success()`).
    pub condition: Option<String>,
    pub env: Vec<(String, String)>,
    pub run: Option<String>,
    pub uses: Option<String>,
    pub with: Vec<(String, String)>,
}

/// One job.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WorkflowJob {
    pub id: String,
    /// `needs`: the jobs that finish before this one starts.
    pub needs: Vec<String>,
    /// `strategy.matrix`: each variable and its values, in the file's order (empty: no matrix).
    pub matrix: Vec<(String, Vec<String>)>,
    /// The job's `if` (absent: the job runs).
    pub condition: Option<String>,
    pub env: Vec<(String, String)>,
    pub steps: Vec<WorkflowStep>,
}

/// A workflow file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Workflow {
    pub name: String,
    /// `permissions` of the workflow, as `scope: level` pairs.
    pub permissions: Vec<(String, String)>,
    pub env: Vec<(String, String)>,
    /// `concurrency`: its `group` (expressions not substituted) and `cancel-in-progress`.
    pub concurrency: Option<Concurrency>,
    pub jobs: Vec<WorkflowJob>,
}

/// A workflow's `concurrency`: runs of one group wait for each other, or cancel the one in
/// progress.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Concurrency {
    pub group: String,
    pub cancel_in_progress: bool,
}

/// A scalar as text (`3.12`, `0`, `true` as written).
fn scalar(value: &Yaml) -> Option<String> {
    match value {
        Yaml::String(text) | Yaml::Real(text) => Some(text.clone()),
        Yaml::Integer(n) => Some(n.to_string()),
        Yaml::Boolean(b) => Some(b.to_string()),
        _ => None,
    }
}

/// A mapping of scalars (`env`, `with`, `permissions`), in the file's order.
fn pairs(value: &Yaml, what: &str) -> Result<Vec<(String, String)>, String> {
    match value {
        Yaml::BadValue | Yaml::Null => Ok(Vec::new()),
        Yaml::Hash(hash) => hash
            .iter()
            .map(|(key, value)| match (scalar(key), scalar(value)) {
                (Some(key), Some(value)) => Ok((key, value)),
                _ => Err(format!("{what}: {key:?}: {value:?} is not a scalar")),
            })
            .collect(),
        other => Err(format!("{what} is not a mapping: {other:?}")),
    }
}

/// `needs`: one job id or a list of them.
fn needs(value: &Yaml) -> Result<Vec<String>, String> {
    match value {
        Yaml::BadValue | Yaml::Null => Ok(Vec::new()),
        Yaml::Array(ids) => ids
            .iter()
            .map(|id| scalar(id).ok_or_else(|| format!("needs: {id:?} is not a job id")))
            .collect(),
        other => scalar(other)
            .map(|id| vec![id])
            .ok_or_else(|| format!("needs: {other:?} is not a job id")),
    }
}

/// `strategy.matrix`: variables whose values are lists of scalars (no `include`/`exclude`).
fn matrix(value: &Yaml) -> Result<Vec<(String, Vec<String>)>, String> {
    match value {
        Yaml::BadValue | Yaml::Null => Ok(Vec::new()),
        Yaml::Hash(hash) => hash
            .iter()
            .map(|(key, values)| {
                let key = scalar(key).ok_or("matrix: a variable that is not a scalar")?;
                let values = values
                    .as_vec()
                    .ok_or_else(|| format!("matrix: {key} is not a list"))?
                    .iter()
                    .map(|v| scalar(v).ok_or_else(|| format!("matrix: {key}: {v:?}")))
                    .collect::<Result<Vec<_>, _>>()?;
                Ok((key, values))
            })
            .collect(),
        other => Err(format!("matrix: {other:?} is not a mapping")),
    }
}

fn text(value: &Yaml) -> Option<String> {
    value.as_str().map(str::to_owned)
}

impl Workflow {
    /// Reads a workflow file's text.
    pub fn parse(source: &str) -> Result<Workflow, String> {
        let docs = YamlLoader::load_from_str(source).map_err(|e| format!("not YAML: {e}"))?;
        let [doc] = docs.as_slice() else {
            return Err(format!("{} YAML documents, not one", docs.len()));
        };
        let Some(jobs) = doc["jobs"].as_hash() else {
            return Err("no `jobs` mapping".to_owned());
        };
        let mut workflow = Workflow {
            name: text(&doc["name"]).unwrap_or_default(),
            permissions: pairs(&doc["permissions"], "permissions")?,
            env: pairs(&doc["env"], "env")?,
            concurrency: match &doc["concurrency"] {
                Yaml::BadValue | Yaml::Null => None,
                Yaml::Hash(_) => Some(Concurrency {
                    group: scalar(&doc["concurrency"]["group"]).ok_or("concurrency: no `group`")?,
                    cancel_in_progress: doc["concurrency"]["cancel-in-progress"]
                        .as_bool()
                        .unwrap_or(false),
                }),
                group => Some(Concurrency {
                    group: scalar(group).ok_or("concurrency: not a group or a mapping")?,
                    cancel_in_progress: false,
                }),
            },
            jobs: Vec::new(),
        };
        for (id, job) in jobs {
            let id = scalar(id).ok_or("a job id that is not a scalar")?;
            let Some(steps) = job["steps"].as_vec() else {
                return Err(format!("job {id}: no `steps` list"));
            };
            let steps = steps
                .iter()
                .enumerate()
                .map(|(i, step)| {
                    WorkflowStep::read(step).map_err(|e| format!("job {id}, step {}: {e}", i + 1))
                })
                .collect::<Result<Vec<_>, _>>()?;
            workflow.jobs.push(WorkflowJob {
                env: pairs(&job["env"], &format!("job {id}: env"))?,
                needs: needs(&job["needs"]).map_err(|e| format!("job {id}: {e}"))?,
                matrix: matrix(&job["strategy"]["matrix"]).map_err(|e| format!("job {id}: {e}"))?,
                condition: scalar(&job["if"]),
                id,
                steps,
            });
        }
        Ok(workflow)
    }

    /// The job `id`.
    pub fn job(&self, id: &str) -> Option<&WorkflowJob> {
        self.jobs.iter().find(|job| job.id == id)
    }
}

impl WorkflowJob {
    /// The matrix's combinations, each as the `${{ matrix.VAR }}` expressions and their values
    /// plus `strategy.job-index` (from 0) and `strategy.job-total`, in GitHub's order (the
    /// first variable varies slowest); one empty-matrix combination when there is no matrix.
    pub fn matrix_runs(&self) -> Vec<Vec<(String, String)>> {
        let mut runs: Vec<Vec<(String, String)>> = vec![Vec::new()];
        for (key, values) in &self.matrix {
            runs = runs
                .iter()
                .flat_map(|run| {
                    values.iter().map(move |value| {
                        let mut run = run.clone();
                        run.push((format!("matrix.{key}"), value.clone()));
                        run
                    })
                })
                .collect();
        }
        let total = runs.len();
        for (index, run) in runs.iter_mut().enumerate() {
            run.push(("strategy.job-index".to_owned(), index.to_string()));
            run.push(("strategy.job-total".to_owned(), total.to_string()));
        }
        runs
    }
}

impl WorkflowStep {
    fn read(step: &Yaml) -> Result<WorkflowStep, String> {
        let run = text(&step["run"]);
        let uses = text(&step["uses"]);
        if run.is_some() == uses.is_some() {
            return Err("a step has exactly one of `run` and `uses`".to_owned());
        }
        let name = text(&step["name"])
            .or_else(|| {
                run.as_deref()
                    .and_then(|r| r.lines().next())
                    .map(str::to_owned)
            })
            .or_else(|| uses.clone())
            .unwrap_or_default();
        Ok(WorkflowStep {
            name,
            condition: scalar(&step["if"]),
            env: pairs(&step["env"], "env")?,
            run,
            uses,
            with: pairs(&step["with"], "with")?,
        })
    }
}

/// `text` with every `${{ EXPR }}` replaced by the value `context` gives EXPR (trimmed); an
/// expression it has no value for is an error naming it.
pub fn substitute(text: &str, context: &[(impl AsRef<str>, String)]) -> Result<String, String> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("${{") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 3..];
        let Some(end) = after.find("}}") else {
            return Err(format!("an unclosed `${{{{` in {text:?}"));
        };
        let expression = after[..end].trim();
        let value = context
            .iter()
            .find(|(name, _)| name.as_ref() == expression)
            .map(|(_, value)| value.as_str())
            .ok_or_else(|| {
                format!("`${{{{ {expression} }}}}` has no documented value in the recipe test")
            })?;
        out.push_str(value);
        rest = &after[end + 2..];
    }
    out.push_str(rest);
    Ok(out)
}

/// Whether a job's `if:` holds: equalities `A == B` or `A != B` (optionally inside `${{ }}`),
/// each side an expression `context` gives a value or a quoted `'literal'`, joined by `&&` and
/// `||` (`&&` binding tighter, as in GitHub's expressions; no parentheses). Anything else is an
/// error naming it, so a recipe cannot use a condition the test does not read.
pub(crate) fn job_condition_holds(
    expression: &str,
    context: &[(impl AsRef<str>, String)],
) -> Result<bool, String> {
    let inner = expression.trim();
    let inner = inner
        .strip_prefix("${{")
        .and_then(|e| e.strip_suffix("}}"))
        .unwrap_or(inner)
        .trim();
    let mut any = false;
    for alternative in inner.split(" || ") {
        let mut all = true;
        for term in alternative.split(" && ") {
            all &= equality_holds(term, expression, context)?;
        }
        any |= all;
    }
    Ok(any)
}

/// One `A == B` or `A != B` of a job's `if:` (`expression`, for the error).
fn equality_holds(
    term: &str,
    expression: &str,
    context: &[(impl AsRef<str>, String)],
) -> Result<bool, String> {
    let (left, right, equal) = match (term.split_once(" == "), term.split_once(" != ")) {
        (Some((l, r)), None) => (l, r, true),
        (None, Some((l, r))) => (l, r, false),
        _ => {
            return Err(format!(
                "`if: {expression}` is not one the recipe test reads"
            ));
        }
    };
    let value = |side: &str| -> Result<String, String> {
        let side = side.trim();
        if side.contains('(') {
            return Err(format!(
                "`if: {expression}` is not one the recipe test reads (no functions or parentheses)"
            ));
        }
        if let Some(literal) = side.strip_prefix('\'').and_then(|s| s.strip_suffix('\'')) {
            return Ok(literal.to_owned());
        }
        substitute(&format!("${{{{ {side} }}}}"), context)
    };
    Ok((value(left)? == value(right)?) == equal)
}

#[cfg(test)]
mod tests {
    use super::{Workflow, job_condition_holds, substitute};

    #[test]
    fn a_workflow_reads_into_jobs_and_steps_in_order_with_their_env() {
        let workflow = Workflow::parse(
            "name: w\non:\n  pull_request:\nconcurrency:\n  group: g-${{ x }}\n  cancel-in-progress: true\npermissions:\n  security-events: write\nenv:\n  A: \"1\"\njobs:\n  one:\n    env:\n      B: 2\n    steps:\n      - uses: actions/checkout@v4\n        with:\n          fetch-depth: 0\n      - name: go\n        if: always()\n        env:\n          C: x\n        run: |\n          echo a\n          echo b\n",
        )
        .unwrap();
        assert_eq!(workflow.name, "w");
        assert_eq!(
            workflow.concurrency,
            Some(super::Concurrency {
                group: "g-${{ x }}".to_owned(),
                cancel_in_progress: true
            })
        );
        assert_eq!(
            workflow.permissions,
            [("security-events".to_owned(), "write".to_owned())]
        );
        assert_eq!(workflow.env, [("A".to_owned(), "1".to_owned())]);
        let job = workflow.job("one").unwrap();
        assert_eq!(job.env, [("B".to_owned(), "2".to_owned())]);
        assert_eq!(job.steps[0].uses.as_deref(), Some("actions/checkout@v4"));
        assert_eq!(
            job.steps[0].with,
            [("fetch-depth".to_owned(), "0".to_owned())]
        );
        assert_eq!(job.steps[1].name, "go");
        assert_eq!(job.steps[1].condition.as_deref(), Some("always()"));
        assert_eq!(job.steps[1].run.as_deref(), Some("echo a\necho b\n"));
    }

    #[test]
    fn a_matrix_job_runs_once_per_combination_with_its_values_and_needs() {
        let workflow = Workflow::parse(
            "jobs:\n  t:\n    strategy:\n      matrix:\n        share: [1, 2]\n        os: [a]\n    steps:\n      - run: x\n  m:\n    needs: t\n    steps:\n      - run: y\n",
        )
        .unwrap();
        let runs = workflow.job("t").unwrap().matrix_runs();
        let pair = |k: &str, v: &str| (k.to_owned(), v.to_owned());
        assert_eq!(
            runs,
            [
                vec![
                    pair("matrix.share", "1"),
                    pair("matrix.os", "a"),
                    pair("strategy.job-index", "0"),
                    pair("strategy.job-total", "2")
                ],
                vec![
                    pair("matrix.share", "2"),
                    pair("matrix.os", "a"),
                    pair("strategy.job-index", "1"),
                    pair("strategy.job-total", "2")
                ],
            ]
        );
        let merge = workflow.job("m").unwrap();
        assert_eq!(merge.needs, ["t"]);
        assert_eq!(
            merge.matrix_runs(),
            [vec![
                pair("strategy.job-index", "0"),
                pair("strategy.job-total", "1")
            ]]
        );
    }

    #[test]
    fn a_step_with_both_run_and_uses_or_neither_is_refused() {
        let both = "jobs:\n  j:\n    steps:\n      - run: a\n        uses: b\n";
        assert!(Workflow::parse(both).unwrap_err().contains("exactly one"));
        let neither = "jobs:\n  j:\n    steps:\n      - name: a\n";
        assert!(
            Workflow::parse(neither)
                .unwrap_err()
                .contains("exactly one")
        );
    }

    #[test]
    fn a_job_s_if_compares_two_values_and_anything_else_is_an_error() {
        let workflow = Workflow::parse(
            "jobs:\n  j:\n    if: github.repository == 'o/r'\n    steps:\n      - run: x\n",
        )
        .unwrap();
        let condition = workflow.job("j").unwrap().condition.clone().unwrap();
        let context = [
            ("github.repository", "o/r".to_owned()),
            ("head", "fork/r".to_owned()),
        ];
        assert_eq!(job_condition_holds(&condition, &context), Ok(true));
        assert_eq!(
            job_condition_holds("${{ head != github.repository }}", &context),
            Ok(true)
        );
        assert_eq!(
            job_condition_holds("head == github.repository", &context),
            Ok(false)
        );
        assert!(job_condition_holds("a && b", &context).is_err());
        assert!(job_condition_holds("github.actor == 'x'", &context).is_err());
        assert!(job_condition_holds("startsWith(head, 'f') == 'x'", &context).is_err());
    }

    #[test]
    fn a_job_s_if_joins_equalities_with_and_over_or() {
        let context = [
            ("github.repository", "o/r".to_owned()),
            ("head", "o/r".to_owned()),
            ("github.actor", "dependabot[bot]".to_owned()),
        ];
        let run = "head == github.repository && github.actor != 'dependabot[bot]'";
        assert_eq!(job_condition_holds(run, &context), Ok(false));
        let skip = "${{ head != github.repository || github.actor == 'dependabot[bot]' }}";
        assert_eq!(job_condition_holds(skip, &context), Ok(true));
        // `&&` binds tighter: false || (true && true).
        let mixed =
            "head != github.repository || head == 'o/r' && github.actor == 'dependabot[bot]'";
        assert_eq!(job_condition_holds(mixed, &context), Ok(true));
    }

    #[test]
    fn expressions_take_their_documented_values_and_an_unknown_one_is_an_error() {
        let context = [("github.base_ref", "main".to_owned())];
        assert_eq!(
            substitute("git diff origin/${{ github.base_ref }}", &context).unwrap(),
            "git diff origin/main"
        );
        let unknown = substitute("${{ github.token }}", &context).unwrap_err();
        assert!(unknown.contains("github.token"), "{unknown}");
    }
}
