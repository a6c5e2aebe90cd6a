//! What sort of item encloses a line: function, method, class, impl, ...

use std::fmt;

/// The sort of an [`crate::EnclosingItem`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ItemKind {
    /// A free function (or one whose container is not known).
    Function,
    /// A function inside a class, impl, trait, interface or object.
    Method,
    /// A class (or Kotlin/Scala `object`, Swift `extension`).
    Class,
    /// A struct or union.
    Struct,
    /// An enum.
    Enum,
    /// A Rust trait, Scala trait or Swift protocol.
    Trait,
    /// An interface.
    Interface,
    /// A Rust `impl` block.
    Impl,
    /// A Rust `mod`, Ruby `module`.
    Module,
    /// A C++/C#/TypeScript namespace.
    Namespace,
    /// A Rust `macro_rules!`.
    Macro,
}

impl ItemKind {
    /// The word used in rendered text.
    pub fn as_str(self) -> &'static str {
        match self {
            ItemKind::Function => "function",
            ItemKind::Method => "method",
            ItemKind::Class => "class",
            ItemKind::Struct => "struct",
            ItemKind::Enum => "enum",
            ItemKind::Trait => "trait",
            ItemKind::Interface => "interface",
            ItemKind::Impl => "impl",
            ItemKind::Module => "module",
            ItemKind::Namespace => "namespace",
            ItemKind::Macro => "macro",
        }
    }

    /// The kind named by a declaration keyword (`struct`, `class`, `protocol`, ...).
    pub(crate) fn from_keyword(keyword: &str) -> Option<ItemKind> {
        let kind = match keyword {
            "fn" | "def" | "fun" | "func" | "function" => ItemKind::Function,
            "class" | "object" | "record" | "extension" => ItemKind::Class,
            "struct" | "union" => ItemKind::Struct,
            "enum" | "enum class" => ItemKind::Enum,
            "trait" | "protocol" => ItemKind::Trait,
            "interface" => ItemKind::Interface,
            "impl" => ItemKind::Impl,
            "mod" | "module" => ItemKind::Module,
            "namespace" => ItemKind::Namespace,
            _ => return None,
        };
        Some(kind)
    }

    /// Whether a function directly inside this item is a method.
    pub(crate) fn holds_methods(self) -> bool {
        matches!(
            self,
            ItemKind::Class
                | ItemKind::Struct
                | ItemKind::Enum
                | ItemKind::Trait
                | ItemKind::Interface
                | ItemKind::Impl
        )
    }

    /// Whether this item is a function body (code inside it is statements, not declarations).
    pub(crate) fn is_function(self) -> bool {
        matches!(self, ItemKind::Function | ItemKind::Method)
    }
}

impl fmt::Display for ItemKind {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_declaration_keyword_names_its_kind() {
        for (keywords, kind) in [
            (
                &["fn", "def", "fun", "func", "function"][..],
                ItemKind::Function,
            ),
            (
                &["class", "object", "record", "extension"][..],
                ItemKind::Class,
            ),
            (&["struct", "union"][..], ItemKind::Struct),
            (&["enum", "enum class"][..], ItemKind::Enum),
            (&["trait", "protocol"][..], ItemKind::Trait),
            (&["interface"][..], ItemKind::Interface),
            (&["impl"][..], ItemKind::Impl),
            (&["mod", "module"][..], ItemKind::Module),
            (&["namespace"][..], ItemKind::Namespace),
        ] {
            for keyword in keywords {
                assert_eq!(ItemKind::from_keyword(keyword), Some(kind), "{keyword}");
            }
        }
        for keyword in ["let", "macro_rules!", "Enum", ""] {
            assert_eq!(ItemKind::from_keyword(keyword), None, "{keyword}");
        }
    }
}
