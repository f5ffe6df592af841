"""Analyses of the same kind as the best hits join the results (recall/kin.py; docs/recall.md §5).

A question worded like one run of an analysis finds that run; the other runs of the same analysis
(same tools and domains, other data, other words) come with it, each saying which hit it was
found through — and nothing that shares only a domain, or the tools of a weak hit, comes along.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import Cli

QUESTION = "doublet removal in the PBMC library before clustering"


def episode(ident: str, task: str, tools: list[str], domains: list[str], **more: Any) -> dict[str, Any]:
    return {"id": ident, "task": task, "tools": tools, "domains": domains, "success": True, "quality": 0.8,
            "result": more.pop("result", "Done as planned."), **more}


EPISODES = [
    episode("pbmc-doublets", "Doublet removal in the PBMC library before clustering",
            ["scDblFinder", "Seurat"], ["scRNA-seq"],
            result="scDblFinder flagged 8% of barcodes as doublets in the PBMC library; removed before clustering.",
            lessons=["Call doublets per sample."]),
    # the same analysis on other data, in other words: no word of the question
    episode("kidney-heterotypic", "Kidney organoid run: drop heterotypic droplets",
            ["scDblFinder", "Seurat"], ["scRNA-seq"], result="6% of droplets dropped; podocytes kept."),
    episode("lung-heterotypic", "Lung tumour channels: heterotypic droplet calls",
            ["scDblFinder", "Seurat", "Scanpy"], ["scRNA-seq"], success=False, quality=0.3,
            result="Calls made on the merged object removed real transitional cells."),
    # the same domain, other tools: not of the same kind
    episode("liver-annotation", "Annotate hepatocyte zonation in the liver atlas",
            ["Azimuth", "CellTypist"], ["scRNA-seq"]),
    # unrelated
    episode("exome-variants", "Variant filtering of the trio exomes", ["GATK"], ["variant calling"]),
    episode("bulk-liver", "Differential expression in mouse liver", ["DESeq2"], ["bulk RNA-seq"]),
]


@pytest.fixture
def kin_vault(vault: Path, cli: Cli) -> Path:
    r = cli("episode", "import", "-", stdin="".join(json.dumps(e) + "\n" for e in EPISODES))
    assert r.code == 0, r.err
    return vault


def recall(cli: Cli, query: str, *args: str) -> dict[str, Any]:
    r = cli("recall", query, *args, "--json")
    assert r.code == 0, r.err
    return r.json()  # type: ignore[no-any-return]


def test_runs_of_the_same_analysis_come_with_the_hit_that_names_the_question(kin_vault: Path, cli: Cli) -> None:
    data = recall(cli, QUESTION)
    hits = {h["id"]: h for h in data["results"]}
    assert data["results"][0]["id"] == "pbmc-doublets"
    assert data["results"][0]["via"] is None
    for ident in ("kidney-heterotypic", "lung-heterotypic"):
        hit = hits[ident]
        assert hit["via"] == "pbmc-doublets"
        assert set(hit["signals"]) == {"kin"} and hit["signals"]["kin"] >= 0.5
        # never above the hit it came through: half its score at most (weights.kin 0.5)
        assert hit["rank_score"] <= 0.5 * min(1.0, data["results"][0]["rank_score"]) + 1e-9
    # a domain alone, or nothing, does not make an analysis of the same kind
    assert "liver-annotation" not in hits and "exome-variants" not in hits and "bulk-liver" not in hits


def test_the_printed_block_says_which_hit_it_came_through(kin_vault: Path, cli: Cli) -> None:
    data = recall(cli, QUESTION)
    context = data["context"]
    assert "found as an analysis of the same kind as pbmc-doublets (its tools and domains)" in context
    block = context.split("### ")[2]  # the second block
    lines = block.splitlines()
    assert lines[2].startswith("found as an analysis of the same kind as pbmc-doublets"), lines
    # the first hit's block carries no such line
    assert "found as an analysis" not in context.split("### ")[1]
    r = cli("recall", QUESTION, "--explain")
    assert "found through: pbmc-doublets" in r.err


def test_budget_holds_exactly_with_kin_blocks(kin_vault: Path, cli: Cli) -> None:
    from biocortex_cli.tokens import get_counter

    count = get_counter("cl100k_base").count
    full = recall(cli, QUESTION)
    assert len(full["results"]) >= 3
    assert full["tokens"] == count(full["context"])
    for budget in range(full["tokens"] - 60, full["tokens"] + 1, 7):
        r = cli("recall", QUESTION, "--budget", str(budget), "--json")
        if r.code == 2:
            continue
        data = r.json()
        assert data["tokens"] == count(data["context"]) <= budget, budget
    compact = recall(cli, QUESTION, "--compact")
    assert compact["tokens"] == count(compact["context"])
    assert "found as an analysis of the same kind as pbmc-doublets" in compact["context"]


def test_filters_apply_to_kin(kin_vault: Path, cli: Cli) -> None:
    assert "lung-heterotypic" not in [h["id"] for h in recall(cli, QUESTION, "--success-only")["results"]]
    r = cli("forget", "--failed")  # archives lung-heterotypic, the one failure
    assert r.code == 0, r.err
    assert "lung-heterotypic" not in [h["id"] for h in recall(cli, QUESTION)["results"]]
    assert "lung-heterotypic" in [h["id"] for h in recall(cli, QUESTION, "--include-archived")["results"]]
    assert "found as an analysis" not in recall(cli, QUESTION, "--domain", "bulk RNA-seq")["context"]


def test_weight_zero_turns_kin_off(kin_vault: Path, cli: Cli) -> None:
    config = kin_vault / ".biocortex" / "config.yaml"
    text = config.read_text()
    assert "    kin: 0.5" in text
    config.write_text(text.replace("    kin: 0.5", "    kin: 0"))
    assert [h["id"] for h in recall(cli, QUESTION)["results"]] == ["pbmc-doublets"]


def test_a_weak_hit_brings_no_kin(kin_vault: Path, cli: Cli) -> None:
    # shares one word with pbmc-doublets: it passes the gate barely, and its kin would score
    # half of that, under min_relevance
    data = recall(cli, "clustering of sorted thymocytes by flow")
    assert all(h["via"] is None for h in data["results"])


def test_top_k_counts_kin_and_the_order_is_stable(kin_vault: Path, cli: Cli) -> None:
    one = recall(cli, QUESTION, "--top-k", "2")
    assert [h["id"] for h in one["results"]] == ["pbmc-doublets", "kidney-heterotypic"]
    assert one["dropped"]["over_top_k"] >= 1
    assert recall(cli, QUESTION)["context"] == recall(cli, QUESTION)["context"]
