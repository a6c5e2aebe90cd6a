//! The exact one-sided (Clopper-Pearson) upper bound on a rate from `wrong` of `n`, and the
//! sample size that bounds it when none is wrong. 0 of 30 bounds the rate below 9.5 % at 95 %
//! confidence; 0 of 60 below 4.9 %.

/// Bisection steps: the bound is exact to 2^-60, far below any figure printed.
const STEPS: u32 = 60;

/// Largest sample [`sample_size_for`] proposes.
const MAX_SIZE: usize = 100_000;

/// P(X ≤ k) for X ~ Binomial(n, p), summed in log space so large `n` does not underflow.
fn binomial_cdf(k: usize, n: usize, p: f64) -> f64 {
    if p <= 0.0 {
        return 1.0;
    }
    if p >= 1.0 {
        return if k >= n { 1.0 } else { 0.0 };
    }
    let (ln_p, ln_q) = (p.ln(), (1.0 - p).ln());
    let mut ln_term = n as f64 * ln_q;
    let mut terms = Vec::with_capacity(k + 1);
    terms.push(ln_term);
    for i in 0..k.min(n) {
        ln_term += ((n - i) as f64).ln() - ((i + 1) as f64).ln() + ln_p - ln_q;
        terms.push(ln_term);
    }
    let top = terms.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let sum: f64 = terms.iter().map(|t| (t - top).exp()).sum();
    (top + sum.ln()).exp().min(1.0)
}

/// The smallest rate `p` with P(X ≤ wrong | n, p) ≤ 1 − `confidence`: the one-sided
/// Clopper-Pearson upper bound. 1 when `n` is 0 or every one was wrong.
pub fn upper_bound(wrong: usize, n: usize, confidence: f64) -> f64 {
    if n == 0 || wrong >= n {
        return 1.0;
    }
    let alpha = 1.0 - confidence;
    let (mut low, mut high) = (0.0_f64, 1.0_f64);
    for _ in 0..STEPS {
        let mid = f64::midpoint(low, high);
        if binomial_cdf(wrong, n, mid) > alpha {
            low = mid;
        } else {
            high = mid;
        }
    }
    high
}

/// The smallest `n` whose bound with none wrong is at most `bound` at `confidence`.
pub fn sample_size_for(bound: f64, confidence: f64) -> usize {
    if !(bound > 0.0 && bound < 1.0 && confidence > 0.0 && confidence < 1.0) {
        return 1;
    }
    // (1 − bound)^n ≤ 1 − confidence, then checked against the exact bound.
    let guess = ((1.0 - confidence).ln() / (1.0 - bound).ln()).floor() as usize;
    (guess.saturating_sub(1).max(1)..=MAX_SIZE)
        .find(|&n| upper_bound(0, n, confidence) <= bound)
        .unwrap_or(MAX_SIZE)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_one_wrong_or_none_sampled_bounds_at_1_whatever_the_confidence() {
        let one = |bound: f64| (bound - 1.0).abs() < 1e-12;
        for confidence in [0.0, 0.5, 0.95] {
            assert!(one(upper_bound(0, 0, confidence)), "{confidence}");
            assert!(one(upper_bound(3, 3, confidence)), "{confidence}");
            assert!(one(upper_bound(4, 3, confidence)), "{confidence}");
        }
    }

    #[test]
    fn a_rate_whose_tail_is_exactly_one_minus_the_confidence_is_the_bound_itself() {
        // One sampled, none wrong, at 50 %: P(X <= 0 | 1, p) = 1 - p, which is 0.5 at p = 0.5
        // exactly: the smallest such rate is 0.5, not the next one up.
        let bound = upper_bound(0, 1, 0.5);
        assert!(bound <= 0.5 && bound > 0.5 - 1e-12, "{bound}");
    }

    #[test]
    fn none_wrong_has_the_closed_form_bound() {
        for n in [1, 5, 29, 30, 60, 300, 3000] {
            let closed_form = 1.0 - 0.05_f64.powf(1.0 / n as f64);
            assert!(
                (upper_bound(0, n, 0.95) - closed_form).abs() < 1e-12,
                "n={n}"
            );
        }
        assert!((upper_bound(0, 30, 0.95) - 0.0950).abs() < 1e-4);
        assert!((upper_bound(0, 60, 0.95) - 0.0487).abs() < 1e-4);
    }

    #[test]
    fn some_wrong_match_published_clopper_pearson_values() {
        // One-sided 95 % upper limits (two-sided 90 % intervals), from tables / R's binom.test.
        assert!((upper_bound(1, 10, 0.95) - 0.3942).abs() < 1e-4);
        assert!((upper_bound(6, 60, 0.95) - 0.18786).abs() < 1e-4);
        assert!((upper_bound(3, 30, 0.95) - 0.2386).abs() < 1e-4);
        assert!((upper_bound(5, 5, 0.95) - 1.0).abs() < f64::EPSILON);
        assert!((upper_bound(0, 0, 0.95) - 1.0).abs() < f64::EPSILON);
    }

    #[test]
    fn the_bound_grows_with_errors_and_shrinks_with_the_sample() {
        // Each bound computed once (`at[n][wrong]`, n up to 80) and the comparisons read the
        // tables: a third of the bisections of computing each where it is compared.
        let table = |confidence: f64| -> Vec<Vec<f64>> {
            (0..=80)
                .map(|n| {
                    (0..=n)
                        .map(|wrong| upper_bound(wrong, n, confidence))
                        .collect()
                })
                .collect()
        };
        let (at, at_99) = (table(0.95), table(0.99));
        for n in 1..80 {
            for wrong in 0..n {
                let here = at[n][wrong];
                assert!(
                    here >= wrong as f64 / n as f64,
                    "{wrong}/{n} below the rate"
                );
                assert!(at[n][wrong + 1] >= here, "{wrong}/{n}");
                assert!(at[n + 1][wrong] <= here, "{wrong}/{n}");
                assert!(at_99[n][wrong] >= here, "{wrong}/{n}");
            }
        }
    }

    #[test]
    fn the_cdf_at_the_ends_of_the_rate_and_past_the_sample_is_exact() {
        for (k, n, p, expected) in [
            (0, 10, 0.0, 1.0),
            (0, 10, -0.5, 1.0),
            (3, 10, 1.0, 0.0),
            (9, 10, 1.0, 0.0),
            (10, 10, 1.0, 1.0),
            (11, 10, 1.5, 1.0),
            (12, 10, 0.5, 1.0),
            (10, 10, 0.3, 1.0),
            (0, 1, 0.25, 0.75),
            (1, 2, 0.5, 0.75),
            (0, 3, 0.5, 0.125),
        ] {
            let got = binomial_cdf(k, n, p);
            assert!((got - expected).abs() < 1e-12, "P(X<={k}|{n},{p}) = {got}");
        }
        assert!(binomial_cdf(2000, 2000, 0.5) <= 1.0);
    }

    #[test]
    fn a_bound_or_a_confidence_outside_0_to_1_asks_for_one() {
        for (bound, confidence) in [
            (0.1, 0.0),
            (1e-20, 0.0),
            (0.1, 1.0),
            (0.1, -0.5),
            (0.0, 0.95),
            (1.0, 0.95),
            (1.5, 0.95),
        ] {
            assert_eq!(
                sample_size_for(bound, confidence),
                1,
                "{bound} at {confidence}"
            );
        }
    }

    #[test]
    fn the_default_size_is_29_for_ten_percent_at_95() {
        assert_eq!(sample_size_for(0.10, 0.95), 29);
        assert_eq!(sample_size_for(0.05, 0.95), 59);
        assert!(upper_bound(0, 28, 0.95) > 0.10);
    }
}
