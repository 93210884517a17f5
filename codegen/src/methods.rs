//! The method table: every method of every revision the generator reads,
//! with its direction, params, result, what else may answer it, the
//! capability that gates it and the revisions it exists in.
//!
//! Method names come only from the schemas (the `const` of each message's
//! `method`); the little the schemas say only in prose — which requests are
//! answered by `EmptyResult`, which capability gates what — is keyed here by
//! def name.

use std::collections::BTreeMap;

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use serde_json::{Map, Value};

use crate::Error;
use crate::model::{self, UnionKind};
use crate::names::{method_const, rust_type};

/// The capability that gates a message (a dotted path into the capabilities
/// of the side that declares it), by def name. The schema says this only in
/// prose.
const CAPABILITIES: &[(&str, &str)] = &[
    ("ListToolsRequest", "tools"),
    ("CallToolRequest", "tools"),
    ("ListResourcesRequest", "resources"),
    ("ListResourceTemplatesRequest", "resources"),
    ("ReadResourceRequest", "resources"),
    ("SubscribeRequest", "resources.subscribe"),
    ("UnsubscribeRequest", "resources.subscribe"),
    ("ListPromptsRequest", "prompts"),
    ("GetPromptRequest", "prompts"),
    ("CompleteRequest", "completions"),
    ("SetLevelRequest", "logging"),
    ("CreateMessageRequest", "sampling"),
    ("ElicitRequest", "elicitation"),
    ("ListRootsRequest", "roots"),
    ("GetTaskRequest", "tasks"),
    ("GetTaskPayloadRequest", "tasks"),
    ("ListTasksRequest", "tasks.list"),
    ("CancelTaskRequest", "tasks.cancel"),
    ("ToolListChangedNotification", "tools.listChanged"),
    ("ResourceListChangedNotification", "resources.listChanged"),
    ("ResourceUpdatedNotification", "resources.subscribe"),
    ("PromptListChangedNotification", "prompts.listChanged"),
    ("LoggingMessageNotification", "logging"),
    ("RootsListChangedNotification", "roots.listChanged"),
];

/// The capability that gates the message `def`, if any.
pub(crate) fn capability(def: &str) -> Option<&'static str> {
    CAPABILITIES
        .iter()
        .find(|(d, _)| *d == def)
        .map(|(_, c)| *c)
}

/// The unions that carry methods, and who sends their members.
const MESSAGE_UNIONS: &[(&str, Side)] = &[
    ("ClientRequest", Side::Client),
    ("ClientNotification", Side::Client),
    ("ServerRequest", Side::Server),
    ("ServerNotification", Side::Server),
    // 2026-07-28: requests a server embeds in an input-required result.
    ("InputRequest", Side::Server),
];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Side {
    Client,
    Server,
}

/// What the revisions say of one method.
#[derive(Debug, Default)]
struct Entry {
    notification: bool,
    from_client: bool,
    from_server: bool,
    /// Bit `i` set: exists in the `i`th revision added.
    revisions: u8,
    input_required: u8,
    task: u8,
    cacheable: u8,
}

/// The method table being built, one revision at a time (oldest first).
#[derive(Debug, Default)]
pub(crate) struct Table {
    versions: Vec<String>,
    entries: BTreeMap<String, Entry>,
}

impl Table {
    /// Reads one revision's methods; `schema` may use `$defs` (2020-12) or
    /// `definitions` (draft-07).
    pub(crate) fn add_revision(&mut self, version: &str, schema: &Value) -> Result<(), Error> {
        let bit = 1u8
            .checked_shl(self.versions.len() as u32)
            .filter(|b| *b != 0)
            .ok_or_else(|| Error::Schema("more than 8 revisions".into()))?;
        self.versions.push(version.to_string());
        let defs = schema
            .get("$defs")
            .or_else(|| schema.get("definitions"))
            .and_then(Value::as_object)
            .ok_or_else(|| Error::Schema(format!("{version}: no `$defs`/`definitions`")))?;
        for (union, side) in MESSAGE_UNIONS {
            let Some(union_def) = defs.get(*union) else {
                continue;
            };
            for member in members(union_def) {
                let def = defs.get(member).ok_or_else(|| {
                    Error::Schema(format!("{version}: `{union}` refers to missing `{member}`"))
                })?;
                let method = def
                    .pointer("/properties/method/const")
                    .and_then(Value::as_str)
                    .ok_or_else(|| {
                        Error::Schema(format!("{version}: `{member}` has no constant method"))
                    })?;
                let entry = self.entries.entry(method.to_string()).or_default();
                entry.notification = union.ends_with("Notification");
                match side {
                    Side::Client => entry.from_client = true,
                    Side::Server => entry.from_server = true,
                }
                entry.revisions |= bit;
                if answers_input_required(member, defs) {
                    entry.input_required |= bit;
                }
                if may_run_as_task(def, defs) {
                    entry.task |= bit;
                }
                if result_has(member, "ttlMs", defs) {
                    entry.cacheable |= bit;
                }
            }
        }
        Ok(())
    }

    /// The table's items for the neutral module: `MethodSpec`, one static
    /// per method, and `spec()` on each method enum.
    pub(crate) fn emit(&self, neutral: &Value) -> Result<TokenStream, Error> {
        let unions = model::tagged_unions(neutral)?;
        let mut specs = Vec::new();
        let mut index: BTreeMap<String, usize> = BTreeMap::new();
        let mut enum_impls = TokenStream::new();
        for union in unions.iter().filter(|u| u.kind != UnionKind::Data) {
            let mut arms = Vec::new();
            for v in &union.variants {
                let i = match index.get(&v.tag_value) {
                    Some(i) => *i,
                    None => {
                        let entry = self.entries.get(&v.tag_value).ok_or_else(|| {
                            Error::Schema(format!("`{}` is in no revision's unions", v.tag_value))
                        })?;
                        specs.push(spec_tokens(v, entry, &v.def));
                        index.insert(v.tag_value.clone(), specs.len() - 1);
                        specs.len() - 1
                    }
                };
                let variant = format_ident!("{}", v.name);
                arms.push(quote! { Self::#variant => &METHOD_TABLE[#i], });
            }
            let method_enum = format_ident!("{}Method", rust_type(&union.name));
            enum_impls.extend(quote! {
                impl #method_enum {
                    /// What the method table says of this method.
                    pub fn spec(self) -> &'static MethodSpec {
                        match self { #(#arms)* }
                    }

                    /// Whether the method exists in `version`.
                    pub fn in_revision(self, version: ProtocolVersion) -> bool {
                        self.spec().revisions.contains(version)
                    }
                }
            });
        }
        let count = specs.len();
        Ok(quote! {
            /// Which protocol revisions have something: one bit per
            /// [`ProtocolVersion`].
            #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
            pub struct Revisions(u8);

            impl Revisions {
                /// In no revision.
                pub const NONE: Self = Self(0);

                /// Whether `version` is one of them.
                pub const fn contains(self, version: ProtocolVersion) -> bool {
                    self.0 & (1 << version as u8) != 0
                }

                /// The revisions, newest first.
                pub fn iter(self) -> impl Iterator<Item = ProtocolVersion> {
                    ProtocolVersion::ALL.iter().copied().filter(move |v| self.contains(*v))
                }
            }

            /// Who sends a method.
            #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
            pub enum Direction {
                /// The client sends it to the server.
                ClientToServer,
                /// The server sends it to the client (for 2026-07-28, embedded
                /// in an input-required result).
                ServerToClient,
                /// Either side sends it.
                Both,
            }

            /// One row of the method table.
            #[derive(Clone, Copy, Debug, PartialEq, Eq)]
            pub struct MethodSpec {
                /// The wire name.
                pub name: &'static str,
                /// A notification (no response) rather than a request.
                pub notification: bool,
                /// Who sends it.
                pub direction: Direction,
                /// The revisions it exists in.
                pub revisions: Revisions,
                /// The Rust type of its `params` in this module, if it has any.
                pub params: ::std::option::Option<&'static str>,
                /// Whether `params` must be present.
                pub params_required: bool,
                /// The Rust type of its result when it completes (requests only).
                pub result: ::std::option::Option<&'static str>,
                /// The revisions in which an `InputRequiredResult` may answer it.
                pub input_required: Revisions,
                /// The revisions in which it may run as a task (its params take
                /// `task`; answered by `CreateTaskResult`).
                pub task: Revisions,
                /// The revisions in which its result carries caching hints
                /// (`ttlMs`, `cacheScope`).
                pub cacheable: Revisions,
                /// The capability that gates it, as a dotted path into the
                /// capabilities of the side that declares it: the receiver of a
                /// request, the sender of a notification.
                pub capability: ::std::option::Option<&'static str>,
            }

            /// Every method of every revision, each once.
            pub static METHOD_TABLE: [MethodSpec; #count] = [ #(#specs,)* ];

            #enum_impls
        })
    }
}

/// One method of the table, for outputs other than the Rust modules (the C
/// header's name constants).
#[derive(Debug)]
pub(crate) struct Row<'a> {
    pub(crate) name: &'a str,
    pub(crate) notification: bool,
    pub(crate) from_client: bool,
    pub(crate) from_server: bool,
    /// The revisions it exists in, oldest first.
    pub(crate) revisions: Vec<&'a str>,
}

impl Table {
    /// Every revision read, oldest first.
    pub(crate) fn versions(&self) -> impl Iterator<Item = &str> {
        self.versions.iter().map(String::as_str)
    }

    /// Every method read, by name.
    pub(crate) fn rows(&self) -> impl Iterator<Item = Row<'_>> {
        self.entries.iter().map(|(name, entry)| Row {
            name,
            notification: entry.notification,
            from_client: entry.from_client,
            from_server: entry.from_server,
            revisions: self
                .versions
                .iter()
                .enumerate()
                .filter(|(i, _)| entry.revisions & (1 << i) != 0)
                .map(|(_, v)| v.as_str())
                .collect(),
        })
    }
}

fn spec_tokens(v: &model::Variant, entry: &Entry, def: &str) -> TokenStream {
    let c = format_ident!("{}", method_const(&v.tag_value));
    let notification = entry.notification;
    let direction = match (entry.from_client, entry.from_server) {
        (true, true) => quote! { Direction::Both },
        (true, false) => quote! { Direction::ClientToServer },
        _ => quote! { Direction::ServerToClient },
    };
    let opt = |s: Option<String>| match s {
        Some(s) => quote! { ::std::option::Option::Some(#s) },
        None => quote! { ::std::option::Option::None },
    };
    let params = opt(v.params.as_ref().map(|(p, _)| p.clone()));
    let params_required = v.params.as_ref().is_some_and(|(_, r)| *r);
    let result = opt(v.result.as_deref().map(rust_type));
    let capability = opt(CAPABILITIES
        .iter()
        .find(|(d, _)| *d == def)
        .map(|(_, c)| (*c).to_string()));
    let (revisions, input_required, task, cacheable) = (
        entry.revisions,
        entry.input_required,
        entry.task,
        entry.cacheable,
    );
    quote! {
        MethodSpec {
            name: methods::#c,
            notification: #notification,
            direction: #direction,
            revisions: Revisions(#revisions),
            params: #params,
            params_required: #params_required,
            result: #result,
            input_required: Revisions(#input_required),
            task: Revisions(#task),
            cacheable: Revisions(#cacheable),
            capability: #capability,
        }
    }
}

/// `ProtocolVersion`: every revision a schema was given for, oldest first
/// in declaration order (the discriminant is its bit in [`Revisions`]).
pub(crate) fn revision_enum<'a>(versions: impl Iterator<Item = &'a str>) -> TokenStream {
    let versions: Vec<&str> = versions.collect();
    let variants: Vec<_> = versions
        .iter()
        .map(|v| format_ident!("V{}", v.replace('-', "_")))
        .collect();
    let newest_first: Vec<_> = variants.iter().rev().collect();
    let docs: Vec<String> = versions.iter().map(|v| format!("Revision {v}.")).collect();
    quote! {
        /// A protocol revision: one for each schema the code was generated from.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        #[non_exhaustive]
        pub enum ProtocolVersion {
            #( #[doc = #docs] #variants, )*
        }

        impl ProtocolVersion {
            /// Every revision, newest first.
            pub const ALL: &'static [Self] = &[ #( Self::#newest_first, )* ];

            /// The wire form, e.g. `"2025-11-25"`.
            pub const fn as_str(self) -> &'static str {
                match self { #( Self::#variants => #versions, )* }
            }

            /// Parses the wire form; `None` for a revision not in this list.
            pub fn parse(s: &str) -> ::std::option::Option<Self> {
                match s {
                    #( #versions => ::std::option::Option::Some(Self::#variants), )*
                    _ => ::std::option::Option::None,
                }
            }
        }

        impl ::std::fmt::Display for ProtocolVersion {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.as_str())
            }
        }
    }
}

fn members(union: &Value) -> Vec<&str> {
    let refs: Vec<&Value> = match union.get("anyOf").and_then(Value::as_array) {
        Some(any) => any.iter().collect(),
        None => union.get("$ref").into_iter().collect(),
    };
    refs.into_iter()
        .filter_map(|r| r.get("$ref").or(Some(r)).and_then(Value::as_str))
        .filter_map(|r| r.rsplit('/').next())
        .collect()
}

/// 2026-07-28 names what answers a request in `<Stem>ResultResponse`; an
/// `InputRequiredResult` among its `result` alternatives means the server may
/// ask for input first.
fn answers_input_required(request_def: &str, defs: &Map<String, Value>) -> bool {
    let Some(stem) = request_def.strip_suffix("Request") else {
        return false;
    };
    defs.get(&format!("{stem}ResultResponse"))
        .and_then(|d| d.pointer("/properties/result/anyOf"))
        .and_then(Value::as_array)
        .is_some_and(|any| {
            any.iter().any(|m| {
                m.get("$ref")
                    .and_then(Value::as_str)
                    .and_then(|r| r.rsplit('/').next())
                    == Some("InputRequiredResult")
            })
        })
}

/// Whether the result of request def `request_def` has property `prop`
/// (its `<Stem>Result` def).
fn result_has(request_def: &str, prop: &str, defs: &Map<String, Value>) -> bool {
    request_def
        .strip_suffix("Request")
        .and_then(|stem| defs.get(&format!("{stem}Result")))
        .and_then(|d| d.pointer(&format!("/properties/{prop}")))
        .is_some()
}

/// Whether a request's params (or any alternative of them) take `task`.
fn may_run_as_task(def: &Value, defs: &Map<String, Value>) -> bool {
    fn has_task(schema: &Value, defs: &Map<String, Value>, depth: u8) -> bool {
        if depth > 4 {
            return false;
        }
        if schema.pointer("/properties/task").is_some() {
            return true;
        }
        if let Some(target) = schema
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|r| r.rsplit('/').next())
            .and_then(|n| defs.get(n))
        {
            return has_task(target, defs, depth + 1);
        }
        schema
            .get("anyOf")
            .and_then(Value::as_array)
            .is_some_and(|any| any.iter().any(|m| has_task(m, defs, depth + 1)))
    }
    def.pointer("/properties/params")
        .is_some_and(|p| has_task(p, defs, 0))
}
