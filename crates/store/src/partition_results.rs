//! A partition's recorded results, copied into the run `merge` made from its job: each item's
//! result file under the item's id in the merged run, with every id it names renamed too
//! (a batch's members, `duplicate_of`).

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use crate::{RunDir, StoreError, write_atomic};

/// The result files an item of triage may have: its answer (`json`; a survey's, a batch's, a
/// second opinion's) and the answer that asked for its re-route (`reroute.json`).
const RESULT_EXTENSIONS: [&str; 2] = ["json", "reroute.json"];

/// Copies every result of `from` whose item `renamed` maps (old id to new id) into `to`, under
/// the new id, renaming every string in it that is exactly one of the old ids. Results only in
/// the journal (a submit interrupted before it wrote its copy) are copied from there. Returns
/// how many files it wrote.
pub fn copy_partition_results<S: std::hash::BuildHasher>(
    from: &RunDir,
    to: &RunDir,
    renamed: &HashMap<String, String, S>,
) -> Result<usize, StoreError> {
    // The names in `items/`, listed once: at 100,000 items most have no re-route and no marker,
    // and trying each file was three failed opens an item (reference/benchmarks.md). When the
    // folder cannot be listed, every file is tried as before.
    let listed = list_names(&from.items_dir());
    let has = |name: String| listed.as_ref().is_none_or(|names| names.contains(&name));
    let mut written = 0;
    for (old, new) in renamed {
        for ext in RESULT_EXTENSIONS {
            // A result only in the journal has its submit marker (`RunDir::read_result`).
            let recorded =
                has(format!("{old}.{ext}")) || (ext == "json" && has(format!("{old}.pending")));
            if !recorded {
                continue;
            }
            let text = if ext == "json" {
                from.read_result(old, ext)
            } else {
                from.item_file(old, ext)
                    .and_then(|path| std::fs::read_to_string(path).ok())
            };
            let (Some(text), Some(path)) = (text, to.item_file(new, ext)) else {
                continue;
            };
            let bytes = match serde_json::from_str::<Value>(&text) {
                Ok(mut value) => {
                    rename_ids(&mut value, renamed);
                    let mut bytes = serde_json::to_vec_pretty(&value).unwrap_or_default();
                    bytes.push(b'\n');
                    bytes
                }
                // Not JSON: copied as it is.
                Err(_) => text.into_bytes(),
            };
            write_atomic(&path, &bytes)?;
            written += 1;
        }
    }
    Ok(written)
}

/// The file names in `dir`, or `None` when it cannot be listed.
fn list_names(dir: &std::path::Path) -> Option<HashSet<String>> {
    let entries = std::fs::read_dir(dir).ok()?;
    Some(
        entries
            .filter_map(Result::ok)
            .filter_map(|e| e.file_name().into_string().ok())
            .collect(),
    )
}

/// Replaces every string of `value` that is a key of `renamed` with its value.
fn rename_ids<S: std::hash::BuildHasher>(value: &mut Value, renamed: &HashMap<String, String, S>) {
    match value {
        Value::String(text) => {
            if let Some(new) = renamed.get(text.as_str()) {
                text.clone_from(new);
            }
        }
        Value::Array(values) => values.iter_mut().for_each(|v| rename_ids(v, renamed)),
        Value::Object(map) => map.values_mut().for_each(|v| rename_ids(v, renamed)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_batchs_result_is_copied_under_its_new_id_with_its_members_and_duplicates_renamed() {
        let from = tempfile::tempdir().unwrap();
        let to = tempfile::tempdir().unwrap();
        let (from, to) = (
            RunDir::at(from.path().to_path_buf()),
            RunDir::at(to.path().to_path_buf()),
        );
        std::fs::create_dir_all(from.items_dir()).unwrap();
        std::fs::create_dir_all(to.items_dir()).unwrap();
        let batch = serde_json::json!({"verdicts": [
            {"item": "t-00001", "verdict": "real", "root_cause": "t-00001 here", "reason": "r"},
            {"item": "t-00002", "verdict": "duplicate", "duplicate_of": "t-00001",
             "root_cause": "c", "reason": "r"}]});
        std::fs::write(from.items_dir().join("tb-00001.json"), batch.to_string()).unwrap();
        std::fs::write(from.items_dir().join("t-00002.reroute.json"), "{}").unwrap();
        let renamed: HashMap<String, String> = [
            ("tb-00001", "tb-00003"),
            ("t-00001", "t-00007"),
            ("t-00002", "t-00009"),
        ]
        .into_iter()
        .map(|(a, b)| (a.to_owned(), b.to_owned()))
        .collect();
        assert_eq!(copy_partition_results(&from, &to, &renamed).unwrap(), 2);
        let copied: Value = serde_json::from_str(
            &std::fs::read_to_string(to.items_dir().join("tb-00003.json")).unwrap(),
        )
        .unwrap();
        assert_eq!(copied["verdicts"][0]["item"], "t-00007");
        assert_eq!(copied["verdicts"][1]["duplicate_of"], "t-00007");
        assert_eq!(
            copied["verdicts"][0]["root_cause"], "t-00001 here",
            "only whole ids are renamed"
        );
        assert!(to.items_dir().join("t-00009.reroute.json").is_file());
    }

    #[test]
    fn a_result_only_in_the_journal_is_copied_as_its_answer_and_not_as_a_reroute() {
        let from = tempfile::tempdir().unwrap();
        let to = tempfile::tempdir().unwrap();
        let (from, to) = (
            RunDir::at(from.path().to_path_buf()),
            RunDir::at(to.path().to_path_buf()),
        );
        std::fs::create_dir_all(from.items_dir()).unwrap();
        std::fs::create_dir_all(to.items_dir()).unwrap();
        // A submit killed after its journal line, before its copy: the marker says where.
        let result = serde_json::json!({"verdict": "real", "root_cause": "c", "reason": "r"});
        let entry = self_repair_engine::JournalEntry {
            at: 1,
            event: self_repair_engine::Event::Submitted {
                item: "t-00001".into(),
                result: result.clone(),
            },
        };
        from.mark_submitting("t-00001", 0).unwrap();
        from.journal().append(&[entry]).unwrap();
        let renamed: HashMap<String, String> =
            HashMap::from([("t-00001".to_owned(), "t-00005".to_owned())]);
        assert_eq!(copy_partition_results(&from, &to, &renamed).unwrap(), 1);
        let copied: Value = serde_json::from_str(
            &std::fs::read_to_string(to.items_dir().join("t-00005.json")).unwrap(),
        )
        .unwrap();
        assert_eq!(copied, result);
        assert!(!to.items_dir().join("t-00005.reroute.json").exists());
    }
}
