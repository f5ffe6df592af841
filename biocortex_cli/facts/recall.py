"""The facts part of recall: current facts about the entities a question names.

Entities are found in the question by the extractor (identifiers, gene symbols) and by looking
up its words and phrases (up to three words) among entity names and aliases in the index, so
"p53" finds TP53's facts once p53 is an alias. Each fact's line and its token count were stored
at index time (facts/index.py), so the section is fitted to its budget by arithmetic.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from biocortex_cli.render.recall import FACTS, RecallPart

if TYPE_CHECKING:
    from biocortex_cli.facts.datasets_index import DatasetEdges

MAX_FACTS = 50
_WORD = re.compile(r"[^\s,;:!?()\[\]{}\"']+")


def phrases(query: str) -> set[str]:
    """The question's words and phrases of up to three words, and the entities the extractor
    finds in it, as written."""
    from biocortex_cli.bio.entities import entity_names

    words = _WORD.findall(query)
    found = {" ".join(words[i:i + n]).strip(".") for n in (1, 2, 3) for i in range(len(words) - n + 1)}
    found |= set(entity_names(query))
    found.discard("")
    return found


def query_keys(conn: sqlite3.Connection, query: str) -> set[str]:
    """Case-folded names and aliases of every entity of the question that memory knows."""
    grams = {p.casefold() for p in phrases(query)}
    if not grams:
        return set()
    ordered = sorted(grams)
    marks = ",".join("?" for _ in ordered)
    # every spelling of each entity named (an alias finds its entity note, the note all its names)
    keys = {str(k) for (k,) in conn.execute(
        f"SELECT a.alias_key FROM entity_aliases a JOIN entity_aliases b ON a.rel = b.rel "
        f"WHERE b.alias_key IN ({marks})", ordered)}
    keys.update(str(k) for (k,) in conn.execute(
        f"SELECT s_key FROM facts WHERE s_key IN ({marks}) UNION SELECT o_key FROM facts WHERE o_key IN ({marks})",
        [*ordered, *ordered]))
    return keys


def facts_part(conn: sqlite3.Connection, query: str, budget: int,
               datasets: Sequence[DatasetEdges] = ()) -> list[RecallPart]:
    """The facts section for ``query``, at most ``budget`` tokens (none when nothing fits): the
    notes' facts and the registered datasets' edges about the question's entities, most
    confident first (notes before datasets at equal confidence)."""
    try:
        keys = query_keys(conn, query)
    except sqlite3.OperationalError:  # fact tables not built (an old index): no facts section
        return []
    if (not keys and not datasets) or budget <= 0:
        return []
    rows: list[tuple[float, str, int, Any]] = []
    if keys:
        wanted = sorted(keys)
        marks = ",".join("?" for _ in wanted)
        rows = [(conf, line, tokens, record) for conf, _rel, record, line, tokens in conn.execute(
            f"SELECT confidence, rel, record, line, line_tokens FROM facts WHERE status = 'current' AND "
            f"(s_key IN ({marks}) OR o_key IN ({marks})) ORDER BY confidence DESC, rel LIMIT {MAX_FACTS}",
            [*wanted, *wanted])]
    if datasets:
        said = phrases(query)
        for source in datasets:  # (facts/datasets_index.py: the line and its tokens, from counted pieces)
            rows += source.recall_rows(source.question_nodes(said, keys), MAX_FACTS)
        rows.sort(key=lambda r: -r[0])  # stable: notes, then each dataset, at equal confidence
    if not rows:
        return []
    row = conn.execute("SELECT value FROM fact_state WHERE key = 'header_tokens'").fetchone()
    if row is None:
        return []
    used, lines, facts = int(row[0]), [], []
    for _conf, line, tokens, record in rows[:MAX_FACTS]:
        if used + tokens > budget:
            break
        used += tokens
        lines.append(line)
        facts.append(json.loads(record) if isinstance(record, str) else record)
    if not lines:
        return []
    # each line ends with a newline and the next begins with "-": tokens add up exactly
    from biocortex_cli.facts.render import RECALL_HEADER

    return [RecallPart(FACTS, RECALL_HEADER + "".join(lines), used, {"facts": facts})]
