//! Streams the results of a SARIF log one at a time, so 100,000 results never sit in memory
//! as parsed structs next to the findings made from them.
//!
//! Everything except `runs[*].results` is skipped here (the caller reads run headers in a
//! separate, cheap pass, since `tool` may come after `results` in a run object).

use std::fmt;
use std::marker::PhantomData;

use serde::de::{DeserializeSeed, Deserializer, Error, IgnoredAny, MapAccess, SeqAccess, Visitor};

use crate::formats::borrowed_text::Text;
use crate::formats::sarif_log::SarifResult;

/// Calls `on_result(run_index, result_index, result)` for every result of `deserializer`'s
/// SARIF log, in order. When `on_result` returns `Err(())` the walk stops with a custom
/// error; the callback is expected to have kept the real reason.
pub(crate) fn for_each_result<'de, D, F>(deserializer: D, on_result: &mut F) -> Result<(), D::Error>
where
    D: Deserializer<'de>,
    F: FnMut(usize, usize, SarifResult<'de>) -> Result<(), ()>,
{
    LogSeed {
        on_result,
        lifetime: PhantomData,
    }
    .deserialize(deserializer)
}

/// The message of the error that stops the walk on the callback's request.
pub(crate) const STOPPED: &str = "stopped by the result handler";

struct LogSeed<'f, 'de, F> {
    on_result: &'f mut F,
    lifetime: PhantomData<&'de ()>,
}

impl<'de, F> DeserializeSeed<'de> for LogSeed<'_, 'de, F>
where
    F: FnMut(usize, usize, SarifResult<'de>) -> Result<(), ()>,
{
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de, F> Visitor<'de> for LogSeed<'_, 'de, F>
where
    F: FnMut(usize, usize, SarifResult<'de>) -> Result<(), ()>,
{
    type Value = ();

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("a SARIF log object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key::<Text<'de>>()? {
            if &*key == "runs" {
                map.next_value_seed(RunsSeed {
                    on_result: &mut *self.on_result,
                    lifetime: PhantomData,
                })?;
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(())
    }
}

struct RunsSeed<'f, 'de, F> {
    on_result: &'f mut F,
    lifetime: PhantomData<&'de ()>,
}

impl<'de, F> DeserializeSeed<'de> for RunsSeed<'_, 'de, F>
where
    F: FnMut(usize, usize, SarifResult<'de>) -> Result<(), ()>,
{
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de, F> Visitor<'de> for RunsSeed<'_, 'de, F>
where
    F: FnMut(usize, usize, SarifResult<'de>) -> Result<(), ()>,
{
    type Value = ();

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("an array of runs")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let mut run = 0;
        while seq
            .next_element_seed(RunSeed {
                run,
                on_result: &mut *self.on_result,
                lifetime: PhantomData,
            })?
            .is_some()
        {
            run += 1;
        }
        Ok(())
    }
}

struct RunSeed<'f, 'de, F> {
    run: usize,
    on_result: &'f mut F,
    lifetime: PhantomData<&'de ()>,
}

impl<'de, F> DeserializeSeed<'de> for RunSeed<'_, 'de, F>
where
    F: FnMut(usize, usize, SarifResult<'de>) -> Result<(), ()>,
{
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de, F> Visitor<'de> for RunSeed<'_, 'de, F>
where
    F: FnMut(usize, usize, SarifResult<'de>) -> Result<(), ()>,
{
    type Value = ();

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("a run object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key::<Text<'de>>()? {
            if &*key == "results" {
                map.next_value_seed(ResultsSeed {
                    run: self.run,
                    on_result: &mut *self.on_result,
                    lifetime: PhantomData,
                })?;
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(())
    }
}

struct ResultsSeed<'f, 'de, F> {
    run: usize,
    on_result: &'f mut F,
    lifetime: PhantomData<&'de ()>,
}

impl<'de, F> DeserializeSeed<'de> for ResultsSeed<'_, 'de, F>
where
    F: FnMut(usize, usize, SarifResult<'de>) -> Result<(), ()>,
{
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        // `results` may be null (the tool did not run to completion).
        deserializer.deserialize_option(self)
    }
}

impl<'de, F> Visitor<'de> for ResultsSeed<'_, 'de, F>
where
    F: FnMut(usize, usize, SarifResult<'de>) -> Result<(), ()>,
{
    type Value = ();

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("an array of results or null")
    }

    fn visit_none<E: Error>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_unit<E: Error>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_seq(self)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let mut index = 0;
        while let Some(result) = seq.next_element::<SarifResult<'de>>()? {
            (self.on_result)(self.run, index, result).map_err(|()| A::Error::custom(STOPPED))?;
            index += 1;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::for_each_result;

    /// The results of every run, each with its run's index and its own, in order; the other
    /// fields of the log and of a run, and `results: null`, are skipped.
    #[test]
    fn every_result_is_handed_over_with_its_run_and_its_index() {
        let log = r#"{"version": "2.1.0", "runs": [
            {"tool": {}, "results": [{"ruleId": "a"}, {"ruleId": "b"}]},
            {"results": null},
            {"results": [{"ruleId": "c"}], "tool": {}}
        ], "extra": [1]}"#;
        let mut seen = Vec::new();
        let mut deserializer = serde_json::Deserializer::from_str(log);
        for_each_result(&mut deserializer, &mut |run, index, result| {
            let rule = result.rule_id.map(|t| t.0.into_owned()).unwrap_or_default();
            seen.push((run, index, rule));
            Ok(())
        })
        .expect("a valid log");
        let rule = |r: &str| r.to_owned();
        assert_eq!(
            seen,
            [(0, 0, rule("a")), (0, 1, rule("b")), (2, 0, rule("c"))]
        );
    }

    /// Each level of a log that is not what it should be names what was expected there.
    #[test]
    fn each_level_of_a_malformed_log_names_what_it_expected() {
        for (log, expected) in [
            ("[]", "expected a SARIF log object"),
            (r#"{"runs": 5}"#, "expected an array of runs"),
            (r#"{"runs": [5]}"#, "expected a run object"),
            (
                r#"{"runs": [{"results": 5}]}"#,
                "expected an array of results or null",
            ),
        ] {
            let mut deserializer = serde_json::Deserializer::from_str(log);
            let error = for_each_result(&mut deserializer, &mut |_, _, _| Ok(()))
                .expect_err(log)
                .to_string();
            assert!(error.contains(expected), "{log}: {error}");
        }
    }
}
