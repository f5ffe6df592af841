"""``biocortex vocabulary suggest|accept|remove|show|check``: the vault's own vocabulary (vocabulary.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

from biocortex_cli.cli import state
from biocortex_cli.progress import plural

if TYPE_CHECKING:
    import typer


def suggest(
    min_support: Annotated[int, typer.Option("--min-support", help="Only pairs with at least this much evidence (1 or more).")] = 2,
    limit: Annotated[int, typer.Option("--limit", help="At most this many suggestions, best supported first (0 = all).")] = 20,
    json_: Annotated[bool, typer.Option("--json", help="Print the suggestions as JSON.")] = False,
) -> int:
    """Synonym pairs mined from the vault's feedback and alike episodes, with their support. Nothing
    is applied: accept the ones you want with `biocortex vocabulary accept`."""
    from biocortex_cli.api.vocabulary import vocabulary_suggest
    from biocortex_cli.render.vocabulary import suggestions_text

    report = vocabulary_suggest(state.vault(), min_support=min_support, limit=limit)
    state.emit_json(report.as_json()) if json_ else state.write(suggestions_text(report))
    state.info(f"biocortex: {plural(len(report.suggestions), 'suggestion')} from {plural(report.episodes, 'episode')} and "
               f"{plural(report.feedback_records, 'feedback record')} ({report.known} already in the vocabulary, "
               f"{report.below_support} with support below {min_support}, {report.weak} whose words pair with too "
               f"much else, {report.separate_entities} joining two entities, {report.removed} removed from "
               "vocabulary.md before)")
    return 0


def accept(
    groups: Annotated[list[str], typer.Argument(metavar="GROUP...", help='Groups as vocabulary.md writes them ("doublet | multiplet"), or numbers of `vocabulary suggest`.')],
    min_support: Annotated[int, typer.Option("--min-support", help="The --min-support the numbers were listed with.")] = 2,
    json_: Annotated[bool, typer.Option("--json", help="Print what was written as JSON.")] = False,
) -> int:
    """Add synonym groups to the vault's vocabulary.md, in one commit."""
    from biocortex_cli.api.vocabulary import vocabulary_accept
    from biocortex_cli.render.vocabulary import accepted_text

    vault = state.vault()
    report = vocabulary_accept(vault, groups=groups, author=state.author(vault), min_support=min_support)
    state.emit_json(report.as_json()) if json_ else state.write(accepted_text(report))
    return 0


def remove(
    groups: Annotated[list[str], typer.Argument(metavar="GROUP...", help='Groups of vocabulary.md ("multiplet | seq"; the terms in any order, without the comment).')],
    json_: Annotated[bool, typer.Option("--json", help="Print what was removed as JSON.")] = False,
) -> int:
    """Take synonym groups out of the vault's vocabulary.md, in one commit (the undo of accept)."""
    from biocortex_cli.api.vocabulary import vocabulary_remove
    from biocortex_cli.render.vocabulary import removed_text

    vault = state.vault()
    report = vocabulary_remove(vault, groups=groups, author=state.author(vault))
    state.emit_json(report.as_json()) if json_ else state.write(removed_text(report))
    return 0


def show(
    text: Annotated[str | None, typer.Argument(help="A question or term; without it, the groups of vocabulary.md.")] = None,
    json_: Annotated[bool, typer.Option("--json", help="Print as JSON.")] = False,
) -> int:
    """What a question's words expand to (synonyms, weights, sources; terms withheld and why)."""
    from biocortex_cli.api.vocabulary import vocabulary_show
    from biocortex_cli.render.vocabulary import expansion_text

    shown = vocabulary_show(state.vault(), text=text)
    state.emit_json(shown.as_json()) if json_ else state.write(expansion_text(shown.data))
    return 0


def check(json_: Annotated[bool, typer.Option("--json", help="Print the problems as JSON.")] = False) -> int:
    """Validate vocabulary.md alone (`biocortex check` includes it). Exit 1 on problems."""
    from biocortex_cli.api.vocabulary import vocabulary_check
    from biocortex_cli.render.text import check_report

    found = vocabulary_check(state.vault())
    if json_:
        state.emit_json(found.as_json())
    elif found.problems:
        state.out(check_report(found.problems))
    state.info(f"biocortex: vocabulary.md: {plural(len(found.problems), 'problem')}")
    return 0 if found.ok else 1
