"""What a trial of semantic memory by its users found (a curator importing TRRUST v2 human, a
scientist querying it, a reviewer correcting it): each test failed before its fix."""

from __future__ import annotations

from pathlib import Path

from conftest import Cli, git

TRRUST = ("TF\tTarget\tRegulation\tReference\n"
          "TP53\tCDKN1A\tActivation\t8242752;7651826\n"
          "TP53\tMDM2\tActivation\t8319905\n"
          "KEAP1\tNFE2L2\tRepression\t9887101\n")
TRRUST_ARGS = ("--predicate-map", "Activation=activates", "--predicate-map", "Repression=inhibits",
               "--source-prefix", "PMID", "--dataset", "TRRUST@2.0", "--taxon", "human")


def _entities(vault: Path) -> list[str]:
    return sorted(p.stem for p in (vault / "entities").glob("*.md") if p.stem != "README")


def test_an_hgnc_alias_or_previous_symbol_lands_on_the_genes_note(vault: Path, cli: Cli, tmp_path: Path) -> None:
    """`fact add p53 …` and a file row `MLL regulates HOXA9` made entities/p53.md and MLL.md beside
    TP53.md and KMT2A.md, each with the same HGNC id: one gene, two nodes in the graph, and
    `fact query p53` missed every fact about TP53."""
    assert cli("fact", "add", "TP53", "activates", "CDKN1A", "--source", "PMID:8242752").code == 0
    assert cli("fact", "add", "KMT2A", "regulates", "HOXA10", "--source", "PMID:12453419").code == 0
    r = cli("fact", "add", "p53", "activates", "BAX", "--source", "PMID:7834749", "--json")
    assert r.code == 0, r.err
    assert r.json()["subject"] == "TP53" and "p53 → TP53" in r.err and "HGNC:11998" in r.err
    rows = tmp_path / "rows.tsv"
    rows.write_text("subject\tpredicate\tobject\tsource\n"
                    "p53\tactivates\tMDM2\tPMID:8319905\n"
                    "MLL\tregulates\tHOXA9\tPMID:12453419\n"
                    # a gene the vault does not know yet, by two names: its approved symbol wins
                    "IL-6\tactivates\tSTAT3\tPMID:8140422\n"
                    "IL6\tactivates\tJAK1\tPMID:8140422\n")
    r = cli("fact", "import", str(rows), "--json")
    assert r.code == 0, r.err
    assert {f.parent.name for f in (vault / "facts").rglob("*--*.md")} == {"tp53", "kmt2a", "il6"}
    assert _entities(vault) == ["BAX", "CDKN1A", "HOXA10", "HOXA9", "IL6", "JAK1", "KMT2A", "MDM2", "STAT3", "TP53"]
    answer = cli("fact", "query", "p53", "--json").json()
    assert {f["object"] for f in answer["facts"]} == {"CDKN1A", "BAX", "MDM2"}
    # another species keeps its own name: HGNC is human
    r = cli("fact", "add", "p53", "activates", "Bax", "--source", "PMID:7834749", "--taxon", "mouse", "--json")
    assert r.code == 0 and r.json()["subject"] == "p53"
