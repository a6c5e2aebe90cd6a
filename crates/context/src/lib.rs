//! Code context for investigators: the lines around a finding, its enclosing item, and references.

mod brace_scan;
mod code_context;
mod context_error;
mod enclosing_item;
mod excerpt;
mod fence;
mod file_text;
mod indent_scan;
mod item_kind;
mod item_pattern;
mod language;
mod project_path;
mod references;
mod snippet;
mod word_match;

pub use code_context::{CodeContext, ContextOptions, code_context};
pub use context_error::ContextError;
pub use enclosing_item::{EnclosingItem, ProjectSource, enclosing_item};
pub use fence::fenced_block;
pub use item_kind::ItemKind;
pub use language::fence_tag;
pub use references::{RefHit, RefLocation, RefOptions, RefReport, ScanLimit, references};
pub use snippet::{Snippet, SnippetLine, SnippetNote, snippet};
