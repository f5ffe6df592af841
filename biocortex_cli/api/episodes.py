"""Episodic memory through the library API: record, import, read, list and relate episodes.

Each function takes the vault and keyword arguments and returns an immutable record (a
NamedTuple: no ``dataclasses`` on the listing path) whose ``as_json()`` is what ``biocortex
episode …`` prints with ``--json`` and what the MCP tools return. An episode's fields are the
record's (plural: ``tools``, ``lessons``); the singular spellings the CLI's options use are
accepted as the same fields (store/episodes.py).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from biocortex_cli.api.checks import POSITIVE, UNIT, Bounds, checked, repairs_index

if TYPE_CHECKING:
    from biocortex_cli.recall.related import Related
    from biocortex_cli.store.episode import Episode
    from biocortex_cli.store.git import Author
    from biocortex_cli.store.vault import Vault


class Imported(NamedTuple):
    episodes: tuple[Episode, ...]

    def as_json(self) -> dict[str, Any]:
        return {"imported": len(self.episodes), "ids": [ep.id for ep in self.episodes]}


class EpisodeList(NamedTuple):
    episodes: tuple[Episode, ...]  # newest first

    def as_json(self) -> list[dict[str, Any]]:
        return [ep.as_json() for ep in self.episodes]


class RelatedEpisodes(NamedTuple):
    id: str | None  # the episode they relate to (None: a record not yet written)
    related: tuple[Related, ...]
    problem: str | None = None  # why there are none, when the index could not say

    def as_json(self) -> dict[str, Any]:
        return {"id": self.id, "related": [r.as_json() for r in self.related]}


def episode_record(text: str, where: str) -> dict[str, Any]:
    """One episode object from JSON text (``--from-json``), its strings checked for Unicode."""
    from biocortex_cli.errors import DataError
    from biocortex_cli.store.files import check_unicode

    example = 'give one JSON object, e.g. {"task": "Remove doublets from 10x Multiome PBMC data", "success": true}'
    try:
        loaded = json.loads(text)
    except json.JSONDecodeError as exc:
        raise DataError(f"invalid JSON: {exc.msg}", path=where, line=exc.lineno, hint=example) from None
    except RecursionError:
        raise DataError("JSON nested too deeply", path=where, hint="give one flat JSON object") from None
    except ValueError as exc:  # an integer of more than 4300 digits
        raise DataError(f"invalid JSON: {exc}", path=where) from None
    if not isinstance(loaded, dict):
        raise DataError("--from-json needs one JSON object", path=where, hint=example)
    check_unicode(loaded, where, record=True)
    return loaded


@checked(quality=UNIT, link_related=Bounds(0))
@repairs_index(writes=True)
def episode_add(vault: Vault, *, author: Author, record: Mapping[str, Any] | None = None, task: str | None = None,
                plan: str | None = None, tools: Sequence[str] | None = None, domains: Sequence[str] | None = None,
                result: str | None = None, success: bool | None = None, quality: float | None = None,
                lessons: Sequence[str] | None = None, entities: Sequence[str] | None = None, id: str | None = None,
                created: str | None = None, provenance: Mapping[str, Any] | None = None,
                related: Sequence[str] | None = None, link_related: int = 0, where: str | None = None) -> Episode:
    """Record one episode: the fields of ``record`` (an episode object, e.g. from ``--from-json``;
    ``where`` names it in messages), overridden by the fields given as arguments (not None, not
    empty): every field of docs/vault-format.md's episode. ``link_related`` N records the N most
    related episodes in ``related`` (ids given there are kept as they are)."""
    from biocortex_cli.errors import UsageError
    from biocortex_cli.store.episodes import add_episode, plural_keys

    if task is None and record is None:  # the call lacks it: usage (2), not bad data (1)
        raise UsageError("--task is required (or give the episode with --from-json FILE|-)",
                         hint='e.g. biocortex episode add --task "Remove doublets from 10x Multiome PBMC data"')
    data = plural_keys(record or {}, where, None)
    given = {"task": task, "plan": plan, "tools": tools, "domains": domains, "result": result, "success": success,
             "quality": quality, "lessons": lessons, "entities": entities, "id": id, "created": created,
             "provenance": provenance, "related": related}
    data.update({k: list(v) if isinstance(v, list | tuple) else v for k, v in given.items()
                 if v is not None and v != [] and v != ()})
    if link_related and "related" not in data and isinstance(data.get("task"), str):
        found = _related(vault, data, None, link_related, refresh=True)
        if found:
            data["related"] = [r.id for r in found]
    from biocortex_cli.facts.notes import entity_note_finder

    return add_episode(vault, data, author, where, known=entity_note_finder(vault))


@repairs_index(writes=True)
def episode_import(vault: Vault, *, text: str, source: str, author: Author) -> Imported:
    """Import JSON Lines (one episode object per line) in one commit, all or nothing."""
    from biocortex_cli.facts.notes import entity_note_finder
    from biocortex_cli.store.episodes import import_episodes

    return Imported(tuple(import_episodes(vault, text, source, author, known=entity_note_finder(vault))))


@repairs_index()
def episode_show(vault: Vault, *, id: str) -> Episode:
    """One episode (live or archived), every field as it was given; an id outside the usual
    ``YYYY/MM`` folder is found through the index."""
    from biocortex_cli.index.listing import find_episode

    return find_episode(vault, id)


@checked(limit=POSITIVE)
@repairs_index()
def episode_list(vault: Vault, *, domain: str | None = None, tool: str | None = None, entity: str | None = None,
                 success: bool | None = None, since: str | None = None, limit: int | None = None) -> EpisodeList:
    """Episodes, newest first, filtered by a domain, tool or entity (any case), outcome, and
    creation time (``since``: a date, a date-time or an age such as 7d; docs/cli.md). Notes that
    cannot be read are skipped with a warning on stderr. Answered from the index (refreshed
    first), which stops at ``limit``."""
    from biocortex_cli.index.listing import list_episodes
    from biocortex_cli.store.episode import EpisodeFilter

    when = None
    if since is not None:  # the date grammar only when asked: it costs ~5 ms of imports
        from biocortex_cli.dates import parse_time

        when = parse_time(since, option="--since")
    filt = EpisodeFilter(domain=domain, tool=tool, entity=entity, success=success, since=when, limit=limit)
    episodes, problems = list_episodes(vault, filt)
    for problem in problems:
        sys.stderr.write(f"biocortex: warning: {problem.location()}{problem.message} (skipped)\n")
    return EpisodeList(tuple(episodes))


@checked(limit=POSITIVE)
@repairs_index()
def episode_related(vault: Vault, *, id: str, limit: int = 10) -> RelatedEpisodes:
    """Episodes related to one: shared entities or tools, a similar task, a shared failure."""
    from biocortex_cli.index.listing import find_episode

    ep = find_episode(vault, id)
    return RelatedEpisodes(ep.id, tuple(_related(vault, ep.record, ep.id, limit, refresh=True)))


def suggest_related(vault: Vault, *, episode: Episode, limit: int = 3) -> RelatedEpisodes:
    """What to show after a write: related episodes from the index as it is (refreshing it there
    doubled the time of ``episode add``); a suggestion never fails the write that happened."""
    from biocortex_cli.errors import BiocortexError

    try:
        return RelatedEpisodes(episode.id, tuple(_related(vault, episode.record, episode.id, limit, refresh=False)))
    except BiocortexError as exc:
        return RelatedEpisodes(episode.id, (), problem=exc.message)


def _related(vault: Vault, record: Mapping[str, Any], ident: str | None, limit: int, *,
             refresh: bool) -> list[Related]:
    from biocortex_cli.index import store
    from biocortex_cli.index.build import refresh as refresh_index
    from biocortex_cli.recall.related import probe_from_record, related_episodes

    probe_record = dict(record)
    if "entities" not in probe_record or ident is None:
        from biocortex_cli.store.episodes import merge_entities

        probe_record["entities"] = merge_entities(probe_record)
    if refresh:
        conn, _report = refresh_index(vault, vault.config.tokenizer.encoding)
    else:
        try:
            conn = store.connect(store.index_path(vault.state_dir))
        except store.IndexUnusable:
            return []
    try:
        return related_episodes(conn, probe_from_record(probe_record, ident), limit=limit)
    finally:
        conn.close()
