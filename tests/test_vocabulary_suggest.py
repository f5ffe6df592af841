"""``biocortex vocabulary suggest|accept|show|check`` (ops/vocabulary.py): learned vocabulary,
applied only when a person or agent accepts it."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import Cli, git

from biocortex_cli.store.vocabulary import VOCABULARY_REL

EPISODES = [
    {"id": "lane-a", "task": "Overloaded 10x lane of PBMC: doublet rate 14%", "tools": ["Cell Ranger"],
     "success": False},
    {"id": "lane-b", "task": "Overloaded chip of tonsil cells, cell hashing rescued it",
     "tools": ["Cell Ranger", "HTODemux"], "success": True},
    {"id": "atac", "task": "ATAC-seq peaks of sorted T cells", "tools": ["MACS2"], "success": True},
    # alike episodes: the same tools and entities, the task with one word swapped
    {"id": "bin-1", "task": "Trogocytosis assay of NK cells with flow", "tools": ["FlowJo"],
     "entities": ["CD56"], "success": True},
    {"id": "bin-2", "task": "Membrane-transfer assay of NK cells with flow", "tools": ["FlowJo"],
     "entities": ["CD56"], "success": True},
    {"id": "bin-3", "task": "Trogocytosis readout in NK lines", "tools": ["FlowJo", "FACSDiva"],
     "entities": ["CD56"], "success": True},
    {"id": "bin-4", "task": "Membrane-transfer readout in NK lines", "tools": ["FlowJo", "FACSDiva"],
     "entities": ["CD56"], "success": True},
]


def build(vault: Path, cli: Cli) -> None:
    r = cli("episode", "import", "-", stdin="\n".join(json.dumps(e) for e in EPISODES) + "\n")
    assert r.code == 0, r.err


def helpful(cli: Cli, query: str, ident: str) -> None:
    rid = cli("recall", query, "--json", "--min-relevance", "0").json()["recall_id"]
    r = cli("feedback", rid, "--outcome", "success", "--helpful", ident)
    assert r.code == 0, r.err


def test_feedback_where_a_helpful_memory_lacked_the_words_suggests_a_pair(vault: Path, cli: Cli) -> None:
    build(vault, cli)
    helpful(cli, "superloaded lanes: what doublet rate?", "lane-a")
    helpful(cli, "rescue a superloaded chip", "lane-b")
    r = cli("vocabulary", "suggest", "--json")
    assert r.code == 0, r.err
    data = r.json()
    assert data["feedback_records"] == 2
    first = data["suggestions"][0]
    assert first["tokens"] == ["superload", "overload"] and first["words"] == ["superloaded", "overloaded"]
    assert first["feedback"] == 2 and first["support"] == 2
    assert len(first["evidence"]) == 2 and all(e.startswith("r") for e in first["evidence"])
    assert not (vault / VOCABULARY_REL).read_text().count("superloaded")  # nothing applied


def test_generic_words_of_the_questions_are_no_ones_synonym_in_a_small_vault(vault: Path, cli: Cli) -> None:
    """An agent's trial, 17 episodes: "using | 10x" was suggested, since every question said
    "using" and no word counts as too common below 20 episodes. Recall's generic words never pair."""
    build(vault, cli)
    helpful(cli, "doublet rate using Cell Ranger", "lane-a")
    helpful(cli, "rescue using cell hashing", "lane-b")
    r = cli("vocabulary", "suggest", "--json")
    assert r.code == 0, r.err
    pairs = [s["tokens"] for s in r.json()["suggestions"]]
    assert not [p for p in pairs if "use" in p], pairs
    assert ["trogocytosi", "membran transfer"] in pairs or ["membran transfer", "trogocytosi"] in pairs, pairs


def test_alike_episodes_that_swap_a_word_suggest_a_pair(vault: Path, cli: Cli) -> None:
    build(vault, cli)
    r = cli("vocabulary", "suggest")
    assert r.code == 0, r.err
    assert "trogocytosis | membrane transfer    support 2 (2 alike episode pairs), association 1.00" in r.out
    assert "1 suggestion from 7 episodes and 0 feedback records" in r.err


def test_accept_writes_the_chosen_groups_in_one_commit_and_recall_uses_them(vault: Path, cli: Cli) -> None:
    build(vault, cli)
    before = git(vault, "rev-list", "--count", "HEAD")
    r = cli("vocabulary", "accept", "1", "transfer assay -> trogocytosis assay", "--json")
    assert r.code == 0, r.err
    assert r.json()["accepted"] == ["trogocytosis | membrane transfer  # suggested: 2 pairs of alike episodes",
                                    "transfer assay -> trogocytosis assay  # accepted"]
    assert int(git(vault, "rev-list", "--count", "HEAD")) == int(before) + 1
    subject = git(vault, "log", "-1", "--format=%s")
    assert subject.startswith("vocabulary: accept vocabulary.md — trogocytosis | membrane transfer")
    text = (vault / VOCABULARY_REL).read_text()
    assert text.endswith("- trogocytosis | membrane transfer  # suggested: 2 pairs of alike episodes\n"
                         "- transfer assay -> trogocytosis assay  # accepted\n")
    assert cli("check").code == 0
    again = cli("vocabulary", "accept", "trogocytosis | membrane transfer", "--json").json()
    assert again["accepted"] == [] and again["skipped"][0]["reason"] == "already in vocabulary.md"
    shown = cli("vocabulary", "show", "trogocytosis in NK cells", "--json").json()
    expected = {"term": "trogocytosi", "synonym": "membran transfer", "source": "vault"}
    assert expected.items() <= shown["synonyms"][0].items()
    assert cli("vocabulary", "suggest", "--json").json()["suggestions"] == []  # now in the vocabulary


def test_accept_refuses_bad_groups_and_entity_merges_writing_nothing(vault: Path, cli: Cli) -> None:
    build(vault, cli)
    assert cli("entity", "alias", "NFE2L2", "Nrf2 protein").code == 0
    assert cli("entity", "alias", "NRF2", "nuclear respiratory factor").code == 0
    before = (vault / VOCABULARY_REL).read_text()
    r = cli("vocabulary", "accept", "Nrf2 protein | nuclear respiratory factor")
    assert r.code == 1 and "separate entities" in r.err and "biocortex entity merge" in r.err
    r = cli("vocabulary", "accept", "T cell | T lymphocyte", "--json")
    assert r.code == 1 and "loses a stop word" in r.err_json()["error"]["message"]
    r = cli("vocabulary", "accept", "99")
    assert r.code == 2 and "no suggestion 99" in r.err
    assert (vault / VOCABULARY_REL).read_text() == before


def test_show_and_check(vault: Path, cli: Cli) -> None:
    (vault / VOCABULARY_REL).write_text("- doublet | multiplet\n- alone\n")
    r = cli("vocabulary", "show")
    assert r.out == "vocabulary.md:1: doublet | multiplet\n"
    r = cli("vocabulary", "show", "NRF2 multiplets")
    assert "multiplet → doublet  (doublet; vault 0.9, vocabulary.md:1)" in r.out
    assert "nrf2: not expanded (ambiguous" in r.out
    r = cli("vocabulary", "check")
    assert r.code == 1 and r.out.startswith("vocabulary.md:2: 'alone' alone is not a group")


def test_a_word_that_pairs_with_every_question_is_not_suggested(vault: Path, cli: Cli) -> None:
    # Eight helpful episodes all say "Overloaded"; four different question words each lacked it
    # twice. Every pair has support 2, but "overloaded" is in all eight units of evidence: it
    # pairs with anything (association 2*2 / (2 + 8) = 0.4 < MIN_ASSOCIATION), so none is offered.
    names = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"]
    hub = [{"id": f"hub-{n}", "task": f"Overloaded {n} lane", "tools": [f"T{i}"], "success": True}
           for i, n in enumerate(names)]
    r = cli("episode", "import", "-", stdin="\n".join(json.dumps(e) for e in hub) + "\n")
    assert r.code == 0, r.err
    for word, pair in zip(["snafu", "glitch", "hiccup", "mishap"], [names[0:2], names[2:4], names[4:6], names[6:8]],
                          strict=True):
        for name in pair:
            helpful(cli, f"{word} in the {name} lane", f"hub-{name}")
    data = cli("vocabulary", "suggest", "--json").json()
    assert data["suggestions"] == []
    assert data["weak"] == 4  # snafu, glitch, hiccup, mishap | overloaded


def test_a_pair_said_consistently_is_suggested_with_its_association(vault: Path, cli: Cli) -> None:
    build(vault, cli)
    helpful(cli, "superloaded lanes: what doublet rate?", "lane-a")
    helpful(cli, "rescue a superloaded chip", "lane-b")
    first = cli("vocabulary", "suggest", "--json").json()["suggestions"][0]
    assert first["words"] == ["superloaded", "overloaded"] and first["association"] == 1.0


def test_a_pair_of_two_separate_entities_is_not_offered(vault: Path, cli: Cli) -> None:
    # `accept` refuses a group naming two entity notes (entity merge joins them), so `suggest`
    # must not offer it: "accept 1 2 3" would otherwise fail on one of them and write nothing.
    build(vault, cli)
    assert cli("entity", "alias", "Trogocytosis", "trogo").code == 0
    assert cli("entity", "alias", "membrane transfer", "mtx").code == 0
    data = cli("vocabulary", "suggest", "--json").json()
    assert data["suggestions"] == [] and data["separate_entities"] == 1


def test_each_suggestion_says_how_many_questions_its_feedback_comes_from(vault: Path, cli: Cli) -> None:
    """User trial: one question whose recall found four helpful episodes made every word of the
    question ("get", "rid") a synonym of every word the four tasks share, "support 4", and
    nothing told a reviewer that it was all one question."""
    build(vault, cli)
    rid = cli("recall", "superloaded lanes and chips", "--json", "--min-relevance", "0").json()["recall_id"]
    assert cli("feedback", rid, "--outcome", "success", "--helpful", "lane-a", "--helpful", "lane-b").code == 0
    one = {s["group"]: s for s in cli("vocabulary", "suggest", "--json").json()["suggestions"]}
    assert one["superloaded | overloaded"]["feedback"] == 2 and one["superloaded | overloaded"]["questions"] == 1
    helpful(cli, "rescue a superloaded chip", "lane-b")
    two = {s["group"]: s for s in cli("vocabulary", "suggest", "--json").json()["suggestions"]}
    assert two["superloaded | overloaded"]["questions"] == 2
    text = cli("vocabulary", "suggest").out
    assert "superloaded | overloaded    support 2 (2 helpful episodes for 2 questions)" in text
    assert cli("vocabulary", "accept", "1").code == 0
    assert (vault / VOCABULARY_REL).read_text().endswith(
        "- superloaded | overloaded  # suggested: 2 helpful episodes for 2 questions\n")
    body = git(vault, "log", "-1", "--format=%b")  # the commit names the recalls a reviewer can look up
    assert body.startswith("- superloaded | overloaded  # suggested: 2 helpful episodes for 2 questions: "
                           "support 2, evidence r") and body.count(", r") == 1


def test_a_group_a_person_removed_is_not_suggested_again(vault: Path, cli: Cli) -> None:
    """User trial: after `vocabulary remove`, the same pair came back as suggestion 1, for the
    next `accept 1` to write again."""
    build(vault, cli)
    helpful(cli, "superloaded lanes: what doublet rate?", "lane-a")
    helpful(cli, "rescue a superloaded chip", "lane-b")
    assert cli("vocabulary", "accept", "1").code == 0
    assert cli("vocabulary", "remove", "superloaded | overloaded").code == 0
    data = cli("vocabulary", "suggest", "--json").json()
    assert "superloaded | overloaded" not in [s["group"] for s in data["suggestions"]]
    assert data["removed_before"] == 1
    assert "1 removed from vocabulary.md before" in cli("vocabulary", "suggest").err
    again = cli("vocabulary", "accept", "overloaded | superloaded", "--json")  # a person may still write it
    assert again.code == 0 and again.json()["accepted"] == ["overloaded | superloaded  # accepted"]
    assert cli("vocabulary", "suggest", "--json").json()["removed_before"] == 0  # in the note again: known
