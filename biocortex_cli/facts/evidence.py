"""Evidence: where a fact comes from, which sources are independent, and how they weigh.

A fact's ``evidence`` is a list of items, one per **independent source**; each item names the
source, its confidence, who added it and when, and optionally ``refs`` — citations the source
carries (a dataset row's PMIDs) that are *not* counted again. The same grammar reads every
source, checks it on the way in and gives it a **key**: two spellings of one source
(``pmid:8319905`` and ``https://pubmed.ncbi.nlm.nih.gov/8319905/``) have one key, so a corrected
or repeated source updates its own item instead of adding one; a dataset counts once whatever
its version and however many PMIDs it lists.

Sources (``parse_source``; docs/facts.md "Sources"):

=============  ==========================================  =====================================
kind           written                                     key
=============  ==========================================  =====================================
``pmid``       ``PMID:8319905`` (also ``pmid:``, PubMed    ``PMID:8319905``
               URLs, ``PMID 8319905``)
``pmcid``      ``PMC1234567`` (also ``PMCID:PMC…``)        ``PMC1234567``
``doi``        ``DOI:10.1038/nature12373`` (also ``doi:``, ``DOI:`` + the DOI lower-cased
               ``https://doi.org/…``, a bare ``10.…/…``)
``episode``    an episode id of this vault (``episode:``   ``episode:<id>``
               prefix optional); it must exist
``agent``      ``agent:<name>``: an agent's own claim      ``agent:<name>`` (case-folded)
``dataset``    ``dataset:<name>[@<version>]``              ``dataset:<name>`` (no version)
``url``        ``http(s)://…``                             the URL without a trailing ``/``
``path``       a relative path with a ``/`` or a known     ``path:<path>``
               file extension (``notebooks/qc.ipynb``)
``curie``      ``PREFIX:LOCAL`` (``GEO:GSE12345``)          the text, prefix upper-cased
``unsourced``  nothing given                               ``unsourced``
=============  ==========================================  =====================================

Anything else (free text, a date, an id no episode has, ``PMID:abc``) is refused with the grammar
as the hint. Notes written before the check are read as they are: :func:`source_key` never fails.

Weighing (``weigh``): each independent source counts with the highest confidence it gives a side,
clamped below 1; a side's **mass** is Σ −ln(1 − cᵢ), its weight 1 − e^(−mass) — the noisy-OR of
the sources, in a form where independent sources add. One side *clearly outweighs* the other when
its mass is at least ``ratio`` times the other's (``facts.outweigh``, 3 by default): four papers at
0.8 (mass 6.4) outweigh one at 0.8 (1.6); 0.95 (3.0) outweighs a 0.3 draft (0.36); 0.95 against
0.9 (2.3) is contested.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence

from biocortex_cli.errors import UsageError
from biocortex_cli.records import NamedTuple  # typing's, without importing typing

TYPE_CHECKING = False  # `typing` is not imported at run time (mypy reads the block)
if TYPE_CHECKING:
    import re
    from typing import Any

__all__ = ["Evidence", "Side", "Source", "evidence_items", "parse_source", "source_key", "weigh"]

#: a confidence of 1 would be an infinite mass: sources are clamped to this
MAX_CONFIDENCE = 0.999
KINDS = ("pmid", "pmcid", "doi", "episode", "agent", "dataset", "url", "path", "curie", "unsourced", "redacted")
GRAMMAR = ("a source is PMID:<digits>, PMC<digits>, a DOI (10.…/…), an episode id of this vault, "
           "agent:<name>, dataset:<name>[@<version>], an http(s) URL, a relative path (notebooks/qc.ipynb) "
           "or PREFIX:LOCAL (GEO:GSE12345)")
PATH_EXTENSIONS = frozenset(
    "ipynb py r rmd qmd md sh nf smk wdl cwl txt tsv csv json jsonl yaml yml html pdf xlsx h5ad h5 rds "
    "log ini toml cfg sql parquet".split())

# Patterns, compiled on first use (re's cache): compiling one costs ~1 M instructions, and
# `fact verify` of a fact citing PMIDs needs one of these nine. ``_classify`` tries a pattern only
# when the text's first character can begin it (a check that never skips a match: none of these
# letters has another case form under re.IGNORECASE, as i, k and s do).
_PMID = r"(?i)(?:pmid|pubmed)\s*:?\s*(\d{1,9})"
_PUBMED_URL = r"(?i)https?://(?:www\.)?(?:pubmed\.ncbi\.nlm\.nih\.gov|ncbi\.nlm\.nih\.gov/pubmed)/(\d{1,9})/?"
_PMC = r"(?i)(?:pmcid\s*:\s*)?pmc(\d{1,9})"
_DOI = r"(?i)(?:doi\s*:\s*|https?://(?:dx\.)?doi\.org/)?(10\.\d{4,9}/\S+)"
_AGENT = r"(?i)agent:(\S.*)"
_DATASET = r"(?i)dataset:([A-Za-z0-9][A-Za-z0-9._-]*)(?:@(\S+))?"
_URL = r"(?i)https?://\S+"
_CURIE = r"([A-Za-z][A-Za-z0-9._-]*):(\S+)"
_EPISODE = r"(?i)episode:(\S+)"
_EPISODE_ID = r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}"


class Source(NamedTuple):
    text: str  # as it is written into the note (normalised)
    kind: str  # one of KINDS
    key: str  # the independent source it is: one key, one vote


def parse_source(text: str, *, episode_exists: Callable[[str], bool] | None = None) -> Source:
    """A source given on the way in, normalised and checked (UsageError with the grammar; the
    message never repeats a secret the text holds)."""
    raw = " ".join(str(text).split())
    if "[REDACTED:" in raw:  # what --redact left of a source: kept as written, on record
        return Source(raw, "redacted", raw)
    try:
        found = _classify(raw)
    except UsageError as exc:
        exc.message = exc.message.replace(repr(raw), repr(_shown(raw)))
        raise
    if found is not None:
        if found.kind == "episode" and episode_exists is not None and not episode_exists(found.key[8:]):
            raise UsageError(f"source {_shown(raw)!r}: no episode with id {_shown(found.key[8:])!r} in this vault",
                             hint=f"add the episode first, or give another source; {GRAMMAR}")
        return found
    from biocortex_cli.store.episodes import ID_RE

    raw_shown = _shown(raw)  # only in a message: scanning every source costs a bulk import
    if ID_RE.fullmatch(raw):  # a bare id: an episode's, if one exists
        if episode_exists is not None and episode_exists(raw):
            return Source(raw, "episode", f"episode:{raw}")
        why = f"no episode with id {raw_shown!r} in this vault" if episode_exists is not None else "not a source"
        if raw[0].isdigit() and raw.isalnum():  # a PubMed id without its prefix, or mistyped (TRRUST rows)
            why += ", and a PubMed id is written PMID:<digits>" + (" (digits only)" if not raw.isdigit() else "")
        raise UsageError(f"source {raw_shown!r}: {why}", hint=GRAMMAR)
    raise UsageError(f"source {raw_shown!r} is not a source biocortex can check", hint=GRAMMAR)


def _shown(text: str) -> str:
    """``text`` as an error may repeat it: secrets replaced by ``[REDACTED:…]``."""
    from biocortex_cli.store.secrets import redact

    return redact(text)


def _full(pattern: str, raw: str, possible: bool) -> re.Match[str] | None:
    """``pattern`` matching all of ``raw``, tried only when ``possible`` (it cannot match otherwise)."""
    import re

    return re.fullmatch(pattern, raw) if possible else None


_NAME_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-"


def _dataset_tag(text: str) -> bool:
    """``<name>[@<version>]`` as :data:`_DATASET` reads it after ``dataset:``, without compiling it."""
    name, at, version = text.partition("@")
    return (name[:1] in _NAME_CHARS[:62] and name[:1] != "" and not name.strip(_NAME_CHARS)
            and (not at or (version != "" and not any(map(str.isspace, version)))))


def _classify(raw: str) -> Source | None:
    if raw == "unsourced":
        return Source(raw, "unsourced", raw)
    first = raw[:1]
    if first in "pP" and raw[:5] == "PMID:" and 0 < len(raw) - 5 <= 9 and raw[5:].isascii() and raw[5:].isdigit():
        text = f"PMID:{int(raw[5:])}"  # as sources are written (what _PMID reads, without compiling it)
        return Source(text, "pmid", text)
    if raw[:8] == "dataset:" and _dataset_tag(raw[8:]):  # as dataset edges cite (what _DATASET reads)
        return Source(raw, "dataset", f"dataset:{raw[8:].partition('@')[0].casefold()}")
    import re  # here: the sources above need no pattern (`fact verify` imports no `re`)

    web = first in "hH"
    pm = first in "pP"
    m = _full(_PUBMED_URL, raw, web) or _full(_PMID, raw, pm)
    if m:
        text = f"PMID:{int(m.group(1))}"
        return Source(text, "pmid", text)
    if pm and re.match(r"(?i)(pmid|pubmed)\b", raw):
        raise UsageError(f"source {raw!r}: a PMID is digits only (PMID:8319905)", hint=GRAMMAR)
    m = _full(_PMC, raw, pm)
    if m:
        text = f"PMC{int(m.group(1))}"
        return Source(text, "pmcid", text)
    doi = raw[:2].lower() == "do"
    m = _full(_DOI, raw, doi or web or first == "1")
    if m:
        doi_text = m.group(1).rstrip(".")
        return Source(f"DOI:{doi_text}", "doi", f"DOI:{doi_text.lower()}")
    if doi and re.match(r"(?i)doi\s*:", raw):
        raise UsageError(f"source {raw!r}: a DOI starts with 10. and has a / (DOI:10.1038/nature12373)",
                         hint=GRAMMAR)
    m = _full(_EPISODE, raw, first in "eE")
    if m:
        return Source(m.group(1), "episode", f"episode:{m.group(1)}")
    m = _full(_AGENT, raw, first in "aA")
    if m:
        return Source(raw, "agent", f"agent:{m.group(1).casefold()}")
    m = _full(_DATASET, raw, first in "dD")
    if m:
        return Source(raw, "dataset", f"dataset:{m.group(1).casefold()}")
    if raw.casefold().startswith("dataset:"):
        raise UsageError(f"source {raw!r}: a dataset tag is dataset:<name>[@<version>]", hint=GRAMMAR)
    if _full(_URL, raw, web):
        scheme, rest = raw.split("://", 1)
        return Source(raw, "url", f"{scheme.lower()}://{rest.rstrip('/')}")
    if " " not in raw and not raw.startswith("/") and ".." not in raw.split("/"):
        ext = raw.rsplit(".", 1)[-1].casefold() if "." in raw.rsplit("/", 1)[-1] else ""
        if ("/" in raw and ":" not in raw) or ext in PATH_EXTENSIONS:
            return Source(raw, "path", f"path:{raw}")
    m = _full(_CURIE, raw, ":" in raw)
    if m and not raw[0].isdigit():
        return Source(raw, "curie", f"{m.group(1).upper()}:{m.group(2)}")
    return None


def source_key(text: str) -> str:
    """The independent source a written source is; never fails (old notes are read as they are)."""
    raw = " ".join(str(text).split())
    try:
        found = _classify(raw)
    except UsageError:
        found = None
    if found is None:
        import re

        return raw if raw.casefold().startswith("episode:") else f"episode:{raw}" if re.fullmatch(
            _EPISODE_ID, raw) else raw
    return found.key


def source_kind(text: str) -> str:
    if "[REDACTED:" in text:
        return "redacted"
    try:
        found = _classify(" ".join(str(text).split()))
    except UsageError:
        return "unknown"
    if found is not None:
        return found.kind
    import re

    return "episode" if re.fullmatch(_EPISODE_ID, text) else "unknown"


class Evidence(NamedTuple):
    """One independent source behind one assertion (a fact note, or a dataset's row).

    ``origin`` is where the assertion lives: a fact id, or ``dataset:<name>@<version>`` for an
    edge of a registered dataset; ``refs`` are the citations the source carries (counted once,
    with it)."""

    source: str
    kind: str
    key: str
    confidence: float
    origin: str
    refs: tuple[str, ...] = ()
    version: str | None = None
    author: str = ""
    added: str = ""

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"source": self.source, "kind": self.kind, "confidence": self.confidence,
                               "origin": self.origin}
        if self.refs:
            out["refs"] = list(self.refs)
        if self.version:
            out["version"] = self.version
        return out


def evidence_items(record: Mapping[str, Any], origin: str) -> list[Evidence]:
    """The evidence of a fact record, one item per independent source (the highest confidence
    wins when an old note lists one source twice, e.g. a dataset tag and its PMIDs apart)."""
    items = record.get("evidence")
    out: dict[str, Evidence] = {}
    listed = items if isinstance(items, list) else []
    if not listed:  # a hand-written note: sources and the fact's confidence
        sources = record.get("source")
        names = [sources] if isinstance(sources, str) else sources if isinstance(sources, list) else []
        conf = _number(record.get("confidence"))
        listed = [{"source": str(s), "confidence": conf} for s in names] or [
            {"source": "unsourced", "confidence": conf}]
    for item in listed:
        if not isinstance(item, Mapping):
            continue
        source = str(item.get("source", "unsourced"))
        key = source_key(source)
        refs = item.get("refs")
        version = source.split("@", 1)[1] if key.startswith("dataset:") and "@" in source else None
        ev = Evidence(source=source, kind=source_kind(source), key=key, confidence=_number(item.get("confidence")),
                      origin=origin, refs=tuple(str(r) for r in refs) if isinstance(refs, list) else (),
                      version=version, author=str(item.get("author", "")), added=str(item.get("added", "")))
        if key not in out or ev.confidence > out[key].confidence:
            out[key] = ev
    return list(out.values())


def _number(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return 0.0
    return min(max(float(value), 0.0), 1.0)


def combined_confidence(items: Iterable[Evidence | float]) -> float:
    """The noisy-OR of independent sources, 1 − Π(1 − cᵢ), rounded to 4 places."""
    miss = 1.0
    for item in items:
        miss *= 1.0 - (item.confidence if isinstance(item, Evidence) else float(item))
    return round(1.0 - miss, 4)


class Side(NamedTuple):
    """The evidence on one side of a claim: one entry per independent source."""

    evidence: tuple[Evidence, ...]
    mass: float

    @property
    def sources(self) -> int:
        return len(self.evidence)

    @property
    def weight(self) -> float:
        return round(1.0 - math.exp(-self.mass), 4)

    def as_json(self) -> dict[str, Any]:
        return {"sources": self.sources, "weight": self.weight, "mass": round(self.mass, 4),
                "evidence": [e.as_json() for e in self.evidence]}


def side(items: Iterable[Evidence]) -> Side:
    best: dict[str, Evidence] = {}
    for ev in items:
        if ev.key not in best or ev.confidence > best[ev.key].confidence:
            best[ev.key] = ev
    chosen = tuple(sorted(best.values(), key=lambda e: (-e.confidence, e.key)))
    mass = sum(-math.log(1.0 - min(e.confidence, MAX_CONFIDENCE)) for e in chosen)
    return Side(chosen, mass)


def weigh(support: Sequence[Evidence], against: Sequence[Evidence], *, ratio: float = 3.0) -> tuple[str, Side, Side]:
    """(verdict, for, against): ``supported`` when only support exists or it clearly outweighs
    (mass ≥ ``ratio`` × the other's), ``contradicted`` in the mirror case, ``contested`` when both
    sides have evidence and neither clearly outweighs, ``unknown`` when there is none."""
    pro, con = side(support), side(against)
    if not pro.evidence and not con.evidence:
        return "unknown", pro, con
    if not con.evidence:
        return "supported", pro, con
    if not pro.evidence:
        return "contradicted", pro, con
    if pro.mass >= ratio * con.mass:
        return "supported", pro, con
    if con.mass >= ratio * pro.mass:
        return "contradicted", pro, con
    return "contested", pro, con
