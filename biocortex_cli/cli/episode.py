"""``biocortex episode add|import|show|list``."""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, Annotated, Any

from biocortex_cli.cli import state

if TYPE_CHECKING:
    import typer

def read_input(source: str) -> str:
    """Text from a file or '-' (stdin), refusing more than ``files.MAX_INPUT_BYTES``."""
    from biocortex_cli.errors import DataError, NotFoundError
    from biocortex_cli.store.files import read_capped

    if source == "-":
        where = "<stdin>"
        raw = read_capped(sys.stdin.buffer, where)
    else:
        where = source
        try:
            with open(source, "rb") as fh:
                raw = read_capped(fh, where)
        except FileNotFoundError:
            raise NotFoundError(f"no such file: {source}") from None
        except IsADirectoryError:
            raise DataError(f"{source} is a folder, not a file") from None
        except OSError as exc:
            raise DataError(f"cannot read {source}: {exc.strerror or exc}", path=source) from None
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DataError(f"input is not UTF-8 (byte {exc.start})", path=where) from None


def add(
    task: Annotated[str | None, typer.Option("--task", help="What was asked (required unless in --from-json).")] = None,
    plan: Annotated[str | None, typer.Option("--plan", help="The approach, with parameters.")] = None,
    tool: Annotated[list[str] | None, typer.Option("--tool", help="A tool used (repeat the option).")] = None,
    domain: Annotated[list[str] | None, typer.Option("--domain", help="A domain, e.g. scRNA-seq (repeatable).")] = None,
    result: Annotated[str | None, typer.Option("--result", help="What came out, with numbers.")] = None,
    success: Annotated[bool | None, typer.Option("--success/--failure", help="Whether the analysis worked.")] = None,
    quality: Annotated[float | None, typer.Option("--quality", min=0.0, max=1.0, help="Quality score 0-1.")] = None,
    lesson: Annotated[list[str] | None, typer.Option("--lesson", help="A lesson learned (repeatable).")] = None,
    entity: Annotated[list[str] | None, typer.Option("--entity", help="A biological entity (repeatable); more are found in the text.")] = None,
    id_: Annotated[str | None, typer.Option("--id", help="Episode id (default: date-slug-hash).")] = None,
    created: Annotated[str | None, typer.Option("--created", help="ISO 8601 time (default: now, UTC).")] = None,
    from_json: Annotated[str | None, typer.Option("--from-json", metavar="FILE|-",
                                                  help="Read the episode from a JSON object; options override its fields.")] = None,
    link_related: Annotated[int, typer.Option("--link-related", metavar="N", min=0, help="Record the N most related episodes in `related:` (linked in the note for Obsidian's graph).")] = 0,
    suggest: Annotated[bool, typer.Option("--suggest/--no-suggest", help="Print related episodes on stderr after writing.")] = True,
    json_: Annotated[bool, typer.Option("--json", help="Print the stored record as JSON instead of the id.")] = False,
) -> int:
    """Record one episode; prints its id (and related episodes on stderr)."""
    from biocortex_cli.errors import DataError, UsageError
    from biocortex_cli.store.episodes import add_episode
    from biocortex_cli.store.files import check_unicode

    if task is None and from_json is None:  # the command line lacks it: usage (2), not bad data (1)
        raise UsageError("--task is required (or give the episode with --from-json FILE|-)",
                         hint='e.g. biocortex episode add --task "Remove doublets from 10x Multiome PBMC data"')
    data: dict[str, Any] = {}
    if from_json is not None:
        text = read_input(from_json)
        try:
            loaded = json.loads(text)
        except json.JSONDecodeError as exc:
            raise DataError(f"invalid JSON: {exc.msg}", path=from_json, line=exc.lineno) from None
        except RecursionError:
            raise DataError("JSON nested too deeply", path=from_json, hint="give one flat JSON object") from None
        except ValueError as exc:  # an integer of more than 4300 digits
            raise DataError(f"invalid JSON: {exc}", path=from_json) from None
        if not isinstance(loaded, dict):
            raise DataError("--from-json needs one JSON object", path=from_json)
        check_unicode(loaded, from_json, record=True)
        data.update(loaded)
    options = {"task": task, "plan": plan, "tools": tool or None, "domains": domain or None,
               "result": result, "success": success, "quality": quality, "lessons": lesson or None,
               "entities": entity or None, "id": id_, "created": created}
    data.update({k: v for k, v in options.items() if v is not None})
    vault = state.vault()
    if link_related and "related" not in data and isinstance(data.get("task"), str):
        found = _related(vault, data, None, link_related)
        if found:
            data["related"] = [r.id for r in found]
    ep = add_episode(vault, data, vault.author(state.OPTIONS.author))
    if suggest:
        from biocortex_cli.errors import BiocortexError

        try:
            for r in _related(vault, ep.record, ep.id, 3, refresh=False):
                state.info(f"biocortex: related: {r.id} ({'; '.join(r.reasons)})")
        except BiocortexError as exc:  # a suggestion never fails a write that happened
            state.info(f"biocortex: warning: no related episodes: {exc.message}")
    if json_:
        state.emit_json(ep.as_json())
    else:
        state.out(ep.id)
    return 0


def import_(
    source: Annotated[str, typer.Argument(metavar="FILE|-", help="JSON Lines file, or - for stdin.")],
    json_: Annotated[bool, typer.Option("--json", help="Print the imported ids as JSON.")] = False,
) -> int:
    """Import episodes from JSON Lines in one commit (all or nothing); prints how many."""
    from biocortex_cli.store.episodes import import_episodes

    text = read_input(source)
    vault = state.vault()
    episodes = import_episodes(vault, text, "<stdin>" if source == "-" else source,
                               vault.author(state.OPTIONS.author))
    if json_:
        state.emit_json({"imported": len(episodes), "ids": [ep.id for ep in episodes]})
    else:
        state.out(str(len(episodes)))
    return 0


def show(
    ident: Annotated[str, typer.Argument(metavar="ID", help="Episode id.")],
    json_: Annotated[bool, typer.Option("--json", help="Print every field as JSON.")] = False,
) -> int:
    """Print one episode."""
    from biocortex_cli.index.listing import find_episode

    vault = state.vault()
    ep = find_episode(vault, ident)
    if json_:
        state.emit_json(ep.as_json())
    else:
        state.out((vault.root / ep.path).read_text(encoding="utf-8"))
    return 0


def list_(
    domain: Annotated[str | None, typer.Option("--domain", help="Only episodes with this domain.")] = None,
    tool: Annotated[str | None, typer.Option("--tool", help="Only episodes that used this tool.")] = None,
    entity: Annotated[str | None, typer.Option("--entity", help="Only episodes mentioning this entity.")] = None,
    success: Annotated[bool | None, typer.Option("--success/--failure", help="Only successes / failures.")] = None,
    since: Annotated[str | None, typer.Option("--since", metavar="WHEN", help="Only episodes created at or after WHEN: a date (2026-11-01), a date-time or an age (7d, 6mo); see 'Dates and ages' in docs/cli.md.")] = None,
    limit: Annotated[int | None, typer.Option("--limit", min=1, help="At most this many (newest first).")] = None,
    json_: Annotated[bool, typer.Option("--json", help="Print the episodes as JSON.")] = False,
) -> int:
    """List episodes, newest first."""
    from biocortex_cli.dates import parse_time
    from biocortex_cli.index.listing import list_episodes
    from biocortex_cli.render.text import episode_lines
    from biocortex_cli.store.episodes import EpisodeFilter

    filt = EpisodeFilter(domain=domain, tool=tool, entity=entity, success=success,
                         since=parse_time(since, option="--since") if since is not None else None, limit=limit)
    episodes, problems = list_episodes(state.vault(), filt)
    for problem in problems:
        state.info(f"biocortex: warning: {problem.location()}{problem.message} (skipped)")
    if json_:
        state.emit_json([ep.as_json() for ep in episodes])
    elif episodes:
        state.out(episode_lines(episodes))
    else:
        state.info("biocortex: no episodes match")
    return 0


def _related(vault: Any, record: dict[str, Any], ident: str | None, limit: int, *,
             refresh: bool = True) -> list[Any]:
    """Episodes related to ``record``; without ``refresh`` the index is read as it is (the
    suggestions after a write: refreshing it there doubled the time of ``episode add``)."""
    from biocortex_cli.index import store
    from biocortex_cli.index.build import refresh as refresh_index
    from biocortex_cli.recall.related import probe_from_record, related_episodes

    record = dict(record)
    if "entities" not in record or ident is None:
        from biocortex_cli.store.episodes import merge_entities

        record["entities"] = merge_entities(record)
    if refresh:
        conn, _report = refresh_index(vault, vault.config.tokenizer.encoding)
    else:
        try:
            conn = store.connect(store.index_path(vault.state_dir))
        except store.IndexUnusable:
            return []
    try:
        return related_episodes(conn, probe_from_record(record, ident), limit=limit)
    finally:
        conn.close()


def related(
    ident: Annotated[str, typer.Argument(metavar="ID", help="Episode id.")],
    limit: Annotated[int, typer.Option("--limit", min=1, help="At most this many related episodes.")] = 10,
    json_: Annotated[bool, typer.Option("--json", help="Print the related episodes as JSON.")] = False,
) -> int:
    """Episodes related to one: shared entities, tools, a similar task or a shared failure, with reasons."""
    from biocortex_cli.index.listing import find_episode
    from biocortex_cli.render.text import related_text

    vault = state.vault()
    ep = find_episode(vault, ident)
    found = _related(vault, ep.record, ep.id, limit)
    if json_:
        state.emit_json({"id": ep.id, "related": [r.as_json() for r in found]})
    elif found:
        state.out(related_text(found))
    else:
        state.info(f"biocortex: no episode is related to {ep.id}")
    return 0
