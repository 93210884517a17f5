//! The skills extension (SEP-2640) end to end over the in-memory transport,
//! at both revisions: a server serving a `SkillCatalog` (`skills/list`
//! paginated, `skills/get`, files through `resources/read`,
//! `resources/directory/read`), the client listing, looking up and loading
//! skills with every file verified; tampered files, bad skills and a
//! reloaded catalog.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use std::time::Duration;

use mcp_core::client::{Client, Negotiation};
use mcp_core::jsonrpc::ErrorCode;
use mcp_core::schema::ServerNotification;
use mcp_core::server::{Server, ServerSession};
use mcp_core::session::RequestOptions;
use mcp_core::skills::{Skill, SkillCatalog, SkillEntry, SkillProblem, SkillResources};
use mcp_core::transport::memory_pair;
use mcp_core::{Error, ErrorKind, ProtocolVersion};
use serde_json::{Value, json};

const PDF_MD: &str = "---\nname: pdf\ndescription: Fills PDF forms\nmetadata:\n  owner: docs\n---\nSee refs/forms.md.\n";

fn catalog() -> SkillCatalog {
    let pdf = Skill::from_files(
        "acme/pdf",
        [
            ("SKILL.md", PDF_MD.as_bytes().to_vec()),
            ("refs/forms.md", b"Forms.\n".to_vec()),
            ("logo.bin", vec![0xff, 0x00, 0xfe]),
        ],
    )
    .unwrap();
    SkillCatalog::new()
        .directory_read(true)
        .with(pdf)
        .unwrap()
        .with(Skill::new("notes", "Takes notes", "Write it down.\n").unwrap())
        .unwrap()
        .with(Skill::new("review", "Reviews code", "Read it twice.\n").unwrap())
        .unwrap()
}

async fn connect(server: &Server, negotiation: Negotiation) -> (Client, ServerSession) {
    let (a, b) = memory_pair();
    let session = server.serve(b).unwrap();
    let client = Client::builder("c", "1")
        .negotiation(negotiation)
        .connect(a)
        .await
        .unwrap();
    (client, session)
}

fn problem(error: Error) -> SkillProblem {
    match error {
        Error::Skill { problem, .. } => problem,
        other => panic!("not a skill error: {other:?}"),
    }
}

fn rpc_code(error: Error) -> ErrorCode {
    match error {
        Error::Rpc(e) => e.code,
        other => panic!("not an RPC error: {other:?}"),
    }
}

#[tokio::test]
async fn list_get_load_and_read_at_both_revisions() {
    let server = Server::builder("skills", "1")
        .page_size(1)
        .skills(catalog())
        .build();
    for (negotiation, version) in [
        (Negotiation::Auto, ProtocolVersion::V2026_07_28),
        (Negotiation::Legacy, ProtocolVersion::V2025_11_25),
    ] {
        let (client, _session) = connect(&server, negotiation).await;
        assert_eq!(client.protocol_version(), version);
        assert!(client.offers_skills());
        let caps = serde_json::to_value(client.server_capabilities()).unwrap();
        assert_eq!(
            caps["extensions"]["io.modelcontextprotocol/skills"],
            json!({"directoryRead": true})
        );
        assert!(caps["resources"].is_object());

        // Paginated, an entry per page here.
        let first = client.list_skills(None).await.unwrap();
        assert_eq!(first.skills.len(), 1);
        assert!(first.next_cursor.is_some());
        let all = client.list_all_skills().await.unwrap();
        let uris: Vec<_> = all.iter().map(|e| e.uri.as_str()).collect();
        assert_eq!(
            uris,
            [
                "skill://acme/pdf/SKILL.md",
                "skill://notes/SKILL.md",
                "skill://review/SKILL.md"
            ]
        );
        let pdf = client.get_skill("skill://acme/pdf/SKILL.md").await.unwrap();
        assert_eq!(pdf, all[0]);
        assert_eq!(pdf.frontmatter["metadata"], json!({"owner": "docs"}));
        let unknown = client.get_skill("skill://nope/SKILL.md").await.unwrap_err();
        assert_eq!(rpc_code(unknown), ErrorCode::INVALID_PARAMS);

        // Loading reads SKILL.md, verified; other files on demand.
        let loaded = client.load_skill(&pdf).await.unwrap();
        assert_eq!(loaded.skill_md, PDF_MD);
        let forms = client
            .read_skill_file(&pdf, "skill://acme/pdf/refs/forms.md")
            .await
            .unwrap();
        assert_eq!(forms, b"Forms.\n");
        let logo = client
            .read_skill_file(&pdf, "skill://acme/pdf/logo.bin")
            .await
            .unwrap();
        assert_eq!(logo, [0xff, 0x00, 0xfe]);

        // Folders, with subfolders as inode/directory; a file is no folder.
        let root = read_directory(&client, "skill://acme/pdf").await;
        let kinds: Vec<_> = root
            .iter()
            .map(|r| (r["uri"].as_str().unwrap(), r["mimeType"].as_str().unwrap()))
            .collect();
        assert_eq!(
            kinds,
            [
                ("skill://acme/pdf/SKILL.md", "text/markdown"),
                ("skill://acme/pdf/logo.bin", "application/octet-stream"),
                ("skill://acme/pdf/refs", "inode/directory"),
            ]
        );
        let file = client
            .request_raw(
                "resources/directory/read",
                &json!({"uri": "skill://acme/pdf/SKILL.md"}),
                RequestOptions::default(),
            )
            .await
            .unwrap_err();
        assert_eq!(rpc_code(file), ErrorCode::INVALID_PARAMS);
        client.close().await;
    }
}

/// Every child of the folder at `uri`, page after page.
async fn read_directory(client: &Client, uri: &str) -> Vec<Value> {
    let mut children = Vec::new();
    let mut params = json!({ "uri": uri });
    loop {
        let page = client
            .request_raw(
                "resources/directory/read",
                &params,
                RequestOptions::default(),
            )
            .await
            .unwrap();
        let page: Value = serde_json::from_str(page.get()).unwrap();
        children.extend(page["resources"].as_array().unwrap().iter().cloned());
        match page.get("nextCursor") {
            Some(next) => params["cursor"] = next.clone(),
            None => return children,
        }
    }
}

/// The entry of the skill at `uri`, as listed.
async fn listed(client: &Client, uri: &str) -> SkillEntry {
    client.get_skill(uri).await.unwrap()
}

#[tokio::test]
async fn files_that_do_not_match_their_entry_are_refused() {
    let server = Server::builder("skills", "1").skills(catalog()).build();
    let (client, _session) = connect(&server, Negotiation::Auto).await;
    let entry = listed(&client, "skill://acme/pdf/SKILL.md").await;
    let with_files = |f: &dyn Fn(&mut Vec<mcp_core::skills::SkillFile>)| {
        let mut e = entry.clone();
        if let SkillResources::Files(files) = &mut e.resources {
            f(files);
        }
        e
    };

    let wrong_size = with_files(&|files| files[0].size += 1);
    let e = client.load_skill(&wrong_size).await.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Protocol);
    assert!(matches!(problem(e), SkillProblem::SizeMismatch { .. }));

    let wrong_digest = with_files(&|files| files[1].digest = format!("sha256:{}", "0".repeat(64)));
    let e = client
        .read_skill_file(&wrong_digest, &wrong_digest.file_uri(1))
        .await
        .unwrap_err();
    assert!(
        matches!(problem(e), SkillProblem::DigestMismatch { .. }),
        ""
    );

    let mut other_frontmatter = entry.clone();
    other_frontmatter
        .frontmatter
        .insert("description".into(), json!("Something else"));
    let e = client.load_skill(&other_frontmatter).await.unwrap_err();
    assert_eq!(
        problem(e),
        SkillProblem::FrontmatterMismatch {
            field: "description".into()
        }
    );

    let e = client
        .read_skill_file(&entry, "skill://notes/SKILL.md")
        .await
        .unwrap_err();
    assert!(matches!(problem(e), SkillProblem::NotListed(_)));
    // Nothing else is affected.
    assert!(client.load_skill(&entry).await.is_ok());
    client.close().await;
}

trait FileUri {
    fn file_uri(&self, i: usize) -> String;
}

impl FileUri for SkillEntry {
    fn file_uri(&self, i: usize) -> String {
        match &self.resources {
            SkillResources::Files(files) => files[i].uri.clone(),
            _ => panic!("no manifest"),
        }
    }
}

#[tokio::test]
async fn bad_skills_are_clear_errors() {
    let cases: [(&str, &[u8]); 4] = [
        ("pdf", b"no frontmatter"),
        ("pdf", b"---\nname: pdf\n---\n"),
        ("pdf", b"---\nname: Not Valid\ndescription: d\n---\n"),
        ("other", PDF_MD.as_bytes()),
    ];
    for (path, md) in cases {
        let e = Skill::from_files(path, [("SKILL.md", md)]).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidArgument, "{e}");
        assert!(e.to_string().starts_with("skill skill://"), "{e}");
    }
    let oversized = vec![0u8; 16 * 1024 * 1024];
    let e = Skill::from_files(
        "pdf",
        [("SKILL.md", PDF_MD.as_bytes().to_vec()), ("big", oversized)],
    )
    .unwrap_err();
    assert!(matches!(problem(e), SkillProblem::TooLarge { .. }));
    let dup = catalog().with(Skill::new("notes", "Again", "").unwrap());
    assert!(matches!(problem(dup.unwrap_err()), SkillProblem::Duplicate));

    // A server without the extension: the client says so, the server
    // does not know the methods.
    let plain = Server::builder("plain", "1").build();
    let (client, _session) = connect(&plain, Negotiation::Auto).await;
    assert!(matches!(
        client.list_skills(None).await.unwrap_err(),
        Error::CapabilityNotSupported { .. }
    ));
    let raw = client
        .request_raw("skills/list", &json!({}), RequestOptions::default())
        .await
        .unwrap_err();
    assert_eq!(rpc_code(raw), ErrorCode::METHOD_NOT_FOUND);
    client.close().await;
}

#[tokio::test]
async fn reloading_the_catalog_tells_clients() {
    let server = Server::builder("skills", "1").skills(catalog()).build();
    let (client, _session) = connect(&server, Negotiation::Legacy).await;
    let mut notifications = client.notifications();
    // Answered after `notifications/initialized` was read: the session is
    // ready to hear of changes.
    client.ping().await.unwrap();
    server
        .set_skills(
            SkillCatalog::new()
                .with(Skill::new("fresh", "New", "").unwrap())
                .unwrap(),
        )
        .unwrap();
    let heard = tokio::time::timeout(Duration::from_secs(5), async {
        loop {
            if let Ok(ServerNotification::ResourceListChanged(_)) = notifications.recv().await {
                return;
            }
        }
    })
    .await;
    assert!(heard.is_ok(), "no notifications/resources/list_changed");
    let uris: Vec<_> = client
        .list_all_skills()
        .await
        .unwrap()
        .into_iter()
        .map(|e| e.uri)
        .collect();
    assert_eq!(uris, ["skill://fresh/SKILL.md"]);
    let resources = client.list_all_resources().await.unwrap();
    assert_eq!(resources.len(), 1);
    assert_eq!(resources[0].uri, "skill://fresh/SKILL.md");
    assert_eq!(resources[0].description.as_deref(), Some("New"));
    // The old skills' files are gone.
    assert!(
        client
            .read_resource("skill://acme/pdf/refs/forms.md")
            .await
            .is_err()
    );
    client.close().await;
}
