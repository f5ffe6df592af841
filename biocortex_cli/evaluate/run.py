"""Rank every query of a BEIR set with biocortex recall and with BM25, in one run, and score them.

biocortex: the corpus is imported into a throwaway vault (a temporary folder, real git, a fixed
author, the set's own ids), indexed, and every judged query is recalled through the same engine
and options ``biocortex recall`` uses, with ``top_k`` = k and a budget too large to cut anything.
It is scored twice: with ``min_relevance`` 0 (ranking quality alone) and with the vault's default
gate (what an agent actually gets: the gate may return fewer than k, or nothing).

BM25: ``bm25s`` (an optional extra: ``pip install 'biocortex[bench]'``) with its default Lucene
BM25 (k1 1.5, b 0.75), its tokenizer and English stop words, over each document's title and text.
Documents scoring 0 are not counted as retrieved.
"""

from __future__ import annotations

import json
import shutil
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from biocortex_cli.errors import DataError, NotFoundError
from biocortex_cli.evaluate.dataset import BeirSet, CorpusDoc, Query, load_beir
from biocortex_cli.evaluate.metrics import mean, metric_names, score_query
from biocortex_cli.progress import Progress, Stage, plural, report

AUTHOR = "biocortex eval <eval@localhost>"
#: A token budget no recall reaches, so the budget never cuts a ranking.
UNLIMITED_BUDGET = 10**9
NO_CATEGORY = "(none)"


def say(text: str) -> None:
    """One line on stderr per phase of the evaluation (a notice: biocortex_cli/progress.py)."""
    report(Progress("eval", 0, 0, text, notice=True))
    report(Progress("eval", 1, 1, text))

Rankings = dict[str, list[str]]  # query id -> corpus ids, best first


@dataclass(frozen=True)
class SystemScores:
    name: str  # "biocortex", "biocortex-gate", "bm25"
    label: str  # what the table prints
    means: dict[str, float]
    by_category: dict[str, dict[str, float]]
    per_query: dict[str, dict[str, float]]
    rankings: Rankings
    empty: int  # judged queries that got no result at all
    seconds: float  # time to rank every judged query (setup excluded)

    def as_json(self) -> dict[str, Any]:
        return {"name": self.name, "label": self.label, "metrics": _rounded(self.means),
                "by_category": {c: _rounded(m) for c, m in self.by_category.items()},
                "empty_results": self.empty, "seconds": round(self.seconds, 3),
                "per_query": {q: {**_rounded(m), "ranked": self.rankings[q]} for q, m in self.per_query.items()}}


@dataclass(frozen=True)
class EvalReport:
    dataset: str
    documents: int
    queries: int
    judged: int
    k: int
    relevance_level: int
    min_relevance: float  # the default gate's threshold
    metrics: list[str]
    categories: dict[str, int]  # category -> judged queries in it (empty: the set has none)
    systems: list[SystemScores]
    notes: list[str] = field(default_factory=list)
    setup_seconds: dict[str, float] = field(default_factory=dict)

    def as_json(self) -> dict[str, Any]:
        return {"dataset": self.dataset, "documents": self.documents, "queries": self.queries,
                "judged_queries": self.judged, "k": self.k, "relevance_level": self.relevance_level,
                "min_relevance": self.min_relevance, "metrics": self.metrics,
                "categories": self.categories, "systems": [s.as_json() for s in self.systems],
                "notes": self.notes,
                "setup_seconds": {k: round(v, 3) for k, v in self.setup_seconds.items()}}


def evaluate(root: Path, *, k: int = 10, relevance_level: int = 1, config: Path | None = None) -> EvalReport:
    """Load the set in ``root``, rank its judged queries with every system, score the rankings."""
    started = time.perf_counter()
    beir = load_beir(root)
    judged = beir.judged(relevance_level)
    setup = {"load": time.perf_counter() - started}
    notes: list[str] = []
    skipped = len(beir.queries) - len(judged)
    if skipped:
        notes.append(f"{skipped} of {len(beir.queries)} queries have no document judged at relevance "
                     f"{relevance_level} or more; they are left out")
    if not judged:
        raise DataError("no query has a relevant document in the qrels", path=str(beir.qrels_path),
                        hint="give scores of 1 or more to the relevant documents")
    say(f"eval: {len(beir.corpus)} documents, {len(judged)} judged queries")

    rankings, gate_rankings, min_relevance, seconds = _biocortex(beir, judged, k, config, setup)
    systems = [
        _score("biocortex", "biocortex (gate 0)", beir, judged, rankings, seconds[0], k, relevance_level),
        _score("biocortex-gate", f"biocortex (gate {min_relevance:g})", beir, judged, gate_rankings,
               seconds[1], k, relevance_level),
    ]
    bm25 = bm25_rankings(beir.corpus, judged, k)
    if bm25 is None:
        notes.append("bm25s is not installed, so there is no BM25 baseline "
                     "(pip install 'biocortex[bench]' or pip install bm25s)")
    else:
        setup["bm25 index"] = bm25[1]
        systems.append(_score("bm25", "BM25 (bm25s)", beir, judged, bm25[0], bm25[2], k, relevance_level))
    categories: dict[str, int] = {}
    if any(q.category for q in judged):
        for q in judged:
            name = q.category or NO_CATEGORY
            categories[name] = categories.get(name, 0) + 1
    return EvalReport(dataset=str(root), documents=len(beir.corpus), queries=len(beir.queries),
                      judged=len(judged), k=k, relevance_level=relevance_level,
                      min_relevance=min_relevance, metrics=metric_names(k),
                      categories=dict(sorted(categories.items())), systems=systems, notes=notes,
                      setup_seconds=setup)


def _score(name: str, label: str, beir: BeirSet, judged: Sequence[Query], rankings: Rankings,
           seconds: float, k: int, relevance_level: int) -> SystemScores:
    names = metric_names(k)
    per_query = {q.id: score_query(rankings[q.id][:k], beir.qrels[q.id], k, relevance_level) for q in judged}
    groups: dict[str, list[dict[str, float]]] = {}
    if any(q.category for q in judged):
        for q in judged:
            groups.setdefault(q.category or NO_CATEGORY, []).append(per_query[q.id])
    return SystemScores(name=name, label=label, means=mean(list(per_query.values()), names),
                        by_category={c: mean(rows, names) for c, rows in sorted(groups.items())},
                        per_query=per_query, rankings=rankings,
                        empty=sum(1 for q in judged if not rankings[q.id]), seconds=seconds)


def _biocortex(beir: BeirSet, judged: Sequence[Query], k: int, config: Path | None,
               setup: dict[str, float]) -> tuple[Rankings, Rankings, float, tuple[float, float]]:
    """Rankings with min_relevance 0 and with the config's gate, that gate, and the query times."""
    from biocortex_cli.index.build import refresh
    from biocortex_cli.index.store import get_meta
    from biocortex_cli.recall.engine import recall
    from biocortex_cli.recall.service import options_from_config
    from biocortex_cli.store.config import CONFIG_REL
    from biocortex_cli.store.episodes import import_episodes
    from biocortex_cli.store.git import parse_author
    from biocortex_cli.store.vault import Vault, init_vault

    corpus_id = {doc.vault_id: doc.id for doc in beir.corpus}
    with tempfile.TemporaryDirectory(prefix="biocortex-eval-") as tmp:
        started = time.perf_counter()
        say(f"eval: importing {len(beir.corpus)} episodes into a throwaway vault")
        root = Path(tmp) / "vault"
        init_vault(root, author=AUTHOR)
        if config is not None:
            _use_config(config, root / CONFIG_REL)
        vault = Vault(root.resolve())
        lines = (json.dumps({**doc.episode, "id": doc.vault_id}, ensure_ascii=False) for doc in beir.corpus)
        import_episodes(vault, "\n".join(lines), str(beir.root / "corpus.jsonl"), parse_author(AUTHOR))
        setup["import"] = time.perf_counter() - started
        started = time.perf_counter()
        say("eval: indexing")
        conn, report = refresh(vault, vault.config.tokenizer.encoding, full=True)
        setup["index"] = time.perf_counter() - started
        try:
            if report.problems:
                rel, line, message = report.problems[0]
                raise DataError(f"{plural(len(report.problems), 'episode')} could not be indexed; first: "
                                f"{rel}:{line}: {message}", path=str(beir.root / "corpus.jsonl"))
            meta = get_meta(conn)
            gate = vault.config.episodic.min_relevance
            out: list[Rankings] = []
            times: list[float] = []
            for min_relevance in (0.0, gate):
                stage = Stage("eval", len(judged), f"eval: recall of {len(judged)} queries "
                              f"(min_relevance {min_relevance:g})", notice=True)
                started = time.perf_counter()
                ranks: Rankings = {}
                for done, q in enumerate(judged):
                    stage.advance(done)
                    opts = options_from_config(vault, q.text, top_k=k, budget=UNLIMITED_BUDGET,
                                               min_relevance=min_relevance)
                    ranks[q.id] = [corpus_id[hit.id] for hit in recall(conn, meta, opts).results]
                times.append(time.perf_counter() - started)
                stage.finish()
                out.append(ranks)
        finally:
            conn.close()
    return out[0], out[1], gate, (times[0], times[1])


def _use_config(source: Path, target: Path) -> None:
    from biocortex_cli.store.config import load_config

    if not source.is_file():
        raise NotFoundError(f"{source}: no such file", hint="give a biocortex config.yaml (see docs/configuration.md)")
    shutil.copyfile(source, target)
    try:
        load_config(target.parents[1])
    except DataError as exc:
        exc.path = str(source)
        raise


def bm25_rankings(docs: Sequence[CorpusDoc], queries: Sequence[Query], k: int) -> tuple[Rankings, float, float] | None:
    """BM25 rankings of ``queries`` over ``docs``, the seconds to index and to rank; None without bm25s."""
    try:
        import bm25s
    except ImportError:
        return None
    say(f"eval: BM25 (bm25s {getattr(bm25s, '__version__', '?')}) over the same corpus")
    started = time.perf_counter()
    retriever = bm25s.BM25()
    retriever.index(bm25s.tokenize([d.bm25_text for d in docs], stopwords="en", show_progress=False),
                    show_progress=False)
    indexed = time.perf_counter()
    query_tokens = bm25s.tokenize([q.text for q in queries], stopwords="en", return_ids=False,
                                  show_progress=False)
    found, scores = retriever.retrieve(query_tokens, k=min(k, len(docs)), show_progress=False)
    rankings: Rankings = {}
    for i, q in enumerate(queries):
        rankings[q.id] = [docs[int(j)].id for j, s in zip(found[i], scores[i], strict=True) if float(s) > 0]
    return rankings, indexed - started, time.perf_counter() - indexed


def _rounded(values: dict[str, float]) -> dict[str, float]:
    return {k: round(v, 4) for k, v in values.items()}
