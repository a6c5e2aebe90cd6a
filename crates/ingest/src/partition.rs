//! `start --partition hash:K/N`: which findings share K of N takes, the same on every machine,
//! so N jobs given the same input split it with nothing left out and nothing taken twice.

use std::collections::HashMap;
use std::fmt;

use self_repair_engine::{FindingRecord, StableHash};

use crate::scope_error::ScopeError;

/// The most shares a job is split into (CI matrices stop far below it).
const MAX_SHARES: u32 = 1_000;

/// Share `share` of `shares` (1-based, as cargo-nextest's `--partition hash:K/N`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Partition {
    share: u32,
    shares: u32,
}

impl Partition {
    /// Reads `hash:K/N`.
    pub fn parse(given: &str) -> Result<Partition, ScopeError> {
        let bad = |problem: &str| ScopeError::BadPartition {
            given: given.to_owned(),
            problem: problem.to_owned(),
        };
        let spec = given
            .strip_prefix("hash:")
            .ok_or_else(|| bad("only `hash:` partitions exist"))?;
        let (share, shares) = spec.split_once('/').ok_or_else(|| bad("K/N needs a `/`"))?;
        let number = |text: &str, what: &str| {
            text.parse::<u32>()
                .map_err(|_| bad(&format!("{what} `{text}` is not a whole number")))
        };
        let (share, shares) = (number(share, "K")?, number(shares, "N")?);
        if shares == 0 || shares > MAX_SHARES {
            return Err(bad(&format!("N must be 1 to {MAX_SHARES}")));
        }
        if share == 0 || share > shares {
            return Err(bad(&format!("K must be 1 to N ({shares})")));
        }
        Ok(Partition { share, shares })
    }

    /// K: the share this job takes, from 1.
    pub fn share(self) -> u32 {
        self.share
    }

    /// N: how many shares the job is split into.
    pub fn shares(self) -> u32 {
        self.shares
    }

    /// Which of the shares (1 to N) `key` falls in.
    ///
    /// Algorithm (version 1; every job of a partitioned run must use the same, so never change
    /// it): 64-bit FNV-1a of `partition-v1 ␟ key` (0x1F between), passed through `MurmurHash3`'s
    /// 64-bit finalizer (FNV's low bits alone spread poorly), then scaled to the shares by
    /// `(h × N) >> 64`. Nothing of the machine enters it: no path, no hasher seed.
    pub fn share_of(self, key: &str) -> u32 {
        self.share_of_parts(&[key.as_bytes()])
    }

    /// [`Partition::share_of`] of the concatenation of `parts`, without building it.
    fn share_of_parts(self, parts: &[&[u8]]) -> u32 {
        let mut hash = StableHash::new();
        hash.write(b"partition-v1");
        hash.separator();
        for part in parts {
            hash.write(part);
        }
        let mixed = finalize(hash.finish());
        ((u128::from(mixed) * u128::from(self.shares)) >> 64) as u32 + 1
    }

    /// Each record's share (1 to N). A record's key is its rule (`r:tool␟rule_id`) when the
    /// rule has at least `whole_rule_from` distinct findings in the input (a rule with that
    /// many findings may be surveyed, and a survey must see all of its rule: design note 50),
    /// else its fingerprint (`f:fingerprint`); `whole_rule_from` below 2 keys every record by
    /// its fingerprint.
    pub fn shares_of(self, records: &[FindingRecord], whole_rule_from: u32) -> Vec<u32> {
        let whole = whole_rules(records, whole_rule_from);
        records
            .iter()
            .map(|record| {
                let (tool, rule) = (&record.finding.tool, &record.finding.rule_id);
                if whole.contains_key(&(tool.as_str(), rule.as_str())) {
                    self.share_of_parts(&[b"r:", tool.as_bytes(), b"\x1f", rule.as_bytes()])
                } else {
                    self.share_of_parts(&[b"f:", record.fingerprint.as_bytes()])
                }
            })
            .collect()
    }

    /// For each record, whether this share takes it ([`Partition::shares_of`] is K).
    pub fn takes(self, records: &[FindingRecord], whole_rule_from: u32) -> Vec<bool> {
        self.shares_of(records, whole_rule_from)
            .into_iter()
            .map(|share| share == self.share)
            .collect()
    }
}

impl fmt::Display for Partition {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(formatter, "hash:{}/{}", self.share, self.shares)
    }
}

/// The rules kept whole (each in one share): (tool, rule id) with their distinct findings.
pub fn whole_rules(records: &[FindingRecord], whole_rule_from: u32) -> HashMap<(&str, &str), u32> {
    let mut counts: HashMap<(&str, &str), u32> = HashMap::new();
    if whole_rule_from < 2 {
        return counts;
    }
    for record in records {
        let key = (
            record.finding.tool.as_str(),
            record.finding.rule_id.as_str(),
        );
        *counts.entry(key).or_default() += 1;
    }
    counts.retain(|_, n| *n >= whole_rule_from);
    counts
}

/// A digest of the input's set of fingerprints (order and repeats aside): the partitions of
/// one job have the same one, which `merge` checks.
pub fn fingerprint_set_digest(records: &[FindingRecord]) -> String {
    let mut prints: Vec<&str> = records.iter().map(|r| r.fingerprint.as_str()).collect();
    prints.sort_unstable();
    prints.dedup();
    StableHash::of_fields(prints)
}

/// `MurmurHash3`'s `fmix64`: every input bit reaches every output bit.
fn finalize(mut h: u64) -> u64 {
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    h ^= h >> 33;
    h
}

#[cfg(test)]
mod tests {
    use super::*;
    use self_repair_engine::{Finding, Level};

    fn record(rule: &str, fingerprint: String) -> FindingRecord {
        FindingRecord {
            fingerprint,
            finding: Finding {
                tool: "ruff".into(),
                rule_id: rule.into(),
                level: Level::Warning,
                message: "m".into(),
                path: "a.py".into(),
                line: Some(1),
                column: None,
                end_line: None,
                end_column: None,
                symbol: None,
                help_uri: None,
                raw: None,
                fix: None,
            },
            occurrences: Vec::new(),
            item: None,
            predecided: None,
            job_index: None,
        }
    }

    /// A seeded generator (splitmix64), so the property runs are the same every time.
    struct Seeded(u64);

    impl Seeded {
        fn next(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
            finalize(self.0)
        }
    }

    #[test]
    fn parse_reads_k_of_n_and_refuses_the_rest_saying_the_form() {
        let p = Partition::parse("hash:2/4").unwrap();
        assert_eq!((p.share(), p.shares()), (2, 4));
        // The largest N is allowed, one more is not.
        let most = Partition::parse(&format!("hash:{MAX_SHARES}/{MAX_SHARES}")).unwrap();
        assert_eq!(most.shares(), MAX_SHARES);
        assert!(Partition::parse(&format!("hash:1/{}", MAX_SHARES + 1)).is_err());
        assert_eq!(p.to_string(), "hash:2/4");
        for bad in [
            "2/4",
            "hash:0/4",
            "hash:5/4",
            "hash:1/0",
            "hash:a/4",
            "hash:1-4",
            "count:1/2",
        ] {
            let error = Partition::parse(bad).unwrap_err().to_string();
            assert!(error.contains("hash:K/N"), "{bad}: {error}");
            assert!(error.contains(bad), "{bad}: {error}");
        }
    }

    #[test]
    fn share_values_are_pinned() {
        // Jobs on different machines and releases must agree: a change here splits one job
        // differently in its partitions.
        let p = Partition::parse("hash:1/7").unwrap();
        let shares: Vec<u32> = [
            "f:5d4e390ed3a20820",
            "f:0000000000000000",
            "r:ruff\u{1f}D205",
        ]
        .iter()
        .map(|key| p.share_of(key))
        .collect();
        insta::assert_snapshot!(format!("{shares:?}"), @"[7, 5, 4]");
    }

    /// The hash's last step is `MurmurHash3`'s `fmix64`, value for value.
    #[test]
    fn finalize_is_murmur3_fmix64() {
        for (input, mixed) in [
            (0, 0),
            (1, 0xb456_bcfc_34c2_cb2c),
            (0xdead_beef, 0xd24b_d59f_862a_1dac),
            (u64::MAX, 0x64b5_720b_4b82_5f21),
        ] {
            assert_eq!(finalize(input), mixed, "{input:#x}");
        }
    }

    #[test]
    fn shares_are_disjoint_and_complete_on_100000_findings() {
        let mut random = Seeded(26_27);
        let rules: Vec<String> = (0..400).map(|r| format!("R{r:03}")).collect();
        let records: Vec<FindingRecord> = (0..100_000)
            .map(|_| {
                // Skewed rule sizes: a few rules hold most findings.
                let pick = random.next();
                let rule = &rules[((pick % 400) * (pick % 400) / 400) as usize];
                record(rule, format!("{:016x}", random.next()))
            })
            .collect();
        for shares in [1_u32, 2, 4, 7] {
            let taken: Vec<Vec<bool>> = (1..=shares)
                .map(|k| {
                    Partition::parse(&format!("hash:{k}/{shares}"))
                        .unwrap()
                        .takes(&records, 5)
                })
                .collect();
            for index in 0..records.len() {
                let owners = taken.iter().filter(|t| t[index]).count();
                assert_eq!(owners, 1, "finding {index} in {owners} of {shares} shares");
            }
        }
    }

    #[test]
    fn fingerprint_keyed_shares_are_even() {
        let mut random = Seeded(7);
        let records: Vec<FindingRecord> = (0..100_000)
            .map(|n| record(&format!("R{n}"), format!("{:016x}", random.next())))
            .collect();
        for shares in [2_u32, 4, 16] {
            let each = Partition::parse(&format!("hash:1/{shares}"))
                .unwrap()
                .shares_of(&records, 5);
            for k in 1..=shares {
                let n = each.iter().filter(|s| **s == k).count();
                let even = 100_000 / shares as usize;
                assert!(
                    n.abs_diff(even) < even / 20,
                    "share {k}/{shares}: {n} of 100000, {even} expected"
                );
            }
        }
    }

    #[test]
    fn a_rule_with_enough_findings_to_be_surveyed_stays_in_one_share() {
        let records: Vec<FindingRecord> = (0..50)
            .map(|n| record("D205", format!("{n:016x}")))
            .chain((0..4).map(|n| record("F401", format!("{:016x}", 1000 + n))))
            .collect();
        let shares: Vec<Vec<bool>> = (1..=4)
            .map(|k| {
                Partition::parse(&format!("hash:{k}/4"))
                    .unwrap()
                    .takes(&records, 5)
            })
            .collect();
        let owners_of = |range: std::ops::Range<usize>| -> Vec<usize> {
            (0..4)
                .filter(|&s| range.clone().any(|i| shares[s][i]))
                .collect()
        };
        assert_eq!(owners_of(0..50).len(), 1, "D205 (50 findings) split");
        // Below the survey's minimum the rule is spread by fingerprint; with surveys off every
        // rule is.
        let off: Vec<usize> = (1..=4)
            .filter(|&k| {
                Partition::parse(&format!("hash:{k}/4"))
                    .unwrap()
                    .takes(&records, 0)[..50]
                    .iter()
                    .any(|t| *t)
            })
            .map(|k| k as usize)
            .collect();
        assert!(off.len() > 1, "with surveys off D205 stays whole: {off:?}");
        assert_eq!(whole_rules(&records, 5).len(), 1);
    }

    /// A rule is kept whole from the given number of findings on; below 2 none is (surveys
    /// off).
    #[test]
    fn whole_rules_counts_the_rules_with_at_least_the_given_findings() {
        let records = vec![
            record("F401", "01".into()),
            record("F401", "02".into()),
            record("E711", "03".into()),
        ];
        let f401 = HashMap::from([(("ruff", "F401"), 2)]);
        for (from, expected) in [
            (0, HashMap::new()),
            (1, HashMap::new()),
            (2, f401.clone()),
            (3, HashMap::new()),
        ] {
            assert_eq!(whole_rules(&records, from), expected, "from {from}");
        }
    }

    #[test]
    fn the_digest_is_the_set_of_fingerprints() {
        let a = vec![record("X", "01".into()), record("X", "02".into())];
        let b = vec![
            record("Y", "02".into()),
            record("X", "01".into()),
            record("X", "01".into()),
        ];
        assert_eq!(fingerprint_set_digest(&a), fingerprint_set_digest(&b));
        let c = vec![record("X", "01".into())];
        assert_ne!(fingerprint_set_digest(&a), fingerprint_set_digest(&c));
    }
}
