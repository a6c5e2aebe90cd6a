//! Repeated timing of one step: the median and the minimum of a few runs, in milliseconds.

use std::time::Instant;

/// The timings of one step run several times.
#[derive(Debug, Clone, PartialEq)]
pub struct Timing {
    /// Each run's wall time in milliseconds, sorted ascending.
    pub runs_ms: Vec<f64>,
}

impl Timing {
    /// Runs `step` `runs` times (at least once) and records each wall time. The step's result
    /// is passed through `std::hint::black_box` so the work is not optimised away.
    pub fn measure<T>(runs: usize, mut step: impl FnMut() -> T) -> Timing {
        let mut runs_ms = Vec::with_capacity(runs.max(1));
        for _ in 0..runs.max(1) {
            let started = Instant::now();
            std::hint::black_box(step());
            runs_ms.push(started.elapsed().as_secs_f64() * 1e3);
        }
        Timing::from_runs(runs_ms)
    }

    /// Timings from already measured runs (milliseconds, any order).
    pub fn from_runs(mut runs_ms: Vec<f64>) -> Timing {
        runs_ms.sort_by(f64::total_cmp);
        Timing { runs_ms }
    }

    /// The median run (the mean of the two middle runs for an even count); 0 with no runs.
    pub fn median_ms(&self) -> f64 {
        let n = self.runs_ms.len();
        match n {
            0 => 0.0,
            _ if n % 2 == 1 => self.runs_ms[n / 2],
            _ => f64::midpoint(self.runs_ms[n / 2 - 1], self.runs_ms[n / 2]),
        }
    }

    /// The fastest run; 0 with no runs.
    pub fn min_ms(&self) -> f64 {
        self.runs_ms.first().copied().unwrap_or(0.0)
    }

    /// One line: `label  median ms (min ms, N runs)`.
    pub fn render(&self, label: &str) -> String {
        format!(
            "{label:<48} {:>9.2} ms  (min {:.2} ms, {} runs)",
            self.median_ms(),
            self.min_ms(),
            self.runs_ms.len()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::Timing;

    #[test]
    fn median_of_odd_count_is_the_middle_run() {
        let timing = Timing::from_runs(vec![5.0, 1.0, 3.0]);
        assert!((timing.median_ms() - 3.0).abs() < f64::EPSILON);
        assert!((timing.min_ms() - 1.0).abs() < f64::EPSILON);
    }

    #[test]
    fn median_of_even_count_is_the_mean_of_the_middle_runs() {
        let timing = Timing::from_runs(vec![4.0, 1.0, 2.0, 10.0]);
        assert!((timing.median_ms() - 3.0).abs() < f64::EPSILON);
    }

    #[test]
    fn no_runs_give_zero() {
        let timing = Timing::from_runs(Vec::new());
        assert!(timing.median_ms().abs() < f64::EPSILON);
        assert!(timing.min_ms().abs() < f64::EPSILON);
    }

    #[test]
    fn measure_runs_at_least_once() {
        let mut calls = 0;
        let timing = Timing::measure(0, || calls += 1);
        assert_eq!(calls, 1);
        assert_eq!(timing.runs_ms.len(), 1);
    }

    #[test]
    fn render_names_the_step_and_the_run_count() {
        let line = Timing::from_runs(vec![2.0, 4.0]).render("parse");
        assert!(line.starts_with("parse "), "{line}");
        assert!(line.contains("3.00 ms"), "{line}");
        assert!(line.contains("2 runs"), "{line}");
    }
}
