"""The facts part of recall: current facts about the entities a question names.

Entities are found in the question by the extractor (identifiers, gene symbols) and by looking
up its words and phrases (up to three words) among entity names and aliases in the index, so
"p53" finds TP53's facts once p53 is an alias, and by their synonyms in the vault's vocabulary and
the shipped one (``hERG`` finds KCNH2's facts). Each fact's line and its token count were stored
at index time (facts/index.py), so the section is fitted to its budget by arithmetic.
"""

from __future__ import annotations

import json
import re
import sqlite3
from typing import TYPE_CHECKING

from biocortex_cli.render.recall import FACTS, RecallPart

if TYPE_CHECKING:
    from biocortex_cli.bio.vocabulary import Local

MAX_FACTS = 50
_WORD = re.compile(r"[^\s,;:!?()\[\]{}\"']+")


def query_keys(conn: sqlite3.Connection, query: str, *, synonyms: bool = True,
               local: Local | None = None) -> set[str]:
    """Case-folded names and aliases of every entity of the question that memory knows (with
    ``synonyms``, also of the entities its words' synonyms name)."""
    from biocortex_cli.bio.entities import entity_names

    words = _WORD.findall(query)
    grams = {" ".join(words[i:i + n]).strip(".").casefold()
             for n in (1, 2, 3) for i in range(len(words) - n + 1)}
    grams |= {name.casefold() for name in entity_names(query)}
    if synonyms:
        from biocortex_cli.bio.text import tokenize
        from biocortex_cli.bio.vocabulary import expand

        grams |= {e.raw.casefold() for e in expand(tokenize(query), local=local, nested=True).expansions if e.raw}
    grams.discard("")
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


def facts_part(conn: sqlite3.Connection, query: str, budget: int, *, synonyms: bool = True,
               local: Local | None = None) -> list[RecallPart]:
    """The facts section for ``query``, at most ``budget`` tokens (none when nothing fits)."""
    try:
        keys = query_keys(conn, query, synonyms=synonyms, local=local)
    except sqlite3.OperationalError:  # fact tables not built (an old index): no facts section
        return []
    if not keys or budget <= 0:
        return []
    wanted = sorted(keys)
    marks = ",".join("?" for _ in wanted)
    rows = conn.execute(
        f"SELECT confidence, rel, record, line, line_tokens FROM facts WHERE status = 'current' AND "
        f"(s_key IN ({marks}) OR o_key IN ({marks})) ORDER BY confidence DESC, rel LIMIT {MAX_FACTS}",
        [*wanted, *wanted]).fetchall()
    if not rows:
        return []
    row = conn.execute("SELECT value FROM fact_state WHERE key = 'header_tokens'").fetchone()
    if row is None:
        return []
    used, lines, facts = int(row[0]), [], []
    for _conf, _rel, record, line, tokens in rows:
        if used + tokens > budget:
            break
        used += tokens
        lines.append(line)
        facts.append(json.loads(record))
    if not lines:
        return []
    # each line ends with a newline and the next begins with "-": tokens add up exactly
    from biocortex_cli.facts.render import RECALL_HEADER

    return [RecallPart(FACTS, RECALL_HEADER + "".join(lines), used, {"facts": facts})]
