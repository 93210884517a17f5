//! The client operations every face exposes, derived from the method
//! table's client requests and [`FACES`], the one place a face name and an
//! argument shape are chosen for a method.

use serde_json::Value;

use crate::Error;
use crate::model::{self, UnionKind};
use crate::names::{defs, method_const};

/// How a face passes a request's params and receives its result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Shape {
    /// A paginated `*/list`: the faces return every page's items (the core
    /// client's `list_all_<key>`).
    Listing,
    /// No arguments (the core client's function of this name).
    Plain { core: &'static str },
    /// One argument, the `uri` the params require.
    Uri { core: &'static str },
}

/// One client request as the faces expose it: the face name and shape,
/// and a sentence every face's documentation starts with.
#[derive(Debug)]
pub(crate) struct Face {
    pub(crate) method: &'static str,
    pub(crate) name: &'static str,
    pub(crate) shape: Shape,
    pub(crate) doc: &'static str,
}

/// The client requests generated on every face. Adding one here (and
/// regenerating) puts it on the C ABI, the Python extension and the
/// Python `Client`/`SyncClient`.
pub(crate) const FACES: &[Face] = &[
    Face {
        method: "ping",
        name: "ping",
        shape: Shape::Plain { core: "ping" },
        doc: "Checks that the server answers; revisions without `ping` send `server/discover` instead.",
    },
    Face {
        method: "tools/list",
        name: "list_tools",
        shape: Shape::Listing,
        doc: "Every tool the server offers.",
    },
    Face {
        method: "resources/list",
        name: "list_resources",
        shape: Shape::Listing,
        doc: "Every resource the server offers.",
    },
    Face {
        method: "resources/templates/list",
        name: "list_resource_templates",
        shape: Shape::Listing,
        doc: "Every resource template the server offers.",
    },
    Face {
        method: "prompts/list",
        name: "list_prompts",
        shape: Shape::Listing,
        doc: "Every prompt the server offers.",
    },
    Face {
        method: "resources/read",
        name: "read_resource",
        shape: Shape::Uri {
            core: "read_resource",
        },
        doc: "Reads the resource at `uri`; an unknown URI is a JSON-RPC error, usually -32002.",
    },
    Face {
        method: "resources/subscribe",
        name: "subscribe_resource",
        shape: Shape::Uri { core: "subscribe" },
        doc: "Subscribes to updates of the resource at `uri`; they arrive as \
              `notifications/resources/updated` notifications.",
    },
    Face {
        method: "resources/unsubscribe",
        name: "unsubscribe_resource",
        shape: Shape::Uri {
            core: "unsubscribe",
        },
        doc: "Ends a subscription to the resource at `uri`.",
    },
];

/// The client requests each face writes by hand, and why.
pub(crate) const HAND_WRITTEN: &[(&str, &str)] = &[
    ("initialize", "the handshake, run when a client connects"),
    (
        "server/discover",
        "run when a client connects; its answer is a property",
    ),
    (
        "tools/call",
        "progress callbacks, and each face's form of a failed tool",
    ),
    ("prompts/get", "each face's form of the string arguments"),
    (
        "completion/complete",
        "the faces offer a call per reference kind",
    ),
    (
        "logging/setLevel",
        "a request in 2025-11-25, request metadata in 2026-07-28",
    ),
    ("subscriptions/listen", "a stream, not one answer"),
    ("tasks/get", "the task runners of each face"),
    ("tasks/result", "the task runners of each face"),
    ("tasks/list", "the task runners of each face"),
    ("tasks/cancel", "the task runners of each face"),
];

/// A generated operation: a [`Face`] with what the schema says of it.
#[derive(Debug)]
pub(crate) struct Operation {
    pub(crate) face: &'static Face,
    /// `RESOURCES_TEMPLATES_LIST`, the name of its constants.
    pub(crate) constant: String,
    /// The capability of the server it needs, if any.
    pub(crate) capability: Option<&'static str>,
    pub(crate) result: Returns,
}

/// What an operation gives back.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Returns {
    /// Nothing (an `EmptyResult`).
    Unit,
    /// The result type (its def name).
    Result(String),
    /// Every page's items: the result's array property and its item def.
    Items { key: String, item: String },
}

impl Operation {
    /// The core client function the faces call.
    pub(crate) fn core(&self) -> String {
        match (&self.face.shape, &self.result) {
            (Shape::Plain { core } | Shape::Uri { core }, _) => (*core).to_string(),
            (Shape::Listing, _) => {
                format!("list_all_{}", self.face.name.trim_start_matches("list_"))
            }
        }
    }
}

/// Every generated operation, in [`FACES`] order. Fails if a client request
/// of the schemas is neither generated nor in [`HAND_WRITTEN`], or if a face
/// names a method the schemas do not have.
pub(crate) fn operations(
    neutral: &Value,
    capability: impl Fn(&str) -> Option<&'static str>,
) -> Result<Vec<Operation>, Error> {
    let unions = model::tagged_unions(neutral)?;
    let requests = unions
        .iter()
        .find(|u| u.kind == UnionKind::Request && u.name == "ClientRequest")
        .ok_or_else(|| Error::Schema("no `ClientRequest` union".into()))?;
    for v in &requests.variants {
        let known = FACES.iter().any(|f| f.method == v.tag_value)
            || HAND_WRITTEN.iter().any(|(m, _)| *m == v.tag_value);
        if !known {
            return Err(Error::Schema(format!(
                "the client request `{}` is on no face: add it to FACES or HAND_WRITTEN \
                 in codegen/src/faces/operations.rs",
                v.tag_value
            )));
        }
    }
    let defs = defs(neutral).ok_or_else(|| Error::Schema("no `$defs`".into()))?;
    FACES
        .iter()
        .map(|face| {
            let v = requests
                .variants
                .iter()
                .find(|v| v.tag_value == face.method)
                .ok_or_else(|| {
                    Error::Schema(format!(
                        "FACES names `{}`, which no schema has",
                        face.method
                    ))
                })?;
            let result = v
                .result
                .as_deref()
                .ok_or_else(|| Error::Schema(format!("`{}` has no result", face.method)))?;
            let returns = match face.shape {
                Shape::Listing => listed_items(defs, result)?,
                _ if result == "EmptyResult" || result == "Result" => Returns::Unit,
                _ => Returns::Result(result.to_string()),
            };
            if matches!(face.shape, Shape::Plain { .. }) && returns != Returns::Unit {
                return Err(Error::Schema(format!(
                    "`{}` is generated without a result, but it has one",
                    face.method
                )));
            }
            if let Shape::Uri { .. } = face.shape {
                require_uri(
                    defs,
                    v.params.as_ref().map(|(p, _)| p.as_str()),
                    face.method,
                )?;
            }
            Ok(Operation {
                face,
                constant: method_const(face.method),
                capability: capability(&v.def),
                result: returns,
            })
        })
        .collect()
}

/// The array property of a list result other than its cursor, and the def
/// of its items.
fn listed_items(defs: &serde_json::Map<String, Value>, result: &str) -> Result<Returns, Error> {
    let properties = defs
        .get(result)
        .and_then(|d| d.get("properties"))
        .and_then(Value::as_object)
        .ok_or_else(|| Error::Schema(format!("`{result}` has no properties")))?;
    let mut arrays = properties.iter().filter_map(|(key, schema)| {
        let item = schema.pointer("/items/$ref")?.as_str()?;
        Some((key.clone(), item.rsplit('/').next()?.to_string()))
    });
    match (arrays.next(), arrays.next()) {
        (Some((key, item)), None) => Ok(Returns::Items { key, item }),
        _ => Err(Error::Schema(format!(
            "`{result}` does not list one kind of item"
        ))),
    }
}

/// Checks that `params` require `uri` and nothing else a caller gives
/// (`_meta`, required at 2026-07-28, is the client's own).
fn require_uri(
    defs: &serde_json::Map<String, Value>,
    params: Option<&str>,
    method: &str,
) -> Result<(), Error> {
    let required = params
        .and_then(|p| defs.get(p))
        .and_then(|d| d.get("required"))
        .and_then(Value::as_array);
    let mut given = required
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .filter(|key| *key != "_meta");
    match (given.next(), given.next()) {
        (Some("uri"), None) => Ok(()),
        _ => Err(Error::Schema(format!(
            "`{method}` is generated with one `uri` argument, but its params require otherwise"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{REVISIONS, merge, normalize, revision_schemas};

    /// The vendored schemas' neutral schema, as the generator reads it.
    fn neutral() -> Value {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let texts: Vec<String> = REVISIONS
            .iter()
            .map(|(_, path, _)| std::fs::read_to_string(root.join(path)).unwrap())
            .collect();
        let normalized: Vec<Value> = revision_schemas(&texts)
            .iter()
            .filter(|r| r.types)
            .map(|r| normalize::apply_all(&serde_json::from_str(r.json).unwrap()).unwrap())
            .collect();
        merge::neutral(&normalized.iter().collect::<Vec<_>>()).unwrap()
    }

    #[test]
    fn every_client_request_is_decided_once() {
        let neutral = neutral();
        let ops = operations(&neutral, crate::methods::capability).unwrap();
        assert_eq!(ops.len(), FACES.len());
        for face in FACES {
            assert!(
                !HAND_WRITTEN.iter().any(|(m, _)| *m == face.method),
                "{} is both generated and hand-written",
                face.method
            );
        }
        let mut names: Vec<&str> = FACES.iter().map(|f| f.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), FACES.len(), "two faces share a name");
    }

    #[test]
    fn shapes_follow_the_schema() {
        let neutral = neutral();
        let ops = operations(&neutral, crate::methods::capability).unwrap();
        let find = |m: &str| ops.iter().find(|o| o.face.method == m).unwrap();
        let templates = find("resources/templates/list");
        assert_eq!(
            templates.result,
            Returns::Items {
                key: "resourceTemplates".into(),
                item: "ResourceTemplate".into()
            }
        );
        assert_eq!(templates.core(), "list_all_resource_templates");
        assert_eq!(templates.capability, Some("resources"));
        assert_eq!(
            find("resources/read").result,
            Returns::Result("ReadResourceResult".into())
        );
        assert_eq!(find("resources/subscribe").result, Returns::Unit);
        assert_eq!(find("resources/subscribe").core(), "subscribe");
    }

    #[test]
    fn a_new_client_request_must_be_given_a_face() {
        let mut neutral = neutral();
        let defs = neutral["$defs"].as_object_mut().unwrap();
        let mut frob = defs["ListToolsRequest"].clone();
        frob["properties"]["method"]["const"] = "frob/list".into();
        defs.insert("FrobRequest".into(), frob);
        let result = defs["ListToolsResult"].clone();
        defs.insert("FrobResult".into(), result);
        defs["ClientRequest"]["anyOf"]
            .as_array_mut()
            .unwrap()
            .push(serde_json::json!({ "$ref": "#/$defs/FrobRequest" }));
        let error = operations(&neutral, crate::methods::capability).unwrap_err();
        assert!(
            error.to_string().contains("`frob/list` is on no face"),
            "{error}"
        );
    }
}
