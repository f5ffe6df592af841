"""Episodic recall: score past analyses against a query, gate them, fit them to a token budget.

One pipeline of named stages (:func:`search`), each reading only the index:

1. ``_asked``: the query's terms, their synonyms (the vault's vocabulary, then the shipped one:
   bio/vocabulary.py), and their IDF weights, a term and its synonyms being one concept
   (index/weights.py);
2. ``_named``: the tools, domains and entities of the query that the index knows (a variant
   and its gene, ``KRAS G12C`` and ``KRAS``, are one entity: :data:`VARIANT_GENE_CREDIT`);
3. ``_fusion``: which signals the query uses and their weights; those it does not use are left
   out and the configured weights of the others renormalised, so ``min_relevance`` means the
   same whether or not a query names a tool;
4. ``_gate``: text scores of the episodes that can pass (MaxScore, recall/signals.py), fused
   with the attribute signals; the gate reads this relevance (``outcome`` only reorders);
5. ``_filtered``: archive, success-only and domain filters, the outcome signal, then what the
   memory learned (utility, recency: recall/signals.py ``learned``);
6. ``_ranked``: best first (score, quality, id), at most ``top_k``;
7. ``_fitted``: each episode's block, read with its token counts from the index, until the
   budget is full; the last one shortened if need be (render/blocks.py).

The result is the episodes' part of the output and the numbers of its header
(:class:`Found`); :meth:`Found.finish` composes it with the lessons' and the facts' parts
(render/recall.py). See docs/recall.md for a worked example.

Every recall has an id, ``r`` + 12 decimal digits from a SHA-1 over the vault commit, the
normalised query and every option that shapes the output: the same recall gets the same id.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from biocortex_cli.errors import UsageError
from biocortex_cli.recall.signals import ATTR_COLUMN, ATTR_SIGNAL, K1, MIN_COVERAGE, SIGNALS
from biocortex_cli.records import NamedTuple
from biocortex_cli.render.recall import RecallPart

TYPE_CHECKING = False  # mypy takes it as True; `typing` (~16 M instructions) stays off recall's path
if TYPE_CHECKING:
    from typing import Any

    from biocortex_cli.bio.vocabulary import Expanded, Local
    from biocortex_cli.index.weights import QueryWeights
    from biocortex_cli.render.recall import Header

#: Entity credit of an episode that lists the gene of a variant the query names but not the
#: variant (a query for KRAS G12C, an episode about KRAS); the reverse counts fully, since the
#: index lists a variant's gene beside it (index/build.py).
VARIANT_GENE_CREDIT = 0.5


class RecallOptions(NamedTuple):
    """What a recall is asked: the query, and the settings whose defaults are the vault's config
    (``recall.service.options_from_config`` fills them in: store/config.py declares them once)."""

    query: str
    top_k: int
    budget: int
    min_relevance: float
    success_only: bool
    weights: dict[str, float]
    ngram_weights: dict[str, float]
    max_df: float
    half_life_days: float
    lessons_share: float  # at most this share of the budget goes to promoted lessons
    domain: str | None = None
    explain: bool = False
    include_archived: bool = False
    compact: bool = False  # blocks without their path (render/blocks.py COMPACT)
    vocabulary: bool = True  # expand the query with synonyms (docs/vocabulary.md)


class Hit(NamedTuple):
    id: str
    path: str
    score: float
    signals: dict[str, float]
    tokens: int
    task: str
    success: bool | None
    quality: float | None
    block: str
    shortened: bool = False
    matched: dict[str, list[str]] = {}  # shared by every Hit without one: never changed in place
    rank_score: float = 0.0  # what the results are ordered by: ``score`` before it is clipped to 0-1
    fields: dict[str, Any] = {}  # the episode's sections (render/recall.py hit_fields); shared: never changed
    via: str | None = None  # the hit it was found through, as an analysis of the same kind (recall/kin.py)

    def as_json(self, explain: bool) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "path": self.path, "score": self.score,
                               "rank_score": self.rank_score, "signals": self.signals, "tokens": self.tokens,
                               "task": self.task, "success": self.success, "quality": self.quality,
                               "via": self.via, **self.fields}
        if self.shortened:
            out["shortened"] = True
        if explain:
            out["matched"] = self.matched
        return out


class RecallResult(NamedTuple):
    query: str
    vault_commit: str | None
    budget: int
    encoding: str
    results: list[Hit]
    dropped: dict[str, int]
    matched: int
    searched: int
    reason: str = ""
    query_terms: list[str] = []
    unknown_terms: list[str] = []
    ignored_terms: list[str] = []
    informative_terms: list[str] = []  # the concepts the gate asks to cover
    synonyms: list[dict[str, Any]] = []  # the query's synonyms and whether searched
    withheld_terms: list[dict[str, str]] = []  # terms the vocabulary will not expand
    synonyms_dropped: int = 0  # synonyms cut by the vocabulary's caps
    recall_id: str = ""
    parts: tuple[RecallPart, ...] = ()  # the output, as printed (render/recall.py: compose)

    @property
    def context(self) -> str:
        return "".join(p.text for p in self.parts)

    @property
    def tokens(self) -> int:
        return sum(p.tokens for p in self.parts)

    def detail(self, part: str, key: str) -> list[dict[str, Any]]:
        """What the JSON lists for a part (``lessons``, ``facts``), empty without that part."""
        found = next((p for p in self.parts if p.name == part), None)
        return list(found.json.get(key, [])) if found is not None else []

    def as_json(self, explain: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {
            "query": self.query, "recall_id": self.recall_id, "vault_commit": self.vault_commit,
            "budget": self.budget,
            "tokens": self.tokens, "encoding": self.encoding,
            "results": [h.as_json(explain) for h in self.results],
            "lessons": self.detail("lessons", "lessons"), "facts": self.detail("facts", "facts"),
            "dropped": self.dropped, "context": self.context,
        }
        if not self.results and self.reason:  # why nothing: stderr says it too, but MCP has no stderr
            out["reason"] = self.reason
        if explain:
            out["explain"] = {"query_terms": self.query_terms, "unknown_terms": self.unknown_terms,
                              "too_common_terms": self.ignored_terms, "informative_terms": self.informative_terms,
                              "searched": self.searched, "synonyms": self.synonyms,
                              "withheld_terms": self.withheld_terms, "synonyms_dropped": self.synonyms_dropped}
        return out


class Found:  # a plain class, as the stages' records below
    """What :func:`search` found, before it is printed: the result without its output, the
    episodes' part (their blocks) and the numbers of its header (None when nothing fits)."""

    __slots__ = ("header", "part", "result")

    def __init__(self, result: RecallResult, part: RecallPart | None = None, header: Header | None = None) -> None:
        self.result, self.part, self.header = result, part, header

    def finish(self, budget: int, before: Sequence[RecallPart] = (),
               after: Sequence[RecallPart] = ()) -> RecallResult:
        """The result with its output: ``before``, the episodes, ``after``, under one header that
        counts them all against ``budget``."""
        from biocortex_cli.render.recall import compose

        episodes = [self.part] if self.part is not None else []
        return self.result._replace(budget=budget, parts=compose([*before, *episodes, *after], self.header, budget))


def recall_id(head: str | None, opts: RecallOptions, encoding: str) -> str:
    """``r`` + 12 decimal digits of a SHA-1 over what decides the output: the vault commit, the
    query (whitespace collapsed, case-folded), every option and the token encoding. Always 5
    tokens after its space (render/blocks.py: REFERENCE_ID), so the header is counted at index
    time."""
    import json

    from biocortex_cli.render.blocks import RECALL_ID_DIGITS

    try:
        from _sha1 import sha1  # the C module alone: hashlib's import costs ~2.5 ms
    except ImportError:  # pragma: no cover - Python builds without it
        from hashlib import sha1
    options = {k: v for k, v in opts._asdict().items() if k != "query" and (k != "compact" or v)}
    key = json.dumps([head, " ".join(opts.query.split()).casefold(), options, encoding],
                     sort_keys=True, ensure_ascii=False)
    number = int.from_bytes(sha1(key.encode("utf-8")).digest()[:8], "big") % 10**RECALL_ID_DIGITS
    return f"r{number:0{RECALL_ID_DIGITS}d}"


def clip_query(query: str) -> str:
    """``query`` cut to its first ``MAX_QUERY_CHARS`` characters, at a space where there is one,
    with a warning on stderr. Only the first ``MAX_QUERY_TERMS`` words are searched anyway; the
    cut keeps what follows them from being tokenised, scanned for entities, echoed in the JSON and
    written to the recall log (a 5 MB question over MCP took 22 s and wrote a 5 MB log line)."""
    from biocortex_cli.index.weights import MAX_QUERY_CHARS

    if len(query) <= MAX_QUERY_CHARS:
        return query
    import sys

    cut = query[:MAX_QUERY_CHARS]
    space = cut.rfind(" ", MAX_QUERY_CHARS // 2)
    cut = cut[:space] if space > 0 else cut
    sys.stderr.write(f"biocortex: warning: the query has {len(query):,} characters; only its first "
                     f"{len(cut):,} are read (ask about the task, not its data)\n")
    return cut


def validate(opts: RecallOptions) -> None:
    if opts.top_k < 1:
        raise UsageError(f"--top-k must be at least 1, not {opts.top_k}", hint="e.g. --top-k 5")
    if opts.budget < 1:
        raise UsageError(f"--budget must be a positive number of tokens, not {opts.budget}",
                         hint="e.g. --budget 2000")
    if not 0 <= opts.min_relevance <= 1:
        raise UsageError(f"--min-relevance must be between 0 and 1, not {opts.min_relevance}")
    if not opts.query.strip():
        raise UsageError("the query is empty", hint='ask a question, e.g. biocortex recall "doublets in 10x multiome"')


def recall(conn: sqlite3.Connection, meta: dict[str, Any], opts: RecallOptions,
           vocabulary: Local | None = None) -> RecallResult:
    """Episodic recall alone, printed (see the module docstring)."""
    return search(conn, meta, opts, vocabulary).finish(opts.budget)


def search(conn: sqlite3.Connection, meta: dict[str, Any], opts: RecallOptions,
           vocabulary: Local | None = None) -> Found:
    """Score, gate and budget the index's episodes for ``opts.query``; ``vocabulary`` is the
    vault's own (store/vocabulary.py), looked up before the shipped one.

    Reads run in one read transaction, so a refresh committing meanwhile is seen whole or not
    at all (it waits for this, a few milliseconds)."""
    if conn.in_transaction:
        return _headed(_search(conn, meta, opts, vocabulary), meta)
    conn.execute("BEGIN")
    try:
        return _headed(_search(conn, meta, opts, vocabulary), meta)
    finally:
        if conn.in_transaction:  # not after an error SQLite rolled back itself (index/build.py write_txn)
            conn.execute("COMMIT")


def _headed(found: Found, meta: dict[str, Any]) -> Found:
    """``found`` with a header even when no past analysis is in it: promoted lessons alone are
    printed under the bare header, which gives the recall id (render/recall.py ``compose``)."""
    if found.header is None and "header_tokens" in meta:
        from biocortex_cli.render.recall import Header

        result = found.result
        found.header = Header(0, 0, result.vault_commit, result.recall_id, int(meta["header_tokens"]),
                              int(meta.get("bare_header_tokens", 0)))
    return found


# --- the stages ----------------------------------------------------------------------------------

# The stages' own records are plain classes with __slots__: some are filled in as the stages run
# (``_Asked``), and all are defined on every recall's start-up.

class _Asked:
    """What every stage reads: the options, the query's terms and weights, the index's state;
    the stages fill in the last three."""

    __slots__ = ("all_rows", "concepts", "encoding", "expanded", "head", "n_docs", "opts", "recall_id", "text",
                 "tokens", "words")

    def __init__(self, opts: RecallOptions, head: str | None, encoding: str, n_docs: int, recall_id: str,
                 tokens: list[str]) -> None:
        self.opts, self.head, self.encoding, self.n_docs = opts, head, encoding, n_docs
        self.recall_id, self.tokens = recall_id, tokens
        self.expanded: Expanded | None = None  # the vocabulary's synonyms of the tokens
        self.words: QueryWeights | None = None
        self.concepts: _Concepts | None = None
        self.all_rows = True  # every candidate's row is read (_rows_needed)
        self.text: dict[int, float] = {}  # the text signal before its clip to 1, by episode (_gate; --explain)

    def empty(self, reason: str, dropped: int = 0, over_top_k: int = 0, over_budget: int = 0) -> Found:
        words = self.words
        return Found(RecallResult(
            query=self.opts.query, vault_commit=self.head, budget=self.opts.budget, encoding=self.encoding,
            results=[], dropped={"below_relevance": dropped, "over_top_k": over_top_k, "over_budget": over_budget},
            matched=0, searched=self.n_docs, reason=reason, query_terms=self.tokens,
            unknown_terms=words.unknown if words else [], ignored_terms=words.common if words else [],
            informative_terms=list(self.concepts.names) if self.concepts else [],
            recall_id=self.recall_id, **self._vocabulary()))

    def _vocabulary(self) -> dict[str, Any]:
        """What the vocabulary gave, for --explain: each synonym with its term, weight, source
        and whether it was searched (some episode has it, and its term counts)."""
        if self.expanded is None:
            return {}
        absent = set(self.words.absent_synonyms) if self.words else set()
        return {"synonyms": [{"term": e.term, "synonym": e.synonym, "weight": e.weight, "source": e.source,
                              "group": e.group, "searched": self.words is not None and e.synonym not in absent}
                             for e in self.expanded.expansions],
                "withheld_terms": [{"term": w.term, "reason": w.reason} for w in self.expanded.withheld],
                "synonyms_dropped": self.expanded.dropped}


class _Named:
    """The query's grams the index knows as tools, domains or entities, and who lists them."""

    __slots__ = ("counts", "grams", "hits", "values", "where")

    def __init__(self, grams: list[str], where: str, values: dict[str, set[str]], hits: dict[int, list[float]],
                 counts: dict[str, float]) -> None:
        self.grams = grams  # every gram of the query, sorted (the SQL parameters of ``where``)
        self.where = where  # the SQL condition on attrs that finds them
        self.values = values  # signal -> the values named
        self.hits = hits  # episode -> its credit for the named entities, tools, domains
        self.counts = counts  # signal -> how many it names (a variant and its gene: one)


class _Fusion:
    """The signals the query uses, and their weights."""

    __slots__ = ("active", "outcome_w", "plan", "relevance_w", "wanted")

    def __init__(self, active: dict[str, bool], wanted: bool | None, relevance_w: float, outcome_w: float,
                 plan: list[tuple[str, float, int, float]]) -> None:
        self.active = active
        self.wanted = wanted  # the outcome asked about (signals.outcome_intent)
        self.relevance_w = relevance_w  # the weights of the active signals but outcome, summed
        self.outcome_w = outcome_w
        self.plan = plan  # (signal, weight, attrs column or -1 for text, values named)


class _Concepts:
    """The question's informative concepts, which the gate asks an episode to cover.

    A concept is a word of the question, or a domain it names (its words together); a synonym
    of a word stands for that word. A word is informative unless it is generic
    (signals.GENERIC_WORDS: "new", "filter", "predict") or too common to count (``max_df``); a
    domain is, but never enough on its own when the question names something else an episode could
    match (a word no episode has, nor any of its synonyms, cannot be matched: a question whose only
    matchable concept is a domain gates on coverage and relevance alone). Each weighs its IDF; bit
    ``i`` of a mask is ``names[i]``."""

    __slots__ = ("domains", "masks", "names", "weights")

    def __init__(self, names: tuple[str, ...], weights: tuple[float, ...], masks: dict[int, int],
                 domains: int) -> None:
        self.names = names
        self.weights = weights  # IDF weights (a word no episode has: the text signal's weight)
        self.masks = masks  # query fingerprint -> the concepts it stands for
        self.domains = domains  # the concepts that are domains

    def share(self, mask: int) -> float:
        """The IDF-weighted share of the concepts that ``mask`` covers (1 when there are none)."""
        if not self.names:
            return 1.0
        return sum(w for i, w in enumerate(self.weights) if mask >> i & 1) / sum(self.weights)

    def admits(self, mask: int) -> bool:
        """Whether an episode covering ``mask`` passes this part of the gate: at least
        ``MIN_COVERAGE`` of the concepts, and not only domains when the question names more that
        some episode has."""
        if not self.names:
            return True
        others = self._matchable() & ~self.domains
        return bool(mask) and self.share(mask) >= MIN_COVERAGE and not (others and not mask & others)

    def needed(self) -> int | None:
        """Concepts of which an episode's mask must hold one for :meth:`admits` to pass: the
        non-domain ones some episode can match, else any; None when every mask passes. An
        episode in no posting list of these cannot pass, so it need not be scored."""
        if not self.names:
            return None
        matchable = self._matchable()
        return matchable & ~self.domains or matchable

    def _matchable(self) -> int:
        """The concepts some episode can match (those of the query's searched fingerprints)."""
        matchable = 0
        for bits in self.masks.values():
            matchable |= bits
        return matchable


def _search(conn: sqlite3.Connection, meta: dict[str, Any], opts: RecallOptions, vocabulary: Local | None) -> Found:
    validate(opts)
    asked = _asked(meta, opts)
    if not asked.tokens:
        return asked.empty("the query has no searchable words (only stop words or punctuation)")
    if asked.n_docs == 0:
        return asked.empty("the vault has no episodes yet")
    from biocortex_cli.index.weights import query_weights

    asked.expanded = _expanded(asked, vocabulary)
    asked.words = query_weights(conn, asked.tokens, asked.n_docs, opts.ngram_weights, opts.max_df, asked.expanded)
    named = _named(conn, asked)
    asked.concepts = _concepts(asked, named)
    fusion = _fusion(asked, named)
    if fusion.relevance_w <= 0:
        common = asked.words.common
        if common:  # not "nothing matches": too much does, the lab may well have done it
            return asked.empty(f"the query's words are in too many past analyses to tell them apart (too common: "
                               f"{', '.join(common)}); add what is specific to the task: a gene, tool, dataset "
                               "or method")
        return asked.empty("nothing in the query matches the vault's memory")
    scored, candidates, lists = _gate(conn, meta, asked, named, fusion)
    passing, info = _filtered(conn, meta, asked, fusion, scored)
    below = candidates - len(passing)
    passing += _kin(conn, meta, asked, passing, info)
    top, matched = _ranked(passing, info, opts.top_k, _complete(conn, info, passing, opts.top_k))
    if not top:
        reason = (f"no past analysis reached min_relevance {opts.min_relevance:g}"
                  if candidates else "no past analysis shares a word, tool, domain or entity with the query")
        if opts.domain or opts.success_only:
            reason += " with the given filters" + (f" (domain {opts.domain})" if opts.domain else "")
        archived = _archived_matches(info, opts)
        if archived:  # forgotten, not absent: a miss must not read as "the lab never did this"
            reason = (f"no past analysis in current memory matches; {archived} archived (forgotten) "
                      f"{'episode does' if archived == 1 else 'episodes do'}: add --include-archived to see them")
        return asked.empty(reason, dropped=below)
    return _fitted(conn, meta, asked, top, info, matched, below,
                   lambda doc, signals: _explain(conn, doc, asked, named, lists, info[doc]["covered"], info[doc],
                                                 signals, fusion))


def _asked(meta: dict[str, Any], opts: RecallOptions) -> _Asked:
    from biocortex_cli.bio.text import tokenize
    from biocortex_cli.index.weights import MAX_QUERY_TERMS

    head = meta.get("head")
    encoding = str(meta.get("tokenizer", meta.get("encoding", "estimate")))
    return _Asked(opts, head, encoding, int(meta.get("n_docs", 0)), recall_id(head, opts, encoding),
                  tokenize(opts.query)[:MAX_QUERY_TERMS])


def _expanded(asked: _Asked, vocabulary: Local | None) -> Expanded | None:
    """The query's synonyms (none when ``opts.vocabulary`` is off)."""
    if not asked.opts.vocabulary:
        return None
    from biocortex_cli.bio.vocabulary import expand

    return expand(asked.tokens, local=vocabulary)


def _named(conn: sqlite3.Connection, asked: _Asked) -> _Named:
    assert asked.words is not None
    grams = sorted({g for g, _n in asked.words.fingerprints.values()})
    where = f"kind IN ('tool', 'domain', 'entity') AND value IN ({','.join('?' for _ in grams)})"
    values: dict[str, set[str]] = {"tools": set(), "domains": set(), "entities": set()}
    hits: dict[int, list[float]] = {}
    variants = _variants(asked.opts.query, grams)
    in_variants = set(variants) | set(variants.values())
    listed: dict[int, set[str]] = {}  # episode -> the variants and genes of ``variants`` it lists
    if grams:
        column = {"entity": 0, "tool": 1, "domain": 2}
        # one row per value named, its episodes joined: a row per episode costs several times more
        for kind, value, docs in conn.execute(f"SELECT kind, value, group_concat(doc) FROM attrs WHERE {where}"
                                              " GROUP BY kind, value", grams):
            if kind == "domain" and not _names_field(conn, value, asked.opts.query):
                continue
            values[ATTR_SIGNAL[kind]].add(value)
            col = column[kind]
            if kind == "entity" and value in in_variants:  # counted below, with its gene
                for doc in map(int, docs.split(",")):
                    if doc not in hits:
                        hits[doc] = [0.0, 0.0, 0.0]
                    listed.setdefault(doc, set()).add(value)
                continue
            first = [0.0, 0.0, 0.0]
            first[col] = 1.0  # 0.0 + 1
            for doc in map(int, docs.split(",")):
                counts = hits.get(doc)
                if counts is None:
                    hits[doc] = first.copy()
                else:
                    counts[col] += 1
    count = {s: float(len(v)) for s, v in values.items()}
    # a variant the query names and its gene are one entity: the variant counts 1, the gene alone
    # VARIANT_GENE_CREDIT (whichever of the two the index knows)
    pairs = [(v, g) for v, g in variants.items() if v in values["entities"] or g in values["entities"]]
    if pairs:
        count["entities"] = len(values["entities"] - in_variants) + float(len(pairs))
        for doc, names in listed.items():
            hits[doc][0] += sum(1.0 if v in names else VARIANT_GENE_CREDIT if g in names else 0.0 for v, g in pairs)
    return _Named(grams, where, values, hits, count)


def _names_field(conn: sqlite3.Connection, value: str, query: str) -> bool:
    """Whether the question names the domain ``value`` (normalised) as a field. The stemmer makes
    one word of a field and what it studies (*genomics* and *genomes* are both ``genom``;
    *proteomics*, *proteome*; *metagenomics*, *metagenome*), so an "-omics" word of a domain's
    label counts only when the question writes an "-omic(s)" word with its stem: "reconstructing
    genomes from the digester" does not name genomics. Other domains, and labels that are the
    "-ome" word itself (*genome assembly*), match on their stems as before. Cheap: only a value
    with a word ending in "om" (every -omics stem does) reads the labels that start like it."""
    if not any(word.endswith("om") for word in value.split()):
        return True
    from biocortex_cli.bio.text import tokenize

    first = value.split(" ", 1)[0]
    labels = [label for (label,) in conn.execute(
        "SELECT DISTINCT value FROM labels WHERE kind = 'domain' AND value >= ? AND value < ?",
        (first, first + "\uffff")) if " ".join(tokenize(label)) == value]
    fields = {tokenize(word)[0] for label in labels for word in label.replace("-", " ").split()
              if word.endswith(("omic", "omics"))}
    if not fields:
        return True
    asked = {tokenize(word)[0] for word in query.lower().replace("-", " ").split()
             if word.strip(".,;:!?()'\"").endswith(("omic", "omics")) and tokenize(word)}
    return fields <= asked


def _variants(query: str, grams: list[str]) -> dict[str, str]:
    """Variant -> gene, as the index writes them (``kras g12c`` -> ``kras``), for each variant the
    query writes with its gene."""
    if not any(" " in g for g in grams):
        return {}
    from biocortex_cli.bio.entities import extract_entities, variant_gene
    from biocortex_cli.bio.text import tokenize

    out = {}
    for entity in extract_entities(query):
        gene = variant_gene(entity.name) if entity.kind == "variant" else None
        if gene is not None:
            out[" ".join(tokenize(entity.name))] = " ".join(tokenize(gene))
    return out


def _concepts(asked: _Asked, named: _Named) -> _Concepts:
    """The question's informative concepts (:class:`_Concepts`), and which of them each weighted
    fingerprint of the query stands for."""
    from biocortex_cli.recall.signals import generic_terms

    words = asked.words
    assert words is not None
    weight_of = {**words.unknown_weights, **words.weights}  # ngram weight x IDF; absent: too common
    fp_of = {gram: fp for fp, (gram, _n) in words.fingerprints.items()}
    domain_of = {w: value for value in sorted(named.values["domains"]) for w in value.split()}
    generic = generic_terms()
    names: list[str] = []
    weights: list[float] = []
    bit: dict[str, int] = {}
    domains = 0
    for fp, (gram, n) in words.fingerprints.items():
        if n != 1 or gram in bit or gram in generic:
            continue
        concept, weight = gram, weight_of.get(fp)
        if gram in domain_of:
            concept = domain_of[gram]
            whole = fp_of.get(concept, fp)  # a domain of several words weighs as their phrase
            ngram = asked.opts.ngram_weights.get(str(words.fingerprints[whole][1]), 0.0)
            weight = weight_of[whole] / ngram if whole in weight_of and ngram > 0 else weight
            domains |= 1 << len(names)
        if weight is None:
            continue
        for word in concept.split():
            bit[word] = len(names)
        names.append(concept)
        weights.append(weight)
    # every fingerprint stands for the words of its own gram, a synonym for its term's (a phrase of
    # the question does not: its words' own fingerprints cover its concepts)
    masks: dict[int, int] = {}
    for fp in (*words.weights, *words.synonym_weights):
        if fp in words.synonyms:
            concept = words.synonyms[fp].term
        else:
            concept, n = words.fingerprints[fp]
            if n > 1:
                continue
        mask = 0
        for word in concept.split():
            if word in bit:
                mask |= 1 << bit[word]
        if mask:
            masks[fp] = mask
    return _Concepts(tuple(names), tuple(weights), masks, domains)


def _fusion(asked: _Asked, named: _Named) -> _Fusion:
    from biocortex_cli.recall.signals import outcome_intent

    assert asked.words is not None
    opts = asked.opts
    active = {"text": bool(asked.words.weights) or bool(asked.words.unknown)}
    for signal, values_named in named.values.items():
        active[signal] = bool(values_named)
    wanted = outcome_intent(opts.query)
    active["outcome"] = wanted is not None and (active["text"] or any(named.values.values()))
    relevance_w = sum(float(opts.weights.get(s, 0.0)) for s in SIGNALS if active.get(s) and s != "outcome")
    outcome_w = float(opts.weights.get("outcome", 0.0)) if active["outcome"] else 0.0
    plan = [(s, float(opts.weights.get(s, 0.0)), ATTR_COLUMN.get(s, -1), named.counts.get(s, 0.0) or 1.0)
            for s in SIGNALS if active.get(s) and s != "outcome"]
    return _Fusion(active, wanted, relevance_w, outcome_w, plan)


def _gate(conn: sqlite3.Connection, meta: dict[str, Any], asked: _Asked, named: _Named,
          fusion: _Fusion) -> tuple[list[tuple[float, float, int, dict[str, float], int]], int, dict[int, Any]]:
    """(fused score, relevance, episode, signals, the concepts it covers) of every episode that
    passes the gate, how many episodes share anything with the query, and the posting lists read.

    The gate asks two things. Relevance, the fusion of every signal but outcome with each signal
    clipped to 1, reaches ``min_relevance``: a failure alone never qualifies, and an episode with
    no text score here cannot reach it (signals.text_bound). And the episode covers at least
    ``MIN_COVERAGE`` of the question's informative concepts (:class:`_Concepts`; any share when the
    question has none): sharing only a domain or a generic word ("new", "filter") is not enough.
    The fused score keeps the text signal unclipped: it orders the episodes that pass."""
    from biocortex_cli.index.store import doc_lengths, posting_lists
    from biocortex_cli.recall.signals import light_lists, text_bound, text_lists, text_scores

    assert asked.words is not None and asked.concepts is not None
    opts, words, denominator, concepts = asked.opts, asked.words, asked.words.denominator, asked.concepts
    lists = posting_lists(conn, [*words.weights, *words.synonym_weights])
    fps, ordered, grouped = text_lists(words, lists)
    masks = [concepts.masks.get(fp, 0) for fp in fps]
    everyone: set[int] = set(named.hits)
    for _w, docs, _tfs in ordered:
        everyone.update(docs)
    # with a relevance to reach, only an episode that covers a concept of ``needed`` passes
    # (_Concepts.admits): one in no posting list of those is neither scored nor a seed
    within: set[int] | None = None
    needed = concepts.needed() if opts.min_relevance > 0 else None
    if needed is not None:
        within = set()
        for (_w, docs, _tfs), mask in zip(ordered, masks, strict=True):
            if mask & needed:
                within.update(docs)
    light, light_total = light_lists(ordered, text_bound(opts, fusion.active, fusion.relevance_w, denominator))
    # episodes that name a tool, domain or entity of the query and are in none of the heavier
    # posting lists: scored only if their attribute share plus every light list could pass
    w_text = float(opts.weights.get("text", 0.0)) if fusion.active["text"] else 0.0
    best_text = w_text * min(1.0, light_total * (K1 + 1) / denominator) if denominator else 0.0
    attr_weights = [(float(opts.weights.get(s, 0.0)), ATTR_COLUMN[s], named.counts[s])
                    for s in ("entities", "tools", "domains") if fusion.active.get(s)]
    could_pass: dict[tuple[float, ...], bool] = {}
    seeds: set[int] = set()
    for doc, counts in named.hits.items():
        if within is not None and doc not in within:
            continue
        key = tuple(counts)
        ok = could_pass.get(key)
        if ok is None:
            attr_part = sum(w * (counts[col] / n) for w, col, n in attr_weights)
            ok = could_pass[key] = (attr_part + best_text) / fusion.relevance_w >= opts.min_relevance - 1e-9
        if ok:
            seeds.add(doc)
    text, covered = text_scores(ordered, light, seeds, store_dls=doc_lengths(conn),
                                avg_dl=float(meta.get("avg_dl") or 1.0), denominator=denominator,
                                concepts=grouped, masks=masks, within=within)
    asked.text = text
    scored: list[tuple[float, float, int, dict[str, float], int]] = []
    no_hits = [0.0, 0.0, 0.0]
    verdicts: dict[int, bool] = {}
    # the fusion in plan order (text first, when active); an episode naming nothing adds 0.0s
    text_w = fusion.plan[0][1] if fusion.plan and fusion.plan[0][2] < 0 else None
    attr_plan = [(s, weight, col, n_named) for s, weight, col, n_named in fusion.plan if col >= 0]
    relevance_w, min_relevance, hits = fusion.relevance_w, opts.min_relevance, named.hits
    blank = dict.fromkeys([s for s, _w, _col, _n in fusion.plan], 0.0)  # the signals in plan order
    gated = opts.min_relevance > 0
    for doc, raw in text.items():
        text_value = raw if raw < 1.0 else 1.0
        fused = unclipped = 0.0
        if text_w is not None:
            fused += text_w * text_value
            unclipped += text_w * raw
        counts = hits.get(doc, no_hits)
        if counts is not no_hits:
            for _s, weight, col, n_named in attr_plan:
                fused += weight * counts[col] / n_named
                unclipped += weight * counts[col] / n_named
        relevance = fused / relevance_w
        if relevance < min_relevance:
            continue
        mask = covered.get(doc, 0)
        if gated:
            admitted = verdicts.get(mask)
            if admitted is None:
                admitted = verdicts[mask] = concepts.admits(mask)
            if not admitted:
                continue
        signals = blank.copy()  # rounded when shown (_fitted); naming nothing: 0.0 each
        if text_w is not None:
            signals["text"] = text_value
        if counts is not no_hits:
            for name, _w, col, n_named in attr_plan:
                signals[name] = counts[col] / n_named
        scored.append((unclipped, relevance, doc, signals, mask))
    return scored, len(everyone), lists


def _filtered(conn: sqlite3.Connection, meta: dict[str, Any], asked: _Asked, fusion: _Fusion,
              scored: list[tuple[float, float, int, dict[str, float], int]],
              ) -> tuple[list[tuple[float, int, dict[str, float]]], dict[int, dict[str, Any]]]:
    """(rank score, episode, signals) of the episodes the filters keep, with outcome and what the
    memory learned applied; and what the index says of each scored episode (with its
    ``coverage`` of the question's informative concepts)."""
    from biocortex_cli.bio.text import tokenize
    from biocortex_cli.recall.signals import doc_info, learned

    opts = asked.opts
    asked.all_rows = _rows_needed(conn, meta, opts, fusion)
    if asked.all_rows:
        info = doc_info(conn, [doc for _f, _r, doc, _s, _c in scored],
                        domain_norm=" ".join(tokenize(opts.domain)) if opts.domain else None)
    else:  # no filter can drop an episode: rows are read only for those that can be ranked (_complete)
        info = {}
    passing: list[tuple[float, int, dict[str, float]]] = []
    assert asked.concepts is not None
    shares: dict[int, float] = {}  # mask -> coverage: episodes share a few masks
    all_rows, relevance_w, outcome_w, wanted = asked.all_rows, fusion.relevance_w, fusion.outcome_w, fusion.wanted
    for fused, _relevance, doc, signals, covered in scored:
        coverage = shares.get(covered)
        if coverage is None:
            coverage = shares[covered] = asked.concepts.share(covered)
        if not all_rows:  # no filter can drop it (_rows_needed), no outcome to weigh
            info[doc] = {"covered": covered, "coverage": coverage}
            passing.append((fused / relevance_w, doc, signals))
            continue
        row = info[doc]
        row["covered"], row["coverage"] = covered, coverage
        if not _kept(row, opts):
            continue
        score = fused / relevance_w
        if outcome_w > 0:
            value = 1.0 if row["success"] is wanted else 0.0
            signals["outcome"] = value
            score = (fused + outcome_w * value) / (relevance_w + outcome_w)
        passing.append((score, doc, signals))
    return learned(conn, meta, opts, info, passing), info


def _archived_matches(info: dict[int, dict[str, Any]], opts: RecallOptions) -> int:
    """How many episodes that passed the gate were left out only because they are archived (their
    rows are all read when an archive exists and is not searched: :func:`_rows_needed`)."""
    if opts.include_archived:
        return 0
    return sum(1 for row in info.values() if row.get("archived")
               and (not opts.success_only or row["success"] is True) and (not opts.domain or row["in_domain"]))


def _kept(row: dict[str, Any], opts: RecallOptions) -> bool:
    """Whether the archive, success-only and domain filters keep an episode (``doc_info``'s row)."""
    return ((opts.include_archived or not row["archived"]) and (not opts.success_only or row["success"] is True)
            and (not opts.domain or row["in_domain"]))


def _rows_needed(conn: sqlite3.Connection, meta: dict[str, Any], opts: RecallOptions, fusion: _Fusion) -> bool:
    """Whether every candidate's row (``doc_info``) must be read: when a filter can drop one
    (archived episodes exist and are not asked for, ``--success-only``, ``--domain``), the
    outcome signal weighs success, or feedback moves scores (``learned`` reads ids). Else only
    the episodes that can reach the results are read (:func:`_complete`): the work follows what
    is printed, not how many episodes match."""
    from biocortex_cli.index.store import has_archived

    return bool(opts.success_only or opts.domain or fusion.outcome_w > 0
                or (float(opts.weights.get("utility", 0.0)) > 0 and int(meta.get("feedback_ids", 0)) > 0)
                or (not opts.include_archived and has_archived(conn)))


def _complete(conn: sqlite3.Connection, info: dict[int, dict[str, Any]],
              passing: list[tuple[float, int, dict[str, float]]],
              k: int) -> list[tuple[float, int, dict[str, float]]]:
    """Read the rows of the episodes among ``passing`` that can be in its first ``k`` (those
    :func:`_best` sorts, returned) where they were not read yet."""
    from biocortex_cli.recall.signals import doc_info

    contenders = _contenders(passing, k)
    missing = [doc for _s, doc, _sig in contenders if "id" not in info[doc]]
    if missing:
        for doc, row in doc_info(conn, missing, domain_norm=None).items():
            info[doc].update(row)
    return contenders


def _kin(conn: sqlite3.Connection, meta: dict[str, Any], asked: _Asked,
         passing: list[tuple[float, int, dict[str, float]]], info: dict[int, dict[str, Any]],
         ) -> list[tuple[float, int, dict[str, float]]]:
    """The analyses of the same kind as the best hits that the filters keep (recall/kin.py), with
    what the memory learned applied; their rows join ``info``, each with the hit it came through."""
    opts = asked.opts
    weight = float(opts.weights.get("kin", 0.0))
    if weight <= 0 or not passing:
        return []
    from biocortex_cli.bio.text import tokenize
    from biocortex_cli.recall.kin import SEEDS, kin
    from biocortex_cli.recall.signals import doc_info, learned

    seeds = _best(passing, info, SEEDS, _complete(conn, info, passing, SEEDS))
    found = kin(conn, [(score, doc) for score, doc, _s in seeds], weight=weight, n_docs=asked.n_docs,
                max_df=opts.max_df, min_relevance=opts.min_relevance, passed={doc for _s, doc, _sig in passing})
    if not found:
        return []
    rows = doc_info(conn, [k.doc for k in found], domain_norm=" ".join(tokenize(opts.domain)) if opts.domain else None
                    ) if asked.all_rows else {}
    out: list[tuple[float, int, dict[str, float]]] = []
    for k in found:
        if asked.all_rows:
            row = rows[k.doc]
            if not _kept(row, opts):
                continue
            row.update(covered=0, coverage=0.0, via=k.via)
            info[k.doc] = row
        else:
            info[k.doc] = {"covered": 0, "coverage": 0.0, "via": k.via}
        out.append((k.score, k.doc, {"kin": k.share}))  # rounded when shown
    return learned(conn, meta, opts, info, out)


def _order(info: dict[int, dict[str, Any]]) -> Any:
    """The results' order: rank score, then evidence (coverage), quality, id."""
    return lambda t: (-round(t[0], 6), -round(info[t[1]]["coverage"], 6), -(info[t[1]]["quality"] or 0.0),
                      info[t[1]]["id"])


def _ranked(passing: list[tuple[float, int, dict[str, float]]], info: dict[int, dict[str, Any]],
            top_k: int, contenders: list[tuple[float, int, dict[str, float]]] | None = None,
            ) -> tuple[list[tuple[float, int, dict[str, float]]], int]:
    """The best ``top_k`` and how many passed: by rank score, then by evidence (the share of the
    question's informative concepts covered), then quality, then id (the same index gives the
    same order)."""
    return _best(passing, info, top_k, contenders), len(passing)


def _contenders(passing: list[tuple[float, int, dict[str, float]]],
                k: int) -> list[tuple[float, int, dict[str, float]]]:
    """Those of ``passing`` that can be among the first ``k`` in :func:`_order`: a rank score more
    than 2e-6 below the ``k``-th best raw one rounds (to 6 places) below it too, so that episode
    follows at least ``k`` others whatever its evidence, quality or id."""
    if len(passing) > k:
        bar = sorted([t[0] for t in passing], reverse=True)[k - 1]
        bar -= 2e-6 + abs(bar) * 1e-9
        passing = [t for t in passing if t[0] >= bar]
    return passing


def _best(passing: list[tuple[float, int, dict[str, float]]], info: dict[int, dict[str, Any]],
          k: int, contenders: list[tuple[float, int, dict[str, float]]] | None = None,
          ) -> list[tuple[float, int, dict[str, float]]]:
    """The first ``k`` of ``passing`` in :func:`_order`, sorting only the :func:`_contenders`
    (``contenders``, when :func:`_complete` found them already)."""
    return sorted(_contenders(passing, k) if contenders is None else contenders, key=_order(info))[:k]


def _fitted(conn: sqlite3.Connection, meta: dict[str, Any], asked: _Asked,
            top: list[tuple[float, int, dict[str, float]]], info: dict[int, dict[str, Any]], matched: int,
            below: int, explain: Any) -> Found:
    """Each episode's block, best first, while the budget holds (room kept for the header); the
    episode that does not fit whole is shortened, and ends the list."""
    from biocortex_cli.index.store import unpack_record, unpack_sections, via_section
    from biocortex_cli.recall.signals import shorten
    from biocortex_cli.render.blocks import DROP_ORDER, Section, assemble
    from biocortex_cli.render.recall import EPISODES, Header, RecallPart, hit_fields

    opts = asked.opts
    header = Header(0, matched, asked.head, asked.recall_id, int(meta["header_tokens"]),
                    int(meta.get("bare_header_tokens", 0)))
    reserve = header._replace(shown=len(top)).cost(opts.budget, opts.budget)  # its digits never exceed these
    used = 0
    hits: list[Hit] = []
    over_budget = 0
    blobs: dict[int, bytes] = {}
    for doc, rel, task_, blob, record in conn.execute(
            "SELECT d.doc, d.rel, d.task, b.sections, r.record FROM docs d JOIN bodies b ON b.doc = d.doc"
            f" JOIN records r ON r.doc = d.doc WHERE d.doc IN ({','.join('?' for _ in top)})",
            [doc for _, doc, _ in top]):
        info[doc].update(rel=rel, task=task_, record=record)
        blobs[doc] = blob
    vias = sorted({info[doc]["via"] for _, doc, _ in top if "via" in info[doc]} - set(blobs))
    if vias:
        blobs.update(conn.execute(f"SELECT doc, sections FROM bodies WHERE doc IN ({','.join('?' * len(vias))})",
                                  vias))
    for rank, (score, doc, signals) in enumerate(top, start=1):
        if hits and len(hits) < rank - 1:
            over_budget += 1
            continue
        sections = unpack_sections(blobs[doc], opts.compact)
        seed = info[doc].get("via")
        line = via_section(blobs[seed]) if seed is not None else None
        if line is not None:  # under the title and meta lines: found through that analysis
            sections = [*sections[:2], line, *sections[2:]]
        cost = sum(s[2] for s in sections[:-1]) + sections[-1][3]
        keep, shortened = sections, False
        if reserve + used + cost > opts.budget:
            keep, cost = shorten(sections, DROP_ORDER, meta, opts.budget - reserve - used)
            shortened = True
            if not keep:
                over_budget += len(top) - rank + 1
                break
        used += cost
        row = info[doc]
        shown = min(1.0, max(0.0, score))
        block = assemble([Section(s[0], s[1]) for s in keep], rank, shown, shortened)
        hits.append(Hit(id=row["id"], path=row["rel"], score=round(shown, 4),
                        signals={s: round(v, 4) for s, v in signals.items()},
                        tokens=cost, task=row["task"], success=row["success"], quality=row["quality"],
                        block=block, shortened=shortened, matched=explain(doc, signals) if opts.explain else {},
                        rank_score=round(score, 4), fields=hit_fields(unpack_record(row["record"])),
                        via=info[seed]["id"] if seed is not None else None))
        if shortened:
            over_budget += len(top) - rank
            break
    over_top_k = matched - len(top)
    if not hits:
        first = unpack_sections(blobs[top[0][1]], opts.compact)  # the best hit, shortened as far as it goes
        need = reserve + sum(s[2] for s in first if s[0] not in DROP_ORDER) + int(meta["shortened_tokens_last"])
        return asked.empty(f"the budget of {opts.budget} tokens is too small for any past analysis "
                           f"(the best one needs about {need} in its shortest form)",
                           dropped=below, over_top_k=over_top_k, over_budget=over_budget)
    found = asked.empty("", dropped=below, over_top_k=over_top_k, over_budget=over_budget)
    result = found.result._replace(results=hits, matched=matched)
    part = RecallPart(EPISODES, "".join(h.block for h in hits), used,
                      {"results": [h.as_json(False) for h in hits], "dropped": result.dropped})
    return Found(result, part, header._replace(shown=len(hits)))


def _explain(conn: sqlite3.Connection, doc: int, asked: _Asked, named: _Named,
             lists: dict[int, Any], covered: int, info: dict[str, Any], signals: dict[str, float],
             fusion: _Fusion) -> dict[str, list[str]]:
    from biocortex_cli.recall.signals import explain

    assert asked.words is not None and asked.concepts is not None
    out = explain(conn, doc, asked.words.weights, lists, asked.words.fingerprints, named.where, named.grams,
                  asked.words.synonyms)
    out["concepts"] = [name for i, name in enumerate(asked.concepts.names) if covered >> i & 1]
    if asked.opts.explain and "utility" in signals:  # which votes moved it: the sums utility is made of
        from biocortex_cli.index.feedback import evidence, question_fingerprints

        ident = info["id"]
        votes_for, votes_against = evidence(conn, [ident], question=question_fingerprints(asked.opts.query)).get(
            ident, (0.0, 0.0))
        out["feedback"] = [f"for {votes_for:.2f}", f"against {votes_against:.2f} (weighed votes)"]
    if "kin" not in signals:  # kin are ranked through their seed (recall/kin.py)
        out["rank"] = _rank_terms(fusion, signals, asked.text.get(doc, 0.0),
                                  float(asked.opts.weights.get("utility", 0.0)))
    return out


def _rank_terms(fusion: _Fusion, signals: dict[str, float], text: float, w_utility: float) -> list[str]:
    """The rank score as it was computed (docs/recall.md), each term with its weight, the text
    signal before its clip to 1 (the printed signals are clipped): what ``--explain`` shows so a
    reader can work the rank out from what is printed."""
    terms = [f"{weight:g}·{name} {text if col < 0 else signals.get(name, 0.0):.2f}"
             for name, weight, col, _n in fusion.plan]
    fused = sum(weight * (text if col < 0 else signals.get(name, 0.0)) for name, weight, col, _n in fusion.plan)
    denominator = fusion.relevance_w
    if fusion.outcome_w > 0 and "outcome" in signals:
        terms.append(f"{fusion.outcome_w:g}·outcome {signals['outcome']:.0f}")
        fused += fusion.outcome_w * signals["outcome"]
        denominator += fusion.outcome_w
    score = fused / denominator
    out = [f"({' + '.join(terms)}) / {denominator:g} = {score:.2f}"]
    if "utility" in signals:
        score += w_utility * (signals["utility"] - 0.5)
        out.append(f"+ {w_utility:g}·(utility {signals['utility']:.2f} − 0.5)")
    if "recency" in signals:
        score *= signals["recency"]
        out.append(f"× recency {signals['recency']:.2f}")
    if len(out) > 1:
        out.append(f"= {score:.2f}")
    return out
