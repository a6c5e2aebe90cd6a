//! Labels as CSV: a header naming the columns (a leading `#` allowed, as in the OWASP
//! Benchmark's `expectedresults-*.csv`), then one label a row; later `#` lines are comments,
//! unknown columns are ignored.

use crate::Label;
use crate::label_fields::{Field, LabelFields};

/// Reads `text` as a CSV of labels; `Err((line, problem))` at the first bad line.
pub(crate) fn parse_csv(text: &str) -> Result<Vec<Label>, (usize, String)> {
    let mut lines = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim_end_matches('\r')))
        .filter(|(_, l)| !l.trim().is_empty());
    let Some((header_line, header)) = lines.next() else {
        return Ok(Vec::new());
    };
    let columns: Vec<Option<Field>> = split_record(header)
        .map_err(|problem| (header_line, problem))?
        .iter()
        .map(|name| Field::named(name))
        .collect();
    let names_key = columns
        .iter()
        .any(|c| matches!(c, Some(Field::Fingerprint | Field::Path | Field::Case)));
    if !names_key || !columns.contains(&Some(Field::Truth)) {
        return Err((
            header_line,
            format!(
                "`{}` is not a header naming a label column and a fingerprint, path or test \
                 name column; start the file with a header such as `fingerprint,label` or \
                 `path,line,rule,label,cwe,note` or `# test name, category, real \
                 vulnerability, cwe`",
                header.trim()
            ),
        ));
    }
    let mut labels = Vec::new();
    for (number, line) in lines {
        if line.trim_start().starts_with('#') {
            continue;
        }
        let cells = split_record(line).map_err(|problem| (number, problem))?;
        let mut fields = LabelFields::default();
        for (cell, column) in cells.iter().zip(&columns) {
            if let Some(field) = column {
                fields.set(*field, cell);
            }
        }
        labels.push(
            fields
                .into_label(number)
                .map_err(|problem| (number, problem))?,
        );
    }
    Ok(labels)
}

/// Splits one CSV record: commas, fields quoted with `"` (a doubled `""` inside is one quote).
/// A quoted field cannot span lines.
pub(crate) fn split_record(line: &str) -> Result<Vec<String>, String> {
    let mut cells = Vec::new();
    let mut cell = String::new();
    let mut chars = line.chars().peekable();
    let mut quoted = false;
    while let Some(c) = chars.next() {
        match (quoted, c) {
            (true, '"') if chars.peek() == Some(&'"') => {
                chars.next();
                cell.push('"');
            }
            (true, '"') => quoted = false,
            (false, '"') if cell.trim().is_empty() => {
                cell.clear();
                quoted = true;
            }
            (false, ',') => cells.push(std::mem::take(&mut cell)),
            (_, c) => cell.push(c),
        }
    }
    if quoted {
        return Err(
            "a quoted field is not closed on its line (quoted fields cannot span lines)".to_owned(),
        );
    }
    cells.push(cell);
    Ok(cells)
}

#[cfg(test)]
mod tests {
    use super::split_record;

    /// A `"` opens a quoted field only at the start of a cell (after blanks); inside an unquoted
    /// cell it is a character of it.
    #[test]
    fn a_quote_opens_a_field_only_at_the_start_of_a_cell() {
        for (line, cells) in [
            ("a,b", vec!["a", "b"]),
            ("\"a,b\",c", vec!["a,b", "c"]),
            ("  \"a,b\",c", vec!["a,b", "c"]),
            ("\"say \"\"hi\"\"\",x", vec!["say \"hi\"", "x"]),
            ("ab\"c,d", vec!["ab\"c", "d"]),
            ("a,", vec!["a", ""]),
        ] {
            assert_eq!(
                split_record(line),
                Ok(cells.into_iter().map(String::from).collect()),
                "{line}"
            );
        }
        assert!(split_record("\"open,x").is_err());
    }
}
