"""The facts part of recall: current facts about the entities a question names.

Entities are found in the question by the extractor (identifiers, gene symbols) and by looking
up its words and phrases (up to three words) among entity names, aliases and identifiers in the
index — exactly (ignoring case), never by substring — so "p53" finds TP53's facts once p53 is an
alias, and "MYC" never finds MYCN's; also by their synonyms in the vault's vocabulary and the
shipped one (``hERG`` finds KCNH2's facts: the vocabulary withholds English words and ambiguous
aliases, so a synonym never brings a common word's facts).

A gene symbol that is also a common English word (``MAX``, ``REST``, ``SET``, ``KIT``, ``BAD``,
``WAS``: the words and analysis jargon the shipped vocabulary withholds, and stop words) counts
only when the question **writes it as a symbol** — in a spelling the entity's note lists, case
included (``REST``, not "the rest of") — or **names it as an entity** (next to "gene",
"protein", "knockout", …: "the rest gene"). "At the max dose, what is the rest of the effect?"
brings no facts about MAX or REST.

Each fact's line and its token count were stored at index time (facts/index.py), so the section
is fitted to its budget by arithmetic.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from biocortex_cli.packed import unpack
from biocortex_cli.render.recall import FACTS, RecallPart

if TYPE_CHECKING:
    from biocortex_cli.bio.vocabulary import Local
    from biocortex_cli.facts.datasets_index import DatasetEdges

MAX_FACTS = 50
_WORD = re.compile(r"[^\s,;:!?()\[\]{}\"']+")
#: words that say the word beside them is an entity ("the rest gene", "max knockout")
ENTITY_CONTEXT = frozenset("""gene genes protein proteins locus transcript transcripts promoter enhancer
knockout knockouts ko knockdown kd mutant mutants mutation mutations variant variants allele alleles
expression overexpression isoform isoforms paralog paralogs ortholog orthologs symbol tf""".split())


def english_word(word: str) -> bool:
    """A common English word (or analysis jargon) that HGNC also uses as a symbol, or a stop word:
    the shipped vocabulary withholds such keys (docs/vocabulary.md)."""
    from biocortex_cli.bio.text import tokenize

    tokens = tokenize(word)
    if not tokens:  # a stop word ("was", "can")
        return True
    if len(tokens) != 1:
        return False
    from biocortex_cli.bio.vocabulary import expand

    try:
        withheld = expand(tokens).withheld
    except (OSError, RuntimeError):
        return False
    return any(w.reason.startswith(("word", "jargon")) for w in withheld)


def _grams(query: str) -> dict[str, list[tuple[str, int, int]]]:
    """key -> (as written, first word, end word) of every 1- to 3-word phrase of the question."""
    words = _WORD.findall(query)
    out: dict[str, list[tuple[str, int, int]]] = {}
    for n in (1, 2, 3):
        for i in range(len(words) - n + 1):
            text = " ".join(words[i:i + n]).strip(".")
            if text:
                out.setdefault(text.casefold(), []).append((text, i, i + n))
    return out


def question(query: str, *, synonyms: bool = False,
             local: Local | None = None) -> tuple[dict[str, list[tuple[str, int, int]]], list[str]]:
    """The question's phrases (key -> where and how each is written, with the extractor's
    identifiers and symbols, and with ``synonyms`` the names its words' synonyms give) and its
    case-folded words."""
    from biocortex_cli.bio.entities import entity_names

    grams = _grams(query)
    words = [w.strip(".").casefold() for w in _WORD.findall(query)]
    for name in entity_names(query):  # identifiers and symbols as the extractor writes them
        grams.setdefault(name.casefold(), []).append((name, -1, -1))
    if synonyms:  # the vocabulary withholds English words and ambiguous aliases: these count whole
        from biocortex_cli.bio.text import tokenize
        from biocortex_cli.bio.vocabulary import expand

        for e in expand(tokenize(query), local=local, nested=True).expansions:
            if e.raw:
                grams.setdefault(e.raw.casefold(), []).append((e.raw, -1, -1))
    grams.pop("", None)
    return grams, words


def query_keys(conn: sqlite3.Connection, query: str, *, synonyms: bool = True, local: Local | None = None,
               asked: tuple[dict[str, list[tuple[str, int, int]]], list[str]] | None = None) -> set[str]:
    """Case-folded names and aliases of every entity of the question that memory knows (with
    ``synonyms``, also of the entities its words' synonyms name); ``asked``: the question's
    :func:`question`, when the caller has it."""
    grams, words = asked or question(query, synonyms=synonyms, local=local)
    if not grams:
        return set()
    ordered = sorted(grams)
    marks = ",".join("?" for _ in ordered)
    # every spelling of each entity named (an alias finds its entity note, the note all its names)
    spellings: dict[str, set[str]] = {}
    keys_of: dict[str, set[str]] = {}
    for matched, key, alias in conn.execute(
            f"SELECT b.alias_key, a.alias_key, a.alias FROM entity_aliases a JOIN entity_aliases b ON a.rel = b.rel "
            f"WHERE b.alias_key IN ({marks})", ordered):
        spellings.setdefault(matched, set()).add(alias)
        keys_of.setdefault(matched, set()).add(key)
    for end, name in conn.execute(
            f"SELECT s_key, subject FROM facts WHERE s_key IN ({marks}) UNION "
            f"SELECT o_key, object FROM facts WHERE o_key IN ({marks})",
            [*ordered, *ordered]):
        spellings.setdefault(end, set()).add(str(name))
        keys_of.setdefault(end, set()).add(end)
    keys: set[str] = set()
    for matched, names in spellings.items():
        if any(_as_entity(text, start, end, names, words) for text, start, end in grams.get(matched, [])):
            keys |= keys_of[matched]
    return keys


def _between(record: Any, keys: set[str]) -> bool:
    """Whether a fact (a packed note record or a dataset edge's dict) links two of ``keys``."""
    data = unpack(record) if isinstance(record, bytes) else record
    ends = {str(data.get("subject", "")).casefold(), str(data.get("object", "")).casefold()}
    return len(ends) == 2 and ends <= keys


def _as_entity(text: str, start: int, end: int, spellings: set[str], words: list[str]) -> bool:
    """Whether the question's ``text`` names the entity: always for a phrase, a word that is no
    English word, or a spelling the entity has (case included); an English word only when
    written as a symbol or beside a word such as "gene"."""
    if " " in text or text in spellings or start < 0:
        return True
    if all(s == s.lower() for s in spellings):  # "lymphocyte": a lower-case name is no symbol
        return True
    if not english_word(text):
        return True
    return any(0 <= i < len(words) and words[i] in ENTITY_CONTEXT for i in (start - 1, end))


def facts_part(conn: sqlite3.Connection, query: str, budget: int,
               datasets: Sequence[DatasetEdges] = (), *, synonyms: bool = True,
               local: Local | None = None) -> list[RecallPart]:
    """The facts section for ``query``, at most ``budget`` tokens (none when nothing fits): the
    notes' facts and the registered datasets' edges about the question's entities, most
    confident first (notes before datasets at equal confidence)."""
    asked = question(query, synonyms=synonyms, local=local)
    try:
        keys = query_keys(conn, query, asked=asked)
    except sqlite3.OperationalError:  # fact tables not built (an old index): no facts section
        return []
    if (not keys and not datasets) or budget <= 0:
        return []
    rows: list[tuple[float, str, int, Any]] = []
    if keys:
        wanted = sorted(keys)
        marks = ",".join("?" for _ in wanted)
        # the facts between two of the question's entities first (as a dataset's edges come): "how
        # does TP53 regulate CDKN1A?" listed the first 50 facts about either by path — AATF's,
        # ABL1's, AR's — and never TP53 → CDKN1A, which the question asks about
        rows = [(conf, line, tokens, record) for conf, _rel, record, line, tokens, _both in conn.execute(
            f"SELECT confidence, rel, record, line, line_tokens, s_key != o_key AND s_key IN ({marks}) AND "
            f"o_key IN ({marks}) AS both_ends FROM facts WHERE status = 'current' AND "
            f"(s_key IN ({marks}) OR o_key IN ({marks})) ORDER BY both_ends DESC, confidence DESC, rel "
            f"LIMIT {MAX_FACTS}", [*wanted, *wanted, *wanted, *wanted])]
    if datasets:
        grams, words = asked
        for source in datasets:  # a dataset's name counts by the same rule as a note's
            nodes = set(source.nodes(keys))
            for key, node, name in source.named(grams):
                if any(_as_entity(text, start, end, {name}, words) for text, start, end in grams[key]):
                    nodes.add(node)
            rows += source.recall_rows(sorted(nodes), MAX_FACTS)  # lines and tokens from counted pieces
        rows.sort(key=lambda r: (not _between(r[3], keys), -r[0]))  # stable: notes, then each dataset
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
        facts.append(unpack(record) if isinstance(record, bytes) else record)
    if not lines:
        return []
    # each line ends with a newline and the next begins with "-": tokens add up exactly
    from biocortex_cli.facts.render import RECALL_HEADER

    return [RecallPart(FACTS, RECALL_HEADER + "".join(lines), used, {"facts": facts})]
