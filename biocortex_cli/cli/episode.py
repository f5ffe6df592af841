"""``biocortex episode add|import|show|list``."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Annotated

from biocortex_cli.cli import state

if TYPE_CHECKING:
    import typer

def read_input(source: str) -> str:
    """Text from a file or '-' (stdin), refusing more than ``limits.MAX_INPUT_BYTES``."""
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
    quality: Annotated[float | None, typer.Option("--quality", help="Quality score 0-1.")] = None,
    lesson: Annotated[list[str] | None, typer.Option("--lesson", help="A lesson learned (repeatable).")] = None,
    entity: Annotated[list[str] | None, typer.Option("--entity", help="A biological entity (repeatable); more are found in the text.")] = None,
    id_: Annotated[str | None, typer.Option("--id", help="Episode id (default: date-slug-hash).")] = None,
    created: Annotated[str | None, typer.Option("--created", help="ISO 8601 time (default: now, UTC).")] = None,
    from_json: Annotated[str | None, typer.Option("--from-json", metavar="FILE|-",
                                                  help="Read the episode from a JSON object (the fields of docs/vault-format.md; tool, lesson, … are read as tools, lessons, …); options override its fields.")] = None,
    link_related: Annotated[int, typer.Option("--link-related", metavar="N", help="Record the N most related episodes in `related:` (linked in the note for Obsidian's graph).")] = 0,
    suggest: Annotated[bool, typer.Option("--suggest/--no-suggest", help="Print related episodes on stderr after writing.")] = True,
    json_: Annotated[bool, typer.Option("--json", help="Print the stored record as JSON instead of the id.")] = False,
) -> int:
    """Record one episode; prints its id (and related episodes on stderr)."""
    from biocortex_cli.api.episodes import episode_add, episode_record, suggest_related

    where = record = None
    if from_json is not None:
        where = "<stdin>" if from_json == "-" else from_json
        record = episode_record(read_input(from_json), where)
    vault = state.vault()
    ep = episode_add(vault, author=state.author(vault), record=record, task=task, plan=plan, tools=tool,
                     domains=domain, result=result, success=success, quality=quality, lessons=lesson,
                     entities=entity, id=id_, created=created, link_related=link_related, where=where)
    if suggest:
        found = suggest_related(vault, episode=ep)
        for r in found.related:
            state.info(f"biocortex: related: {r.id} ({'; '.join(r.reasons)})")
        if found.problem:
            state.info(f"biocortex: warning: no related episodes: {found.problem}")
    state.emit_json(ep.as_json()) if json_ else state.out(ep.id)
    return 0


def import_(
    source: Annotated[str, typer.Argument(metavar="FILE|-", help="JSON Lines file, or - for stdin.")],
    json_: Annotated[bool, typer.Option("--json", help="Print the imported ids as JSON.")] = False,
) -> int:
    """Import episodes from JSON Lines in one commit (all or nothing); prints how many."""
    from biocortex_cli.api.episodes import episode_import

    text = read_input(source)
    vault = state.vault()
    done = episode_import(vault, text=text, source="<stdin>" if source == "-" else source, author=state.author(vault))
    state.emit_json(done.as_json()) if json_ else state.out(str(len(done.episodes)))
    return 0


def show(
    ident: Annotated[str, typer.Argument(metavar="ID", help="Episode id.")],
    json_: Annotated[bool, typer.Option("--json", help="Print every field as JSON.")] = False,
) -> int:
    """Print one episode."""
    from biocortex_cli.api.episodes import episode_show

    vault = state.vault()
    ep = episode_show(vault, id=ident)
    state.emit_json(ep.as_json()) if json_ else state.out((vault.root / ep.path).read_text(encoding="utf-8"))
    return 0


def list_(
    domain: Annotated[str | None, typer.Option("--domain", help="Only episodes with this domain.")] = None,
    tool: Annotated[str | None, typer.Option("--tool", help="Only episodes that used this tool.")] = None,
    entity: Annotated[str | None, typer.Option("--entity", help="Only episodes mentioning this entity.")] = None,
    success: Annotated[bool | None, typer.Option("--success/--failure", help="Only successes / failures.")] = None,
    since: Annotated[str | None, typer.Option("--since", metavar="WHEN", help="Only episodes created at or after WHEN: a date (2026-11-01), a date-time or an age (7d, 6mo); see 'Dates and ages' in docs/cli.md.")] = None,
    limit: Annotated[int | None, typer.Option("--limit", help="At most this many (newest first; 1 or more).")] = None,
    json_: Annotated[bool, typer.Option("--json", help="Print the episodes as JSON.")] = False,
) -> int:
    """List episodes, newest first."""
    from biocortex_cli.api.episodes import episode_list
    from biocortex_cli.render.text import episode_lines

    found = episode_list(state.vault(), domain=domain, tool=tool, entity=entity, success=success, since=since,
                         limit=limit)
    if json_:
        state.emit_json(found.as_json())
    elif found.episodes:
        state.out(episode_lines(found.episodes))
    else:
        state.info("biocortex: no episodes match")
    return 0


def related(
    ident: Annotated[str, typer.Argument(metavar="ID", help="Episode id.")],
    limit: Annotated[int, typer.Option("--limit", help="At most this many related episodes (1 or more).")] = 10,
    json_: Annotated[bool, typer.Option("--json", help="Print the related episodes as JSON.")] = False,
) -> int:
    """Episodes related to one: shared entities, tools, a similar task or a shared failure, with reasons."""
    from biocortex_cli.api.episodes import episode_related
    from biocortex_cli.render.text import related_text

    found = episode_related(state.vault(), id=ident, limit=limit)
    if json_:
        state.emit_json(found.as_json())
    elif found.related:
        state.out(related_text(found.related))
    else:
        state.info(f"biocortex: no episode is related to {found.id}")
    return 0
