//! The sample: deterministic given the seed, stratified so every security rule, route and tier
//! that closed something is in it, then filled in the seed's order to the size asked; a few
//! kept `real` findings beside, so the audit checks what the run kept too.

use std::collections::BTreeSet;

use crate::AuditCandidate;

/// A finding's place in the seed's order: splitmix64 of the seed mixed with the fingerprint's
/// FNV-1a hash (stable across versions and platforms).
fn order_key(seed: u64, fingerprint: &str) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in fingerprint.bytes() {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    let mut z = (seed ^ hash).wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Kept `real` findings drawn beside `size` closed ones: a tenth, at least 3.
pub(crate) fn kept_share(size: usize) -> usize {
    (size / 10).max(3)
}

/// The fingerprints to ask about, in the order to ask them: at least `size` closed findings
/// (more when covering every stratum takes more; all of them when the run closed fewer), then
/// [`kept_share`] of the kept `real` ones. The same candidates, seed and size give the same
/// sample, and a larger size keeps every finding a smaller one drew.
pub fn draw_sample(candidates: &[AuditCandidate], seed: u64, size: usize) -> Vec<String> {
    let mut closed: Vec<&AuditCandidate> = candidates.iter().filter(|c| c.closed()).collect();
    closed.sort_by_key(|c| (order_key(seed, &c.fingerprint), c.fingerprint.clone()));
    closed.dedup_by(|a, b| a.fingerprint == b.fingerprint);
    let strata: BTreeSet<String> = closed.iter().flat_map(|c| c.strata()).collect();
    let mut picked: Vec<&AuditCandidate> = Vec::new();
    let mut covered: BTreeSet<String> = BTreeSet::new();
    for stratum in &strata {
        if covered.contains(stratum) {
            continue;
        }
        if let Some(first) = closed.iter().find(|c| c.strata().contains(stratum)) {
            covered.extend(first.strata());
            if !picked.iter().any(|p| p.fingerprint == first.fingerprint) {
                picked.push(first);
            }
        }
    }
    for candidate in &closed {
        if picked.len() >= size {
            break;
        }
        if !picked
            .iter()
            .any(|p| p.fingerprint == candidate.fingerprint)
        {
            picked.push(candidate);
        }
    }
    picked.sort_by_key(|c| order_key(seed, &c.fingerprint));
    let mut kept: Vec<&AuditCandidate> =
        candidates.iter().filter(|c| c.verdict == "real").collect();
    kept.sort_by_key(|c| (order_key(seed, &c.fingerprint), c.fingerprint.clone()));
    kept.dedup_by(|a, b| a.fingerprint == b.fingerprint);
    picked
        .into_iter()
        .chain(kept.into_iter().take(kept_share(size)))
        .map(|c| c.fingerprint.clone())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::known_answer_tests::candidate;

    /// `order_key` of the four (seed, fingerprint) pairs of the pinning test: FNV-1a of the
    /// fingerprint, XOR the seed, through splitmix64, computed apart from this code.
    const PINNED_KEYS: [u64; 4] = [
        14_087_677_454_934_409_008,
        6_857_225_946_766_476_583,
        4_941_637_908_993_484_087,
        9_963_746_917_683_653_039,
    ];

    fn run(n: usize) -> Vec<AuditCandidate> {
        (0..n)
            .map(|i| {
                let (route, tier) = match i % 7 {
                    0 => ("security", "opus"),
                    1 | 2 => ("generic", "haiku"),
                    3 => ("dead-code", "haiku"),
                    _ => ("generic", "sonnet"),
                };
                let verdict = if i % 5 == 0 { "real" } else { "false_positive" };
                let rule = format!("R{}", i % 11);
                candidate(&format!("f{i:04}"), &rule, route, tier, verdict)
            })
            .collect()
    }

    #[test]
    fn the_order_key_is_pinned_so_a_recorded_seed_draws_the_same_sample_in_every_version() {
        let keys: Vec<u64> = [(0, ""), (0, "a"), (7, "f0001"), (u64::MAX, "fingerprint")]
            .iter()
            .map(|&(seed, fingerprint)| order_key(seed, fingerprint))
            .collect();
        assert_eq!(keys, PINNED_KEYS);
    }

    #[test]
    fn the_sample_is_the_same_for_a_seed_and_differs_between_seeds() {
        let candidates = run(400);
        let a = draw_sample(&candidates, 7, 29);
        assert_eq!(a, draw_sample(&candidates, 7, 29));
        assert_ne!(a, draw_sample(&candidates, 8, 29));
        let mut reversed = candidates.clone();
        reversed.reverse();
        assert_eq!(a, draw_sample(&reversed, 7, 29), "input order matters");
    }

    #[test]
    fn every_security_rule_route_and_tier_that_closed_something_is_in_the_sample() {
        let candidates = run(400);
        for seed in 0..50 {
            let sample: BTreeSet<String> = draw_sample(&candidates, seed, 5).into_iter().collect();
            let in_sample: BTreeSet<String> = candidates
                .iter()
                .filter(|c| c.closed() && sample.contains(&c.fingerprint))
                .flat_map(AuditCandidate::strata)
                .collect();
            let closing: BTreeSet<String> = candidates
                .iter()
                .filter(|c| c.closed())
                .flat_map(AuditCandidate::strata)
                .collect();
            assert_eq!(in_sample, closing, "seed {seed}");
        }
    }

    #[test]
    fn a_larger_size_keeps_the_smaller_sample_and_holds_a_few_kept_findings() {
        let candidates = run(400);
        for seed in 0..20 {
            let small: BTreeSet<String> = draw_sample(&candidates, seed, 29).into_iter().collect();
            let large = draw_sample(&candidates, seed, 60);
            let large_set: BTreeSet<String> = large.iter().cloned().collect();
            let closed_small: Vec<&String> = small
                .iter()
                .filter(|f| {
                    candidates
                        .iter()
                        .any(|c| &c.fingerprint == *f && c.closed())
                })
                .collect();
            assert!(
                closed_small.iter().all(|f| large_set.contains(*f)),
                "seed {seed}"
            );
            let closed = large
                .iter()
                .filter(|f| {
                    candidates
                        .iter()
                        .any(|c| &c.fingerprint == *f && c.closed())
                })
                .count();
            assert_eq!(closed, 60);
            assert_eq!(large.len() - closed, kept_share(60));
        }
    }

    #[test]
    fn a_run_that_closed_fewer_than_the_size_has_all_of_them_asked() {
        let candidates = run(20);
        let closed = candidates.iter().filter(|c| c.closed()).count();
        let sample = draw_sample(&candidates, 1, 29);
        assert_eq!(sample.len(), closed + 3);
    }
}
