"""The episode record and the listing filter: what the listings read, without the write path.

``store/episodes.py`` (validation, notes, import) re-exports both. They live here so that
``episode list``, ``episode show`` and ``log``, answered from the index (index/listing.py), import
neither the note machinery nor ``dataclasses`` (which brings ``inspect``, ``ast``, ``dis`` and
``tokenize``: ~30 M instructions, more than the listing itself at 100k episodes).
"""

from __future__ import annotations

import datetime as dt
import os
import re
from typing import TYPE_CHECKING, Any, NamedTuple

from biocortex_cli.errors import DataError

if TYPE_CHECKING:
    from biocortex_cli.store.vault import Vault

ID_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")
EPISODE_DIRS = ("episodes", "archive/episodes")  # live and archived episodes


class Episode:
    """One past analysis. ``record`` holds the frontmatter fields in file order. Immutable by
    convention; equal when record, path and line are (``key_lines``, where each key was
    written, does not count)."""

    __slots__ = ("key_lines", "line", "path", "record")

    def __init__(self, record: dict[str, Any], path: str = "", line: int = 1,
                 key_lines: dict[str, int] | None = None) -> None:
        self.record = record
        self.path = path
        self.line = line
        self.key_lines: dict[str, int] = {} if key_lines is None else key_lines

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Episode):
            return NotImplemented
        return (self.record, self.path, self.line) == (other.record, other.path, other.line)

    __hash__ = None  # type: ignore[assignment]  # the record is a dict

    def __repr__(self) -> str:
        return f"Episode(record={self.record!r}, path={self.path!r}, line={self.line!r})"

    @property
    def id(self) -> str:
        return str(self.record["id"])

    @property
    def task(self) -> str:
        return str(self.record.get("task", ""))

    @property
    def created(self) -> str:
        return str(self.record.get("created", ""))

    @property
    def success(self) -> bool | None:
        value = self.record.get("success")
        return value if isinstance(value, bool) else None

    @property
    def quality(self) -> float | None:
        value = self.record.get("quality")
        return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None

    def strings(self, key: str) -> list[str]:
        value = self.record.get(key) or []
        return [str(v) for v in value] if isinstance(value, list) else []

    def text(self, key: str) -> str:
        value = self.record.get(key)
        return value if isinstance(value, str) else ""

    def as_json(self) -> dict[str, Any]:
        return {**self.record, "path": self.path}


#: a whole value that is an Obsidian link: ``[[target]]``, ``[[target#heading]]``, ``[[target|label]]``
_LINK = re.compile(r"\[\[([^\]|#^\n]+)(?:[#^][^\]|\n]*)?(?:\|([^\]\n]*))?\]\]")


def link_names(value: str) -> tuple[str, ...]:
    """The names a list value stands for: itself, or, when it is an Obsidian link (Obsidian's
    property editor stores ``"[[TP53]]"``), its target and its label (``[[CL_0000844|CL:0000844]]``
    is how biocortex links an entity whose name a file cannot have)."""
    if not value.startswith("[[") or not value.endswith("]]"):
        return (value,)
    m = _LINK.fullmatch(value.strip())
    if m is None:
        return (value,)
    return tuple(dict.fromkeys(n.strip() for n in m.groups() if n and n.strip()))


class EpisodeFilter(NamedTuple):
    domain: str | None = None
    tool: str | None = None
    entity: str | None = None
    success: bool | None = None
    since: dt.datetime | None = None  # aware (UTC); the CLI parses it with biocortex_cli.dates
    limit: int | None = None


def _iso(text: str) -> dt.datetime:
    return dt.datetime.fromisoformat(text.strip().replace("Z", "+00:00"))


def zoneless(value: Any) -> bool:
    """Whether a ``created`` that :func:`parse_created` reads is a time without a zone (read as UTC)."""
    if isinstance(value, str):
        try:
            value = _iso(value)
        except ValueError:
            return False
    return isinstance(value, dt.datetime) and value.tzinfo is None


def parse_created(value: Any, *, path: str | None = None, line: int | None = None) -> dt.datetime:
    """An episode's ``created`` as an aware UTC date-time (one without a zone is read as UTC:
    :func:`zoneless`); DataError (path:line) when it is none."""
    if isinstance(value, dt.datetime):
        parsed = value
    elif isinstance(value, str):
        try:
            parsed = _iso(value)
        except ValueError:
            raise DataError(f"created {value!r} is not an ISO 8601 date-time", path=path, line=line,
                            hint="write it like 2026-11-22T14:05:00Z") from None
    else:
        raise DataError(f"created must be an ISO 8601 date-time, not {value!r}", path=path, line=line,
                        hint="write it like 2026-11-22T14:05:00Z")
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=dt.timezone.utc)
    try:
        return parsed.astimezone(dt.timezone.utc)
    except OverflowError:  # 9999-12-31T23:59:59-01:00 is in the year 10000 in UTC
        raise DataError(f"created {value!s} is beyond the last date-time biocortex can store "
                        "(9999-12-31T23:59:59Z in UTC)", path=path, line=line,
                        hint="write a real date-time, like 2026-11-22T14:05:00Z") from None


def validate_id(value: Any, *, path: str | None = None, line: int | None = None) -> str:
    if not isinstance(value, str) or not ID_RE.fullmatch(value):
        raise DataError(f"invalid id {value!r}", path=path, line=line,
                        hint="ids are 1-128 characters: letters, digits, '.', '_' or '-', "
                             "starting with a letter or digit")
    return value


def episode_path(vault: Vault, ident: str) -> str | None:
    """The rel path of episode ``ident`` (live or archived), or None — by looking in each
    ``YYYY/MM`` folder for ``<id>.md`` (a few hundred stats) instead of listing every note, so a
    write or a lookup stays fast in a vault of 100k episodes. A note placed deeper by hand is
    not seen here (``find_episode`` falls back to the full walk; ``check`` reports duplicate ids)."""
    name = f"{ident}.md"
    for base in EPISODE_DIRS:
        root = vault.root / base
        try:
            years = [e for e in os.scandir(root) if e.is_dir()]
        except OSError:
            continue
        for year in years:
            try:
                months = [e for e in os.scandir(year.path) if e.is_dir()]
            except OSError:
                continue
            for month in months:
                if os.path.isfile(os.path.join(month.path, name)):
                    return f"{base}/{year.name}/{month.name}/{name}"
        if os.path.isfile(root / name):
            return f"{base}/{name}"
    return None
