"""Issue 15: facts at the scale of real knowledge graphs. Each numbered finding of the issue is a
test here (the finding's number in the test's name); they failed before the change."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from conftest import Cli, git


def add(cli: Cli, *args: str) -> str:
    r = cli("fact", "add", *args)
    assert r.code == 0, r.err
    return r.out.strip()


# --- finding 3: exact entity matching first -------------------------------------------------


def test_3_query_never_answers_with_another_genes_facts(vault: Path, cli: Cli) -> None:
    add(cli, "MYCN", "activates", "ODC1", "--source", "X:1")
    add(cli, "CD70", "binds", "CD27", "--source", "X:2")
    add(cli, "Cerulenin", "inhibits", "FASN", "--source", "X:3")
    for name in ("MYC", "CD7", "NIN"):
        r = cli("fact", "query", name, "--json")
        assert r.code == 0 and r.json()["facts"] == [] and r.json()["match"] == "none", name
    r = cli("fact", "query", "MYC")
    assert r.out == "" and "names containing it (--fuzzy uses them): MYCN" in r.err
    fuzzy = cli("fact", "query", "MYC", "--fuzzy", "--json").json()
    assert fuzzy["match"] == "substring" and [f["subject"] for f in fuzzy["facts"]] == ["MYCN"]
    assert cli("entity", "show", "MYC").code == 1  # no entity of that name: not MYCN's page


# --- finding 5: verification that weighs evidence ---------------------------------------------


def test_5_textbook_fact_with_more_evidence_is_not_contradicted(vault: Path, cli: Cli) -> None:
    for pmid in ("PMID:7651826", "PMID:8242752", "PMID:8548844", "PMID:10908604"):
        add(cli, "TP53", "activates", "CDKN1A", "--source", pmid)
    add(cli, "TP53", "inhibits", "CDKN1A", "--source", "PMID:11287591")
    r = cli("fact", "verify", "TP53", "activates", "CDKN1A", "--json")
    assert r.json()["verdict"] in ("supported", "contested") and r.code in (0, 5)
    data = r.json()
    assert data["for"]["sources"] == 4 and data["against"]["sources"] == 1
    plain = cli("fact", "verify", "TP53", "activates", "CDKN1A")
    assert "evidence for: 4 independent sources" in plain.out and "against: 1 source" in plain.out
    # the mirror claim: four independent papers clearly outweigh one
    assert cli("fact", "verify", "TP53", "inhibits", "CDKN1A").code == 6
    # open contradictions are information, not a failing vault
    assert cli("check").code == 0
    info = cli("check", "--facts", "--json")
    assert info.code == 0
    contested = info.json()["facts"]["contested"]
    assert len(contested) == 1 and contested[0]["for"]["sources"] == 4


def test_5_a_weak_draft_never_contradicts_a_strong_fact(vault: Path, cli: Cli) -> None:
    add(cli, "KEAP1", "inhibits", "NFE2L2", "--source", "PMID:9887101", "--confidence", "0.95")
    add(cli, "KEAP1", "activates", "NFE2L2", "--source", "agent:slide-reader", "--confidence", "0.3")
    strong = cli("fact", "verify", "KEAP1", "inhibits", "NFE2L2", "--json")
    assert strong.code == 0 and strong.json()["verdict"] == "supported"
    assert strong.json()["against"]["sources"] == 1  # shown, not hidden
    draft = cli("fact", "verify", "KEAP1", "activates", "NFE2L2", "--json")
    assert draft.code == 6 and draft.json()["verdict"] == "contradicted"


def test_5_evidence_of_similar_weight_is_contested(vault: Path, cli: Cli) -> None:
    add(cli, "SOX2", "activates", "NANOG", "--source", "PMID:1", "--confidence", "0.9")
    add(cli, "SOX2", "inhibits", "NANOG", "--source", "PMID:2", "--confidence", "0.9")
    r = cli("fact", "verify", "SOX2", "activates", "NANOG", "--json")
    assert r.code == 5 and r.json()["verdict"] == "contested"
    assert r.json()["for"]["weight"] == r.json()["against"]["weight"] == 0.9


def test_5_verdicts_have_their_own_exit_codes_and_a_missing_vault_is_not_contradicted(
        tmp_path: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BIOCORTEX_VAULT", str(tmp_path / "nowhere"))
    r = cli("fact", "verify", "A", "activates", "B")
    assert r.code == 1
    from biocortex_cli.facts.query import EXIT_CODES

    codes = EXIT_CODES
    assert codes["supported"] == 0 and len(set(codes.values())) == 4
    assert all(code >= 4 for verdict, code in codes.items() if verdict != "supported")


def test_predicate_hierarchy_in_query_and_verify(vault: Path, cli: Cli) -> None:
    add(cli, "TP53", "activates", "CDKN1A", "--source", "PMID:8242752")
    add(cli, "TP53", "binds", "MDM2", "--source", "PMID:1614537")
    r = cli("fact", "verify", "TP53", "regulates", "CDKN1A", "--json")
    assert r.code == 0 and r.json()["verdict"] == "supported"
    q = cli("fact", "query", "TP53", "--predicate", "regulates", "--json").json()
    assert [f["object"] for f in q["facts"]] == ["CDKN1A"]
    # a broader statement does not support a narrower claim
    add(cli, "MYC", "regulates", "TERT", "--source", "PMID:9990854")
    assert cli("fact", "verify", "MYC", "activates", "TERT").code == 4


def test_the_check_still_passes_with_contested_facts_in_git(vault: Path, cli: Cli) -> None:
    first = add(cli, "KEAP1", "inhibits", "NFE2L2", "--source", "PMID:9887101")
    r = cli("fact", "add", "KEAP1", "activates", "NFE2L2", "--source", "agent:guess", "--confidence", "0.3")
    assert f"contradicts {first}" in r.err
    assert cli("check").code == 0
    assert git(vault, "status", "--porcelain") == ""


# --- finding 4: English words that are gene symbols -------------------------------------------


def test_4_recall_does_not_take_english_words_for_symbols(vault: Path, cli: Cli) -> None:
    add(cli, "MAX", "activates", "ODC1", "--source", "PMID:1")
    add(cli, "REST", "inhibits", "BDNF", "--source", "PMID:2")
    add(cli, "KIT", "binds", "KITLG", "--source", "PMID:3")
    question = "At the max dose, what is the rest of the effect on cell death? A kit from the same set"
    data = cli("recall", question, "--json").json()
    assert data["facts"] == [] and "Known facts" not in data["context"]
    # written as symbols, or named as entities, they count
    assert {f["subject"] for f in cli("recall", "MAX and REST targets in neurons", "--json").json()["facts"]} == \
        {"MAX", "REST"}
    assert [f["subject"] for f in cli("recall", "is the rest gene repressed here", "--json").json()["facts"]] == \
        ["REST"]
    # a lower-case name that is no English word still counts (tp53 is TP53)
    add(cli, "TP53", "regulates", "MDM2", "--source", "PMID:4")
    assert [f["subject"] for f in cli("recall", "tp53 loss in organoids", "--json").json()["facts"]] == ["TP53"]


# --- finding 6: evidence counted per independent source; sources checked and removable --------


def test_6_a_dataset_counts_once_however_many_pmids_it_lists(vault: Path, cli: Cli) -> None:
    r = cli("fact", "add", "TP53", "activates", "CDKN1A", "--confidence", "0.6", "--source", "dataset:TRRUST@2.0",
            "--source", "PMID:7651826", "--source", "PMID:8242752", "--source", "PMID:8548844", "--json")
    data = r.json()
    assert data["confidence"] == 0.6  # was 0.9744: the tag and each PMID counted apart
    assert data["evidence"][0]["refs"] == ["PMID:7651826", "PMID:8242752", "PMID:8548844"]
    assert data["source"] == ["dataset:TRRUST@2.0", "PMID:7651826", "PMID:8242752", "PMID:8548844"]
    # the next version of the same dataset is the same source
    again = cli("fact", "add", "TP53", "activates", "CDKN1A", "--confidence", "0.7",
                "--source", "dataset:trrust@2.1", "--json").json()
    assert again["confidence"] == 0.7 and len(again["evidence"]) == 1
    verdict = cli("fact", "verify", "TP53", "activates", "CDKN1A", "--json").json()
    assert verdict["for"]["sources"] == 1


def test_6_the_same_source_corrected_does_not_add(vault: Path, cli: Cli) -> None:
    add(cli, "KEAP1", "inhibits", "NFE2L2", "--source", "pmid: 9887101", "--confidence", "0.8")
    fixed = cli("fact", "add", "KEAP1", "inhibits", "NFE2L2", "--source",
                "https://pubmed.ncbi.nlm.nih.gov/9887101/", "--confidence", "0.9", "--json").json()
    assert fixed["confidence"] == 0.9 and fixed["source"] == ["PMID:9887101"]  # was 0.98: two items
    doi = cli("fact", "add", "KEAP1", "inhibits", "NFE2L2", "--source", "https://doi.org/10.1101/GAD.13.1.76",
              "--json").json()
    assert doi["source"] == ["PMID:9887101", "DOI:10.1101/GAD.13.1.76"]
    same = cli("fact", "add", "KEAP1", "inhibits", "NFE2L2", "--source", "doi:10.1101/gad.13.1.76", "--json").json()
    assert len(same["evidence"]) == 2


@pytest.mark.parametrize(("source", "message"), [
    ("2026-11-10", "no episode with id '2026-11-10'"),
    ("no-such-episode", "no episode with id 'no-such-episode'"),
    ("episode:ghost", "no episode with id 'ghost'"),
    ("8319905", "a PubMed id is written PMID:<digits>"),  # docs trial: a bare or mistyped PMID (TRRUST)
    ("1724219e", "a PubMed id is written PMID:<digits> (digits only)"),
    ("PMID:abc", "a PMID is digits only"),
    ("doi:nature", "a DOI starts with 10."),
    ("Smith et al. 2020", "is not a source biocortex can check"),
])
def test_6_sources_are_checked(vault: Path, cli: Cli, source: str, message: str) -> None:
    before = git(vault, "rev-parse", "HEAD")
    r = cli("fact", "add", "TP53", "regulates", "MDM2", "--source", source)
    assert r.code == 2 and message in r.err and "a source is PMID:" in r.err
    assert git(vault, "rev-parse", "HEAD") == before


def test_6_a_source_can_be_removed_in_one_commit(vault: Path, cli: Cli) -> None:
    ident = add(cli, "TP53", "regulates", "MDM2", "--source", "PMID:8319905", "--confidence", "0.8")
    add(cli, "TP53", "regulates", "MDM2", "--source", "agent:misread", "--confidence", "0.8")
    commits = int(git(vault, "rev-list", "--count", "HEAD"))
    r = cli("fact", "unsource", ident, "agent:misread", "--json")
    assert r.code == 0 and r.json()["source"] == ["PMID:8319905"] and r.json()["confidence"] == 0.8
    assert int(git(vault, "rev-list", "--count", "HEAD")) == commits + 1
    assert git(vault, "log", "-1", "--format=%s").strip() == f"fact: unsource {ident} — agent:misread"
    assert cli("fact", "unsource", ident, "PMID:1").code == 1  # not cited
    last = cli("fact", "unsource", ident, "pmid:8319905")
    assert last.code == 1 and "retract the fact instead" in last.err


# --- finding 7: retracted stays retracted ---------------------------------------------------


def test_7_readding_a_retracted_fact_needs_reopen(vault: Path, cli: Cli) -> None:
    ident = add(cli, "KEAP1", "activates", "NFE2L2", "--source", "agent:draft", "--confidence", "0.3")
    assert cli("fact", "retract", ident, "--reason", "PMID:9887101 shows inhibition").code == 0
    before = git(vault, "rev-parse", "HEAD").strip()
    r = cli("fact", "add", "KEAP1", "activates", "NFE2L2", "--source", "PMID:1")
    assert r.code == 1 and "was retracted" in r.err and "PMID:9887101 shows inhibition" in r.err
    assert "--reopen" in r.err and git(vault, "rev-parse", "HEAD").strip() == before
    assert cli("fact", "verify", "KEAP1", "activates", "NFE2L2").code == 4  # still retracted
    r = cli("fact", "add", "KEAP1", "activates", "NFE2L2", "--source", "PMID:1", "--reopen", "--json")
    assert r.code == 0 and r.json()["status"] == "current" and r.json()["reopened"] is True
    assert r.json()["retracted"]["reason"] == "PMID:9887101 shows inhibition"  # history kept
    assert git(vault, "log", "-1", "--format=%s").startswith(f"fact: reopen {ident}")
    assert int(git(vault, "rev-list", "--count", f"{before}..HEAD")) == 1
    assert cli("fact", "verify", "KEAP1", "activates", "NFE2L2").code == 0


# --- finding 8: identity and meaning --------------------------------------------------------


def test_8_qualifiers_keep_mouse_and_human_apart(vault: Path, cli: Cli) -> None:
    human = add(cli, "MYC", "activates", "CDK4", "--source", "PMID:1", "--taxon", "human")
    mouse = add(cli, "Myc", "activates", "Cdk4", "--source", "PMID:2", "--taxon", "Mus musculus")
    assert human != mouse
    facts = cli("fact", "query", "MYC", "--json").json()["facts"]
    assert {(f["subject"], f["qualifiers"]["taxon"]) for f in facts} == {
        ("MYC", "NCBITaxon:9606"), ("Myc", "NCBITaxon:10090")}
    only = cli("fact", "query", "Myc", "--taxon", "mouse", "--json").json()["facts"]
    assert [f["id"] for f in only] == [mouse]
    assert cli("fact", "verify", "Myc", "activates", "Cdk4", "--taxon", "mouse", "--json").json()["for"]["sources"] == 1
    # without qualifiers, ids and paths are what they always were
    plain = add(cli, "TP53", "regulates", "MDM2")
    assert plain == "tp53--regulates--mdm2-30abf2d938"
    # without a taxon, a case variant is the same entity, and that is said
    r = cli("fact", "add", "Tp53", "regulates", "MDM2")
    assert r.out.strip() == plain and "names compare ignoring case" in r.err
    assert cli("fact", "add", "A", "regulates", "B", "--taxon", "martian").code == 2


def test_8_entity_notes_get_identifiers_and_kinds_not_guessed_from_names(vault: Path, cli: Cli) -> None:
    add(cli, "TP53", "regulates", "MDM2", "--source", "PMID:1")
    add(cli, "S100P", "binds", "GO:0005509", "--source", "PMID:2", "--subject-kind", "gene")
    add(cli, "REST", "inhibits", "BDNF", "--source", "PMID:3")
    tp53 = (vault / "entities/TP53.md").read_text()
    assert "kind: gene" in tp53 and "- HGNC:11998" in tp53
    assert "kind: gene" in (vault / "entities/S100P.md").read_text()  # given, not "variant"
    assert "kind: ontology" in (vault / "entities/GO_0005509.md").read_text()
    assert "kind: unknown" in (vault / "entities/REST.md").read_text()  # an English word: not looked up
    q = cli("fact", "query", "HGNC:11998", "--json").json()  # the identifier names the entity
    assert q["matched"] == ["TP53"] and len(q["facts"]) == 1


def test_8_ambiguous_aliases_are_flagged_or_refused_with_the_candidates(vault: Path, cli: Cli) -> None:
    add(cli, "ASPM", "regulates", "CCNE1", "--source", "PMID:1")
    r = cli("entity", "alias", "ASPM", "ASP", "--json")
    assert r.code == 0 and "ASP is ambiguous: HGNC also lists it for A1CF, ASIP, ASPA" in r.err
    assert "ASPM" in r.json()["ambiguous"]
    add(cli, "TP53", "regulates", "MDM2", "--source", "PMID:2")
    refused = cli("entity", "alias", "TP53", "NRF2")
    assert refused.code == 1 and "HGNC lists it for GABPA, NFE2L2, not TP53" in refused.err
    assert cli("entity", "alias", "TP53", "NRF2", "--allow-ambiguous").code == 0
    r = cli("fact", "add", "NRF-2", "activates", "HMOX1", "--source", "PMID:3")
    assert r.code == 0
    unknown = cli("fact", "add", "MEF", "activates", "HMOX1", "--source", "PMID:4")
    assert "MEF is ambiguous: HGNC lists it for" in unknown.err


# --- issue 13 item 3 / issue 15 finding 8: entity merge ---------------------------------------


def test_entity_merge_moves_facts_and_episodes_in_one_commit(vault: Path, cli: Cli) -> None:
    assert cli("episode", "add", "--task", "NRF2 targets after KEAP1 knockout", "--entity", "NRF2",
               "--id", "ko", "--no-suggest").code == 0
    add(cli, "KEAP1", "inhibits", "NFE2L2", "--source", "PMID:9887101")
    same = add(cli, "KEAP1", "inhibits", "NRF2", "--source", "PMID:10473555")
    moved = add(cli, "NRF2", "activates", "HMOX1", "--source", "PMID:9240432")
    refused = cli("entity", "alias", "NFE2L2", "NRF2")
    assert refused.code == 1 and "entity alias NFE2L2 NRF2 --merge" in refused.err
    commits = int(git(vault, "rev-list", "--count", "HEAD"))
    r = cli("entity", "alias", "NFE2L2", "NRF2", "--merge", "--json")
    assert r.code == 0, r.err
    assert int(git(vault, "rev-list", "--count", "HEAD")) == commits + 1
    subject = git(vault, "log", "-1", "--format=%s").strip()
    assert subject == "entity: merge NRF2 into NFE2L2 — 2 facts, 1 episode follow"
    merged = r.json()["merged"]
    assert merged["episodes"] == ["ko"] and "NRF2" in r.json()["aliases"]
    # no duplicates: KEAP1 inhibits NFE2L2 holds both papers
    facts = cli("fact", "query", "NFE2L2", "--json").json()["facts"]
    assert sorted((f["subject"], f["object"]) for f in facts) == [("KEAP1", "NFE2L2"), ("NFE2L2", "HMOX1")]
    keap1 = next(f for f in facts if f["subject"] == "KEAP1")
    assert keap1["source"] == ["PMID:9887101", "PMID:10473555"]
    # nothing deleted: the old notes stay, superseded; the old entity note redirects
    old = cli("fact", "list", "--status", "superseded", "--json").json()
    assert {f["id"] for f in old} == {same, moved}
    redirect = (vault / "entities/NRF2.md").read_text()
    assert "merged_into: NFE2L2" in redirect and "[[NFE2L2]]" in redirect
    episode = next((vault / "episodes").rglob("ko.md")).read_text()
    assert "- NFE2L2" in episode and "[[NFE2L2]]" in episode and "[[NRF2]]" not in episode
    assert cli("fact", "query", "NRF2", "--json").json()["matched"] == ["NFE2L2"]
    assert cli("check").code == 0
    # a cycle is refused
    back = cli("entity", "merge", "NRF2", "NFE2L2")
    assert back.code == 1 and "cycle" in back.err
    assert cli("entity", "merge", "NFE2L2", "nfe2l2").code == 1


def test_a_synonym_group_of_two_entities_waits_for_entity_merge(vault: Path, cli: Cli) -> None:
    """Issue 13's bad input: a vocabulary group joining two entity notes is refused with the
    `entity merge` command as its hint; after that merge the same group is accepted, `check`
    passes, and the old name's facts answer under the kept one."""
    add(cli, "KEAP1", "inhibits", "NFE2L2", "--source", "PMID:9887101")
    add(cli, "NRF2", "activates", "HMOX1", "--source", "PMID:9240432")
    refused = cli("vocabulary", "accept", "NRF2 | NFE2L2")
    assert refused.code == 1 and "separate entities" in refused.err
    assert "biocortex entity merge NFE2L2 NRF2" in refused.err
    assert cli("entity", "merge", "NFE2L2", "NRF2").code == 0
    accepted = cli("vocabulary", "accept", "NRF2 | NFE2L2")
    assert accepted.code == 0, accepted.err
    assert cli("vocabulary", "check").code == 0 and cli("check").code == 0
    facts = cli("fact", "query", "NRF2", "--json").json()
    assert facts["matched"] == ["NFE2L2"]
    assert sorted((f["subject"], f["object"]) for f in facts["facts"]) == [("KEAP1", "NFE2L2"), ("NFE2L2", "HMOX1")]


def test_verify_weighs_the_entity_a_synonym_names_as_query_finds_it(vault: Path, cli: Cli, tmp_path: Path) -> None:
    """`fact query hERG` answers with KCNH2's facts (the shipped vocabulary); `fact verify` of a
    claim about hERG weighs the same facts and dataset edges instead of answering unknown."""
    add(cli, "KCNH2", "activates", "KCNQ1", "--source", "PMID:123456")
    data = tmp_path / "edges.tsv"
    data.write_text("TF\tTarget\tRegulation\nKCNH2\tKCNE1\tRepression\n", encoding="utf-8")
    assert cli("dataset", "add", data, "--name", "d", "--version", "1", "--licence", "CC0", "--map", "subject=TF",
               "--map", "object=Target", "--map", "predicate=Regulation",
               "--predicate-map", "Repression=inhibits").code == 0
    assert cli("fact", "query", "hERG", "--json").json()["matched"] == ["KCNH2"]
    r = cli("fact", "verify", "hERG", "activates", "KCNQ1", "--json")
    assert r.code == 0 and r.json()["verdict"] == "supported" and r.json()["claim"]["subject"] == "KCNH2"
    r = cli("fact", "verify", "hERG", "activates", "KCNE1")
    assert r.code == 6 and "dataset:d@1" in r.out
    assert cli("fact", "verify", "NOTAGENE", "activates", "KCNQ1").code == 4


# --- finding 1: a bulk path; finding 2: history packed ------------------------------------------

TRRUST_LIKE = """\
AATF\tBAX\tRepression\t22909821
AATF\tMYC\tActivation\t20549547
ABL1\tCDKN1A\tActivation\t11753601;9916993
TP53\tCDKN1A\tActivation\t7651826;8242752;8548844;10908604
TP53\tCDKN1A\tRepression\t11287591
TP53\tMDM2\tUnknown\t8319905
TP53\tMDM2\tUnknown\t1614537
"""
TRRUST_ARGS = ["--columns", "subject,object,predicate,source", "--predicate-map", "Activation=activates",
               "--predicate-map", "Repression=inhibits", "--predicate-map", "Unknown=regulates",
               "--source-prefix", "PMID", "--dataset", "TRRUST@2.0", "--taxon", "human",
               "--subject-kind", "gene", "--object-kind", "gene"]


def test_1_import_is_one_validated_commit(vault: Path, cli: Cli, tmp_path: Path) -> None:
    data = tmp_path / "trrust.tsv"
    data.write_text(TRRUST_LIKE)
    commits = int(git(vault, "rev-list", "--count", "HEAD"))
    r = cli("fact", "import", str(data), *TRRUST_ARGS, "--json")
    assert r.code == 0, r.err
    report = r.json()
    assert report["rows"] == 7 and report["facts"] == 6 and report["created"] == 6  # TP53→MDM2 twice: one fact
    assert report["contradictions"] == 1 and "1 open contradictions" in r.err
    assert int(git(vault, "rev-list", "--count", "HEAD")) == commits + 1
    assert git(vault, "log", "-1", "--format=%s").startswith("fact: import 6 facts — trrust.tsv (7 rows: 6 new")
    assert git(vault, "status", "--porcelain") == ""
    # the same notes `fact add` writes: a dataset counts once, its PMIDs are refs
    fact = cli("fact", "query", "ABL1", "--json").json()["facts"][0]
    assert fact["evidence"][0]["source"] == "dataset:TRRUST@2.0" and len(fact["evidence"]) == 1
    assert fact["evidence"][0]["refs"] == ["PMID:11753601", "PMID:9916993"] and fact["confidence"] == 0.8
    assert fact["qualifiers"] == {"taxon": "NCBITaxon:9606"}
    assert "kind: gene" in (vault / "entities/AATF.md").read_text()
    # one dataset lists both signs: it is one source on each side, so the claim is contested
    v = cli("fact", "verify", "TP53", "activates", "CDKN1A", "--json").json()
    assert v["verdict"] == "contested" and v["for"]["sources"] == v["against"]["sources"] == 1
    assert cli("check").code == 0
    # importing again merges: nothing new, the same facts
    again = cli("fact", "import", str(data), *TRRUST_ARGS, "--json").json()
    assert again["created"] == 0 and again["merged"] == 6
    assert len(cli("fact", "list", "--json").json()) == 6


def test_1_a_bad_row_imports_nothing_and_every_problem_is_located(vault: Path, cli: Cli, tmp_path: Path) -> None:
    data = tmp_path / "bad.tsv"
    data.write_text(TRRUST_LIKE + "TP53\tFLT1\tUnknown\t1724219e\n\tBAX\tActivation\t1\n")
    before = git(vault, "rev-parse", "HEAD").strip()
    r = cli("fact", "import", str(data), *TRRUST_ARGS)
    assert r.code == 1 and "2 of 9 rows cannot be imported; nothing was written" in r.err
    assert f"{data}:8: source '1724219e'" in r.err and f"{data}:9: the subject is empty" in r.err
    assert git(vault, "rev-parse", "HEAD").strip() == before and git(vault, "status", "--porcelain") == ""
    assert not (vault / "facts/tp53").exists()


def test_1_import_reads_csv_and_jsonl_with_headers(vault: Path, cli: Cli, tmp_path: Path) -> None:
    (tmp_path / "f.csv").write_text("subject,predicate,object,source,confidence\n"
                                    "KEAP1,inhibits,NFE2L2,PMID:9887101,0.95\n")
    assert cli("fact", "import", str(tmp_path / "f.csv")).out.strip() == "1"
    (tmp_path / "f.jsonl").write_text(json.dumps({"subject": "KEAP1", "predicate": "inhibits", "object": "NFE2L2",
                                                  "source": ["PMID:10473555"], "taxon": "mouse"}) + "\n")
    assert cli("fact", "import", str(tmp_path / "f.jsonl")).code == 0
    facts = cli("fact", "query", "KEAP1", "--json").json()["facts"]
    assert sorted(f.get("qualifiers", {}).get("taxon", "") for f in facts) == ["", "NCBITaxon:10090"]
    missing = tmp_path / "g.csv"
    missing.write_text("subject,target\nA,B\n")
    r = cli("fact", "import", str(missing))
    assert r.code == 1 and "the header names no predicate column" in r.err


def test_import_reads_an_edge_list_whose_source_column_is_the_subject(vault: Path, cli: Cli, tmp_path: Path) -> None:
    """docs/facts.md: edge lists' `source`/`target` headers are understood. Docs trial: `source,target,relation`
    was refused ("the header names no subject column"), `source` read as the citations. With no subject column,
    `source` is the edge's subject; beside a subject column it stays the citations."""
    (tmp_path / "edges.csv").write_text("source,target,relation,confidence\nKEAP1,NFE2L2,inhibits,0.9\n")
    assert cli("fact", "import", str(tmp_path / "edges.csv")).out.strip() == "1"
    (fact,) = cli("fact", "query", "KEAP1", "--json").json()["facts"]
    assert (fact["subject"], fact["predicate"], fact["object"], fact["source"]) == (
        "KEAP1", "inhibits", "NFE2L2", ["unsourced"])
    (tmp_path / "cited.csv").write_text("source,target,relation,pmid\nNFE2L2,HMOX1,activates,1\n")
    assert cli("fact", "import", str(tmp_path / "cited.csv"), "--source-prefix", "PMID").code == 0
    assert cli("fact", "query", "HMOX1", "--json").json()["facts"][0]["source"] == ["PMID:1"]
    (tmp_path / "cited.csv").write_text("subject,target,relation,source\nNFE2L2,HMOX1,activates,PMID:1\n")
    assert cli("fact", "import", str(tmp_path / "cited.csv")).code == 0
    assert cli("fact", "query", "HMOX1", "--json").json()["facts"][0]["source"] == ["PMID:1"]


def test_7_import_does_not_reopen_a_retracted_fact_silently(vault: Path, cli: Cli, tmp_path: Path) -> None:
    ident = add(cli, "KEAP1", "activates", "NFE2L2", "--source", "agent:draft")
    assert cli("fact", "retract", ident, "--reason", "draft").code == 0
    data = tmp_path / "f.tsv"
    data.write_text("subject\tpredicate\tobject\tsource\nKEAP1\tactivates\tNFE2L2\tPMID:1\n")
    r = cli("fact", "import", str(data))
    assert r.code == 1 and "was retracted" in r.err and "--reopen" in r.err
    assert cli("fact", "import", str(data), "--reopen", "--json").json()["reopened"] == 1


def test_2_large_writes_and_piled_up_loose_objects_are_packed(vault: Path, cli: Cli, tmp_path: Path) -> None:
    rows = "".join(f"TF{i}\tG{i}\tActivation\t{1000 + i}\n" for i in range(300))
    (tmp_path / "many.tsv").write_text(rows)
    assert cli("fact", "import", str(tmp_path / "many.tsv"), *TRRUST_ARGS).code == 0
    counts = dict(line.split(": ") for line in git(vault, "count-objects", "-v").splitlines())
    assert int(counts["count"]) == 0 and int(counts["packs"]) >= 1  # 300 facts, 600 entity notes: packed
    history = int(counts["size-pack"]) * 1024 + int(counts["size"]) * 1024
    assert history / 300 < 3 * 1024  # target: at most 3 KB of packed history a fact
    # loose objects committed by something else pile up: doctor says so, and the next write packs them
    bulk = vault / "bulk"
    bulk.mkdir()
    for i in range(7000):
        (bulk / f"{i}.txt").write_text(f"blob {i}\n")
    # git (and biocortex) estimate loose objects from objects/17: make that estimate certain
    n = 0
    for i in range(200_000):
        text = f"seventeen {i}\n".encode()
        if hashlib.sha1(b"blob %d\0" % len(text) + text).hexdigest().startswith("17"):
            (bulk / f"17-{i}.txt").write_bytes(text)
            n += 1
            if n == 30:
                break
    git(vault, "add", "bulk")
    git(vault, "-c", "gc.auto=0", "-c", "user.name=Hand", "-c", "user.email=hand@lab.example", "commit", "-qm", "bulk")
    doctor = cli("doctor", "--json")
    warned = [f for f in doctor.json()["findings"] if "loose objects" in f["message"]]
    assert warned and warned[0]["severity"] == "warning" and "git -C" in warned[0]["hint"]
    add(cli, "TP53", "regulates", "MDM2", "--source", "PMID:1")
    counts = dict(line.split(": ") for line in git(vault, "count-objects", "-v").splitlines())
    assert int(counts["count"]) < 100
    assert not [f for f in cli("doctor", "--json").json()["findings"] if "loose objects" in f["message"]]


def test_alias_import_is_one_checked_commit(vault: Path, cli: Cli, tmp_path: Path) -> None:
    add(cli, "TP53", "regulates", "MDM2", "--source", "PMID:1")
    add(cli, "CDKN2A", "regulates", "MDM2", "--source", "PMID:2")
    data = tmp_path / "aliases.tsv"
    data.write_text("name\talias\tidentifier\nTP53\tp53;LFS1\tHGNC:11998\nNFE2L2\tNrf2-like\t\nASPM\tASP\t\n")
    commits = int(git(vault, "rev-list", "--count", "HEAD"))
    r = cli("entity", "import", str(data), "--json")
    assert r.code == 0, r.err
    assert r.json()["aliases"] == 4 and r.json()["entities"] == 2 and "ASP is ambiguous" in r.err
    assert int(git(vault, "rev-list", "--count", "HEAD")) == commits + 1
    assert cli("fact", "query", "lfs1", "--json").json()["matched"] == ["TP53"]
    bad = tmp_path / "bad.tsv"
    bad.write_text("name\talias\nCDKN2A\tp53\nMDM2\tASP\nKRAS\tTP53\n")
    r = cli("entity", "import", str(bad))
    assert r.code == 1 and "3 of 3 rows cannot be imported" in r.err
    assert f"{bad}:2: 'p53' is already an alias of TP53" in r.err
    assert f"{bad}:3: 'ASP' is already an alias of ASPM" in r.err
    assert f"{bad}:4: 'TP53' is an entity of its own" in r.err


def test_alias_import_of_two_spellings_of_a_new_entity_writes_one_note(vault: Path, cli: Cli, tmp_path: Path) -> None:
    """Entity file names are unique ignoring case: rows for "Myc" and "MYC", neither with a note
    yet, give one note holding both rows' aliases (the import writes its notes in one batch)."""
    data = tmp_path / "aliases.tsv"
    data.write_text("name\talias\nMyc\tc-Myc\nMYC\tbHLHe39\n")
    r = cli("entity", "import", str(data), "--json")
    assert r.code == 0, r.err
    notes = sorted(p.name for p in (vault / "entities").glob("*.md") if p.name.lower().startswith("myc"))
    assert len(notes) == 1, notes
    text = (vault / "entities" / notes[0]).read_text()
    assert "c-Myc" in text and "bHLHe39" in text
    assert cli("check").code == 0
