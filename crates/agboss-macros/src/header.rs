//! The header every component has: its name (checked by its kind's naming rules), its
//! description (`description = ".."`, else the struct's doc comment), the path of the `agboss`
//! crate (`crate = ..`); and what generated code makes of it (the runtime's path, the source
//! location, the doc of a struct without one).

use agboss_rules::{codes, names};
use darling::FromMeta;
use darling::util::SpannedValue;
use proc_macro2::TokenStream;
use quote::quote;
use syn::{ItemStruct, Path};

use crate::ctxt::Ctxt;
use crate::doc::{doc_text, doc_unless_documented};

/// The header's keys as written, flattened into each component's arguments.
#[derive(Debug, Default, FromMeta)]
pub struct HeaderArgs {
    pub name: Option<SpannedValue<String>>,
    pub description: Option<SpannedValue<String>>,
    #[darling(rename = "crate")]
    pub krate: Option<Path>,
}

/// How a kind of component is named and described.
pub struct Kind {
    pub naming: Naming,
    /// `None` for a kind without a `description` key (`#[mcp_server]`).
    pub describing: Option<Describing>,
}

/// The naming rules of a kind.
pub enum Naming {
    /// Kebab-case ending in `-{kind}` (`search-issues-tool`); a tool's name also follows the
    /// rules of names models see.
    Suffixed(&'static str),
    /// Kebab-case, at most 64 characters (an agent's name, `kind` in messages).
    Kebab(&'static str),
    /// Kebab-case of any length: a server's name is the `source` of its tools, never sent to a
    /// model. Suggested from the type's name less `Server`.
    Source,
}

/// What a kind's description says, for the messages about an empty or missing one.
pub struct Describing {
    /// `the description is empty: say {says}`.
    pub says: &'static str,
    /// `#[tool] needs a description, which {which}`.
    pub which: &'static str,
    /// A doc comment of this kind: `/// {example}`.
    pub example: &'static str,
}

/// The header of a component that passed every check.
pub struct Header {
    pub name: String,
    /// `description = ".."`, else the struct's doc comment; empty for a kind that has none.
    pub description: String,
    pub krate: Option<Path>,
}

/// The header as checked: each part that could be read, for messages about the others.
pub struct Draft {
    /// The name as given, even one the rules refuse (`agent `JobScout`: ..`).
    pub name: Option<String>,
    pub description: Option<String>,
    pub krate: Option<Path>,
}

impl Kind {
    /// Checks the header of `item`: its name, then its description.
    pub fn check(&self, args: HeaderArgs, item: &ItemStruct, cx: &mut Ctxt) -> Draft {
        let name = self.check_name(args.name, item, cx);
        let description = match &self.describing {
            Some(describing) => describing.check(args.description, item, cx),
            None => Some(String::new()),
        };
        Draft {
            name,
            description,
            krate: args.krate,
        }
    }

    fn check_name(
        &self,
        name: Option<SpannedValue<String>>,
        item: &ItemStruct,
        cx: &mut Ctxt,
    ) -> Option<String> {
        let Some(name) = name else {
            let suggested = self.naming.suggest(&item.ident.to_string());
            cx.needs("name", format!("add `name = {suggested:?}`"));
            return None;
        };
        for finding in self.naming.check(&name) {
            cx.finding_at(&finding, &name.span());
        }
        Some(name.into_inner())
    }
}

impl Naming {
    /// Every rule `name` breaks.
    fn check(&self, name: &str) -> Vec<codes::Finding> {
        match self {
            Naming::Suffixed(kind) => names::check_component(name, kind),
            Naming::Kebab(kind) => names::check_kebab(name, kind),
            Naming::Source => (!names::is_kebab(name))
                .then(|| {
                    codes::NAME_KEBAB_CASE.finding(&[
                        ("kind", &"server"),
                        ("name", &format!("{name:?}")),
                        ("suggestion", &format!("{:?}", names::kebab(name))),
                    ])
                })
                .into_iter()
                .collect(),
        }
    }

    /// The name to give a component whose type is `ident`.
    fn suggest(&self, ident: &str) -> String {
        match self {
            Naming::Suffixed(kind) => names::suggest(ident, kind),
            Naming::Kebab(_) => names::kebab(ident),
            Naming::Source => names::kebab(ident.trim_end_matches("Server")),
        }
    }
}

impl Describing {
    /// `description = ".."` when given (not blank), else the struct's doc comment; neither is
    /// an error at the struct's name.
    fn check(
        &self,
        description: Option<SpannedValue<String>>,
        item: &ItemStruct,
        cx: &mut Ctxt,
    ) -> Option<String> {
        if let Some(description) = description {
            if description.trim().is_empty() {
                let message = format!("the description is empty: say {}", self.says);
                cx.error_at(&description.span(), message);
            }
            return Some(description.into_inner());
        }
        let doc = doc_text(&item.attrs);
        // Already said when an unknown key was reported as a typo of `description`.
        if doc.is_none() && !cx.mistyped("description") {
            let message = format!(
                "#[{}] needs a description, which {}: add a doc comment (`/// {}`) or `description = \"...\"`",
                cx.attribute(),
                self.which,
                self.example
            );
            cx.error_at(&item.ident, message);
        }
        doc
    }
}

impl Draft {
    /// The header, if every part of it passed.
    pub fn finish(self) -> Option<Header> {
        Some(Header {
            name: self.name?,
            description: self.description?,
            krate: self.krate,
        })
    }
}

impl Header {
    /// The path generated code reaches the runtime through: `::agboss::__private`, or
    /// `<crate>::__private` for `crate = path`.
    pub fn private(&self) -> TokenStream {
        private_path(self.krate.as_ref())
    }

    /// `#[doc = description]` for a struct without a doc comment of its own: generated items
    /// are documented with what the attribute says of them.
    pub fn doc(&self, item: &ItemStruct) -> Option<TokenStream> {
        doc_unless_documented(item, &self.description)
    }

    /// The arguments every descriptor with a description starts with: name, description, the
    /// Rust type and the source location.
    pub fn descriptor_args(&self, item: &ItemStruct, private: &TokenStream) -> TokenStream {
        let (name, description) = (&self.name, &self.description);
        let rust_type = item.ident.to_string();
        let location = source_location(private);
        quote!(#name, #description, #rust_type, #location)
    }
}

/// The runtime's path: `::agboss::__private`, or `<crate>::__private` for `crate = path`.
pub fn private_path(krate: Option<&Path>) -> TokenStream {
    match krate {
        Some(path) => quote!(#path::__private),
        None => quote!(::agboss::__private),
    }
}

/// The `SourceLocation` of the item the attribute is on, for its descriptor.
pub fn source_location(private: &TokenStream) -> TokenStream {
    quote! {
        #private::SourceLocation {
            module_path: ::core::module_path!(),
            file: ::core::file!(),
            line: ::core::line!(),
        }
    }
}

#[cfg(test)]
mod tests {
    use quote::quote;

    use super::*;

    const TOOL: Kind = Kind {
        naming: Naming::Suffixed("tool"),
        describing: Some(Describing {
            says: "what the tool does",
            which: "the model reads",
            example: "Searches",
        }),
    };

    /// The draft of `args` on `item` under `kind`, and every problem's message.
    fn check_header(kind: &Kind, args: TokenStream, item: TokenStream) -> (Draft, Vec<String>) {
        let item: ItemStruct = syn::parse2(item).unwrap();
        let mut cx = Ctxt::new("tool");
        let args: HeaderArgs = cx
            .parse_args(args, &["name", "description", "crate"])
            .unwrap();
        let draft = kind.check(args, &item, &mut cx);
        let problems = match cx.finish() {
            Ok(()) => Vec::new(),
            Err(e) => e.into_iter().map(|e| e.to_string()).collect(),
        };
        (draft, problems)
    }

    #[test]
    fn a_header_reads_its_name_description_and_crate() {
        let (draft, problems) = check_header(
            &TOOL,
            quote!(name = "search-issues-tool", crate = my::agboss),
            quote! {
                /// Searches the team's issues.
                pub struct SearchIssues;
            },
        );
        assert!(problems.is_empty(), "{problems:?}");
        let header = draft.finish().unwrap();
        assert_eq!(header.name, "search-issues-tool");
        assert_eq!(header.description, "Searches the team's issues.");
        assert!(header.krate.is_some());
        assert_eq!(header.private().to_string(), "my :: agboss :: __private");
    }

    #[test]
    fn a_name_the_rules_refuse_is_kept_for_messages_and_reported() {
        let (draft, problems) = check_header(
            &Kind {
                naming: Naming::Kebab("agent"),
                describing: None,
            },
            quote!(name = "JobScout"),
            quote!(
                pub struct Scout;
            ),
        );
        assert_eq!(draft.name.as_deref(), Some("JobScout"));
        assert_eq!(draft.description.as_deref(), Some(""), "a kind without one");
        assert_eq!(
            problems,
            ["[name.kebab-case] agent name \"JobScout\" must be kebab-case: name it \"job-scout\""]
        );
    }

    #[test]
    fn a_missing_name_is_suggested_by_the_kinds_rules() {
        let suggested = |naming: Naming| {
            let kind = Kind {
                naming,
                describing: None,
            };
            let (draft, problems) = check_header(
                &kind,
                quote!(),
                quote!(
                    pub struct NotesServer;
                ),
            );
            assert!(draft.finish().is_none());
            problems.join("\n")
        };
        assert_eq!(
            suggested(Naming::Suffixed("tool")),
            "#[tool] needs `name`: add `name = \"notes-server-tool\"`"
        );
        assert_eq!(
            suggested(Naming::Kebab("agent")),
            "#[tool] needs `name`: add `name = \"notes-server\"`"
        );
        assert_eq!(
            suggested(Naming::Source),
            "#[tool] needs `name`: add `name = \"notes\"`"
        );
    }

    #[test]
    fn an_empty_or_missing_description_says_what_it_is_for() {
        let (draft, problems) = check_header(
            &TOOL,
            quote!(name = "search-issues-tool", description = " "),
            quote!(
                pub struct SearchIssues;
            ),
        );
        assert_eq!(draft.description.as_deref(), Some(" "));
        assert_eq!(
            problems,
            ["the description is empty: say what the tool does"]
        );
        let (draft, problems) = check_header(
            &TOOL,
            quote!(name = "search-issues-tool"),
            quote!(
                pub struct SearchIssues;
            ),
        );
        assert!(draft.description.is_none());
        assert_eq!(
            problems,
            [
                "#[tool] needs a description, which the model reads: add a doc comment (`/// Searches`) or `description = \"...\"`"
            ]
        );
    }
}
