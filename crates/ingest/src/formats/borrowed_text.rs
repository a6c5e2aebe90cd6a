//! A JSON string that borrows from the input when it has no escapes.

use std::borrow::{Borrow, Cow};
use std::fmt;
use std::ops::Deref;

use serde::de::{Deserialize, Deserializer, Error, Visitor};

/// A string read from JSON. serde only borrows `Cow` fields directly (not inside `Option`,
/// `Vec` or map keys); this wrapper borrows wherever it appears.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct Text<'a>(pub(crate) Cow<'a, str>);

impl Deref for Text<'_> {
    type Target = str;

    fn deref(&self) -> &str {
        &self.0
    }
}

// `Cow<str>` hashes like `str`, so map lookups by `&str` are consistent.
impl Borrow<str> for Text<'_> {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Text<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_str(TextVisitor)
    }
}

struct TextVisitor;

impl<'de> Visitor<'de> for TextVisitor {
    type Value = Text<'de>;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("a string")
    }

    fn visit_borrowed_str<E: Error>(self, text: &'de str) -> Result<Self::Value, E> {
        Ok(Text(Cow::Borrowed(text)))
    }

    fn visit_str<E: Error>(self, text: &str) -> Result<Self::Value, E> {
        Ok(Text(Cow::Owned(text.to_owned())))
    }

    fn visit_string<E: Error>(self, text: String) -> Result<Self::Value, E> {
        Ok(Text(Cow::Owned(text)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn borrows_plain_strings_and_owns_escaped_ones() -> serde_json::Result<()> {
        let plain: Option<Text<'_>> = serde_json::from_str("\"abc\"")?;
        assert!(matches!(plain, Some(Text(Cow::Borrowed("abc")))));
        let escaped: Text<'_> = serde_json::from_str("\"a\\\"b\"")?;
        assert!(matches!(escaped.0, Cow::Owned(ref s) if s == "a\"b"));
        Ok(())
    }
}
