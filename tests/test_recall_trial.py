"""An agent living through ~20 analyses with recall (trial of 2026-11-24 evening): recall before
planning, record the episode, give feedback. Each test failed before its fix."""

from __future__ import annotations

from pathlib import Path

from conftest import Cli


def test_the_first_episode_after_the_first_recall_of_a_new_vault_is_recorded(vault: Path, cli: Cli) -> None:
    """The guide's loop on a new vault: `recall` (nothing yet) builds the index without the fact
    tables; the first `episode add --entity` then looked its entity up in those tables and crashed
    (exit 3, `no such table: entity_aliases`): the agent's first analysis was never recorded."""
    r = cli("recall", "QC of a 10x scRNA-seq run of mouse lung")
    assert r.code == 0 and r.out == "", r.err
    r = cli("episode", "add", "--task", "QC of a 10x scRNA-seq run of mouse lung", "--entity", "TP53",
            "--success", "--json")
    assert r.code == 0, r.err
    assert r.json()["entities"] == ["TP53"]
    assert cli("check").code == 0


def test_a_tool_named_like_a_gene_is_not_also_an_entity(vault: Path, cli: Cli) -> None:
    """`MACS2` and `BWA-MEM2` in an episode's plan were found as gene-like entities although the
    episode lists them as tools: each got a note in entities/, and `related` said "shared
    entities: MACS2; shared tools: MACS2". A tool given as an entity stays one."""
    r = cli("episode", "add", "--task", "p53 ChIP-seq in MCF7 cells", "--plan", "Bowtie2, MACS2 narrow peaks",
            "--result", "CDKN1A and MDM2 promoters bound", "--tool", "MACS2", "--tool", "BWA-MEM2",
            "--lesson", "BWA-MEM2 is faster than Bowtie2 here", "--success", "--json")
    assert r.code == 0, r.err
    assert r.json()["entities"] == ["CDKN1A", "MDM2"]
    assert not (vault / "entities" / "MACS2.md").exists()
    r = cli("episode", "add", "--task", "ATAC-seq peaks with MACS2", "--tool", "MACS2", "--entity", "MACS2",
            "--success", "--json")
    assert r.json()["entities"] == ["MACS2"]


def test_a_pd_l1_question_in_full_words_does_not_bring_the_pd_1_analysis(vault: Path, cli: Cli) -> None:
    """*programmed cell death 1 ligand 1* (PD-L1) expanded to PD-1's symbols, and a question about
    PD-L1 staining brought a PD-1 flow cytometry analysis by that synonym alone."""
    r = cli("episode", "add", "--task", "PD-1 on exhausted CD8 T cells by spectral flow cytometry",
            "--entity", "PDCD1", "--tool", "FlowJo", "--success")
    assert r.code == 0, r.err
    r = cli("recall", "programmed cell death 1 ligand 1 immunohistochemistry", "--json", "--explain")
    assert r.code == 0, r.err
    data = r.json()
    assert data["results"] == []
    assert not any(s["synonym"] in {"pdcd1", "pd-1"} for s in data["explain"]["synonyms"])
