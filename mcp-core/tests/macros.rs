//! `#[mcp_core::handlers]` end to end: a struct with state whose tools,
//! prompts and resources are listed (schemas from the signatures and doc
//! comments) and called by a client over the in-memory pair, in a
//! 2025-11-25 session and with 2026-07-28 requests that stand alone.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod common;

use std::sync::{Arc, Mutex};

use common::{WAIT, obj, text, with_client};
use indexmap::IndexMap;
use mcp_core::ProtocolVersion;
use mcp_core::client::{Client, Negotiation};
use mcp_core::jsonrpc::{ErrorCode, RpcError};
use mcp_core::schema::{ReadResourceResultContentsItem, Tool};
use mcp_core::server::{Context, Json, Parameters, Server, ServerSession};
use mcp_core::transport::memory_pair;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// A notebook: the state every tool, prompt and resource shares.
struct Notebook {
    owner: String,
    notes: Mutex<Vec<String>>,
}

#[derive(Serialize, JsonSchema)]
struct Added {
    /// How many notes there are now.
    count: usize,
    owner: String,
}

#[derive(Deserialize, JsonSchema)]
struct Search {
    /// Text the note contains.
    contains: String,
}

#[derive(Serialize, JsonSchema)]
struct Found {
    notes: Vec<String>,
    client: String,
}

#[mcp_core::handlers]
impl Notebook {
    /// Adds a note.
    ///
    /// Tags are kept in front.
    #[tool(title = "Add a note", idempotent = false, open_world = false)]
    async fn add_note(
        &self,
        /** The note's text. */
        text: String,
        tag: Option<String>,
    ) -> Json<Added> {
        tokio::task::yield_now().await;
        let note = match tag {
            Some(tag) => format!("[{tag}] {text}"),
            None => text,
        };
        let mut notes = self.notes.lock().unwrap();
        notes.push(note);
        Json(Added {
            count: notes.len(),
            owner: self.owner.clone(),
        })
    }

    /// How many notes there are.
    #[tool(name = "count", read_only)]
    fn count_notes(&self) -> String {
        self.notes.lock().unwrap().len().to_string()
    }

    /// Fails when asked to.
    #[tool]
    fn check(&self, fail: bool, r#type: Option<u8>) -> Result<String, String> {
        if fail {
            Err(format!("failed as asked (type {type:?})"))
        } else {
            Ok("fine".into())
        }
    }

    /// Answers a JSON-RPC error.
    #[tool]
    async fn refuse(&self) -> Result<(), RpcError> {
        Err(RpcError::invalid_params("refused"))
    }

    #[tool(description = "Finds notes.")]
    async fn search(&self, cx: Context, Parameters(search): Parameters<Search>) -> Json<Found> {
        let notes = self.notes.lock().unwrap().clone();
        Json(Found {
            notes: notes
                .into_iter()
                .filter(|n| n.contains(&search.contains))
                .collect(),
            client: cx.client_info().map(|i| i.name.clone()).unwrap_or_default(),
        })
    }

    /// Asks for a summary of the notes.
    #[prompt(title = "Summary")]
    fn summarize(
        &self,
        /** How to write it. */
        style: String,
        language: Option<String>,
    ) -> String {
        format!(
            "Summarize {} notes of {}, {style}, in {}.",
            self.notes.lock().unwrap().len(),
            self.owner,
            language.as_deref().unwrap_or("English")
        )
    }

    /// Every note, one a line.
    #[resource(uri = "notes://all", mime_type = "text/plain", title = "All notes")]
    async fn all(&self, _cx: Context) -> String {
        self.notes.lock().unwrap().join("\n")
    }

    /// One note by its index.
    #[resource(uri = "notes://note/{index}", name = "note")]
    fn one(&self, index: String) -> Result<String, RpcError> {
        let notes = self.notes.lock().unwrap();
        index
            .parse::<usize>()
            .ok()
            .and_then(|i| notes.get(i).cloned())
            .ok_or_else(|| RpcError::new(ErrorCode::RESOURCE_NOT_FOUND, "no such note"))
    }

    /// Not marked: an ordinary method, left alone.
    fn owner(&self) -> &str {
        &self.owner
    }
}

fn notebook() -> Arc<Notebook> {
    Arc::new(Notebook {
        owner: "ada".into(),
        notes: Mutex::new(Vec::new()),
    })
}

async fn connect(server: &Server, negotiation: Negotiation) -> (Client, ServerSession) {
    let (a, b) = memory_pair();
    let session = server.serve(b).unwrap();
    let client = Client::builder("macro-test-client", "1.0.0")
        .negotiation(negotiation)
        .connect(a)
        .await
        .unwrap();
    (client, session)
}

fn tool<'a>(tools: &'a [Tool], name: &str) -> &'a Tool {
    tools
        .iter()
        .find(|t| t.name == name)
        .unwrap_or_else(|| panic!("no tool `{name}`"))
}

fn schema(tool: &Tool) -> Value {
    serde_json::to_value(&tool.input_schema).unwrap()
}

#[tokio::test]
async fn tools_list_their_schemas_from_the_signatures() {
    let server = Server::builder("notebook", "1.0.0")
        .handlers(notebook())
        .build();
    let (client, _session) = connect(&server, Negotiation::Auto).await;
    with_client(client, WAIT, |client| async move {
        let tools = client.list_tools(None).await.unwrap().tools;
        let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["add_note", "count", "check", "refuse", "search"]);

        let add = tool(&tools, "add_note");
        assert_eq!(
            add.description.as_deref(),
            Some("Adds a note.\n\nTags are kept in front.")
        );
        assert_eq!(add.title.as_deref(), Some("Add a note"));
        let input = schema(add);
        assert_eq!(input["type"], "object");
        assert!(input.get("title").is_none(), "{input}");
        assert_eq!(input["required"], json!(["text"]));
        assert_eq!(
            input["properties"]["text"]["description"],
            "The note's text."
        );
        assert!(input["properties"]["tag"].is_object(), "{input}");
        let annotations = add.annotations.as_ref().unwrap();
        assert_eq!(annotations.idempotent_hint, Some(false));
        assert_eq!(annotations.open_world_hint, Some(false));
        assert_eq!(annotations.read_only_hint, None);
        let output = serde_json::to_value(add.output_schema.as_ref().unwrap()).unwrap();
        assert_eq!(output["type"], "object");
        assert_eq!(output["required"], json!(["count", "owner"]));
        assert_eq!(
            output["properties"]["count"]["description"],
            "How many notes there are now."
        );

        let count = tool(&tools, "count");
        assert_eq!(
            count.description.as_deref(),
            Some("How many notes there are.")
        );
        assert_eq!(
            count.annotations.as_ref().unwrap().read_only_hint,
            Some(true)
        );
        assert!(count.output_schema.is_none());
        let no_arguments = schema(count);
        assert_eq!(no_arguments["type"], "object");
        assert!(
            no_arguments["properties"]
                .as_object()
                .is_none_or(serde_json::Map::is_empty),
            "{no_arguments}"
        );

        // `r#type` is the argument `type`; `Option` makes it optional.
        let check = schema(tool(&tools, "check"));
        assert_eq!(check["required"], json!(["fail"]));
        assert!(check["properties"]["type"].is_object(), "{check}");

        // `Parameters<T>`: `T`'s schema is the input schema.
        let search = tool(&tools, "search");
        assert_eq!(search.description.as_deref(), Some("Finds notes."));
        let input = schema(search);
        assert_eq!(input["required"], json!(["contains"]));
        assert_eq!(
            input["properties"]["contains"]["description"],
            "Text the note contains."
        );
    })
    .await;
}

#[tokio::test]
async fn tools_are_called_with_shared_state() {
    for negotiation in [Negotiation::Auto, Negotiation::Legacy] {
        let notebook = notebook();
        let server = Server::builder("notebook", "1.0.0")
            .handlers(notebook.clone())
            .build();
        let (client, _session) = connect(&server, negotiation).await;
        let expected = match negotiation {
            Negotiation::Legacy => ProtocolVersion::V2025_11_25,
            _ => ProtocolVersion::V2026_07_28,
        };
        assert_eq!(client.protocol_version(), expected);
        with_client(client, WAIT, move |client| async move {
            let added = client
                .call_tool(
                    "add_note",
                    Some(obj(json!({"text": "milk", "tag": "shop"}))),
                )
                .await
                .unwrap();
            assert!(!added.is_error(), "{added:?}");
            assert_eq!(
                added.structured_content,
                Some(json!({"count": 1, "owner": "ada"}))
            );
            let added = client
                .call_tool("add_note", Some(obj(json!({"text": "eggs"}))))
                .await
                .unwrap();
            assert_eq!(added.structured_content.unwrap()["count"], 2);
            assert_eq!(
                *notebook.notes.lock().unwrap(),
                ["[shop] milk".to_owned(), "eggs".to_owned()]
            );
            assert_eq!(notebook.owner(), "ada");

            let count = client.call_tool("count", None).await.unwrap();
            assert_eq!(text(&count, 0), "2");

            // A missing required argument: the schema refuses it.
            let missing = client
                .call_tool("add_note", Some(obj(json!({"tag": "x"}))))
                .await
                .unwrap();
            assert!(missing.is_error());
            assert!(text(&missing, 0).contains("text"), "{missing:?}");

            // `Err` of a `Result` is `isError` with its message.
            let failed = client
                .call_tool("check", Some(obj(json!({"fail": true, "type": 7}))))
                .await
                .unwrap();
            assert!(failed.is_error());
            assert_eq!(text(&failed, 0), "failed as asked (type Some(7))");
            let fine = client
                .call_tool("check", Some(obj(json!({"fail": false}))))
                .await
                .unwrap();
            assert!(!fine.is_error());
            assert_eq!(text(&fine, 0), "fine");

            // An `RpcError` is answered as that JSON-RPC error.
            match client.call_tool("refuse", None).await {
                Err(mcp_core::Error::Rpc(e)) => {
                    assert_eq!(e.code, ErrorCode::INVALID_PARAMS);
                    assert!(e.message.contains("refused"), "{e:?}");
                }
                other => panic!("expected a JSON-RPC error, got {other:?}"),
            }

            // `Parameters<T>` and `Context`.
            let found = client
                .call_tool("search", Some(obj(json!({"contains": "milk"}))))
                .await
                .unwrap();
            assert_eq!(
                found.structured_content,
                Some(json!({"notes": ["[shop] milk"], "client": "macro-test-client"}))
            );
        })
        .await;
    }
}

#[tokio::test]
async fn prompts_and_resources_are_served() {
    let notebook = notebook();
    notebook.notes.lock().unwrap().push("first".into());
    let server = Server::builder("notebook", "1.0.0")
        .handlers(notebook)
        .build();
    let (client, _session) = connect(&server, Negotiation::Auto).await;
    with_client(client, WAIT, |client| async move {
        let prompts = client.list_prompts(None).await.unwrap().prompts;
        assert_eq!(prompts.len(), 1);
        let summarize = &prompts[0];
        assert_eq!(summarize.name, "summarize");
        assert_eq!(summarize.title.as_deref(), Some("Summary"));
        assert_eq!(
            summarize.description.as_deref(),
            Some("Asks for a summary of the notes.")
        );
        let arguments = summarize.arguments.as_ref().unwrap();
        assert_eq!(arguments[0].name, "style");
        assert_eq!(
            arguments[0].description.as_deref(),
            Some("How to write it.")
        );
        assert_eq!(arguments[0].required, Some(true));
        assert_eq!(arguments[1].name, "language");
        assert_eq!(arguments[1].required, Some(false));

        let args: IndexMap<String, String> = [("style".to_owned(), "briefly".to_owned())].into();
        let got = client.get_prompt("summarize", Some(args)).await.unwrap();
        let text = got.messages[0].content.as_text().unwrap();
        assert_eq!(text, "Summarize 1 notes of ada, briefly, in English.");
        match client.get_prompt("summarize", None).await {
            Err(mcp_core::Error::Rpc(e)) => assert_eq!(e.code, ErrorCode::INVALID_PARAMS),
            other => panic!("expected -32602, got {other:?}"),
        }

        let resources = client.list_resources(None).await.unwrap().resources;
        assert_eq!(resources.len(), 1);
        assert_eq!(resources[0].uri, "notes://all");
        assert_eq!(resources[0].name, "all");
        assert_eq!(resources[0].title.as_deref(), Some("All notes"));
        assert_eq!(resources[0].mime_type.as_deref(), Some("text/plain"));
        assert_eq!(
            resources[0].description.as_deref(),
            Some("Every note, one a line.")
        );
        let templates = client
            .list_resource_templates(None)
            .await
            .unwrap()
            .resource_templates;
        assert_eq!(templates.len(), 1);
        assert_eq!(templates[0].uri_template, "notes://note/{index}");
        assert_eq!(templates[0].name, "note");

        let all = client.read_resource("notes://all").await.unwrap();
        match &all.contents[0] {
            ReadResourceResultContentsItem::TextResourceContents(t) => {
                assert_eq!(t.text, "first");
                assert_eq!(t.uri, "notes://all");
                assert_eq!(t.mime_type.as_deref(), Some("text/plain"));
            }
            other => panic!("not text: {other:?}"),
        }
        let one = client.read_resource("notes://note/0").await.unwrap();
        match &one.contents[0] {
            ReadResourceResultContentsItem::TextResourceContents(t) => {
                assert_eq!(t.text, "first");
                assert_eq!(t.uri, "notes://note/0");
            }
            other => panic!("not text: {other:?}"),
        }
        // Resource not found: -32002, which 2026-07-28 answers as -32602.
        match client.read_resource("notes://note/9").await {
            Err(mcp_core::Error::Rpc(e)) => assert!(
                [ErrorCode::RESOURCE_NOT_FOUND, ErrorCode::INVALID_PARAMS].contains(&e.code),
                "{e:?}"
            ),
            other => panic!("expected resource not found, got {other:?}"),
        }
    })
    .await;
}
