"""Lessons through the library API: the lessons several episodes state (clustered), promoting
one to a lesson note, and refreshing the notes with the episodes that state them since.

``as_json()`` of each result is what ``biocortex lessons [promote|refresh] --json`` prints.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from biocortex_cli.api.checks import Bounds, checked, repairs_index

if TYPE_CHECKING:
    from biocortex_cli.lessons.notes import Promotion
    from biocortex_cli.lessons.promote import LessonsReport, PromoteResult
    from biocortex_cli.store.git import Author
    from biocortex_cli.store.vault import Vault


@dataclass(frozen=True)
class Refreshed:
    promotions: tuple[Promotion, ...]  # the lessons that gained supporting episodes

    def as_json(self) -> list[dict[str, Any]]:
        return [{"id": p.lesson.id, "path": p.lesson.path, "added": list(p.added)} for p in self.promotions]


@checked(min_support=Bounds(1, example=2), limit=Bounds(1))
@repairs_index()
def lessons(vault: Vault, *, min_support: int = 2, domain: str | None = None,
            limit: int | None = None) -> LessonsReport:
    """The lessons stated by at least ``min_support`` episodes, near-identical phrasings as one,
    most supported first."""
    from biocortex_cli.lessons.promote import list_lessons

    return list_lessons(vault, min_support=min_support, domain=domain, limit=limit)


@repairs_index(writes=True)
def lesson_promote(vault: Vault, *, target: str, author: Author, text: str | None = None,
                   summarizer: str | None = None, id: str | None = None) -> PromoteResult:
    """Write (or update) the lesson note of a cluster (its id, or a lesson's text)."""
    from biocortex_cli.lessons.promote import promote

    return promote(vault, target, author=author, text=text, summarizer=summarizer, ident=id)


@repairs_index(writes=True)
def lessons_refresh(vault: Vault, *, author: Author) -> Refreshed:
    """Add to each lesson note the episodes that state it since (one commit)."""
    from biocortex_cli.lessons.promote import refresh_promoted

    return Refreshed(tuple(refresh_promoted(vault, author=author)))
