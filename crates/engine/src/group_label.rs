//! When two root-cause labels name the same cause: the key groups merge on. Agents phrase one
//! cause many ways ("Unused imports", "unused import", "imports that are unused"); the key keeps
//! the words that carry meaning, reduced to a stem, in a fixed order, so those meet in one group
//! and one task instead of three.

/// Words that never tell two causes apart.
const FILLER: [&str; 16] = [
    "a", "an", "the", "of", "in", "on", "at", "for", "to", "is", "are", "be", "and", "that",
    "which", "with",
];

/// The merge key of a label: lowercase words of letters and digits, filler words dropped, each
/// reduced to a crude English stem, deduplicated and sorted, joined by `-`. Equal keys merge.
pub fn label_key(label: &str) -> String {
    let mut words: Vec<String> = label
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .filter(|w| !FILLER.contains(&w.as_str()))
        .map(|w| stem(&w))
        .collect();
    words.sort();
    words.dedup();
    words.join("-")
}

/// Strips common inflections from a word of more than four letters: a plural (`-ies` → `-y`,
/// `-es` after s/x/z/ch/sh, `-s` but not `-ss`), then `-ing` or `-ed`. Short words and
/// identifiers like `os` stay as they are.
fn stem(word: &str) -> String {
    if word.len() <= 4 || word.chars().any(|c| c.is_ascii_digit()) {
        return word.to_owned();
    }
    let singular = if let Some(base) = word.strip_suffix("ies") {
        format!("{base}y")
    } else if let Some(base) = word.strip_suffix("es").filter(|base| {
        ["s", "x", "z", "ch", "sh"]
            .iter()
            .any(|end| base.ends_with(end))
    }) {
        base.to_owned()
    } else {
        match word.strip_suffix('s') {
            Some(base) if !base.ends_with('s') => base.to_owned(),
            _ => word.to_owned(),
        }
    };
    for suffix in ["ing", "ed"] {
        if let Some(base) = singular.strip_suffix(suffix)
            && base.len() >= 3
        {
            return base.to_owned();
        }
    }
    singular
}

#[cfg(test)]
mod tests {
    use super::label_key;

    #[test]
    fn phrasings_of_one_cause_share_a_key() {
        for same in [
            ["Unused imports", "unused import"],
            [
                "Missing docstring in public function",
                "public functions missing docstrings",
            ],
            ["Line too long", "lines too long"],
            ["Mutable default arguments", "mutable-default-argument"],
            ["Unnecessary `dict()` calls", "unnecessary dict call"],
        ] {
            assert_eq!(label_key(same[0]), label_key(same[1]), "{same:?}");
        }
    }

    #[test]
    fn short_words_and_words_with_digits_keep_their_ending() {
        for (label, key) in [
            ("bus", "bus"),
            ("uses", "uses"),
            ("utf8s", "utf8s"),
            ("items", "item"),
        ] {
            assert_eq!(label_key(label), key, "{label}");
        }
    }

    #[test]
    fn different_causes_keep_different_keys() {
        for different in [
            ["Unused imports", "Unused variables"],
            [
                "SQL injection in query builder",
                "Command injection in shell helper",
            ],
            ["os module imported twice", "sys module imported twice"],
            ["Python 2 print statement", "Python 3 print function"],
        ] {
            assert_ne!(
                label_key(different[0]),
                label_key(different[1]),
                "{different:?}"
            );
        }
    }
}
