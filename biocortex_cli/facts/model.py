"""A fact as memory holds it: (subject, predicate, object) with sources, confidence and status.

The record is the fact note's frontmatter (:mod:`biocortex_cli.facts.notes` reads and writes the
notes). Names are compared case-insensitively; a fact's id and path derive from the normalised
triple and its qualifiers (taxon, cell type, context: none for most facts, and then the id is the
one it always was), so the same statement always lands in the same file, and ``Myc activates
Cdk4`` in mouse and ``MYC activates CDK4`` in human are two facts.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache

from biocortex_cli.errors import DataError, UsageError
from biocortex_cli.records import NamedTuple  # typing's, without importing typing

TYPE_CHECKING = False  # `typing` is not imported at run time (~16 M instructions; mypy reads the block)
if TYPE_CHECKING:
    from typing import Any

    from biocortex_cli.facts.evidence import Evidence
    from biocortex_cli.store.notes import Note
    from biocortex_cli.store.vault import Vault

STATUSES = ("current", "retracted", "superseded")
#: the qualifiers a fact may carry; any of them makes another fact of the same triple
QUALIFIERS = ("taxon", "cell_type", "context")
#: common names of the taxa biologists name most, -> NCBI Taxonomy CURIE (others: NCBITaxon:<id>)
TAXA = {
    "human": "NCBITaxon:9606", "homo sapiens": "NCBITaxon:9606", "hsa": "NCBITaxon:9606",
    "mouse": "NCBITaxon:10090", "mus musculus": "NCBITaxon:10090", "mmu": "NCBITaxon:10090",
    "rat": "NCBITaxon:10116", "rattus norvegicus": "NCBITaxon:10116", "rno": "NCBITaxon:10116",
    "zebrafish": "NCBITaxon:7955", "danio rerio": "NCBITaxon:7955", "dre": "NCBITaxon:7955",
    "fly": "NCBITaxon:7227", "drosophila melanogaster": "NCBITaxon:7227", "dme": "NCBITaxon:7227",
    "worm": "NCBITaxon:6239", "caenorhabditis elegans": "NCBITaxon:6239", "cel": "NCBITaxon:6239",
    "yeast": "NCBITaxon:559292", "saccharomyces cerevisiae": "NCBITaxon:559292", "sce": "NCBITaxon:559292",
    "arabidopsis": "NCBITaxon:3702", "arabidopsis thaliana": "NCBITaxon:3702", "ath": "NCBITaxon:3702",
    "e. coli": "NCBITaxon:562", "escherichia coli": "NCBITaxon:562", "eco": "NCBITaxon:562",
}
TAXON_LABELS = {"NCBITaxon:9606": "human", "NCBITaxon:10090": "mouse", "NCBITaxon:10116": "rat",
                "NCBITaxon:7955": "zebrafish", "NCBITaxon:7227": "fly", "NCBITaxon:6239": "worm",
                "NCBITaxon:559292": "yeast", "NCBITaxon:3702": "arabidopsis", "NCBITaxon:562": "E. coli"}
MAX_NAME = 500
_SLUG_PART = r"[^a-z0-9]+"  # compiled on first use (re's cache): `fact verify` makes no id


class Fact(NamedTuple):  # not a dataclass: `dataclasses` costs `fact verify` ~60 M instructions of imports
    record: dict[str, Any]
    path: str
    line: int = 1

    @property
    def id(self) -> str:
        return str(self.record["id"])

    @property
    def subject(self) -> str:
        return str(self.record["subject"])

    @property
    def predicate(self) -> str:
        return str(self.record["predicate"])

    @property
    def object(self) -> str:
        return str(self.record["object"])

    @property
    def confidence(self) -> float:
        value = self.record.get("confidence")
        return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0.0

    @property
    def status(self) -> str:
        return str(self.record.get("status") or "current")

    @property
    def sources(self) -> list[str]:
        value = self.record.get("source")
        if isinstance(value, str):
            return [value]
        return [str(s) for s in value] if isinstance(value, list) else []

    @property
    def qualifiers(self) -> dict[str, str]:
        value = self.record.get("qualifiers")
        if not isinstance(value, Mapping):
            return {}
        return {k: str(value[k]) for k in QUALIFIERS if value.get(k) not in (None, "")}

    @property
    def origin(self) -> str:
        """Where the assertion lives: ``note`` (a fact note), or ``dataset:<name>@<version>`` for an
        edge of a registered dataset (set in its record by the dataset source)."""
        return str(self.record.get("origin") or "note")

    def evidence(self) -> list[Evidence]:
        """One item per independent source (facts/evidence.py): what `fact verify` weighs."""
        from biocortex_cli.facts.evidence import evidence_items

        return evidence_items(self.record, self.id if self.origin == "note" else self.origin)

    def sentence(self) -> str:
        quals = self.qualifiers
        where = f" [{qualifier_text(quals)}]" if quals else ""
        return f"{self.subject} {self.predicate.replace('_', ' ')} {self.object}{where}"

    def as_json(self) -> dict[str, Any]:
        from biocortex_cli.store.notes import _plain

        return {**_plain(self.record), "path": self.path}


class FactRules(NamedTuple):
    """What predicates mean to each other (config: facts): which take one object only, which
    contradict each other, which chain, which are narrower than which, and when one side of the
    evidence clearly outweighs the other."""

    single_valued: frozenset[str] = frozenset()
    opposites: Mapping[str, str] = {}  # shared by instances, never changed in place
    transitive: frozenset[str] = frozenset()
    broader: Mapping[str, str] = {}  # narrower -> broader; shared, never changed in place
    outweigh: float = 3.0

    @classmethod
    def from_config(cls, vault: Vault) -> FactRules:
        conf = vault.config.facts
        opposites: dict[str, str] = {}
        for a, b in conf.opposites.items():
            pa, pb = normalize_predicate(a), normalize_predicate(b)
            opposites[pa], opposites[pb] = pb, pa
        broader: dict[str, str] = {}
        for narrow, broad in conf.broader.items():
            n, b = normalize_predicate(narrow), normalize_predicate(broad)
            if n != b:
                broader[n] = b
        return cls(single_valued=frozenset(normalize_predicate(p) for p in conf.single_valued),
                   opposites=opposites,
                   transitive=frozenset(normalize_predicate(p) for p in conf.transitive),
                   broader=broader, outweigh=float(conf.outweigh))

    def ancestors(self, predicate: str) -> list[str]:
        """``predicate`` and every broader one, nearest first (a cycle in the config stops)."""
        out = [predicate]
        while (up := self.broader.get(out[-1])) is not None and up not in out:
            out.append(up)
        return out

    def narrower(self, predicate: str) -> set[str]:
        """``predicate`` and every predicate under it."""
        return {p for p in {predicate, *self.broader} if predicate in self.ancestors(p)}

    def supports(self, stated: str, claimed: str) -> bool:
        """A fact stating ``stated`` supports a claim of ``claimed`` (itself or narrower)."""
        return claimed in self.ancestors(stated)

    def opposes(self, stated: str, claimed: str) -> bool:
        """A fact stating ``stated`` opposes a claim of ``claimed``: the claim's opposite, or a
        predicate narrower than it (``downregulates`` opposes ``activates`` only when the config
        says so; ``inhibits`` opposes ``activates``)."""
        opposite = self.opposites.get(claimed)
        return opposite is not None and opposite in self.ancestors(stated)

    def conflicts(self, a: Fact, b: Fact) -> bool:
        """Whether two current facts contradict each other (same qualifiers)."""
        if a.id == b.id or a.status != "current" or b.status != "current" or a.qualifiers != b.qualifiers:
            return False
        same_s = name_key(a.subject) == name_key(b.subject)
        if same_s and a.predicate == b.predicate and a.predicate in self.single_valued:
            return name_key(a.object) != name_key(b.object)
        return same_s and name_key(a.object) == name_key(b.object) and (
            self.opposes(a.predicate, b.predicate) or self.opposes(b.predicate, a.predicate))


# --- names, ids, paths --------------------------------------------------------------------


def clean_text(value: Any, what: str) -> str:
    if not isinstance(value, str):
        raise UsageError(f"the {what} must be text, not {value!r}")
    if not value.isascii():  # (NFC leaves ASCII as it is: `fact verify` of symbols imports no unicodedata)
        from unicodedata import normalize

        value = normalize("NFC", value)
    text = " ".join(value.split())
    if not text:
        raise UsageError(f"the {what} is empty", hint=f"give a non-empty {what}")
    if len(text) > MAX_NAME:
        raise UsageError(f"the {what} is {len(text)} characters long (at most {MAX_NAME})")
    if "[[" in text or "]]" in text:
        raise UsageError(f"the {what} {text!r} contains '[[' or ']]'",
                         hint="write the plain name; biocortex makes the links")
    return text


_PREDICATE_CHARS = "abcdefghijklmnopqrstuvwxyz0123456789_"


def normalize_predicate(value: str) -> str:
    """``Regulates`` → ``regulates``; ``failed QC on`` → ``failed_qc_on``."""
    if isinstance(value, str) and value and len(value) <= MAX_NAME and not value.strip(_PREDICATE_CHARS):
        return value.strip("_") or "_"  # written as stored (the config's, a dataset's): nothing to clean
    text = clean_text(value, "predicate").casefold()
    if "-" in text or any(map(str.isspace, text)):  # (else nothing to replace: no pattern compiled)
        import re

        text = re.sub(r"[\s\-]+", "_", text)
    return text.strip("_") or "_"


def name_key(name: str) -> str:
    """How names are compared: case-insensitively."""
    return name.casefold()


@lru_cache(maxsize=1 << 16)  # an import slugs the same few hundred names thousands of times
def _slug(text: str, limit: int) -> str:
    import re
    from unicodedata import normalize

    ascii_text = normalize("NFKD", text).encode("ascii", "ignore").decode().lower()
    slug = re.sub(_SLUG_PART, "-", ascii_text).strip("-")[:limit].strip("-")
    return slug or "x"


def triple_hash(subject: str, predicate: str, obj: str, qualifiers: Mapping[str, str] | None = None) -> str:
    key = "\x1f".join((name_key(subject), predicate, name_key(obj)))
    if qualifiers:  # no qualifiers: the hash every fact had before they existed
        key += "\x1e" + "\x1f".join(f"{k}={name_key(qualifiers[k])}" for k in QUALIFIERS if qualifiers.get(k))
    from hashlib import sha1

    return sha1(key.encode("utf-8")).hexdigest()[:10]


def fact_id(subject: str, predicate: str, obj: str, qualifiers: Mapping[str, str] | None = None) -> str:
    digest = triple_hash(subject, predicate, obj, qualifiers)
    return f"{_slug(subject, 36)}--{_slug(predicate, 30)}--{_slug(obj, 36)}-{digest}"


def fact_rel(subject: str, predicate: str, obj: str, qualifiers: Mapping[str, str] | None = None) -> str:
    return fact_rel_of(subject, fact_id(subject, predicate, obj, qualifiers))


def fact_rel_of(subject: str, ident: str) -> str:
    """:func:`fact_rel` of a fact whose id (:func:`fact_id`) is known already."""
    return f"facts/{_slug(subject, 36)}/{ident}.md"


def normalize_taxon(value: str) -> str:
    """``mouse``, ``Mus musculus``, ``10090``, ``taxon:10090`` → ``NCBITaxon:10090``."""
    text = " ".join(str(value).split())
    folded = text.casefold()
    if folded in TAXA:
        return TAXA[folded]
    import re

    m = re.fullmatch(r"(?i)(?:ncbitaxon|taxon|taxid|ncbi_taxid)?\s*:?\s*(\d{1,8})", text)
    if m:
        return f"NCBITaxon:{int(m.group(1))}"
    raise UsageError(f"taxon {text!r} is not one biocortex knows",
                     hint="give NCBITaxon:<id> (NCBITaxon:9606) or a common name: " + ", ".join(sorted(
                         {v for v in TAXON_LABELS.values()})))


def normalize_qualifiers(values: Mapping[str, str | None]) -> dict[str, str]:
    """The qualifiers given, checked: taxon normalised, the others cleaned text; empty dropped."""
    out: dict[str, str] = {}
    for key, value in values.items():
        if key not in QUALIFIERS:
            raise UsageError(f"unknown qualifier {key!r}", hint=f"qualifiers are {', '.join(QUALIFIERS)}")
        if value is None or not str(value).strip():
            continue
        out[key] = normalize_taxon(value) if key == "taxon" else clean_text(str(value), key.replace("_", " "))
    return {k: out[k] for k in QUALIFIERS if k in out}


def qualifier_text(qualifiers: Mapping[str, str]) -> str:
    """``mouse · T cell`` (taxon by its common name when it has one)."""
    return " · ".join(TAXON_LABELS.get(v, v) if k == "taxon" else v for k, v in qualifiers.items())


# --- reading ------------------------------------------------------------------------------


def fact_from_note(note: Note) -> Fact:
    for key in ("id", "subject", "predicate", "object"):
        value = note.meta.get(key)
        if not isinstance(value, str) or not value.strip():
            raise DataError(f"{key} is required text", path=note.rel, line=note.line_of(key),
                            hint=f"write {key}: …")
    conf = note.meta.get("confidence")
    if conf is not None and (isinstance(conf, bool) or not isinstance(conf, int | float) or not 0 <= conf <= 1):
        # read as 0 before: a hand edit (`confidence: high`) answered every query at 0 without a word
        raise DataError(f"confidence must be a number from 0 to 1, not {conf!r}", path=note.rel,
                        line=note.line_of("confidence"), hint="write confidence: 0.9")
    status = note.meta.get("status", "current")
    if status not in STATUSES:
        raise DataError(f"status must be one of {', '.join(STATUSES)}, not {status!r}", path=note.rel,
                        line=note.line_of("status"))
    return Fact(record=dict(note.meta), path=note.rel)
