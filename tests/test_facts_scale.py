"""Issue 15: facts at the scale of real knowledge graphs. Each numbered finding of the issue is a
test here (the finding's number in the test's name); they failed before the change."""

from __future__ import annotations

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
    from biocortex_cli.facts.query import Verdict

    codes = Verdict.EXIT_CODES
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
