//! The prompts `show` renders for an item: what each is rendered from (`context`), and its parts: the triage batch, the rule survey,
//! the item's code focus, finding listings, verdict tables, task sections and revisions.

pub(crate) mod context;
pub(crate) mod decided_code;
pub(crate) mod finding_listing;
pub(crate) mod item_focus;
pub(crate) mod revision;
pub(crate) mod survey;
pub(crate) mod task_sections;
pub(crate) mod triage;
pub(crate) mod verdict_table;
