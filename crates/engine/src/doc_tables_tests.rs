//! The skill's reference (what Claude reads) and scripts/validate-plugin.sh against the code:
//! the item kinds with their id prefixes, agents and tiers, and the templates' placeholders.
//! A row in one and not the other fails.

use std::collections::BTreeMap;
use std::path::Path;

use crate::template::{COMMON_PLACEHOLDERS, TEMPLATE_PLACEHOLDERS};
use crate::{ItemKind, KindTiers};

const SKILL_REFERENCE: &str = "plugin/skill/self-repair/reference/state-and-config.md";

fn repo_file(path: &str) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    std::fs::read_to_string(root.join(path)).unwrap()
}

/// The cells of each row of the markdown table whose header line starts with `header`.
fn table(markdown: &str, header: &str) -> Vec<Vec<String>> {
    markdown
        .lines()
        .skip_while(|line| !line.starts_with(header))
        .skip(2)
        .take_while(|line| line.starts_with('|'))
        .map(|line| {
            line.trim_matches('|')
                .split(" | ")
                .map(|cell| cell.trim().to_owned())
                .collect()
        })
        .collect()
}

/// The `` `code` `` spans of a cell.
fn spans(cell: &str) -> Vec<&str> {
    cell.split('`').skip(1).step_by(2).collect()
}

#[test]
fn skill_reference_lists_every_item_kind_as_the_code_names_it() {
    let rows = table(&repo_file(SKILL_REFERENCE), "| id | kind |");
    let tiers = KindTiers::default();
    let mut documented = Vec::new();
    for row in &rows {
        let id = spans(&row[0])[0];
        let kind = ItemKind::of_id(id).unwrap_or_else(|| panic!("{id}: no kind has this prefix"));
        assert_eq!(spans(&row[1])[0], kind.as_str(), "{id}: kind");
        assert_eq!(spans(&row[2]), [kind.agent()], "{id}: agent");
        assert_eq!(
            spans(&row[3]),
            [format!("{} {id}", kind.verb())],
            "{id}: dispatch description"
        );
        assert!(
            row[4].starts_with(tiers.of(kind).as_str()) || kind == ItemKind::Verify,
            "{id}: starting model `{}`, code says {}",
            row[4],
            tiers.of(kind).as_str()
        );
        documented.push(kind);
    }
    assert_eq!(
        documented,
        ItemKind::ALL,
        "one row per kind, in pipeline order"
    );
}

/// Template -> its own placeholders, from a table whose second column lists `{{name}}`s.
fn documented_placeholders(markdown: &str) -> BTreeMap<String, Vec<String>> {
    let mut map = BTreeMap::new();
    for row in table(markdown, "| template |") {
        let mut names: Vec<String> = row[1]
            .split("{{")
            .skip(1)
            .filter_map(|part| part.split_once("}}").map(|(name, _)| name.to_owned()))
            .collect();
        names.sort();
        for template in spans(&row[0])
            .into_iter()
            .filter(|t| Path::new(t).extension().is_some_and(|e| e == "md"))
        {
            map.insert(template.to_owned(), names.clone());
        }
    }
    map
}

fn code_placeholders() -> BTreeMap<String, Vec<String>> {
    TEMPLATE_PLACEHOLDERS
        .iter()
        .map(|(template, own)| {
            let mut names: Vec<String> = own.iter().map(|n| (*n).to_owned()).collect();
            names.sort();
            ((*template).to_owned(), names)
        })
        .collect()
}

#[test]
fn skill_reference_lists_the_placeholders_the_binary_supplies() {
    let text = repo_file(SKILL_REFERENCE);
    assert_eq!(documented_placeholders(&text), code_placeholders());
    let common = text
        .lines()
        .skip_while(|l| !l.starts_with("Every template of the triage pipeline may use"))
        .take_while(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    for name in COMMON_PLACEHOLDERS {
        assert!(
            common.contains(&format!("{{{{{name}}}}}")),
            "common placeholder {{{{{name}}}}} not documented"
        );
    }
    // The `{{routes}}` the skill once documented: the binary supplies it to no template.
    assert!(!text.contains("{{routes}}"));
}

#[test]
fn bundled_templates_and_validate_plugin_match_the_placeholder_table() {
    let dir =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../plugin/skill/self-repair/templates");
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    let code = code_placeholders();
    assert_eq!(files, code.keys().cloned().collect::<Vec<_>>());
    // validate-plugin.sh's TEMPLATE_VARS: what each template must use, within what it gets.
    let script = repo_file("scripts/validate-plugin.sh");
    for line in script.lines().filter(|l| l.trim_start().starts_with('[')) {
        let Some((template, vars)) = line.trim().trim_start_matches('[').split_once("]=") else {
            continue;
        };
        let own = &code[template];
        for var in vars.trim_matches('"').split_whitespace() {
            assert!(
                own.iter().any(|n| n == var),
                "validate-plugin.sh lets {template} use {{{{{var}}}}}, which the binary never supplies"
            );
        }
    }
    let common = script
        .lines()
        .find_map(|l| l.strip_prefix("readonly COMMON_VARS="))
        .unwrap()
        .trim_matches('"');
    assert_eq!(
        common.split_whitespace().collect::<Vec<_>>(),
        COMMON_PLACEHOLDERS
    );
}
