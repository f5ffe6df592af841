"""Read a BEIR-style retrieval set and check it: every problem names its file and line.

Layout (the same as BEIR's, so BEIR sets work as they are)::

    corpus.jsonl    {"_id": "...", "title": "...", "text": "...", "metadata": {...}}
    queries.jsonl   {"_id": "...", "text": "...", "metadata": {"category": "..."}}
    qrels.tsv       query-id <TAB> corpus-id <TAB> score   (or qrels/test.tsv; header line optional)

A corpus document whose ``metadata`` holds an episode (it has a ``task``) is imported into the
vault as that episode, every field as given; any other document becomes an episode whose task is
the title (or the first sentence of the text) and whose result is the text. The BM25 baseline
always indexes ``title`` and ``text``; :func:`episode_text` composes the text of an episode so a
set that carries episodes gives both systems the same words.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from biocortex_cli.errors import DataError, NotFoundError

CORPUS = "corpus.jsonl"
QUERIES = "queries.jsonl"
QRELS = ("qrels.tsv", "qrels/test.tsv")
#: ``created`` of documents that do not say when they were made (keeps vault paths deterministic).
DEFAULT_CREATED = "2000-01-01T00:00:00Z"
_SENTENCE_END = re.compile(r"(?<=[.!?])\s")


@dataclass(frozen=True)
class CorpusDoc:
    id: str  # as in the set
    vault_id: str  # the episode id in the vault: ``id`` unless that is not a valid episode id
    title: str
    text: str
    episode: dict[str, Any]  # the record imported into the vault (without ``id``)
    line: int

    @property
    def bm25_text(self) -> str:
        return f"{self.title}\n{self.text}" if self.title else self.text


@dataclass(frozen=True)
class Query:
    id: str
    text: str
    category: str | None
    line: int


@dataclass(frozen=True)
class BeirSet:
    root: Path
    corpus: list[CorpusDoc]
    queries: list[Query]
    qrels: dict[str, dict[str, int]]  # query id -> corpus id -> graded relevance
    qrels_path: Path = field(default=Path("qrels.tsv"))

    def judged(self, relevance_level: int = 1) -> list[Query]:
        """Queries with at least one document at ``relevance_level`` or above, in file order."""
        return [q for q in self.queries
                if any(g >= relevance_level for g in self.qrels.get(q.id, {}).values())]


def episode_text(record: Mapping[str, Any]) -> str:
    """The BEIR ``text`` of an episode: plan, result, lessons, then tools, domains and entities."""
    parts = [str(record.get(key) or "").strip() for key in ("plan", "result")]
    parts += [str(v).strip() for v in record.get("lessons") or []]
    for key in ("tools", "domains", "entities"):
        values = [str(v) for v in record.get(key) or []]
        if values:
            parts.append(f"{key.capitalize()}: {', '.join(values)}.")
    return "\n".join(p for p in parts if p)


def load_beir(root: Path) -> BeirSet:
    """Read and check the set in ``root``; raises NotFoundError or DataError (with path:line)."""
    if not root.is_dir():
        raise NotFoundError(f"{root} is not a folder",
                            hint="give the folder holding corpus.jsonl, queries.jsonl and qrels.tsv")
    corpus = _load_corpus(_need(root, CORPUS))
    queries = _load_queries(_need(root, QUERIES))
    qrels_path = next((root / name for name in QRELS if (root / name).is_file()), None)
    if qrels_path is None:
        raise NotFoundError(f"{root} has no qrels.tsv (nor qrels/test.tsv)",
                            hint="add qrels.tsv: query-id<TAB>corpus-id<TAB>score, one judgement a line")
    qrels = _load_qrels(qrels_path, {q.id for q in queries}, {d.id for d in corpus})
    return BeirSet(root=root, corpus=corpus, queries=queries, qrels=qrels, qrels_path=qrels_path)


# --- helpers -------------------------------------------------------------------------------


def _need(root: Path, name: str) -> Path:
    path = root / name
    if not path.is_file():
        raise NotFoundError(f"{path}: no such file",
                            hint="a BEIR set has corpus.jsonl, queries.jsonl and qrels.tsv (see docs/eval.md)")
    return path


def _lines(path: Path) -> Iterator[tuple[int, str]]:
    try:
        text = path.read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = path.read_bytes()[: exc.start].count(b"\n") + 1
        raise DataError(f"not UTF-8 (byte {exc.start})", path=str(path), line=line) from None
    for number, raw in enumerate(text.split("\n"), start=1):  # not splitlines(): U+2028 is JSON text
        if raw.strip():
            yield number, raw


def _objects(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    for number, raw in _lines(path):
        try:
            data = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise DataError(f"invalid JSON: {exc.msg} (column {exc.colno})", path=str(path), line=number,
                            hint="each line must be one complete JSON object") from None
        if not isinstance(data, dict):
            raise DataError("expected a JSON object", path=str(path), line=number,
                            hint='e.g. {"_id": "q1", "text": "..."}')
        yield number, data


def _ident(data: Mapping[str, Any], path: Path, line: int) -> str:
    value = data.get("_id")
    if isinstance(value, bool) or not isinstance(value, str | int) or not str(value).strip():
        raise DataError(f"_id is missing or not a string: {value!r}", path=str(path), line=line,
                        hint='every line needs an "_id"')
    return str(value).strip()


def _string(data: Mapping[str, Any], key: str, path: Path, line: int) -> str:
    value = data.get(key, "")
    if value is None:
        return ""
    if not isinstance(value, str):
        raise DataError(f"{key} must be a string, not {value!r}", path=str(path), line=line)
    return value


def _load_corpus(path: Path) -> list[CorpusDoc]:
    from biocortex_cli.store.episodes import ID_RE, build_episode
    from biocortex_cli.store.git import parse_author

    author = parse_author("biocortex eval <eval@localhost>")
    now = dt.datetime(2000, 1, 1, tzinfo=dt.timezone.utc)
    docs: list[CorpusDoc] = []
    seen: dict[str, int] = {}
    for line, data in _objects(path):
        ident = _ident(data, path, line)
        if ident in seen:
            raise DataError(f"duplicate _id {ident!r} (also on line {seen[ident]})", path=str(path), line=line)
        seen[ident] = line
        title, text = _string(data, "title", path, line), _string(data, "text", path, line)
        meta = data.get("metadata")
        if meta is not None and not isinstance(meta, dict):
            raise DataError(f"metadata must be an object, not {meta!r}", path=str(path), line=line)
        if meta and "task" in meta:
            record = {k: v for k, v in meta.items() if k != "id"}
        elif title.strip() or text.strip():
            record = {"task": title.strip() or _first_sentence(text), "result": text}
        else:
            raise DataError(f"document {ident!r} has no title, text or episode", path=str(path), line=line)
        record.setdefault("created", DEFAULT_CREATED)
        vault_id = ident if ID_RE.fullmatch(ident) else "doc-" + hashlib.sha1(ident.encode()).hexdigest()[:16]
        build_episode({**record, "id": vault_id}, author=author, now=now, where=str(path), line=line)
        docs.append(CorpusDoc(id=ident, vault_id=vault_id, title=title, text=text, episode=record, line=line))
    if not docs:
        raise DataError("the corpus is empty", path=str(path), hint="one JSON object per line")
    vault_ids = [d.vault_id for d in docs]
    if len(set(vault_ids)) != len(vault_ids):  # pragma: no cover - a sha1 collision
        raise DataError("two documents map to the same episode id", path=str(path))
    return docs


def _first_sentence(text: str) -> str:
    head = _SENTENCE_END.split(text.strip(), maxsplit=1)[0]
    return head[:200]


def _load_queries(path: Path) -> list[Query]:
    queries: list[Query] = []
    seen: dict[str, int] = {}
    for line, data in _objects(path):
        ident = _ident(data, path, line)
        if ident in seen:
            raise DataError(f"duplicate _id {ident!r} (also on line {seen[ident]})", path=str(path), line=line)
        seen[ident] = line
        text = _string(data, "text", path, line)
        if not text.strip():
            raise DataError(f"query {ident!r} has no text", path=str(path), line=line)
        meta = data.get("metadata")
        category = meta.get("category") if isinstance(meta, dict) else None
        queries.append(Query(id=ident, text=text, category=str(category) if category else None, line=line))
    if not queries:
        raise DataError("no queries", path=str(path), hint="one JSON object per line")
    return queries


def _load_qrels(path: Path, query_ids: set[str], corpus_ids: set[str]) -> dict[str, dict[str, int]]:
    qrels: dict[str, dict[str, int]] = {}
    first = True
    for line, raw in _lines(path):
        parts = raw.rstrip("\r\n").split("\t")
        if first and parts[0].strip().lower() in ("query-id", "query_id", "qid"):
            first = False
            continue  # the header
        first = False
        if len(parts) != 3:
            raise DataError(f"expected 3 tab-separated columns, found {len(parts)}", path=str(path), line=line,
                            hint="query-id<TAB>corpus-id<TAB>score")
        qid, did, score_text = (p.strip() for p in parts)
        try:
            score = int(score_text)
        except ValueError:
            raise DataError(f"score {score_text!r} is not a whole number", path=str(path), line=line,
                            hint="graded relevance: 0 (not relevant), 1, 2, 3, ...") from None
        if qid not in query_ids:
            raise DataError(f"unknown query id {qid!r}", path=str(path), line=line,
                            hint="every query id in the qrels must be in queries.jsonl")
        if did not in corpus_ids:
            raise DataError(f"unknown corpus id {did!r}", path=str(path), line=line,
                            hint="every corpus id in the qrels must be in corpus.jsonl")
        judged = qrels.setdefault(qid, {})
        if did in judged:
            raise DataError(f"{qid} -> {did} is judged twice", path=str(path), line=line)
        judged[did] = score
    return qrels
