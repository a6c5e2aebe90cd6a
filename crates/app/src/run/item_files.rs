//! Which items of a run folder have a file of some kind in `items/`, from one listing of the
//! folder: a reader of many items' results opens only the files there are, instead of failing
//! to open one (and its submit marker) for each item that has none (at 100,000 findings a
//! survey's findings have none).

use std::collections::HashSet;

use self_repair_store::RunDir;

/// The ids of the items of `dir` with a file `items/<id><suffix>` for any of `suffixes`
/// (`.json`, `.reroute.json`, `.pending`...). Empty when `items/` does not read.
pub(crate) fn items_with_files(dir: &RunDir, suffixes: &[&str]) -> HashSet<String> {
    let Ok(entries) = std::fs::read_dir(dir.items_dir()) else {
        return HashSet::new();
    };
    entries
        .filter_map(Result::ok)
        .filter_map(|entry| {
            let name = entry.file_name();
            let name = name.to_str()?;
            // Item ids hold no dot: `t-1.input.json` is no `.json` of an item `t-1.input`.
            suffixes
                .iter()
                .filter_map(|suffix| name.strip_suffix(suffix))
                .find(|id| !id.is_empty() && !id.contains('.'))
                .map(str::to_owned)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_named_kinds_of_file_count_and_ids_hold_no_dot() {
        let folder = tempfile::tempdir().unwrap();
        let dir = RunDir::at(folder.path().to_path_buf());
        assert!(items_with_files(&dir, &[".json"]).is_empty());
        std::fs::create_dir_all(dir.items_dir()).unwrap();
        for name in [
            "t-00001.json",
            "t-00002.input.json",
            "t-00003.reroute.json",
            "t-00004.pending",
            "tb-00001.dispatched",
        ] {
            std::fs::write(dir.items_dir().join(name), "").unwrap();
        }
        let mut found: Vec<String> = items_with_files(&dir, &[".json", ".pending"])
            .into_iter()
            .collect();
        found.sort();
        assert_eq!(found, ["t-00001", "t-00004"]);
        let mut found: Vec<String> = items_with_files(&dir, &[".json", ".reroute.json"])
            .into_iter()
            .collect();
        found.sort();
        assert_eq!(found, ["t-00001", "t-00003"]);
    }
}
