//! Hook runs read from `claude --debug-file F`. Claude Code 2.1.330 writes, per command hook,
//! `Hooks: Checking first line for async: <stdout>` when the hook printed something, then
//! `Hooks: Stop [self-repair hook stop] (plugin self-repair@inline) finished with status 0 (17ms)`
//! (`Hooks: SessionStart:resume [...] ... (19ms)` with the matcher); a `StopFailure` hook logs
//! `StopFailure:rate_limit [self-repair hook stop-failure] completed with status 0`, no time.

/// One hook command run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookRun {
    /// Hook event (`Stop`, `StopFailure`, `SessionStart`, ...).
    pub event: String,
    /// What followed the event after `:` (`rate_limit`, `resume`), or "".
    pub detail: String,
    /// The command line in brackets.
    pub command: String,
    /// Exit status.
    pub status: i32,
    /// Wall time the client measured (`None` when it logs none).
    pub millis: Option<u64>,
    /// The first line of its stdout ("" when it printed nothing).
    pub output: String,
}

impl HookRun {
    /// Whether it kept the session going: a `decision: block`, or (design note 48) the Stop
    /// event's `additionalContext`.
    pub fn blocked(&self) -> bool {
        self.output.contains("\"decision\":\"block\"")
            || (self.event == "Stop" && self.output.contains("\"additionalContext\""))
    }
}

const OUTPUT_MARK: &str = "Hooks: Checking first line for async: ";
const LEVEL: &str = "[DEBUG] ";

fn finished_run(line: &str) -> Option<HookRun> {
    let rest = &line[line.find(LEVEL)? + LEVEL.len()..];
    let rest = rest.strip_prefix("Hooks: ").unwrap_or(rest);
    let (event, rest) = rest.split_once(" [")?;
    if event.contains(' ') {
        return None;
    }
    let (command, rest) = rest.split_once(']')?;
    let (status, millis) = if let Some(at) = rest.find(" finished with status ") {
        let after = &rest[at + " finished with status ".len()..];
        let (status, time) = after.split_once(" (")?;
        (status, Some(time.strip_suffix("ms)")?.trim().parse().ok()?))
    } else {
        let at = rest.find(" completed with status ")?;
        (&rest[at + " completed with status ".len()..], None)
    };
    let (event, detail) = event.split_once(':').unwrap_or((event, ""));
    Some(HookRun {
        event: event.to_owned(),
        detail: detail.to_owned(),
        command: command.to_owned(),
        status: status.trim().parse().ok()?,
        millis,
        output: String::new(),
    })
}

/// Every hook run of a debug log, in order.
pub fn parse_hook_log(text: &str) -> Vec<HookRun> {
    let mut runs = Vec::new();
    let mut output = String::new();
    for line in text.lines() {
        if let Some(at) = line.find(OUTPUT_MARK) {
            line[at + OUTPUT_MARK.len()..].clone_into(&mut output);
        } else if let Some(mut run) = finished_run(line.trim_end()) {
            run.output = std::mem::take(&mut output);
            runs.push(run);
        }
    }
    runs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_output_status_and_time_of_each_run() {
        let log = "2026-11-22T13:32:57.732Z [DEBUG] Hooks: Checking first line for async: {\"decision\":\"block\",\"reason\":\"x\"}\n\
            2026-11-22T13:32:57.732Z [DEBUG] Hooks: Stop [self-repair hook stop] (plugin self-repair@inline) finished with status 0 (17ms)\n\
            2026-11-22T13:32:58.230Z [DEBUG] Hooks: Stop [/bin/self-repair hook stop] finished with status 0 (9ms)\n\
            2026-11-22T13:39:05.389Z [DEBUG] Hooks: SessionStart:resume [self-repair hook session-start] (plugin self-repair@inline) finished with status 0 (19ms)\n\
            2026-11-22T13:39:08.930Z [ERROR] API error (attempt 2/2): 429 429 {}\n\
            2026-11-22T13:39:08.975Z [DEBUG] StopFailure:rate_limit [self-repair hook stop-failure] completed with status 0\n";
        let runs = parse_hook_log(log);
        assert_eq!(runs.len(), 4);
        assert!(runs[0].blocked());
        assert_eq!(runs[0].millis, Some(17));
        assert_eq!(runs[1].command, "/bin/self-repair hook stop");
        assert_eq!(runs[1].output, "");
        assert_eq!(runs[1].millis, Some(9));
        assert_eq!(
            (runs[2].event.as_str(), runs[2].detail.as_str()),
            ("SessionStart", "resume")
        );
        assert_eq!(runs[3].event, "StopFailure");
        assert_eq!(runs[3].detail, "rate_limit");
        assert_eq!(runs[3].millis, None);
    }
}
