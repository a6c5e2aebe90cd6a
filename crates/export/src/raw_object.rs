//! A JSON object read as its keys and the verbatim text of each value, borrowed from the input:
//! the parts of an analyzer's SARIF that an export copies through untouched are never parsed
//! into values.

use std::fmt;

use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;

/// An object's members in document order, each value as its raw JSON text.
#[derive(Debug)]
pub(crate) struct RawObject<'a>(pub(crate) Vec<(String, &'a RawValue)>);

impl<'a> RawObject<'a> {
    /// The raw value of `key`, when present.
    pub(crate) fn get(&self, key: &str) -> Option<&'a RawValue> {
        self.0.iter().find(|(k, _)| k == key).map(|(_, v)| *v)
    }
}

impl<'de> Deserialize<'de> for RawObject<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(RawObjectVisitor)
    }
}

struct RawObjectVisitor;

impl<'de> Visitor<'de> for RawObjectVisitor {
    type Value = RawObject<'de>;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RawObject<'de>, A::Error> {
        let mut members = Vec::new();
        while let Some((key, value)) = map.next_entry::<String, &'de RawValue>()? {
            members.push((key, value));
        }
        Ok(RawObject(members))
    }
}

/// Appends `"key":` to `out`, the key escaped as JSON.
pub(crate) fn push_key(out: &mut String, key: &str) {
    out.push_str(&serde_json::Value::String(key.to_owned()).to_string());
    out.push(':');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn members_keep_their_order_and_their_text() -> Result<(), serde_json::Error> {
        let text = r#"{"b": [1, 2], "a\"q": {"x": "y"}, "c": null}"#;
        let object: RawObject<'_> = serde_json::from_str(text)?;
        let seen: Vec<(&str, &str)> = object
            .0
            .iter()
            .map(|(k, v)| (k.as_str(), v.get()))
            .collect();
        assert_eq!(
            seen,
            vec![("b", "[1, 2]"), ("a\"q", r#"{"x": "y"}"#), ("c", "null")]
        );
        assert_eq!(object.get("c").map(RawValue::get), Some("null"));
        let mut out = String::new();
        push_key(&mut out, "a\"q");
        assert_eq!(out, r#""a\"q":"#);
        Ok(())
    }
}
