"""Datasets as sources of record (issue 15): registered by path in one committed note, indexed
outside git, consulted by fact query, fact verify, recall and context beside the notes; a moved
or changed file is reported, never answered from."""

from __future__ import annotations

import hashlib
import json
import os
import random
import string
from pathlib import Path

import pytest
import yaml
from conftest import Cli, git

#: TRRUST's layout (TF, target, mode, PMIDs joined by ';'); rows written for these tests
TRRUST_LIKE = """TF\tTarget\tRegulation\tReference
TP53\tCDKN1A\tActivation\t8242752;10101800;10327058
TP53\tCDKN1A\tRepression\t15208672
TP53\tMDM2\tActivation\t8319905
KEAP1\tNFE2L2\tRepression\t9887101
MYC\tCDK4\tActivation\t10688915
MAX\tODC1\tUnknown\t11111111
REST\tBDNF\tRepression\t7697725
MYCN\tODC1\tActivation\t12345678
"""
TRRUST_MAP = ["--map", "subject=TF", "--map", "object=Target", "--map", "predicate=Regulation",
              "--map", "publications=Reference", "--predicate-map", "Activation=activates",
              "--predicate-map", "Repression=inhibits", "--predicate-map", "Unknown=regulates"]


def register(cli: Cli, path: Path, *extra: str, name: str = "trrust", version: str = "2") -> dict:
    r = cli("dataset", "add", path, "--name", name, "--version", version, "--licence", "CC BY-SA 4.0",
            *TRRUST_MAP, *extra, "--json")
    assert r.code == 0, r.err
    return r.json()


@pytest.fixture
def data(tmp_path: Path) -> Path:
    path = tmp_path / "data" / "trrust.tsv"
    path.parent.mkdir()
    path.write_text(TRRUST_LIKE)
    return path


def test_add_commits_one_small_note_and_keeps_rows_out_of_git(vault: Path, cli: Cli, data: Path) -> None:
    commits = int(git(vault, "rev-list", "--count", "HEAD"))
    got = register(cli, data, "--qualifier", "taxon=9606", "--title", "TRRUST-like test rows")
    assert got["source"] == "dataset:trrust@2" and got["rows"] == 8 and got["edges"] == 8
    assert got["checksum"].startswith("sha256:") and got["size"] == len(TRRUST_LIKE.encode())
    assert got["predicates"] == {"Activation": "activates", "Repression": "inhibits", "Unknown": "regulates"}
    assert got["qualifiers"] == {"taxon": "NCBITaxon:9606"}
    assert int(git(vault, "rev-list", "--count", "HEAD")) == commits + 1
    assert git(vault, "log", "-1", "--format=%s").strip() == \
        "dataset: add trrust — trrust@2: 8 edges from 8 rows (CC BY-SA 4.0)"
    assert git(vault, "show", "--name-only", "--format=", "HEAD").split() == ["datasets/trrust.md"]
    note = (vault / "datasets/trrust.md").read_text()
    assert "CDKN1A" not in note and "8242752" not in note  # no row is copied into the vault
    assert "licence: CC BY-SA 4.0" in note and "| rows → edges | 8 → 8 |" in note
    assert (vault / ".biocortex/datasets/trrust.sqlite").is_file()
    assert git(vault, "status", "--porcelain", "--untracked-files=all").strip() == ""  # the index is ignored
    assert cli("check").code == 0
    listed = cli("dataset", "list", "--json").json()
    assert [(d["name"], d["state"], d["indexed_edges"]) for d in listed] == [("trrust", "ok", 8)]
    assert "trrust@2" in cli("dataset", "list").out
    shown = cli("dataset", "show", "trrust").out
    assert "source:       dataset:trrust@2" in shown and "state:        ok" in shown


def test_query_and_verify_answer_from_the_dataset_with_its_source(vault: Path, cli: Cli, data: Path) -> None:
    register(cli, data)
    q = cli("fact", "query", "CDKN1A", "--json").json()
    assert q["match"] == "name" and q["matched"] == ["CDKN1A"]
    facts = {(f["subject"], f["predicate"], f["object"]): f for f in q["facts"]}
    act = facts[("TP53", "activates", "CDKN1A")]
    assert act["origin"] == "dataset:trrust@2" and act["source"] == ["dataset:trrust@2"]
    assert act["evidence"] == [{"source": "dataset:trrust@2", "confidence": 0.8,
                                "refs": ["PMID:8242752", "PMID:10101800", "PMID:10327058"]}]
    assert act["dataset"] == {"name": "trrust", "version": "2", "file": act["dataset"]["file"], "line": 2}
    assert act["path"] == "datasets/trrust.md"
    assert "dataset:trrust@2" in cli("fact", "query", "CDKN1A").out
    # the notes answer beside the dataset
    added = cli("fact", "add", "TP53", "activates", "CDKN1A", "--source", "PMID:8242752", "--confidence", "0.9")
    assert added.code == 0
    origins = sorted(f.get("origin", "note") for f in cli("fact", "query", "CDKN1A", "--json").json()["facts"])
    assert origins == ["dataset:trrust@2", "dataset:trrust@2", "note"]
    supported = cli("fact", "verify", "KEAP1", "inhibits", "NFE2L2", "--json")
    assert supported.code == 0 and supported.json()["verdict"] == "supported"
    assert supported.json()["supporting"][0][0]["origin"] == "dataset:trrust@2"
    unknown = cli("fact", "verify", "KEAP1", "inhibits", "TP53")
    assert unknown.code == 4
    # exact names: MYC is not MYCN
    assert {f["subject"] for f in cli("fact", "query", "MYC", "--json").json()["facts"]} == {"MYC"}


def test_recall_and_context_cite_the_dataset_inside_the_budget(vault: Path, cli: Cli, data: Path) -> None:
    register(cli, data, "--qualifier", "taxon=9606")
    r = cli("recall", "Does TP53 activate CDKN1A in HCT116 cells?", "--budget", "600", "--json")
    assert r.code == 0, r.err
    out = r.json()
    lines = [line for line in out["context"].splitlines() if line.startswith("- ")]
    assert lines[0].startswith("- TP53 activates CDKN1A") and "(dataset:trrust@2, 3 publications;" in lines[0]
    assert all("dataset:trrust@2" in line for line in lines)
    assert out["facts"][0]["origin"] == "dataset:trrust@2"
    assert out["tokens"] <= 600
    # English words are not gene symbols unless written as one (MAX, REST are in the dataset)
    plain = cli("recall", "At the max dose, what is the rest of the effect on cell death?", "--json").json()
    assert not plain.get("facts")
    for budget in (40, 80, 160, 320):  # the facts part fits its share of any budget, or is left out
        small = cli("recall", "TP53, CDKN1A, MDM2, KEAP1 and NFE2L2", "--budget", str(budget), "--json")
        assert small.code == 0 and small.json()["tokens"] <= budget
    ctx = cli("context", "KEAP1 and NFE2L2 in lung cancer", "--budget", "400", "--json")
    assert ctx.code == 0 and "KEAP1 inhibits NFE2L2" in ctx.json()["context"]
    assert ctx.json()["tokens"] <= 400


@pytest.mark.parametrize("encoding", ["cl100k_base", "o200k_base"])
def test_recall_line_tokens_are_the_sum_of_their_pieces(vault: Path, cli: Cli, tmp_path: Path,
                                                       encoding: str) -> None:
    """Recall never loads a tokenizer: each dataset line's count comes from pieces counted at
    index time. The sum must be the tokenizer's own count of the line, for any names."""
    from biocortex_cli.facts.datasets_index import consult
    from biocortex_cli.store.vault import Vault
    from biocortex_cli.tokens import get_counter

    config = vault / ".biocortex/config.yaml"
    config.write_text(config.read_text().replace("encoding: cl100k_base", f"encoding: {encoding}"))
    rng = random.Random(7)
    alphabet = string.ascii_letters + string.digits + "-_:/.()[]'αβγ+ é–"
    names = ["TP53", "HGNC:11998", "(S)-ketamine", "5-HT", "p53'", "IL-2 receptor", "α-synuclein", "R2D2.",
             *("".join(rng.choice(alphabet) for _ in range(rng.randint(1, 14))).strip() or "x" for _ in range(120))]
    rows = ["s\tp\to\tpubs\tcell"]
    for i, name in enumerate(names):
        other = names[(i * 7 + 3) % len(names)]
        pubs = ";".join(str(rng.randint(1, 40_000_000)) for _ in range(rng.choice([0, 1, 2, 12, 1234])))
        rows.append(f"{name}\t{rng.choice(['activates', 'binds_to', 'is a'])}\t{other}\t{pubs}\t"
                    f"{rng.choice(['', 'T cell', 'HeLa'])}")
    path = tmp_path / "weird.tsv"
    path.write_text("\n".join(rows) + "\n")
    r = cli("dataset", "add", path, "--name", "weird", "--version", "0.1-rc", "--licence", "CC0",
            "--map", "subject=s", "--map", "predicate=p", "--map", "object=o", "--map", "publications=pubs",
            "--map", "qualifier.cell_type=cell", "--qualifier", "taxon=human", "--confidence", "0.65")
    assert r.code == 0, r.err
    found = consult(Vault(vault))
    (source,) = found.edges
    counter = get_counter(encoding)
    checked = 0
    for node in range(1, len(names) + 1):
        for _conf, line, tokens, _record in source.recall_rows([node], 50):
            assert tokens == counter.count(line), line
            checked += 1
    found.close()
    assert checked >= len(names)


def test_a_changed_file_is_reported_and_never_answered_from(vault: Path, cli: Cli, data: Path) -> None:
    register(cli, data)
    assert cli("fact", "verify", "TP53", "activates", "MDM2").code == 0
    # the same size, another content: the checksum tells
    data.write_text(TRRUST_LIKE.replace("TP53\tMDM2\tActivation", "TP53\tMDM2\tRepression"))
    r = cli("fact", "verify", "TP53", "activates", "MDM2")
    assert r.code == 4, r.out  # unknown: the changed file is not used (it would now say inhibits)
    assert "dataset trrust@2: file" in r.err and "changed" in r.err and "--accept-change" in r.err
    c = cli("check")
    assert c.code == 1 and c.out.startswith("datasets/trrust.md:") and "changed" in c.out
    d = cli("doctor", "--json")
    assert d.code == 1
    assert any(f["check"] == "datasets" and f["severity"] == "error" for f in d.json()["findings"])
    assert cli("dataset", "list", "--json").json()[0]["state"] == "changed"
    refreshed = cli("dataset", "refresh", "--json")
    assert refreshed.code == 1 and refreshed.json()[0]["action"] == "changed"
    # a new release, registered on purpose
    commits = int(git(vault, "rev-list", "--count", "HEAD"))
    accepted = cli("dataset", "refresh", "trrust", "--accept-change", "--version", "3", "--json")
    assert accepted.code == 0, accepted.err
    assert accepted.json()[0]["action"] == "updated"
    assert int(git(vault, "rev-list", "--count", "HEAD")) == commits + 1
    assert git(vault, "log", "-1", "--format=%s").strip() == "dataset: refresh trrust — version 2 → 3, 8 edges"
    note = (vault / "datasets/trrust.md").read_text()
    meta = yaml.safe_load(note.split("---\n")[1])
    assert meta["version"] == "3" and meta["checksum"] == "sha256:" + hashlib.sha256(data.read_bytes()).hexdigest()
    assert "| rows → edges | 8 → 8 |" in note and meta["checksum"] in note  # the readable copy follows
    v = cli("fact", "verify", "TP53", "inhibits", "MDM2", "--json")
    assert v.code == 0 and v.json()["supporting"][0][0]["origin"] == "dataset:trrust@3"
    assert cli("check").code == 0


def test_a_touched_or_copied_file_with_the_same_content_still_answers(vault: Path, cli: Cli, data: Path) -> None:
    register(cli, data)
    os.utime(data, (1, 1))  # another mtime, the same bytes: hashed once, then trusted again
    r = cli("fact", "verify", "TP53", "activates", "MDM2")
    assert r.code == 0 and "warning" not in r.err
    assert cli("check").code == 0


def test_a_missing_file_degrades_to_the_notes_with_a_warning(vault: Path, cli: Cli, data: Path) -> None:
    register(cli, data)
    assert cli("fact", "add", "TP53", "regulates", "MDM2", "--source", "PMID:8319905").code == 0
    moved = data.with_name("moved.tsv")
    data.rename(moved)
    q = cli("fact", "query", "MDM2", "--json")
    assert q.code == 0 and [f.get("origin", "note") for f in q.json()["facts"]] == ["note"]
    assert "file" in q.err and "is missing" in q.err and "dataset refresh trrust --path" in q.err
    r = cli("recall", "TP53 and MDM2", "--json")
    assert r.code == 0 and "is missing" in r.err
    c = cli("check")
    assert c.code == 1 and "is missing" in c.out
    assert cli("dataset", "refresh").code == 1
    # the same content in its new place: one commit that says where it is now
    m = cli("dataset", "refresh", "trrust", "--path", moved, "--json")
    assert m.code == 0 and m.json()[0]["action"] == "moved"
    assert git(vault, "log", "-1", "--format=%s").strip() == f"dataset: refresh trrust — moved to {moved}"
    assert any(f.get("origin") == "dataset:trrust@2" for f in cli("fact", "query", "MDM2", "--json").json()["facts"])
    assert cli("check").code == 0
    # another file in that place is not the registered one
    other = data.with_name("other.tsv")
    other.write_text(TRRUST_LIKE.replace("MYC\t", "MYB\t"))
    bad = cli("dataset", "refresh", "trrust", "--path", other)
    assert bad.code == 1 and "changed" in bad.out


def test_a_lost_index_is_rebuilt_on_first_use(vault: Path, cli: Cli, data: Path) -> None:
    register(cli, data)
    (vault / ".biocortex/datasets/trrust.sqlite").unlink()
    r = cli("fact", "query", "KEAP1", "--json")
    assert r.code == 0 and "indexing dataset trrust@2" in r.err
    assert r.json()["facts"][0]["origin"] == "dataset:trrust@2"
    assert (vault / ".biocortex/datasets/trrust.sqlite").is_file()
    assert cli("dataset", "refresh", "--rebuild", "--json").json()[0]["action"] == "indexed"


def test_remove_archives_the_note_and_stops_answering(vault: Path, cli: Cli, data: Path) -> None:
    register(cli, data)
    r = cli("dataset", "remove", "trrust", "--reason", "replaced by a newer release", "--json")
    assert r.code == 0 and r.json() == {"name": "trrust", "path": "datasets/trrust.md",
                                        "to": "archive/datasets/trrust.md"}
    assert git(vault, "log", "-1", "--format=%s").strip() == "dataset: remove trrust — replaced by a newer release"
    archived = (vault / "archive/datasets/trrust.md").read_text()
    assert "status: removed" in archived and "reason: replaced by a newer release" in archived
    assert not (vault / "datasets/trrust.md").exists()
    assert not (vault / ".biocortex/datasets/trrust.sqlite").exists()
    assert data.is_file()  # the file is not ours to touch
    assert cli("fact", "query", "KEAP1", "--json").json()["facts"] == []
    assert cli("check").code == 0
    # registered again, and removed again: the archive keeps both
    register(cli, data)
    assert cli("dataset", "remove", "trrust", "--reason", "again").out.strip() == "archive/datasets/trrust.removed-2.md"
    assert cli("check").code == 0


def test_bad_mappings_are_refused_with_where_and_nothing_is_written(vault: Path, cli: Cli, data: Path) -> None:
    commits = int(git(vault, "rev-list", "--count", "HEAD"))
    r = cli("dataset", "add", data, "--name", "t", "--version", "1", "--licence", "CC0", "--map", "subject=Gene")
    assert r.code == 1
    assert f"{data}:1: no column 'Gene' in the header" in r.err and "TF, Target, Regulation, Reference" in r.err
    r = cli("dataset", "add", data, "--name", "t", "--version", "1", "--licence", "CC0", "--no-header",
            "--map", "subject=TF", "--json")
    assert r.code == 1 and "by number" in r.err_json()["error"]["message"]
    r = cli("dataset", "add", data, "--name", "t", "--version", "1", "--licence", "CC0", "--map", "subject=TF",
            "--map", "object=Target", "--map", "predicate=Regulation", "--predicate-map", "Activation=activates")
    assert r.code == 0, r.err  # values not in the map are skipped, and said
    assert "4 edges from 8 rows" in r.err and "× predicate 'Repression' is not in the predicate map" in r.err
    r = cli("dataset", "add", data, "--name", "u", "--version", "1", "--licence", "CC0", "--map", "subject=TF",
            "--map", "object=Target", "--map", "predicate=Regulation", "--predicate-map", "Nothing=activates")
    assert r.code == 1 and "no usable row" in r.err
    for bad, message in ((["--map", "colour=x"], "not a field"), (["--map", "subject"], "is not KEY=VALUE"),
                         (["--qualifier", "tissue=lung"], "unknown qualifier"),
                         (["--format", "xml"], "--format must be one of tsv, csv, jsonl, kgx")):
        r = cli("dataset", "add", data, "--name", "v", "--version", "1", "--licence", "CC0", *bad)
        assert r.code == 2 and message in r.err, (bad, r.err)
    assert cli("dataset", "add", data, "--name", "bad name", "--version", "1", "--licence", "CC0").code == 2
    assert cli("dataset", "add", data, "--name", "v", "--version", " ", "--licence", "CC0").code == 2
    assert cli("dataset", "add", data.with_name("none.tsv"), "--name", "v", "--version", "1",
               "--licence", "CC0").code == 1
    assert int(git(vault, "rev-list", "--count", "HEAD")) == commits + 1  # only the good one
    assert sorted(p.name for p in (vault / ".biocortex/datasets").glob("*.sqlite")) == ["t.sqlite"]
    again = cli("dataset", "add", data, "--name", "t", "--version", "1", "--licence", "CC0")
    assert again.code == 2 and "already registered" in again.err


def test_no_header_csv_and_jsonl(vault: Path, cli: Cli, tmp_path: Path) -> None:
    raw = tmp_path / "raw.tsv"
    raw.write_text("AATF\tBAX\tRepression\t22909821\nAATF\tCDKN1A\tUnknown\t17157788\n")
    r = cli("dataset", "add", raw, "--name", "raw", "--version", "1", "--licence", "CC0", "--no-header",
            "--map", "subject=1", "--map", "object=2", "--map", "predicate=3", "--map", "publications=4",
            "--predicate-map", "Repression=inhibits", "--predicate-map", "Unknown=regulates")
    assert r.code == 0, r.err
    csv_path = tmp_path / "drugs.csv"
    csv_path.write_text('drug,target,action\n"sotorasib, AMG 510",KRAS,inhibits\nimatinib,ABL1,inhibits\n')
    r = cli("dataset", "add", csv_path, "--name", "drugs", "--version", "2024", "--licence", "CC BY 4.0",
            "--map", "subject=drug", "--map", "object=target", "--map", "predicate=action")
    assert r.code == 0, r.err
    jl = tmp_path / "edges.jsonl"
    jl.write_text(json.dumps({"s": "KEAP1", "o": "NFE2L2", "pmids": [9887101, 15282312]}) + "\nnot json\n"
                  + json.dumps({"s": "CUL3", "o": "KEAP1", "pmids": []}) + "\n")
    r = cli("dataset", "add", jl, "--name", "jl", "--version", "1", "--licence", "CC0", "--map", "subject=s",
            "--map", "object=o", "--map", "publications=pmids", "--predicate", "inhibits")
    assert r.code == 0 and f"{jl}:2: not JSON" in r.err
    q = cli("fact", "query", "KRAS", "--json").json()["facts"]
    assert [(f["subject"], f["origin"]) for f in q] == [("sotorasib, AMG 510", "dataset:drugs@2024")]
    assert cli("fact", "verify", "AATF", "inhibits", "BAX").code == 0
    ev = cli("fact", "verify", "KEAP1", "inhibits", "NFE2L2", "--json").json()["supporting"][0][0]["evidence"]
    assert ev[0]["refs"] == ["PMID:9887101", "PMID:15282312"]
    assert {d["name"] for d in cli("dataset", "list", "--json").json()} == {"raw", "drugs", "jl"}


def test_kgx_nodes_and_edges_answer_by_name_and_by_identifier(vault: Path, cli: Cli, tmp_path: Path) -> None:
    kgx = tmp_path / "kgx"
    kgx.mkdir()
    (kgx / "nodes.tsv").write_text("id\tcategory\tname\nHGNC:11998\tbiolink:Gene\tTP53\n"
                                   "HGNC:1784\tbiolink:Gene\tCDKN1A\nHGNC:6407\tbiolink:Gene\tKEAP1\n")
    (kgx / "edges.tsv").write_text(
        "id\tsubject\tpredicate\tobject\tpublications\tprimary_knowledge_source\n"
        "e1\tHGNC:11998\tbiolink:positively_regulates\tHGNC:1784\tPMID:8242752|PMID:10101800\tinfores:x\n"
        "e2\tHGNC:6407\tbiolink:interacts_with\tHGNC:11998\t\tinfores:x\n")
    r = cli("dataset", "add", kgx, "--name", "kg", "--version", "2025-01", "--licence", "CC BY 4.0",
            "--predicate-map", "biolink:positively_regulates=activates",
            "--predicate-map", "biolink:interacts_with=interacts_with", "--json")
    assert r.code == 0, r.err
    got = r.json()
    assert got["format"] == "kgx" and got["nodes"]["path"].endswith("kgx/nodes.tsv") and got["edges"] == 2
    by_name = cli("fact", "query", "TP53", "--json").json()["facts"]
    by_id = cli("fact", "query", "HGNC:11998", "--json").json()["facts"]
    assert {(f["subject"], f["predicate"], f["object"]) for f in by_name} == {
        ("TP53", "activates", "CDKN1A"), ("KEAP1", "interacts_with", "TP53")}
    assert by_id == by_name
    assert cli("fact", "verify", "HGNC:11998", "activates", "CDKN1A").code == 0
    (kgx / "nodes.tsv").write_text((kgx / "nodes.tsv").read_text().replace("KEAP1", "KEAP2"))
    r = cli("fact", "query", "TP53")
    assert "changed" in r.err and "nodes.tsv" in r.err


def test_a_hand_broken_dataset_note_is_a_check_problem(vault: Path, cli: Cli, data: Path) -> None:
    register(cli, data)
    note = vault / "datasets/trrust.md"
    note.write_text(note.read_text().replace("format: tsv", "format: xlsx"))
    c = cli("check")
    assert c.code == 1 and "datasets/trrust.md:" in c.out and "format must be one of" in c.out
    q = cli("fact", "query", "KEAP1")
    assert q.code == 0 and "format must be one of" in q.err and "dataset skipped" in q.err


def test_progress_is_reported_through_the_callback(vault: Path, tmp_path: Path) -> None:
    from biocortex_cli.facts.datasets_registry import add_dataset
    from biocortex_cli.store.git import parse_author
    from biocortex_cli.store.vault import Vault

    path = tmp_path / "big.tsv"
    path.write_text("subject\tpredicate\tobject\n" + "".join(f"G{i}\tactivates\tG{i + 1}\n" for i in range(60_000)))
    seen: list[tuple[int, int]] = []
    done = add_dataset(Vault(vault), str(path), name="big", version="1", licence="CC0",
                       author=parse_author("T <t@example.org>"), progress=lambda a, b: seen.append((a, b)))
    size = path.stat().st_size
    assert done.dataset.edges == 60_000 and size > 1 << 20
    assert len(seen) >= 2 and seen[-1] == (size, size) and all(a <= b == size for a, b in seen)
    assert [a for a, _ in seen] == sorted(a for a, _ in seen)


def test_a_dataset_that_cannot_be_indexed_here_leaves_the_notes_answering(vault: Path, cli: Cli, data: Path) -> None:
    register(cli, data)
    assert cli("fact", "add", "KEAP1", "inhibits", "NFE2L2", "--source", "PMID:9887101").code == 0
    folder = vault / ".biocortex/datasets"
    for path in folder.iterdir():
        path.unlink()
    folder.rmdir()
    folder.write_text("not a folder")  # nothing can be written there (even by root)
    r = cli("fact", "query", "KEAP1", "--json")
    assert r.code == 0 and "cannot be indexed here" in r.err
    assert [f.get("origin", "note") for f in r.json()["facts"]] == ["note"]
    assert cli("recall", "KEAP1 and NFE2L2").code == 0


def test_contradicting_edges_are_found_within_and_across_datasets_and_notes(vault: Path, cli: Cli, data: Path,
                                                                            tmp_path: Path) -> None:
    from biocortex_cli.facts.datasets_registry import contested_edges
    from biocortex_cli.facts.index import open_facts
    from biocortex_cli.facts.model import FactRules
    from biocortex_cli.store.vault import Vault

    register(cli, data)
    other = tmp_path / "other.tsv"
    other.write_text("TF\tTarget\tRegulation\tReference\nMYC\tCDK4\tRepression\t1\nmyc\tODC1\tActivation\t2\n")
    register(cli, other, name="other", version="1")
    assert cli("fact", "add", "KEAP1", "activates", "NFE2L2", "--source", "PMID:1").code == 0
    v = Vault(vault)
    conn, notes, _problems = open_facts(v)
    found = contested_edges(v, FactRules.from_config(v), notes.all_facts())
    conn.close()
    assert {(f.id, f.subject, f.predicate, f.object) for f in found} == {
        ("trrust:2", "TP53", "activates", "CDKN1A"), ("trrust:3", "TP53", "inhibits", "CDKN1A"),  # one dataset
        ("trrust:6", "MYC", "activates", "CDK4"), ("other:2", "MYC", "inhibits", "CDK4"),  # two datasets
        ("trrust:5", "KEAP1", "inhibits", "NFE2L2")}  # a dataset and a note


def test_check_facts_lists_contradictions_with_datasets_as_information(vault: Path, cli: Cli, data: Path) -> None:
    register(cli, data)
    assert cli("fact", "add", "KEAP1", "activates", "NFE2L2", "--source", "PMID:1", "--confidence", "0.3").code == 0
    r = cli("check", "--facts", "--json")
    assert r.code == 0, r.out  # information, not a failing vault
    contested = r.json()["facts"]["contested"]
    pairs = {(c["claim"], c["opposed_by"]) for c in contested}
    assert ("TP53 activates CDKN1A", "TP53 inhibits CDKN1A") in pairs or (
        "TP53 inhibits CDKN1A", "TP53 activates CDKN1A") in pairs  # inside one dataset: evenly weighed
    keap1 = next(c for c in contested if "KEAP1" in c["claim"])
    assert keap1["claim"] == "KEAP1 inhibits NFE2L2" and keap1["ids"][0] == "trrust:5"  # outweighs the draft
    assert keap1["for"]["evidence"][0]["source"] == "dataset:trrust@2"
    assert cli("check").code == 0
