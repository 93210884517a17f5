"""The skills extension (``io.modelcontextprotocol/skills``): what
:meth:`Client.list_skills <libmcp.Client.list_skills>`,
:meth:`~libmcp.Client.get_skill` and :meth:`~libmcp.Client.load_skill`
return. Every file a client reads has been checked against its entry (size,
digest, frontmatter) by the library first."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, Optional

from .errors import ProtocolError


@dataclass(frozen=True)
class SkillFile:
    """One file of a skill, as its entry lists it."""

    #: Where ``resources/read`` reads it (``skill://…``).
    uri: str
    #: ``sha256:`` and the SHA-256 of its bytes in lowercase hex.
    digest: str
    #: Its length in bytes.
    size: int


@dataclass(frozen=True)
class SkillEntry:
    """A skill as ``skills/list`` and ``skills/get`` show it."""

    #: The URI of its ``SKILL.md`` (``skill://<path>/SKILL.md``).
    uri: str
    #: The ``SKILL.md`` frontmatter (``name`` and ``description`` at least).
    frontmatter: Dict[str, Any]
    #: Every file of the skill, ``SKILL.md`` included; ``None`` when the
    #: server publishes no manifest (``"dynamic"``).
    files: Optional[List[SkillFile]]

    @property
    def name(self) -> Optional[str]:
        """The frontmatter's ``name``."""
        name = self.frontmatter.get("name")
        return name if isinstance(name, str) else None

    @property
    def description(self) -> Optional[str]:
        """The frontmatter's ``description``."""
        description = self.frontmatter.get("description")
        return description if isinstance(description, str) else None

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "SkillEntry":
        """Reads the wire form."""
        try:
            resources = data["resources"]
            files = (
                None
                if resources == "dynamic"
                else [SkillFile(uri=f["uri"], digest=f["digest"], size=f["size"]) for f in resources]
            )
            return cls(uri=data["uri"], frontmatter=dict(data["frontmatter"]), files=files)
        except (KeyError, TypeError) as e:
            raise ProtocolError(f"invalid skill entry: {e!r} in {dict(data)!r}") from None


@dataclass(frozen=True)
class LoadedSkill:
    """A skill whose ``SKILL.md`` was read and verified against its entry."""

    #: The entry it was verified against.
    entry: SkillEntry
    #: The text of its ``SKILL.md``.
    skill_md: str

    @classmethod
    def _from_native(cls, pair: Any) -> "LoadedSkill":
        entry, text = pair
        return cls(entry=SkillEntry.from_dict(entry), skill_md=text)


def _entries(data: Any) -> List[SkillEntry]:
    return [SkillEntry.from_dict(d) for d in data]
