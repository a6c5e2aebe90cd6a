//! The `state.json` layout: pretty at the top two levels, one compact line per item below, so
//! the file reads well by hand and stays small and quick to parse at 100,000 items.

use std::io;

use serde_json::ser::Formatter;

/// A `serde_json` formatter that indents only the outer `depth` levels: `state.json` (three)
/// and `report.json` (two: one finding a line).
pub struct ShallowPretty {
    depth: usize,
    max_depth: usize,
    has_value: bool,
}

impl ShallowPretty {
    #[must_use]
    pub fn new(max_depth: usize) -> ShallowPretty {
        ShallowPretty {
            depth: 0,
            max_depth,
            has_value: false,
        }
    }

    fn pretty(&self) -> bool {
        self.depth <= self.max_depth
    }

    fn indent<W: ?Sized + io::Write>(&self, writer: &mut W) -> io::Result<()> {
        for _ in 0..self.depth {
            writer.write_all(b"  ")?;
        }
        Ok(())
    }

    fn open<W: ?Sized + io::Write>(&mut self, writer: &mut W, bracket: &[u8]) -> io::Result<()> {
        self.depth += 1;
        self.has_value = false;
        writer.write_all(bracket)
    }

    fn close<W: ?Sized + io::Write>(&mut self, writer: &mut W, bracket: &[u8]) -> io::Result<()> {
        let was_pretty = self.pretty();
        self.depth -= 1;
        if was_pretty && self.has_value {
            writer.write_all(b"\n")?;
            self.indent(writer)?;
        }
        self.has_value = true;
        writer.write_all(bracket)
    }

    fn element<W: ?Sized + io::Write>(&mut self, writer: &mut W, first: bool) -> io::Result<()> {
        if !first {
            writer.write_all(b",")?;
        }
        if self.pretty() {
            writer.write_all(b"\n")?;
            self.indent(writer)?;
        }
        Ok(())
    }
}

impl Formatter for ShallowPretty {
    fn begin_array<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.open(writer, b"[")
    }

    fn end_array<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.close(writer, b"]")
    }

    fn begin_array_value<W: ?Sized + io::Write>(
        &mut self,
        writer: &mut W,
        first: bool,
    ) -> io::Result<()> {
        self.element(writer, first)
    }

    fn end_array_value<W: ?Sized + io::Write>(&mut self, _writer: &mut W) -> io::Result<()> {
        self.has_value = true;
        Ok(())
    }

    fn begin_object<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.open(writer, b"{")
    }

    fn end_object<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.close(writer, b"}")
    }

    fn begin_object_key<W: ?Sized + io::Write>(
        &mut self,
        writer: &mut W,
        first: bool,
    ) -> io::Result<()> {
        self.element(writer, first)
    }

    fn begin_object_value<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        writer.write_all(if self.pretty() { b": " } else { b":" })
    }

    fn end_object_value<W: ?Sized + io::Write>(&mut self, _writer: &mut W) -> io::Result<()> {
        self.has_value = true;
        Ok(())
    }
}

/// Serializes the run state: pretty at three levels, so each top-level field, each column of
/// the triage table and each other item is on its own line. Ends with a newline.
pub(crate) fn to_shallow_pretty<T: serde::Serialize>(value: &T) -> serde_json::Result<Vec<u8>> {
    to_pretty_levels(value, 3)
}

/// [`to_shallow_pretty`] into `out`, which is cleared first: a buffer whose pages a read of the
/// state already touched costs no page faults to fill again (reference/benchmarks.md).
pub(crate) fn write_shallow_pretty<T: serde::Serialize>(
    value: &T,
    out: &mut Vec<u8>,
) -> serde_json::Result<()> {
    out.clear();
    let mut serializer = serde_json::Serializer::with_formatter(&mut *out, ShallowPretty::new(3));
    value.serialize(&mut serializer)?;
    out.push(b'\n');
    Ok(())
}

/// Serializes a value indenting only its outer `levels` levels, ending with a newline: with 1,
/// a list is one element per line.
pub(crate) fn to_pretty_levels<T: serde::Serialize>(
    value: &T,
    levels: usize,
) -> serde_json::Result<Vec<u8>> {
    let mut out = Vec::with_capacity(4096);
    let mut serializer =
        serde_json::Serializer::with_formatter(&mut out, ShallowPretty::new(levels));
    value.serialize(&mut serializer)?;
    out.push(b'\n');
    Ok(out)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[derive(serde::Serialize)]
    struct Sample {
        run: &'static str,
        empty: Vec<u8>,
        items: Vec<serde_json::Value>,
        config: std::collections::BTreeMap<&'static str, u32>,
    }

    #[test]
    fn indents_two_levels_and_keeps_deeper_values_on_one_line() {
        let value = Sample {
            run: "r",
            empty: vec![],
            items: vec![json!({"id": "t-1"}), json!({"id": "t-2", "n": [1]})],
            config: [("fan_out", 8)].into(),
        };
        let text = String::from_utf8(to_pretty_levels(&value, 2).unwrap()).unwrap();
        assert_eq!(
            text,
            "{\n  \"run\": \"r\",\n  \"empty\": [],\n  \"items\": [\n    {\"id\":\"t-1\"},\n    {\"id\":\"t-2\",\"n\":[1]}\n  ],\n  \"config\": {\n    \"fan_out\": 8\n  }\n}\n"
        );
        let back: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(back["items"][1]["n"][0], 1);
    }
}
