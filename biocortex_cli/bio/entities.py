"""Biological entities in free text: identifiers, gene-like symbols and sequence variants.

Used everywhere text meets memory: episodes merge the entities found in their text with the given
ones, the recall tokeniser keeps identifiers whole, facts resolve subjects and objects.

Precision comes first. An identifier with a registered shape (``ENSG00000141510``, ``GO:0008150``,
``rs12345``, ``GSE123456``, ``10.1038/…``) is always an entity. A symbol is an entity only when
it looks like a gene and not like lab or computing jargon:

* upper-case letters and digits with at least one digit (``TP53``, ``CD8A``, ``HLA-DRB1``,
  ``S100A8``), not a known non-gene (cell lines such as ``HEK293``, GPUs such as ``A100``, ``IC50``,
  principal components ``PC1``, genome builds ``HG38``, ``COVID-19``, …);
* or a digit-free symbol from a curated table of frequently named genes (``MYC``, ``KRAS``,
  ``GAPDH``); ordinary upper-case words and acronyms (``PCR``, ``DNA``, ``ATP``, ``USA``, ``OK``,
  ``UMAP``) never are.

Anything else becomes an entity only when given explicitly (``--entity``).
Names are normalised so that one entity has one spelling: Ensembl ids upper-case without version,
ontology CURIEs with their canonical prefix (``go:0008150`` → ``GO:0008150``, ``EFO_0000400`` →
``EFO:0000400``), ``rs`` ids lower-case, ``PMID:n``, DOIs lower-case without ``doi:``/URL prefix,
data accessions upper-case. Gene symbols and variants are kept as written.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator

from biocortex_cli.bio.symbols import AA3 as _AA3
from biocortex_cli.bio.symbols import ID_KINDS as _ID_KINDS
from biocortex_cli.bio.symbols import as_written
from biocortex_cli.bio.symbols import id_kinds as _kinds
from biocortex_cli.records import NamedTuple  # typing's, without importing typing

__all__ = ["Entity", "entity_names", "extract_entities", "is_identifier", "normalize_entity", "variant_gene"]


class Entity(NamedTuple):
    name: str  # normalised
    kind: str  # gene, ensembl, uniprot, ontology, dbsnp, pmid, doi, accession, refseq, variant, …
    start: int
    end: int


# --- identifiers ---------------------------------------------------------------------------

_CURIE_PREFIXES = {
    p.casefold(): p
    for p in ("GO", "CHEBI", "MONDO", "HP", "CL", "UBERON", "EFO", "NCBITaxon", "HGNC", "DOID",
              "MP", "SO", "NCIT", "Orphanet", "ORPHA", "OMIM", "MESH", "PR", "ECO", "OBI", "PATO",
              "UO", "CLO", "BTO", "HSAPDV", "MMUSDV", "PO", "ZFA", "FBbt", "WBbt")
}
# Prefixes that are also common words or abbreviations need the longer numeric form to count.
_SHORT_NUMBERS_OK = {"NCBITaxon", "HGNC", "CHEBI", "OMIM", "ORPHA", "Orphanet"}

_AA1 = "ACDEFGHIKLMNPQRSTVWY"
_PROT = (r"(?:(?:" + _AA3 + r")\d{1,5}(?:" + _AA3 + r"|fs\*?\d*|\*|=)"
         r"|[" + _AA1 + r"]\d{1,5}(?:[" + _AA1 + r"*=]|fs\*?\d*))")

_ID_PATTERNS: list[tuple[str, str]] = [
    ("doi", r"(?i:\b(?:https?://(?:dx\.)?doi\.org/|doi:\s*))?\b10\.\d{4,9}/[^\s\"'<>\[\]{},;]+"),
    ("pmid", r"(?i:\bPMID:?\s*)\d{1,9}\b"),
    ("ontology", r"(?i:\b(?:" + "|".join(sorted(_CURIE_PREFIXES, key=len, reverse=True)) + r"))"
                 r"[:_](?:[A-Z]?\d{1,10})\b"),
    ("ensembl", r"(?i:\bENS[A-Z]{0,6}[GTPER]\d{11})(?:\.\d+)?\b"),
    ("refseq", r"\b(?:NM|NR|NP|XM|XR|XP|NC|NG|NT|NW)_\d{4,9}(?:\.\d+)?"
               r"(?::[cgnmpr]\.[0-9_+\-*]+(?:[ACGT]>[ACGT]|del[ACGT]*|dup[ACGT]*|ins[ACGT]+|"
               r"(?:" + _AA3 + r")\d+(?:" + _AA3 + r"|fs|\*|=)))?"),
    ("dbsnp", r"(?i:\brs)\d{3,12}\b"),
    ("accession", r"(?i:\b(?:G(?:SE|SM|PL|DS)\d{2,9}|[SED]R[RXSPA]\d{5,10}|E-[A-Z]{4}-\d{1,7}"
                  r"|CHEMBL\d{1,9}|PRJ[NED][A-Z]\d{1,9}|SAM[NED][A-Z]{0,2}\d{1,10}"
                  r"|phs\d{6}(?:\.v\d+\.p\d+)?|[RV]CV\d{9}(?:\.\d+)?|R-[A-Z]{3}-\d{2,9}))\b"),
    ("uniprot", r"\b(?:[OPQ][0-9][A-Z0-9]{3}[0-9]|[A-NR-Z][0-9](?:[A-Z][A-Z0-9]{2}[0-9]){1,2})"
                r"(?:-\d{1,2})?\b"),
    ("variant", r"\b(?:p\.(?:\(" + _PROT + r"\)|" + _PROT + ")"
                r"|(?:" + _AA3 + r")\d{1,5}(?:" + _AA3 + r"|fs\*?\d*)"
                r"|[cgm]\.\d+(?:_\d+)?(?:[+-]\d+)?(?:[ACGT]>[ACGT]|del[ACGT]*|dup[ACGT]*|ins[ACGT]+)"
                r"|[" + _AA1 + r"]\d{2,5}[" + _AA1 + r"*])(?![\w>])"),
    ("histone", r"\bH(?:2A|2B|3|4)(?:\.\d)?K\d{1,3}(?:ac|me[1-3]?|ub\d?|cr|bu|la|M)?\b"),
]

# A gene-like token: upper-case letters and digits, hyphen-joined parts allowed (split later).
_GENE_TOKEN = r"(?<![\w.:/])(?<![A-Z0-9]-)[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)*(?![\w])"

# Digit-free gene symbols frequently named in analyses. Symbols that are also common English
# words or lab/computing abbreviations in capitals (AR, ATM, APC, MAX, REST, CAT, SET, TH, VIP, SCD,
# VIM, ADA, IMPACT) are left out on purpose: give them with --entity when you mean the gene.
_KNOWN_GENES = frozenset("""
    ACTB AFP AGER AGRP AIRE ALB ALK APOB APOE APP ATR ATRX AVP BAX BDNF BLM BRAF CETP CFH CFTR
    CGAS CIC CIDEA CIITA COMT CREBBP CRH CRP CTCF CTSK DCN DMD DNTT EED EGF EGFR EPCAM EPO FASN
    FOS GAPDH GCG GDNF GFAP GNLY GUSB GZMA GZMB GZMH GZMK HBB HFE HGF HMBS HMGCR HRAS HTT IGHM
    IGKC INS INSR JCHAIN JUN JUNB KDR KIT KRAS LDLR LEP LIPE LMNA LPL LTB LUM LYZ MAFB MAOA MAPT
    MBP MET MGMT MGP MITF MLANA MTOR MYB MYC MYCN NANOG NBN NGF NPPA NPPB NPY NRAS OXT PDGFRA
    PDGFRB PMEL POMC PPARG PPBP PPIA PTEN PTPRC PVALB RELA RET SDHA SELL SFTPB SFTPC SHH SMO
    SNCA SST SYP TERT TFRC TNF TOX TRAC TSIX TTN TTR TUBB TYR VEGFA VHL VWF WRN XIST YWHAZ CEBPA
    CEBPB HLA-A HLA-B HLA-C HLA-E HLA-F HLA-G
""".split())

# Tokens with digits that look gene-like but are not genes.
_NOT_GENES = frozenset("""
    HEK293 HEK293T HEK293FT MCF7 MCF10A HCT116 HT29 SW480 SW620 PC3 PC9 A549 H1299 U87 U251 T47D
    U2OS K562 HL60 THP1 NIH3T3 GM12878 HEPG2 HEP3B IMR90 BT474 SKBR3 PANC1 MIAPACA2 RAW264 NB4
    KG1 MOLM13 MV4-11 OCI-AML3 MDA-MB-231 MDA-MB-468 SH-SY5Y CHO-K1 HUH7 CACO2 VERO E6 BEAS2B
    HACAT HMEC WI38 MRC5 A375 B16F10 CT26 MC38 LLC1 4T1 EL4 RPMI1640 RPMI IMDM BL21 DH5A TOP10
    A100 H100 H200 V100 T4 K80 P100 L4 L40S A10 A40 RTX3090 RTX4090 GTX1080 TPU TPUV4 M1 M2 M3
    COVID19 COVID-19 SARS-COV-2 MERS-COV H1N1 H5N1 H3N2 HIV-1 HIV-2 HTLV-1 HPV16 HPV18 EBV1 HG19
    HG38 GRCH37 GRCH38 GRCM38 GRCM39 MM9 MM10 MM39 T2T CHM13 HS37D5 B37 B38 UTF8 UTF-8 UTF-16
    SHA1 SHA256 SHA512 MD5 CRC32 X86 X64 ARM64 AMD64 AARCH64 IPV4 IPV6 HTTP2 HTTP3 HDF5 H5AD MP3
    MP4 USB3 DDR4 DDR5 PYTHON3 PY3 GPT-4 GPT-3 GPT-5 ISO9001 TLS1 IC50 EC50 LD50 ED50 CC50 GI50
    KD50 OD600 OD260 OD280 A260 A280 CO2 H2O H2O2 O2 N2 NH3 CH4 Q30 Q20 MAPQ30 PHRED33 PE150
    PE100 SE50 SE75 PE75 2X150 3D 2D 1D 4K 8K 10X ICD10 ICD-10 ICD-9 ICD9 DSM5 DSM-5 FY2025
    FY2026 CVE FP16 FP32 FP64 BF16 INT8 INT4
""".split())
#: counters and versions in capitals (``PC1``, ``HG38``, ``BATCH2``): compiled on first use
#: (~7 M instructions, which a question with no gene-like word never needs)
_NOT_GENE_SOURCE = (
    r"(?:PC|UMAP|TSNE|LSI|HARMONY|PCA|DIM|LOG|REP|BATCH|LANE|SAMPLE|DONOR|PATIENT|MOUSE|DAY|WEEK"
    r"|MONTH|YEAR|PHASE|STEP|TIER|LEVEL|NODE|RUN|TEST|ROUND|GEN|VER|V|API|CHR|CHROM|Q|R|S|L|E|P"
    r"|HG|MM|GRCH|GRCM|IC|EC|LD|ED|OD|PE|SE|FY|CVE|RFC|PEP|ISO|IEEE|SHA|MD|UTF|IPV|HTTP|USB|DDR"
    r"|RTX|GTX|TITAN|XEON|EPYC|RYZEN|GPU|CPU|CUDA|TPU|SM|NODE|CLUSTER|SPLIT|FOLD|K|N|T|X|Y|Z|W"
    r"|RAM|GB|TB|MB|KB|GHZ|MHZ|COVID|QC|NGS|SRA|EXP|TRIAL|COHORT|VISIT|WAVE|ARM|GROUP|PLATE|WELL"
    r"|ROW|COL|FIG|TABLE|SUPP|EQ|SECTION|CHAPTER|PART|ITEM|LINE|PAGE|VOL|NUM|IDX)"
    r"-?\d+[A-Z]?")


@functools.cache
def _not_gene_pattern() -> re.Pattern[str]:
    return re.compile(_NOT_GENE_SOURCE)


_HYPHEN_JOINS = frozenset({"HLA", "MT", "IL", "KIR", "TRB", "TRA", "IGH", "IGK", "IGL", "H2"})


@functools.cache
def _id_regex(kinds: tuple[str, ...] = _ID_KINDS) -> re.Pattern[str]:
    """The alternation of the identifier patterns of ``kinds`` (in the order of _ID_PATTERNS)."""
    return re.compile("|".join(f"(?P<{kind}>{pattern})" for kind, pattern in _ID_PATTERNS if kind in kinds))


@functools.cache
def _gene_regex() -> re.Pattern[str]:
    return re.compile(_GENE_TOKEN)


# Where an identifier can be: every identifier pattern needs a digit and crosses whitespace only
# right after "doi:" or "PMID"/"PMID:". So the text is cut into runs of non-space characters,
# joined across whitespace after those prefixes, and only the runs holding a digit are searched,
# with the identifier regex on the whole text between the run's bounds: the same matches as a
# search of the whole text (a run starts and ends at whitespace or the text's ends, where the
# regex's \b and lookarounds see the same), at a fraction of the cost (prose is mostly words
# without digits; the alternation tried at every position was 60% of the tokeniser's time).
_JOIN = r"(?i:(?<=doi:)|(?<=pmid)|(?<=pmid:))\s+"
_DIGIT_RUN = r"(?<!\S)(?:[^\s\d]|" + _JOIN + r")*\d(?:\S|" + _JOIN + r")*"  # compiled on first use


def _id_matches(text: str) -> Iterator[re.Match[str]]:
    """What ``_id_regex().finditer(text)`` yields, searching only the runs that hold a digit,
    with the patterns of the kinds those runs can hold (:func:`_kinds`): compiling all ten
    costs ~32 M instructions, a recall's largest single cost, and most questions hold none."""
    runs = [(run.start(), run.end()) for run in re.finditer(_DIGIT_RUN, text)]
    kinds: set[str] = set()
    for start, end in runs:
        kinds |= _kinds(text[start:end])
    if not kinds:
        return
    finditer = _id_regex(tuple(k for k in _ID_KINDS if k in kinds)).finditer
    for start, end in runs:
        yield from finditer(text, start, end)


_VARIANT_GENE_BEFORE = r"([A-Z][A-Z0-9]*(?:-[A-Z0-9]+)?)[ \t]+$"  # compiled on first use


def extract_entities(text: str) -> list[Entity]:
    """Every entity in ``text``, in order of appearance. Spans do not overlap, except that a
    variant written after its gene (``BRAF V600E``) yields both the gene and the whole variant."""
    found: list[Entity] = []
    taken: list[tuple[int, int]] = []
    for m in _id_matches(text):
        kind = m.lastgroup or "accession"
        raw, start, end = m.group(), m.start(), m.end()
        if kind == "doi":
            trimmed = _trim_doi(raw)
            end -= len(raw) - len(trimmed)
            raw = trimmed
        elif not _plausible(kind, raw):
            continue
        elif kind == "refseq" and ":" in raw:
            kind = "variant"
        elif kind == "accession":
            kind = _accession_kind(raw)
        name = normalize_entity(raw, kind)
        if kind == "variant":
            gene = _gene_before(text, start)
            if gene is not None:
                gstart = gene[1]
                found.append(Entity(gene[0], "gene", gstart, gstart + len(gene[0])))
                found.append(Entity(f"{gene[0]} {name}", "variant", gstart, end))
                taken.append((gstart, end))
                continue
        found.append(Entity(name, kind, start, end))
        taken.append((start, end))
    taken.sort()
    starts = [s for s, _e in taken]
    ends = [e for _s, e in taken]
    for m in _gene_regex().finditer(text):
        if _overlaps(starts, ends, m.start(), m.end()):
            continue
        for name, start in _split_gene_token(m.group(), m.start()):
            if _is_gene(name):
                found.append(Entity(name, "gene", start, start + len(name)))
    found.sort(key=lambda e: (e.start, -e.end))
    return found


def entity_names(text: str) -> list[str]:
    """The distinct entity names in ``text``, in order of first appearance."""
    seen: set[str] = set()
    names: list[str] = []
    for entity in extract_entities(text):
        key = entity.name.casefold()
        if key not in seen:
            seen.add(key)
            names.append(entity.name)
    return names


def entity_spans(text: str) -> Iterator[Entity]:
    """Non-overlapping entities (the whole variant where it contains its gene), in order."""
    end = -1
    for entity in extract_entities(text):
        if entity.start >= end:
            end = entity.end
            yield entity


def variant_gene(name: str) -> str | None:
    """The gene of a variant written with it (``KRAS G12C`` → ``KRAS``, ``BRAF p.V600E`` →
    ``BRAF``), else None: recall counts the variant as its gene too (docs/recall.md)."""
    stripped = name.strip()
    found = extract_entities(stripped)
    whole = any(e.kind == "variant" and e.start == 0 and e.end == len(stripped) for e in found)
    gene = next((e for e in found if e.kind == "gene" and e.start == 0), None)
    return gene.name if whole and gene is not None else None


def is_identifier(text: str) -> bool:
    """Whether ``text`` is, as a whole, one entity (identifier, symbol or variant)."""
    stripped = text.strip()
    return any(e.start == 0 and e.end == len(stripped) for e in extract_entities(stripped))


def normalize_entity(name: str, kind: str | None = None) -> str:
    """The canonical spelling of an entity name (see the module docstring); text that is not
    one entity as a whole is returned stripped and otherwise as given."""
    name = name.strip()
    if kind is None and as_written(name):  # a plain symbol: no pattern needed (bio/symbols.py)
        return name
    if kind is None:
        whole = [e for e in extract_entities(name) if e.start == 0 and e.end == len(name)]
        return whole[-1].name if whole else name
    return _NORMALIZERS.get(kind, _as_given)(name)


# --- helpers -------------------------------------------------------------------------------


def _as_given(raw: str) -> str:
    return raw


def _norm_doi(raw: str) -> str:
    return re.sub(r"(?i)^(?:https?://(?:dx\.)?doi\.org/|doi:\s*)", "", raw).lower()


def _norm_pmid(raw: str) -> str:
    return "PMID:" + re.sub(r"\D", "", raw)


def _norm_curie(raw: str) -> str:
    prefix, local = re.split(r"[:_]", raw, maxsplit=1)
    return f"{_CURIE_PREFIXES[prefix.casefold()]}:{local.upper()}"


def _norm_ensembl(raw: str) -> str:
    return raw.split(".", 1)[0].upper()


def _norm_rs(raw: str) -> str:
    return raw.lower()


def _norm_accession(raw: str) -> str:
    return raw.lower() if raw[:3].lower() == "phs" else raw.upper()


_NORMALIZERS: dict[str, Callable[[str], str]] = {
    "doi": _norm_doi, "pmid": _norm_pmid, "ontology": _norm_curie, "ensembl": _norm_ensembl,
    "dbsnp": _norm_rs, "accession": _norm_accession, "compound": _norm_accession,
    "pathway": _norm_accession,
}


def _plausible(kind: str, raw: str) -> bool:
    if kind == "ontology":
        return _curie_ok(raw)
    if kind == "variant":
        return raw not in _NOT_GENES  # T47D, L40S: cell lines and GPUs shaped like variants
    if kind == "uniprot":
        return not raw.startswith(("P2RX", "P2RY"))  # purinergic receptor genes
    return True


def _trim_doi(raw: str) -> str:
    while True:
        trimmed = raw.rstrip(".:")
        if trimmed.endswith(")") and trimmed.count("(") < trimmed.count(")"):
            trimmed = trimmed[:-1]
        if trimmed == raw:
            return raw
        raw = trimmed


def _accession_kind(raw: str) -> str:
    upper = raw.upper()
    if upper.startswith("CHEMBL"):
        return "compound"
    if upper.startswith("R-"):
        return "pathway"
    return "accession"


def _curie_ok(raw: str) -> bool:
    prefix, local = re.split(r"[:_]", raw, maxsplit=1)
    canonical = _CURIE_PREFIXES[prefix.casefold()]
    underscore = raw[len(prefix)] == "_"
    if underscore and prefix not in (canonical, canonical.upper()):
        return False  # snake_case words such as "go_1234" in file names
    if local[:1].isalpha():
        return canonical in ("MESH", "NCIT") and len(local) >= 5
    if canonical in _SHORT_NUMBERS_OK:
        return True
    return len(local) >= (6 if underscore else 4)


def _gene_before(text: str, start: int) -> tuple[str, int] | None:
    m = re.compile(_VARIANT_GENE_BEFORE).search(text, max(0, start - 24), start)
    if m is None or m.end() != start:
        return None
    gstart = m.start(1)
    if gstart > 0 and (text[gstart - 1].isalnum() or text[gstart - 1] in "_-.:/"):
        return None
    gene = m.group(1)
    return (gene, gstart) if _is_gene(gene) else None


def _overlaps(starts: list[int], ends: list[int], start: int, end: int) -> bool:
    """Whether [start, end) overlaps one of the sorted, non-overlapping spans (binary search)."""
    from bisect import bisect_left

    i = bisect_left(starts, end)  # spans starting before ``end`` are starts[:i]
    return i > 0 and ends[i - 1] > start


def _split_gene_token(token: str, start: int) -> Iterator[tuple[str, int]]:
    """``HLA-DRB1``, ``IL-6``, ``NKX2-1`` stay whole; ``CD4-CD8`` is two symbols."""
    if token in _NOT_GENES or "-" not in token:
        yield token, start
        return
    parts = token.split("-")
    current, cstart, pos = parts[0], start, start + len(parts[0]) + 1
    for part in parts[1:]:
        joins = (current in _HYPHEN_JOINS or re.fullmatch(r"\d{1,2}", part) is not None
                 or (len(current) <= 3 and not any(c.isdigit() for c in current)))
        if joins:
            current = f"{current}-{part}"
        else:
            yield current, cstart
            current, cstart = part, pos
        pos += len(part) + 1
    yield current, cstart


def _is_gene(token: str) -> bool:
    if token in _KNOWN_GENES:
        return True
    if len(token) > 15:  # the longest HGNC symbols are ~15 characters; keys and hashes are longer
        return False
    if token in _NOT_GENES or len(token) < 3 or _not_gene_pattern().fullmatch(token):
        return False
    if not any(c.isdigit() for c in token):
        return False
    core = token.split("-", 1)[0]
    letters = len(core) - len(core.lstrip("ABCDEFGHIJKLMNOPQRSTUVWXYZ"))
    if letters >= 2:
        return True
    if letters == 1:  # C1QA, E2F1, H2AX, S100A8, G6PD: one letter, digits, then letters
        return len(token) >= 4 and re.fullmatch(r"[A-Z]\d+[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)*", token) is not None
    return False
