"""Semantic memory on real vaults: facts, aliases, contradictions, queries, verification."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import Cli, git


def add(cli: Cli, *args: str) -> str:
    r = cli("fact", "add", *args)
    assert r.code == 0, r.err
    return r.out.strip()


def test_same_triple_merges_sources_and_never_duplicates(vault: Path, cli: Cli) -> None:
    first = add(cli, "TP53", "regulates", "MDM2", "--source", "PMID:8319905", "--confidence", "0.9")
    commits = int(git(vault, "rev-list", "--count", "HEAD"))
    r = cli("fact", "add", "tp53", "Regulates", "MDM2", "--source", "PMID:1614537", "--confidence", "0.5", "--json")
    assert r.code == 0 and "merged into existing fact" in r.err
    data = r.json()
    assert data["id"] == first and data["merged"] is True
    assert data["source"] == ["PMID:8319905", "PMID:1614537"]
    assert data["confidence"] == pytest.approx(1 - 0.1 * 0.5)  # noisy-OR of independent sources
    # the same source again only updates its own evidence
    again = cli("fact", "add", "TP53", "regulates", "MDM2", "--source", "PMID:1614537", "--confidence", "0.2",
                "--json").json()
    assert again["source"] == ["PMID:8319905", "PMID:1614537"]
    assert again["confidence"] == pytest.approx(1 - 0.1 * 0.8)
    assert len(list((vault / "facts").rglob("*.md"))) == 2  # the fact + facts/README.md
    assert int(git(vault, "rev-list", "--count", "HEAD")) == commits + 2
    assert git(vault, "log", "-1", "--format=%s").startswith(f"fact: update {first} — TP53 regulates MDM2")
    text = (vault / data["path"]).read_text()
    assert "[[TP53]] regulates [[MDM2]]." in text
    assert (vault / "entities/TP53.md").is_file() and (vault / "entities/MDM2.md").is_file()


def test_aliases_resolve_in_add_query_and_entity_show(vault: Path, cli: Cli) -> None:
    add(cli, "TP53", "regulates", "MDM2", "--source", "PMID:8319905")
    r = cli("entity", "alias", "TP53", "p53")
    assert r.code == 0 and r.out.strip() == "TP53: TP53, p53"
    assert git(vault, "log", "-1", "--format=%s").strip() == "entity: alias TP53 — p53"
    r = cli("fact", "add", "p53", "regulates", "CDKN1A", "--source", "PMID:8242752")
    assert "p53 → TP53" in r.err
    assert (vault / "facts/tp53").is_dir() and not (vault / "facts/p53").exists()
    q = cli("fact", "query", "P53", "--json").json()
    assert q["matched"] == ["TP53"] and q["match"] == "alias"
    assert {f["object"] for f in q["facts"]} == {"MDM2", "CDKN1A"}
    assert all(f["author"] and f["source"] for f in q["facts"])  # provenance is returned
    page = cli("entity", "show", "p53", "--json").json()
    assert page["name"] == "TP53" and page["aliases"] == ["TP53", "p53"] and len(page["facts_out"]) == 2
    # an alias already taken by another entity is refused
    add(cli, "MDM2", "ubiquitinates", "TP53")
    r = cli("entity", "alias", "MDM2", "p53")
    assert r.code == 1 and "already an alias of TP53" in r.err


def test_query_hops_predicate_confidence_and_substring(vault: Path, cli: Cli) -> None:
    add(cli, "KRAS", "activates", "RAF1", "--confidence", "0.9")
    add(cli, "RAF1", "phosphorylates", "MAP2K1", "--confidence", "0.9")
    add(cli, "MAP2K1", "phosphorylates", "MAPK1", "--confidence", "0.4")
    one = cli("fact", "query", "KRAS", "--json").json()["facts"]
    assert [f["object"] for f in one] == ["RAF1"]
    three = cli("fact", "query", "KRAS", "--hops", "3", "--json").json()["facts"]
    assert [(f["subject"], f["hops"]) for f in three] == [("KRAS", 1), ("RAF1", 2), ("MAP2K1", 3)]
    confident = cli("fact", "query", "KRAS", "--hops", "3", "--min-confidence", "0.5", "--json").json()["facts"]
    assert len(confident) == 2
    phos = cli("fact", "query", "RAF1", "--predicate", "phosphorylates", "--json").json()["facts"]
    assert [f["object"] for f in phos] == ["MAP2K1"]
    exact_only = cli("fact", "query", "map2", "--json")
    assert exact_only.json()["match"] == "none" and exact_only.json()["facts"] == []
    assert "names containing it (--fuzzy uses them): MAP2K1" in exact_only.err
    sub = cli("fact", "query", "map2", "--fuzzy", "--json")
    assert sub.json()["match"] == "substring" and "--fuzzy matched: MAP2K1" in sub.err
    none = cli("fact", "query", "Zanzibar")
    assert none.code == 0 and none.out == "" and "no facts" in none.err


def test_contradictions_warn_on_add_and_are_listed_by_check_facts(vault: Path, cli: Cli) -> None:
    first = add(cli, "KEAP1", "inhibits", "NFE2L2", "--source", "PMID:9887101")
    r = cli("fact", "add", "KEAP1", "activates", "NFE2L2", "--source", "agent:guess", "--confidence", "0.3")
    assert r.code == 0
    second = r.out.strip()
    assert f"{second} contradicts {first}" in r.err
    add(cli, "TP53", "located_on_chromosome", "17p13.1")
    r = cli("fact", "add", "TP53", "located_on_chromosome", "chr12", "--json")
    assert r.json()["contradicts"]  # single-valued predicate, another object
    assert cli("check").code == 0  # open contradictions are information, not problems
    report = cli("check", "--facts", "--json")
    assert report.code == 0
    contested = report.json()["facts"]["contested"]
    assert len(contested) == 2  # two pairs, each once
    keap1 = next(c for c in contested if c["ids"][0] == first)
    assert keap1["verdict"] == "supported" and keap1["ids"] == [first, second]  # 0.8 outweighs 0.3
    text = cli("check", "--facts").out
    assert "2 open contradictions, 1 contested" in text
    assert cli("fact", "retract", second, "--reason", "agent guessed; PMID:9887101 says inhibits").code == 0
    assert len(cli("check", "--facts", "--json").json()["facts"]["contested"]) == 1


def test_retract_and_supersede_keep_the_files(vault: Path, cli: Cli) -> None:
    old = add(cli, "S12", "passed_qc_on", "mitochondrial fraction")
    new = add(cli, "S12", "failed_qc_on", "mitochondrial fraction", "--source", "notebooks/qc.ipynb")
    r = cli("fact", "supersede", old, "--by", new, "--json")
    assert r.code == 0 and r.json()["status"] == "superseded" and r.json()["superseded_by"] == new
    assert git(vault, "log", "-1", "--format=%s").strip() == f"fact: supersede {old} — by {new}"
    listed = cli("fact", "list", "--status", "all", "--json").json()
    assert {f["id"]: f["status"] for f in listed} == {old: "superseded", new: "current"}
    newer = next(f for f in listed if f["id"] == new)
    assert "Replaces [[" + old + "]]" in (vault / newer["path"]).read_text()
    assert cli("fact", "query", "S12", "--json").json()["facts"][0]["id"] == new
    assert len(cli("fact", "query", "S12", "--all", "--json").json()["facts"]) == 2
    r = cli("fact", "retract", new, "--reason", "re-run with the right threshold passed")
    assert r.code == 0
    text = (vault / newer["path"]).read_text()
    assert "status: retracted" in text and "re-run with the right threshold passed" in text
    assert cli("fact", "list", "--json").json() == []
    assert cli("fact", "retract", "no-such--fact--x-0123456789", "--reason", "x").code == 1


def test_verify_exit_codes_and_transitive_hops(vault: Path, cli: Cli) -> None:
    add(cli, "KEAP1", "inhibits", "NFE2L2", "--source", "PMID:9887101")
    cli("entity", "alias", "NFE2L2", "NRF2")
    ok = cli("fact", "verify", "keap1", "inhibits", "NRF2", "--json")
    assert ok.code == 0 and ok.json()["verdict"] == "supported"
    assert ok.json()["supporting"][0][0]["source"] == ["PMID:9887101"]
    bad = cli("fact", "verify", "KEAP1", "activates", "NFE2L2")
    assert bad.code == 6 and bad.out.startswith("contradicted: KEAP1 activates NFE2L2")
    unknown = cli("fact", "verify", "KEAP1", "inhibits", "TP53", "--json")
    assert unknown.code == 4 and unknown.json()["verdict"] == "unknown"
    add(cli, "CD8+ T cell", "is_a", "T cell")
    add(cli, "T cell", "is_a", "lymphocyte")
    assert cli("fact", "verify", "CD8+ T cell", "is_a", "lymphocyte").code == 4
    chained = cli("fact", "verify", "CD8+ T cell", "is_a", "lymphocyte", "--hops", "2", "--json")
    assert chained.code == 0 and len(chained.json()["supporting"][0]) == 2


def test_verify_tells_a_contradicted_claim_from_a_failed_command(vault: Path, cli: Cli, tmp_path: Path) -> None:
    """Issue 17 item 6: a contradicted claim exited 1, as a missing vault does."""
    add(cli, "KEAP1", "inhibits", "NFE2L2", "--source", "PMID:9887101")
    contradicted = cli("fact", "verify", "KEAP1", "activates", "NFE2L2", "--json")
    assert contradicted.code == 6 and contradicted.json()["verdict"] == "contradicted"
    nowhere = cli("--vault", str(tmp_path / "no-vault"), "fact", "verify", "KEAP1", "activates", "NFE2L2", "--json")
    assert nowhere.code == 1 and nowhere.out == ""
    assert json.loads(nowhere.err)["error"]["code"] == "not_a_vault"
    empty = cli("fact", "verify", "KEAP1", " ", "NFE2L2", "--json")
    assert empty.code == 2 and json.loads(empty.err)["error"]["code"] == "usage"
    assert {contradicted.code, nowhere.code, empty.code, cli("fact", "verify", "KEAP1", "binds", "TP53").code} == {
        6, 1, 2, 4}


def test_a_fact_citing_an_episode_links_to_it(vault: Path, cli: Cli) -> None:
    assert cli("episode", "add", "--task", "KEAP1 CRISPR screen", "--id", "screen-2026-03").code == 0
    r = cli("fact", "add", "CRISPR screen 2026-03", "hit", "KEAP1", "--source", "screen-2026-03", "--json")
    text = (vault / r.json()["path"]).read_text()
    assert "[[screen-2026-03]] (episode)" in text
    assert cli("check").code == 0


@pytest.mark.parametrize(("args", "message"), [
    (["", "regulates", "MDM2"], "subject is empty"),
    (["TP53", "   ", "MDM2"], "predicate is empty"),
    (["TP53", "regulates", "\t"], "object is empty"),
    (["TP53", "regulates", "MDM2", "--confidence", "1.5"], "confidence must be a number from 0 to 1"),
    (["TP53", "regulates", "MDM2", "--confidence", "high"], "'--confidence': 'high' is not a valid float"),
    (["TP53", "regulates", "[[MDM2]]"], "contains '[[' or ']]'"),
])
def test_bad_fact_input_is_a_usage_error(vault: Path, cli: Cli, args: list[str], message: str) -> None:
    before = git(vault, "rev-parse", "HEAD")
    r = cli("fact", "add", *args)
    assert r.code == 2 and message in r.err
    assert git(vault, "rev-parse", "HEAD") == before


def test_colliding_slugs_and_hostile_names_stay_safe(vault: Path, cli: Cli) -> None:
    a = add(cli, "TP53", "regulates", "MDM2")
    b = add(cli, "TP53!", "regulates", "MDM2")  # same slug, another triple
    assert a != b and a.rsplit("-", 1)[0] == b.rsplit("-", 1)[0]
    names = ["../../etc/passwd", "gene #1 | alt", "🧬 DNA helix", "肿瘤抑制基因", "a/b\\c"]
    ids = [add(cli, name, "is_a", "weird name") for name in names]
    assert len(set(ids)) == len(ids)
    for path in (vault / "facts").rglob("*.md"):
        assert path.resolve().is_relative_to(vault.resolve())
    for name in names:
        q = cli("fact", "query", name, "--json").json()
        assert q["facts"] and q["facts"][0]["subject"] == " ".join(name.split())
    assert cli("check").code == 0  # every wikilink resolves to an entity note


def test_a_hand_broken_fact_is_reported_and_the_rest_still_answer(vault: Path, cli: Cli) -> None:
    add(cli, "TP53", "regulates", "MDM2")
    broken_id = add(cli, "TP53", "regulates", "CDKN1A")
    path = next((vault / "facts").rglob(f"{broken_id}.md"))
    lines = path.read_text().splitlines()
    lines[6] = "predicate: [unclosed"
    path.write_text("\n".join(lines) + "\n")
    r = cli("fact", "query", "TP53", "--json")
    assert r.code == 0 and [f["object"] for f in r.json()["facts"]] == ["MDM2"]
    assert f"{path.relative_to(vault)}:7:" in r.err
    report = cli("check")
    assert report.code == 1 and f"{path.relative_to(vault)}:7:" in report.out


def test_a_hand_edited_fact_in_the_way_is_never_overwritten(vault: Path, cli: Cli) -> None:
    ident = add(cli, "TP53", "regulates", "MDM2")
    path = next((vault / "facts").rglob(f"{ident}.md"))
    path.write_text(path.read_text().replace("object: MDM2", "object: MDM4"))
    git(vault, "-c", "user.name=Hand", "-c", "user.email=hand@lab.example", "commit", "-qam", "hand edit")
    before = path.read_text()
    r = cli("fact", "add", "TP53", "regulates", "MDM2")
    assert r.code == 1 and "holds another triple" in r.err
    assert path.read_text() == before


def test_index_refreshes_facts_after_a_committed_hand_edit(vault: Path, cli: Cli) -> None:
    ident = add(cli, "TP53", "regulates", "MDM2", "--confidence", "0.5")
    assert cli("fact", "query", "TP53", "--json").json()["facts"][0]["confidence"] == 0.5
    path = next((vault / "facts").rglob(f"{ident}.md"))
    path.write_text(path.read_text().replace("confidence: 0.5\n", "confidence: 0.7\n", 1))
    r = cli("index", "--full", "--json")  # stats every note: sees the uncommitted edit
    assert r.code == 0 and r.json()["facts"] == 1
    assert cli("fact", "query", "TP53", "--json").json()["facts"][0]["confidence"] == 0.7
    git(vault, "-c", "user.name=Hand", "-c", "user.email=hand@lab.example", "commit", "-qam", "hand edit")
    add(cli, "TP53", "regulates", "CDKN1A")  # HEAD moves: git diff names what to read again
    assert len(cli("fact", "query", "TP53", "--json").json()["facts"]) == 2


def test_recall_adds_facts_about_the_questions_entities_within_the_budget(vault: Path, cli: Cli) -> None:
    from biocortex_cli.tokens import get_counter

    assert cli("episode", "add", "--task", "KEAP1 knockout RNA-seq in lung cancer cells", "--id", "ko").code == 0
    add(cli, "KEAP1", "inhibits", "NFE2L2", "--source", "PMID:9887101", "--confidence", "0.95")
    add(cli, "TP53", "regulates", "MDM2", "--source", "PMID:8319905")
    add(cli, "BRCA1", "binds", "BARD1")
    assert cli("entity", "alias", "TP53", "p53").code == 0
    data = cli("recall", "KEAP1 knockout and p53 in lung cancer", "--json").json()
    confidences = [f["confidence"] for f in data["facts"]]
    assert confidences == sorted(confidences, reverse=True)  # most confident first
    assert {(f["subject"], f["object"]) for f in data["facts"]} == {("KEAP1", "NFE2L2"), ("TP53", "MDM2")}
    assert "## Known facts about the entities in the question" in data["context"]
    assert "- KEAP1 inhibits NFE2L2 (PMID:9887101; confidence 0.95)" in data["context"]
    counter = get_counter("cl100k_base")
    tiny = cli("recall", "KEAP1 knockout and p53 in lung cancer", "--json", "--budget", "60")
    assert tiny.code == 2 and tiny.out == ""  # nothing fits: an error, as in `context` (issue 17 item 7)
    assert json.loads(tiny.err)["error"]["code"] == "budget_too_small"
    for budget in (120, 200, 400, 2000):
        d = cli("recall", "KEAP1 knockout and p53 in lung cancer", "--json", "--budget", str(budget)).json()
        assert counter.count(d["context"]) == d["tokens"] <= budget, budget
        assert bool(d["facts"]) == ("Known facts" in d["context"])
    plain = cli("recall", "KEAP1 knockout and p53 in lung cancer")
    assert plain.out == data["context"]
    # retracted facts are not recalled
    ident = data["facts"][0]["id"]
    assert cli("fact", "retract", ident, "--reason", "test").code == 0
    again = cli("recall", "KEAP1 knockout and p53 in lung cancer", "--json").json()
    assert ident not in {f["id"] for f in again["facts"]}


def test_fact_list_is_every_note_as_json_in_its_order_and_filters_as_before(vault: Path, cli: Cli,
                                                                             tmp_path: Path) -> None:
    """`fact list` filters and sorts in SQLite now, and writes its JSON without `json`'s indenting
    encoder (docs/performance.md): the text is what it was — each fact its note's frontmatter and
    path, `json.dumps(…, ensure_ascii=False, indent=2)`, sorted by subject and object ignoring
    case (Unicode's case folding: ß is ss), predicate and id, whatever the names' scripts."""
    import yaml

    rows = tmp_path / "rows.tsv"
    rows.write_text("subject\tpredicate\tobject\tsource\tconfidence\n"
                    "b\tregulates\tZ\tPMID:1\t0.5\n" "A\tactivates\tz\tPMID:2;PMID:3\t0.9\n"
                    "é\tinhibits\tÄ\tPMID:4\t0.7\n" "Straße\tbinds\tß\tPMID:5\t0.6\n"
                    "STRASSE2\tbinds\tx\tdataset:T@1;PMID:6\t0.95\n" "漢字\tregulates\ta\tPMID:7\t0.3\n"
                    "a\tregulates\tb\tPMID:8\t0.8\n" "A\tregulates\tB\tPMID:9\t0.8\n"
                    "Z\tactivates\tA\tPMID:10\t0.4\n" "İ\tinhibits\ti\tPMID:11\t0.85\n")
    assert cli("fact", "import", str(rows)).code == 0
    assert cli("fact", "add", "b", "regulates", "Z", "--source", "PMID:12", "--taxon", "mouse").code == 0
    gone = cli("fact", "add", "Z", "inhibits", "b", "--source", "PMID:13", "--json").json()["id"]
    assert cli("fact", "retract", gone, "--reason", "wrong").code == 0

    notes = []
    for path in sorted((vault / "facts").rglob("*--*.md")):
        meta = yaml.safe_load(path.read_text().split("---\n")[1])
        notes.append({**meta, "path": str(path.relative_to(vault))})
    notes.sort(key=lambda f: f["path"])
    notes.sort(key=lambda f: (f["subject"].casefold(), f["predicate"], f["object"].casefold(), f["id"]))
    assert len(notes) == 11  # `a regulates b` and `A regulates B` are one fact

    def listed(*args: str) -> list[dict[str, Any]]:
        r = cli("fact", "list", *args, "--json")
        assert r.code == 0, r.err
        assert r.out == json.dumps(json.loads(r.out), ensure_ascii=False, indent=2) + "\n"
        return list(r.json())

    assert listed("--status", "all") == notes
    current = [f for f in notes if f["status"] == "current"]
    assert listed() == current
    text = cli("fact", "list").out.splitlines()
    assert [line.rsplit("  ·  ", 1)[1] for line in text] == [f["id"] for f in current]
    assert listed("--status", "retracted") == [f for f in notes if f["status"] == "retracted"]
    assert listed("--predicate", "regulates") == [f for f in current if f["predicate"] != "binds"]
    assert listed("--subject", "a") == [f for f in current if f["subject"].casefold() == "a"]
    assert listed("--object", "SS") == [f for f in current if f["object"] == "ß"]
    assert listed("--min-confidence", "0.8") == [f for f in current if f["confidence"] >= 0.8]
    assert listed("--source", "pmid:", "--limit", "3") == current[:3]
    assert listed("--source", "T@1") == [f for f in current if "dataset:T@1" in f["source"]]
    assert listed("--limit", "2", "--predicate", "activates") == [f for f in current
                                                                 if f["predicate"] == "activates"][:2]
