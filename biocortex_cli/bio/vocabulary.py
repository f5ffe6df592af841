"""The shipped biology vocabulary: what else a question's words may be called, in recall's tokens.

``expand(tokenize(question))`` looks every uni-, bi- and trigram of the question up in
``biocortex_cli/data/vocabulary.sqlite`` and returns the synonyms recall may also look for, each
with a weight below 1 (the question's own terms weigh 1):

* ``hERG`` (token ``herg``) → ``kcnh2``, ``kv11 1``, ``lqt2`` (HGNC: approved symbol, aliases and
  previous symbols of one gene);
* ``multiplets`` (``multiplet``) → ``doublet`` and ``single-cell`` (``singl cell``) →
  ``scrna seq`` (the lab list);
* ``read mapping`` (``read map``) → ``read alignment``, ``short read map`` (EDAM exact synonyms).

Terms and synonyms are phrases of one to three tokens joined by a space, exactly as
``bio.text.tokenize`` writes them, so a synonym is looked up like any other query n-gram. The
vocabulary is used on the query side only: the index does not change when the vocabulary does.

Weights by source (``SOURCE_WEIGHTS``): the lab list 0.8 (curated for this use), HGNC 0.7 (exact
gene synonyms, but an alias in a question may still mean something else), the ontologies and
FamPlex 0.6 (exact names of a term, a protein family or a complex), EDAM 0.5 (exact synonyms of
broad concepts); a one-way entry (``potassium channel -> hERG``: related, not equivalent; a family
and its member genes, ``ERK`` → MAPK1, MAPK3) weighs ``ONE_WAY`` times its source's weight. A term
covered by a longer matched phrase is not expanded on its own (``potassium channel`` expands,
``channel`` does not).

Caps: at most ``MAX_PER_TERM`` synonyms for one term (lab first, then HGNC, the ontologies, FamPlex,
EDAM; within a gene the approved symbol first), except a family's member genes, which come all
together (the build keeps families of at most ``MAX_MEMBERS``), and ``MAX_TOTAL`` for the whole
question (highest weight first);
what the caps cut is counted in ``Expanded.dropped``. Keys that HGNC lists for several genes,
English words, lab jargon and very short symbols are never expanded: ``Expanded.withheld`` says
which of the question's terms were withheld and why (``scripts/build_vocabulary.py`` has the
rules, ``docs/vocabulary.md`` the sources and measurements).

A vault's own vocabulary (``vocabulary.md``, store/vocabulary.py) is compiled into a file of the
same form and given as ``local``: its groups come first and weigh more (``SOURCE_WEIGHTS["vault"]``),
and where it names a key the shipped file withholds (``NRF2``), the lab has decided: it expands.
``local.refuses`` may still turn a group down when it is asked (two members that are separate
entity notes: docs/vault-format.md).

Nothing is read at import; the data file is opened read-only on first use (~0.5 ms) and each
``expand`` costs two or three indexed queries (~0.1 ms for a ten-word question). The result
types are named tuples, as ``bio.entities.Entity``: a frozen dataclass costs ~1 ms to create at
import, and this module is on recall's start-up path.
"""

from __future__ import annotations

import functools
import os
import sqlite3
from collections.abc import Callable, Iterable, Sequence

from biocortex_cli.records import NamedTuple  # typing's, without importing typing (recall's path)

TYPE_CHECKING = False  # mypy takes it as True; typing and pathlib stay off recall's path
if TYPE_CHECKING:
    from pathlib import Path

__all__ = [
    "GENE_AMBIGUITY",
    "MAX_PER_TERM",
    "MAX_TOTAL",
    "ONE_WAY",
    "PATH",
    "SOURCE_WEIGHTS",
    "Expanded",
    "Expansion",
    "Local",
    "Withheld",
    "expand",
    "genes",
    "lossy",
    "member_keys",
    "metadata",
    "named_gene",
    "synonym_names",
    "write",
]

PATH = os.path.join(os.path.dirname(os.path.dirname(__file__)), "data", "vocabulary.sqlite")
SCHEMA_VERSION = "1"

#: How the withheld note of an alias or previous symbol of several genes starts (the ontologies'
#: ambiguous names say otherwise: ``genes`` tells the two apart).
GENE_AMBIGUITY = "ambiguous: an alias or previous symbol of "
#: The weight of a synonym by the source that made it one (the question's own terms weigh 1).
SOURCE_WEIGHTS: dict[str, float] = {"vault": 0.9, "lab": 0.8, "hgnc": 0.7, "ontology": 0.6, "famplex": 0.6,
                                     "edam": 0.5}
#: Factor for the targets of a one-way entry (related, not equivalent): a lab entry's, a family's members.
ONE_WAY = 0.75
MAX_PER_TERM = 6
MAX_TOTAL = 24
#: The source whose one-way groups are a family's or complex's members (FamPlex: ``ERK`` → MAPK1,
#: MAPK3): emitted all together, not cut by MAX_PER_TERM (MAX_TOTAL still counts them).
FAMILY_SOURCE = "famplex"
#: The most member genes a family may expand to (half of MAX_TOTAL): the build gives a larger one
#: (``Histone``, ``CDK``) no members group.
MAX_MEMBERS = MAX_TOTAL // 2
MAX_NGRAM = 3
#: The longest phrase looked up as a key: a gene's approved name (*kelch like ECH associated protein
#: 1*, six tokens) is a key that recall does not search for as such, only the symbol it expands to.
MAX_KEY_NGRAM = 6
#: Sources whose looked-up-only members are other names of the same thing, not related terms: their
#: synonyms keep the source's weight (HGNC: an approved name, too long to search, for its symbol).
EQUIVALENT_KEYS = frozenset({"hgnc"})
_SOURCE_ORDER = {"vault": 0, "lab": 1, "hgnc": 2, "ontology": 3, "famplex": 4, "edam": 5}
_CHUNK = 500  # bound parameters per query, well under SQLite's limit


class Expansion(NamedTuple):
    """``synonym`` may stand for the question's ``term`` (both: tokens joined by one space)."""

    term: str
    synonym: str
    weight: float
    source: str  # vault, lab, hgnc, ontology, famplex, edam
    group: str  # vocabulary.md:LINE, lab.txt:LINE, HGNC:ID, an ontology term (CL:0000540), FPLX:ERK or the EDAM class
    raw: str = ""  # the synonym as its source writes it (KCNH2, Kv11.1)

    @property
    def tokens(self) -> tuple[str, ...]:
        return tuple(self.synonym.split(" "))


class Withheld(NamedTuple):
    """A term of the question the vocabulary knows but will not expand, and why."""

    term: str
    reason: str  # "ambiguous: an alias or previous symbol of …", "word: an English word", …


class Local(NamedTuple):
    """A vault's compiled vocabulary: a file of this module's schema, and what may refuse one of
    its groups when a question matches it (the raw members in; a reason, or None to use it)."""

    path: Path | str
    refuses: Callable[[Sequence[str]], str | None] | None = None


class Expanded(NamedTuple):
    expansions: tuple[Expansion, ...]
    withheld: tuple[Withheld, ...] = ()
    dropped: int = 0  # synonyms cut by MAX_PER_TERM or MAX_TOTAL

    @property
    def synonyms(self) -> list[str]:
        return [e.synonym for e in self.expansions]


def expand(tokens: Sequence[str], *, local: Local | None = None, max_per_term: int = MAX_PER_TERM,
           max_total: int = MAX_TOTAL, nested: bool = False) -> Expanded:
    """Synonyms of the uni-, bi- and trigrams of ``tokens`` (the output of ``tokenize``), from the
    vault's ``local`` vocabulary first, then the shipped one. ``nested`` also expands a term inside
    a longer phrase that expands (``herg`` in ``herg liabil``): for name lookups, not for scoring."""
    spans = _ngrams(tokens)
    if not spans:
        return Expanded(())
    dbs = [_connect()] if local is None else [_connect_local(str(local.path)), _connect()]
    terms: dict[str, tuple[list[tuple[int, int]], str]] = {}  # key -> ([(db, group)], withheld)
    keys = list(dict.fromkeys(gram for gram, _start, _end in spans))
    for db_index, db in enumerate(dbs):
        for chunk in _chunks(keys):
            marks = ",".join("?" * len(chunk))
            for key, grps, note in db.execute(
                    f"SELECT key, grps, withheld FROM term WHERE key IN ({marks})", chunk):
                listed, why = terms.get(key, ([], ""))
                listed += [(db_index, int(g)) for g in grps.split()]
                terms[key] = (listed, why or note)
    if not terms:
        return Expanded(())

    # Longest match first: a term inside a longer phrase that expands is not expanded alone.
    covered: list[tuple[int, int]] = []
    matched: list[tuple[int, str, list[tuple[int, int]]]] = []  # (position, term, groups)
    withheld: list[Withheld] = []
    seen_terms: set[str] = set()
    longer: dict[tuple[int, str], str] = {}  # a gene's name inside another molecule's: the whole name
    for gram, start, end in spans:  # longest first, then left to right
        if gram not in terms or gram in seen_terms:
            continue
        if not nested and any(s <= start and end <= e and (e - s) > (end - start) for s, e in covered):
            continue
        seen_terms.add(gram)
        grps, why = terms[gram]
        if grps:
            covered.append((start, end))
            matched.append((start, gram, grps))
            tail = _another_molecule(tuple(tokens[end:end + 2])) if end - start > 1 else ()
            if tail:
                longer[(start, gram)] = " ".join((gram, *tail))
        elif why:
            withheld.append(Withheld(gram, why))
    matched.sort(key=lambda m: (m[0], -len(m[1])))
    groups = _groups(dbs, {g for _pos, _term, grps in matched for g in grps})

    in_question = set(keys)
    candidates: list[tuple[float, int, int, Expansion]] = []  # (-weight, position, order, …)
    dropped = 0
    for position, term, grps in matched:
        found: dict[str, Expansion] = {}
        members: dict[str, Expansion] = {}  # a family's member genes: all of them, past max_per_term
        usable = 0
        for grp in sorted(grps, key=lambda g: (_SOURCE_ORDER.get(groups[g][0], 9), g)):
            source, label, group_members = groups[grp]
            if source == "hgnc" and (position, term) in longer:
                withheld.append(Withheld(term, f"part of another molecule's name: {longer[(position, term)]}"))
                continue
            if source == "vault" and local is not None and local.refuses is not None:
                reason = local.refuses([raw for _mark, _target, _keys, raw in group_members])
                if reason:
                    withheld.append(Withheld(term, f"refused: {reason} ({label})"))
                    continue
            usable += 1
            one_way = any(mark == "<" and term in keys_ for mark, _t, keys_, _raw in group_members)
            weight = SOURCE_WEIGHTS.get(source, 0.5) * (ONE_WAY if one_way and source not in EQUIVALENT_KEYS else 1.0)
            into = members if one_way and source == FAMILY_SOURCE else found
            for mark, target, _keys, raw in group_members:
                if mark == "<" or target == term or target in in_question or target in found or target in members:
                    continue
                into[target] = Expansion(term, target, round(weight, 4), source, label, raw)
        if not usable and terms[term][1]:
            withheld.append(Withheld(term, terms[term][1]))
        kept = list(found.values())
        dropped += max(0, len(kept) - max_per_term)
        for order, expansion in enumerate([*kept[:max_per_term], *members.values()]):
            candidates.append((-expansion.weight, position, order, expansion))

    # The same synonym for two terms: the heavier (then earlier) one is kept; nothing is lost.
    best: dict[str, tuple[float, int, int, Expansion]] = {}
    for candidate in sorted(candidates, key=lambda c: c[:3]):
        best.setdefault(candidate[3].synonym, candidate)
    chosen = list(best.values())
    dropped += max(0, len(chosen) - max_total)
    kept_all = sorted(chosen[:max_total], key=lambda c: (c[1], c[2]))
    return Expanded(tuple(c[3] for c in kept_all), tuple(withheld), dropped)


class Gene(NamedTuple):
    """An HGNC gene a name stands for: its stable id and the first spelling the vocabulary keeps
    for it (the approved symbol, unless that one is withheld as a word or too short)."""

    hgnc: str  # HGNC:11998
    symbol: str


def genes(name: str) -> tuple[tuple[Gene, ...], str]:
    """The HGNC genes ``name`` is the approved symbol, an alias, a previous symbol or the approved
    name (as HGNC writes it, case and separators aside) of, and, when
    the vocabulary withholds it, why (``"ambiguous: an alias or previous symbol of A1CF, ASIP, …"``,
    ``"word: an English word"``). Used by facts for identifiers and ambiguous aliases."""
    from biocortex_cli.bio.text import tokenize

    key = " ".join(tokenize(name))
    row = _connect().execute("SELECT grps, withheld FROM term WHERE key = ?", (key,)).fetchone() if key else None
    if row is None:
        return (), ""
    grps, why = row
    if why.startswith("ambiguous") and not why.startswith(GENE_AMBIGUITY):
        why = ""  # a name of two ontology terms: no gene's ambiguity
    found = []
    for grp in (int(g) for g in str(grps).split()):
        hit = _connect().execute("SELECT source, label, members FROM synonym_group WHERE grp = ?", (grp,)).fetchone()
        if hit is None or hit[0] != "hgnc":
            continue
        lines = str(hit[2]).split("\n")
        # a symbol's key, or the approved name as written: not another word form of the name
        # (*growth factor receptors* shares *growth factor receptor*'s stemmed key)
        if any(not line.startswith("<") and key in line.split("\t")[1:] for line in lines) or any(
                line.startswith("<") and _plain(line[1:].split("\t", 1)[0]) == _plain(name) for line in lines):
            found.append(Gene(str(hit[1]), lines[0].split("\t", 1)[0].lstrip("<>")))
    return tuple(found), str(why)


def _plain(text: str) -> str:
    """A name with case and separators (space, hyphen, comma, period, underscore) aside."""
    import re

    return re.sub(r"[\s,._-]", "", text.casefold())


def named_gene(name: str) -> Gene | None:
    """The one gene whose approved name ``name`` is, as HGNC writes it, case and separators aside
    (*Epidermal growth factor receptor* is EGFR; *epidermal growth factor receptors* none), for a
    name of several words: :func:`genes` of it, without its symbols' matches."""
    if " " not in name.strip():
        return None
    found, _why = genes(name)
    return found[0] if len(found) == 1 else None


def synonym_names(text: str, *, local: Local | None = None) -> list[str]:
    """Other names of ``text`` as a whole, as their sources write them (``hERG`` → ``KCNH2``,
    ``Kv11.1``, ``LQT2``): what a name lookup (facts, entities) may also try."""
    from biocortex_cli.bio.text import tokenize

    tokens = tokenize(text)
    whole = " ".join(tokens)
    if not whole or len(tokens) > MAX_KEY_NGRAM:
        return []
    return [e.raw for e in expand(tokens, local=local).expansions if e.term == whole and e.raw]


def metadata() -> dict[str, str]:
    """The data file's ``meta`` table: sources with their SHA-256, counts, schema version."""
    return dict(_connect().execute("SELECT key, value FROM meta").fetchall())


# --- internals -----------------------------------------------------------------------------------


Member = tuple[str, str, tuple[str, ...], str]  # (mark "" / "<" / ">", target, keys, raw)


def _ngrams(tokens: Sequence[str]) -> list[tuple[str, int, int]]:
    """(phrase, start, end) of every 1- to MAX_KEY_NGRAM-gram, longest first, then left to right."""
    out = []
    for n in range(min(MAX_KEY_NGRAM, len(tokens)), 0, -1):
        for i in range(len(tokens) - n + 1):
            out.append((" ".join(tokens[i:i + n]), i, i + n))
    return out


def _another_molecule(after: tuple[str, ...]) -> tuple[str, ...]:
    """The words after a gene's name (two tokens or more: its approved name, or an alias such as
    *programmed cell death 1*) that make it another molecule's name: *hepatocyte growth factor
    receptor* is MET, not HGF; *tumor necrosis factor receptor 1* is TNFRSF1A, not TNF;
    *programmed cell death 1 ligand 1* is PD-L1 (CD274), not PD-1 (PDCD1). A receptor's or a
    ligand's own name is a longer key and wins before (*epidermal growth factor receptor*,
    *programmed cell death 1 ligand 2*); *EGFR ligands*, unnumbered, still mean EGFR's."""
    if after[:1] == ("receptor",):
        return ("receptor",)
    if len(after) == 2 and after[0] == "ligand" and after[1].isdigit():
        return after
    return ()


def _chunks(items: list[str]) -> list[list[str]]:
    return [items[i:i + _CHUNK] for i in range(0, len(items), _CHUNK)]


def _groups(dbs: Sequence[sqlite3.Connection], grps: set[tuple[int, int]]
            ) -> dict[tuple[int, int], tuple[str, str, list[Member]]]:
    out: dict[tuple[int, int], tuple[str, str, list[Member]]] = {}
    for db_index, db in enumerate(dbs):
        ids = sorted(g for d, g in grps if d == db_index)
        for i in range(0, len(ids), _CHUNK):
            chunk = ids[i:i + _CHUNK]
            marks = ",".join("?" * len(chunk))
            for grp, source, label, members in db.execute(
                    f"SELECT grp, source, label, members FROM synonym_group WHERE grp IN ({marks})", chunk):
                out[db_index, grp] = (source, label, [_member(line) for line in members.split("\n")])
    return out


def _member(line: str) -> Member:
    """``[<|>]raw<TAB>target[<TAB>other key]`` → (mark, target, keys, raw)."""
    raw, *keys = line.split("\t")
    mark = raw[0] if raw[:1] in ("<", ">") else ""
    return mark, keys[0], tuple(keys), raw[len(mark):]


@functools.cache
def _connect() -> sqlite3.Connection:
    if not os.path.exists(PATH):
        raise FileNotFoundError(f"{PATH}: the vocabulary data file is missing; reinstall biocortex "
                                "or run scripts/build_vocabulary.py")
    db = sqlite3.connect(f"file:{PATH}?mode=ro&immutable=1", uri=True, check_same_thread=False)
    row = db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    if row is None or row[0] != SCHEMA_VERSION:
        raise RuntimeError(f"{PATH}: schema version {row and row[0]!r}, expected {SCHEMA_VERSION!r}; "
                           "rebuild it with scripts/build_vocabulary.py")
    return db


@functools.lru_cache(maxsize=4)
def _connect_local(path: str) -> sqlite3.Connection:
    """A vault's compiled vocabulary: written once under a name that says its content, never
    changed in place (store/vocabulary.py), so it is opened as immutable."""
    db = sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True, check_same_thread=False)
    row = db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    if row is None or row[0] != SCHEMA_VERSION:
        raise RuntimeError(f"{path}: schema version {row and row[0]!r}, expected {SCHEMA_VERSION!r}")
    return db


# --- writing a vocabulary file (scripts/build_vocabulary.py, store/vocabulary.py) ----------------

SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
-- what a question's uni-, bi- or trigram finds: its groups, or why it is withheld
CREATE TABLE term (key TEXT PRIMARY KEY, grps TEXT NOT NULL, withheld TEXT NOT NULL) WITHOUT ROWID;
-- members: one line each, "[<|>]raw<TAB>target[<TAB>other key]": a member is looked up by its
-- target and other key and emitted as its target; "<" marks one looked up only, ">" one emitted only
CREATE TABLE synonym_group (grp INTEGER PRIMARY KEY, source TEXT NOT NULL, label TEXT NOT NULL,
                            members TEXT NOT NULL);
"""

#: A group's member: (role "both" / "key" (looked up only) / "target" (emitted only), raw, keys),
#: the first key being the target.
GroupMember = tuple[str, str, tuple[str, ...]]
_MARKS = {"both": "", "key": "<", "target": ">"}


@functools.lru_cache(maxsize=1 << 16)
def member_keys(raw: str, longest: int = MAX_NGRAM) -> tuple[str, ...]:
    """The keys of a term as written: its tokenisation, then that of its lower-case form when it
    differs (``PD-L1`` is the entity ``pd-l1``; typed ``pd-l1`` it is ``pd l1``). Empty when the
    term has no searchable word or more than ``longest`` tokens (recall matches 1- to 3-grams; a
    looked-up-only name may be up to MAX_KEY_NGRAM)."""
    from biocortex_cli.bio.text import tokenize

    target = tokenize(raw)
    if not target or len(target) > longest:
        return ()
    lower = tokenize(raw.lower()) if raw != raw.lower() else target
    if lower and len(lower) <= longest and lower != target:
        return (" ".join(target), " ".join(lower))
    return (" ".join(target),)


def lossy(raw: str, keep: frozenset[str] = frozenset()) -> bool:
    """Whether tokenising ``raw`` drops one of its words (``knock-out`` would be ``knock``, the same
    as ``knock-down``; ``T cell`` would be ``cell``): such a term is refused. Words in ``keep`` may
    drop (a question loses them too: the ontologies' ``of`` in *neck of uterus*)."""
    words, dropped = _dropped()
    return any(w in dropped and w not in keep for w in words(raw.lower()))


@functools.cache
def _dropped() -> tuple[Callable[[str], list[str]], frozenset[str]]:
    import re

    from biocortex_cli.bio.text import QUESTION_WORDS, STOP_WORDS

    return re.compile(r"[^\W_]+").findall, STOP_WORDS | QUESTION_WORDS


def group_lines(members: Iterable[GroupMember]) -> list[str]:
    """A group's stored member lines, or [] when it cannot expand anything (no key with another
    target)."""
    lines: list[str] = []
    lookups: set[str] = set()
    targets: set[str] = set()
    for role, raw, keys in members:
        unique = list(dict.fromkeys(keys))
        if role != "target":
            lookups.update(unique)
        if role != "key":
            targets.add(keys[0])
        lines.append("\t".join([_MARKS[role] + raw, *unique]))
    if not lookups or not targets or len(lookups | targets) < 2:
        return []
    return lines


def write(path: Path, groups: Iterable[tuple[str, str, Sequence[GroupMember]]],
          withheld: dict[str, tuple[str, str]], meta: dict[str, str], *, vacuum: bool = True) -> dict[str, int]:
    """Write a vocabulary file: ``groups`` as (source, label, members), ``withheld`` keys as
    key -> (reason, detail); replaces ``path`` atomically (``vacuum``: as small as it can be, for
    the shipped file). Returns counts by kind."""
    import os
    from collections import defaultdict

    tmp = path.with_name(f"{path.name}.tmp-{os.getpid()}")
    tmp.unlink(missing_ok=True)
    db = sqlite3.connect(tmp)
    try:
        db.execute("PRAGMA page_size = 4096")
        db.executescript(SCHEMA)
        counts: dict[str, int] = defaultdict(int)
        grps_of: dict[str, list[int]] = defaultdict(list)
        rows: list[tuple[int, str, str, str]] = []
        for source, label, members in groups:
            lines = group_lines(members)
            if not lines:
                continue
            rows.append((len(rows) + 1, source, label, "\n".join(lines)))
            counts[f"groups_{source}"] += 1
            for role, _raw, keys in members:
                counts["members"] += 1
                if role != "target":
                    for key in dict.fromkeys(keys):
                        if len(rows) not in grps_of[key]:
                            grps_of[key].append(len(rows))
        db.executemany("INSERT INTO synonym_group VALUES (?, ?, ?, ?)", rows)
        terms = {key: (" ".join(map(str, g)), "") for key, g in grps_of.items()}
        for key, (reason, detail) in withheld.items():
            counts[f"withheld_{reason}"] += 1
            terms[key] = (terms.get(key, ("", ""))[0], f"{reason}: {detail}")
        db.executemany("INSERT INTO term VALUES (?, ?, ?)", sorted((k, g, w) for k, (g, w) in terms.items()))
        counts["keys"] = len(terms)
        meta = {"schema_version": SCHEMA_VERSION, **meta, **{f"count_{k}": str(v) for k, v in sorted(counts.items())}}
        db.executemany("INSERT INTO meta VALUES (?, ?)", sorted(meta.items()))
        db.commit()
        if vacuum:
            db.execute("VACUUM")
    finally:
        db.close()
    os.replace(tmp, path)
    return dict(counts)
