"""The lessons part of recall (``## Lessons that apply``), printed first.

Promoted lesson notes (``lessons/``, indexed by
:mod:`biocortex_cli.lessons.index`) are scored with recall's text signal without the length
normalisation: the IDF-weighted share of the query's fingerprints (1-3-grams, weighted as in
``episodic.ngram_weights``; unknown words count against it) found in the lesson's text, its
phrasings, tools, domains and entities. Those at or above ``min_relevance`` are printed first,
best first, within a share of the budget.
"""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING, Any

from biocortex_cli.render.recall import LESSONS, RecallPart

if TYPE_CHECKING:
    from biocortex_cli.bio.vocabulary import Local

MAX_LESSONS = 5  # lines in recall's lessons section


def lessons_part(conn: sqlite3.Connection, meta: dict[str, Any], query: str, budget: int, *,
                 min_relevance: float, ngram_weights: dict[str, float], max_df: float,
                 domain: str | None = None, synonyms: bool = True, local: Local | None = None) -> list[RecallPart]:
    """The promoted lessons that apply to ``query``, in at most ``budget`` tokens (none if none
    fits); with ``synonyms``, the query's synonyms count as in episodic recall (the vault's
    ``local`` vocabulary first: index/weights.py)."""
    from biocortex_cli.bio.text import tokenize
    from biocortex_cli.index.weights import MAX_QUERY_TERMS, query_weights
    from biocortex_cli.lessons.index import lessons_header_tokens, matching_lessons
    from biocortex_cli.lessons.render import RECALL_HEADER

    tokens = tokenize(query)[:MAX_QUERY_TERMS]
    if not tokens or budget <= 0:
        return []
    expanded = None
    if synonyms:
        from biocortex_cli.bio.vocabulary import expand

        expanded = expand(tokens, local=local)
    found = query_weights(conn, tokens, max(int(meta.get("n_docs", 0)), 1), ngram_weights, max_df, expanded)
    # a word (or synonym) no episode has may be in a lesson note: it counts here, with its weight
    weights = {**found.weights, **found.unknown_weights, **found.synonym_weights, **found.unknown_synonym_weights}
    denominator = found.denominator
    if denominator <= 0:
        return []
    domain_norm = None
    if domain:
        from biocortex_cli.index.build import attr_norm

        domain_norm = attr_norm(domain)
    scored = []
    for total, note in matching_lessons(conn, weights, found.coverage):
        if domain_norm is not None and domain_norm not in note.domains:
            continue
        score = min(1.0, total / denominator)
        if score >= min_relevance:
            scored.append((round(score, 4), note))
    scored.sort(key=lambda s: (-s[0], -s[1].support, s[1].id))
    inner = lessons_header_tokens(conn)  # header and every accepted line but the last's extra
    last_extra = 0
    lines: list[str] = []
    shown: list[dict[str, Any]] = []
    for score, note in scored[:MAX_LESSONS]:
        # every line ends with a newline and the next begins with "-"; the last one also carries
        # the blank line before the next section (both counts stored at index time)
        if inner + note.tokens_last > budget:
            break
        lines.append(note.line)
        inner += note.tokens
        last_extra = note.tokens_last - note.tokens
        shown.append({"id": note.id, "path": note.rel, "score": score, "lesson": note.lesson,
                      "support": note.support, "success_rate": note.success_rate})
    if not lines:
        return []
    return [RecallPart(LESSONS, RECALL_HEADER + "".join(lines) + "\n", inner + last_extra, {"lessons": shown})]
