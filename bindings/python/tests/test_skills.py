"""The skills extension in the Python face, under both revisions: a Python
server serves a skills directory, the client lists, gets and loads skills
and reads their files (verified), reloading tells clients, and bad skills,
unknown skills, unlisted files and servers without the extension are clear
exceptions."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Iterator

import pytest

import libmcp
from conftest import run

PROTOCOLS = ["2025-11-25", "2026-07-28"]

SKILL_MD = "---\nname: notes\ndescription: Take notes in a fixed form.\n---\n# Notes\nSee refs/form.md\n"
FORM = b"# Form\n\xe2\x9c\x93 done\n"


def _write(root: Path, rel: str, data: bytes) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


@pytest.fixture
def skills_dir(tmp_path: Path) -> Path:
    _write(tmp_path, "notes/SKILL.md", SKILL_MD.encode())
    _write(tmp_path, "notes/refs/form.md", FORM)
    _write(tmp_path, "team/review/SKILL.md", b"---\nname: review\ndescription: Review a change.\n---\nBody\n")
    return tmp_path


@pytest.fixture
def server(skills_dir: Path) -> Iterator[libmcp.Server]:
    server = libmcp.Server("skills")
    server.serve_skills(skills_dir)
    yield server
    server.close()


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_list_get_load_and_read(server: libmcp.Server, protocol: str) -> None:
    async def body(url: str) -> None:
        async with libmcp.Client.http(url, protocol=protocol) as client:
            entries = await client.list_skills()
            assert [e.uri for e in entries] == ["skill://notes/SKILL.md", "skill://team/review/SKILL.md"]
            notes = await client.get_skill("skill://notes/SKILL.md")
            assert notes.name == "notes" and notes.description == "Take notes in a fixed form."
            assert notes.files is not None
            form = next(f for f in notes.files if f.uri.endswith("form.md"))
            assert form.size == len(FORM)
            assert form.digest == "sha256:" + hashlib.sha256(FORM).hexdigest()
            loaded = await client.load_skill("skill://notes/SKILL.md")
            assert loaded.skill_md == SKILL_MD and loaded.entry == notes
            assert await client.read_skill_file(notes.uri, "skill://notes/refs/form.md") == FORM
            with pytest.raises(libmcp.ProtocolError, match="secret"):
                await client.read_skill_file(notes.uri, "skill://notes/secret.md")
            with pytest.raises(libmcp.InvalidParams, match="no-such"):
                await client.get_skill("skill://no-such/SKILL.md")

    with server.start_http() as running:
        run(body(running.url))  # type: ignore[arg-type]


def test_the_sync_client_and_a_reload(server: libmcp.Server, skills_dir: Path) -> None:
    with server.start_http() as running:
        with libmcp.SyncClient.http(running.url) as client:  # type: ignore[arg-type]
            assert len(client.list_skills()) == 2
            assert client.load_skill("skill://team/review/SKILL.md").entry.name == "review"
            _write(skills_dir, "extra/SKILL.md", b"---\nname: extra\ndescription: One more.\n---\n")
            server.serve_skills(skills_dir)
            assert [e.name for e in client.list_skills()] == ["extra", "notes", "review"]
            assert client.read_skill_file("skill://notes/SKILL.md", "skill://notes/SKILL.md") == SKILL_MD.encode()


def test_bad_skill_directories_change_nothing(server: libmcp.Server, skills_dir: Path, tmp_path: Path) -> None:
    _write(skills_dir, "broken/SKILL.md", b"---\nname: not-broken\ndescription: x\n---\n")
    with pytest.raises(libmcp.InvalidArgument, match="not-broken"):
        server.serve_skills(skills_dir)
    with pytest.raises(libmcp.InvalidArgument, match="no-such-dir"):
        server.serve_skills(tmp_path / "no-such-dir")
    with server.start_http() as running:
        with libmcp.SyncClient.http(running.url) as client:  # type: ignore[arg-type]
            assert len(client.list_skills()) == 2


def test_a_server_without_skills() -> None:
    server = libmcp.Server("plain")

    @server.tool()
    def hello() -> str:
        """Says hello."""
        return "hello"

    try:
        with server.start_http() as running:
            with libmcp.SyncClient.http(running.url) as client:  # type: ignore[arg-type]
                with pytest.raises(libmcp.CapabilityNotSupported, match="skills"):
                    client.list_skills()
    finally:
        server.close()
