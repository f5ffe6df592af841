"""A fact as memory holds it: (subject, predicate, object) with sources, confidence and status.

The record is the fact note's frontmatter (:mod:`biocortex_cli.facts.notes` reads and writes the
notes). Names are compared case-insensitively; a fact's id and path derive from the normalised
triple, so the same triple always lands in the same file.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from biocortex_cli.errors import DataError, UsageError

if TYPE_CHECKING:
    from biocortex_cli.store.notes import Note
    from biocortex_cli.store.vault import Vault

STATUSES = ("current", "retracted", "superseded")
MAX_NAME = 500
_SLUG_PART = re.compile(r"[^a-z0-9]+")


@dataclass(frozen=True)
class Fact:
    record: dict[str, Any]
    path: str
    line: int = 1

    @property
    def id(self) -> str:
        return str(self.record["id"])

    @property
    def subject(self) -> str:
        return str(self.record["subject"])

    @property
    def predicate(self) -> str:
        return str(self.record["predicate"])

    @property
    def object(self) -> str:
        return str(self.record["object"])

    @property
    def confidence(self) -> float:
        value = self.record.get("confidence")
        return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0.0

    @property
    def status(self) -> str:
        return str(self.record.get("status") or "current")

    @property
    def sources(self) -> list[str]:
        value = self.record.get("source")
        if isinstance(value, str):
            return [value]
        return [str(s) for s in value] if isinstance(value, list) else []

    def sentence(self) -> str:
        return f"{self.subject} {self.predicate.replace('_', ' ')} {self.object}"

    def as_json(self) -> dict[str, Any]:
        from biocortex_cli.store.notes import _plain

        return {**_plain(self.record), "path": self.path}


@dataclass(frozen=True)
class FactRules:
    """Which predicates take one object only, and which contradict each other (config: facts)."""

    single_valued: frozenset[str] = frozenset()
    opposites: Mapping[str, str] = field(default_factory=dict)
    transitive: frozenset[str] = frozenset()

    @classmethod
    def from_config(cls, vault: Vault) -> FactRules:
        conf = vault.config.facts
        opposites: dict[str, str] = {}
        for a, b in conf.opposites.items():
            pa, pb = normalize_predicate(a), normalize_predicate(b)
            opposites[pa], opposites[pb] = pb, pa
        return cls(single_valued=frozenset(normalize_predicate(p) for p in conf.single_valued),
                   opposites=opposites,
                   transitive=frozenset(normalize_predicate(p) for p in conf.transitive))

    def conflicts(self, a: Fact, b: Fact) -> bool:
        """Whether two current facts contradict each other."""
        if a.id == b.id or a.status != "current" or b.status != "current":
            return False
        same_s = name_key(a.subject) == name_key(b.subject)
        if same_s and a.predicate == b.predicate and a.predicate in self.single_valued:
            return name_key(a.object) != name_key(b.object)
        return same_s and name_key(a.object) == name_key(b.object) and self.opposites.get(a.predicate) == b.predicate


# --- names, ids, paths --------------------------------------------------------------------


def clean_text(value: Any, what: str) -> str:
    if not isinstance(value, str):
        raise UsageError(f"the {what} must be text, not {value!r}")
    from unicodedata import normalize

    text = " ".join(normalize("NFC", value).split())
    if not text:
        raise UsageError(f"the {what} is empty", hint=f"give a non-empty {what}")
    if len(text) > MAX_NAME:
        raise UsageError(f"the {what} is {len(text)} characters long (at most {MAX_NAME})")
    if "[[" in text or "]]" in text:
        raise UsageError(f"the {what} {text!r} contains '[[' or ']]'",
                         hint="write the plain name; biocortex makes the links")
    return text


def normalize_predicate(value: str) -> str:
    """``Regulates`` → ``regulates``; ``failed QC on`` → ``failed_qc_on``."""
    text = clean_text(value, "predicate").casefold()
    return re.sub(r"[\s\-]+", "_", text).strip("_") or "_"


def name_key(name: str) -> str:
    """How names are compared: case-insensitively."""
    return name.casefold()


def _slug(text: str, limit: int) -> str:
    from unicodedata import normalize

    ascii_text = normalize("NFKD", text).encode("ascii", "ignore").decode().lower()
    slug = _SLUG_PART.sub("-", ascii_text).strip("-")[:limit].strip("-")
    return slug or "x"


def triple_hash(subject: str, predicate: str, obj: str) -> str:
    key = "\x1f".join((name_key(subject), predicate, name_key(obj)))
    from hashlib import sha1

    return sha1(key.encode("utf-8")).hexdigest()[:10]


def fact_id(subject: str, predicate: str, obj: str) -> str:
    return f"{_slug(subject, 36)}--{_slug(predicate, 30)}--{_slug(obj, 36)}-{triple_hash(subject, predicate, obj)}"


def fact_rel(subject: str, predicate: str, obj: str) -> str:
    return f"facts/{_slug(subject, 36)}/{fact_id(subject, predicate, obj)}.md"


# --- reading ------------------------------------------------------------------------------


def fact_from_note(note: Note) -> Fact:
    for key in ("id", "subject", "predicate", "object"):
        value = note.meta.get(key)
        if not isinstance(value, str) or not value.strip():
            raise DataError(f"{key} is required text", path=note.rel, line=note.line_of(key),
                            hint=f"write {key}: …")
    status = note.meta.get("status", "current")
    if status not in STATUSES:
        raise DataError(f"status must be one of {', '.join(STATUSES)}, not {status!r}", path=note.rel,
                        line=note.line_of("status"))
    return Fact(record=dict(note.meta), path=note.rel)
