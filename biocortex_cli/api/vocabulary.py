"""The vault's vocabulary through the library API: suggestions mined from the vault's evidence,
accepting groups into ``vocabulary.md`` (and removing them), what a text expands to, and the note's problems.

``as_json()`` of each result is what ``biocortex vocabulary suggest|accept|show|check --json``
prints (docs/vocabulary.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from biocortex_cli.api.checks import Bounds, checked

if TYPE_CHECKING:
    from biocortex_cli.ops.check import VaultProblem
    from biocortex_cli.ops.vocabulary import AcceptReport, RemoveReport, SuggestReport
    from biocortex_cli.store.git import Author
    from biocortex_cli.store.vault import Vault


@dataclass(frozen=True)
class Shown:
    """What a text expands to (``text`` given), or the note's groups."""

    data: dict[str, Any]

    def as_json(self) -> dict[str, Any]:
        return self.data


@dataclass(frozen=True)
class NoteCheck:
    problems: tuple[VaultProblem, ...]

    @property
    def ok(self) -> bool:
        return not self.problems

    def as_json(self) -> dict[str, Any]:
        return {"ok": self.ok, "problems": [p.as_json() for p in self.problems]}


@checked(min_support=Bounds(1, example=2), limit=Bounds(0, example=20))
def vocabulary_suggest(vault: Vault, *, min_support: int = 2, limit: int = 20) -> SuggestReport:
    """Synonym pairs mined from helpful feedback and alike episodes, best supported first;
    ``limit`` 0 lists them all. Nothing is applied."""
    from biocortex_cli.ops.vocabulary import suggest

    return suggest(vault, min_support=min_support, limit=limit or None)


@checked(min_support=Bounds(1, example=2))
def vocabulary_accept(vault: Vault, *, groups: Sequence[str], author: Author, min_support: int = 2) -> AcceptReport:
    """Append ``groups`` (as the note writes them, or numbers of ``vocabulary_suggest`` with the
    same ``min_support``) to ``vocabulary.md``, in one commit."""
    from biocortex_cli.ops.vocabulary import accept

    return accept(vault, groups, author, min_support=min_support)


def vocabulary_remove(vault: Vault, *, groups: Sequence[str], author: Author) -> RemoveReport:
    """Take ``groups`` (as the note writes them) out of ``vocabulary.md``, in one commit: the undo
    of ``vocabulary_accept``. Refused when one is not in the note."""
    from biocortex_cli.ops.vocabulary import remove

    return remove(vault, groups, author)


def vocabulary_show(vault: Vault, *, text: str | None = None) -> Shown:
    """The synonyms of ``text``'s words (with weights, sources, withheld terms), or without it the
    groups of ``vocabulary.md``."""
    from biocortex_cli.ops.vocabulary import show

    if text is not None and not text.strip():  # printed nothing, exit 0, as if no word had a synonym
        from biocortex_cli.errors import UsageError

        raise UsageError("the text is empty", hint='give a question or a term, e.g. biocortex vocabulary show '
                                                   '"hepatic macrophages"; without one, the groups of vocabulary.md')
    return Shown(show(vault, text))


def vocabulary_check(vault: Vault) -> NoteCheck:
    """The problems of ``vocabulary.md`` alone (``check`` reports them among the rest)."""
    from biocortex_cli.ops.vocabulary import check_note

    return NoteCheck(tuple(check_note(vault)))
