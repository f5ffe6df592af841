"""Lessons across episodes: clustering, promotion to lesson notes, refresh, recall, context."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import BuiltVaults, Cli, git

from biocortex_cli.lessons.cluster import (
    SIMILARITY,
    EpisodeLesson,
    LessonMatcher,
    cluster_lessons,
    jaccard,
    lesson_fingerprints,
)
from biocortex_cli.tokens import get_counter

DOUBLETS = "Call doublets on both modalities and combine the calls for Multiome."


def _episode(cli: Cli, ident: str, lesson: str, *, success: bool = True, quality: float = 0.8,
             domain: str = "scRNA-seq", tool: str = "scDblFinder", task: str | None = None) -> None:
    r = cli("episode", "add", "--id", ident, "--task", task or f"Doublet removal in run {ident}",
            "--lesson", lesson, "--domain", domain, "--tool", tool, "--success" if success else "--failure",
            "--quality", str(quality), "--no-suggest")
    assert r.code == 0, r.err


@pytest.fixture
def lessons_vault(vault: Path, cli: Cli, built_vaults: BuiltVaults) -> Path:
    def build() -> None:
        _episode(cli, "ep-a", DOUBLETS, quality=0.9)
        _episode(cli, "ep-b", "Call doublets on both modalities and combine the calls for 10x Multiome.", quality=0.7)
        _episode(cli, "ep-c", "call doublets on both modalities, and combine the calls for multiome", success=False,
                 quality=0.3)
        _episode(cli, "ep-d", "Use scaffold splits, not random splits, for QSAR models.", domain="cheminformatics",
                 tool="RDKit", task="QSAR model for EGFR")

    return built_vaults.get("lessons", vault, build)


def _commit(root: Path, message: str) -> None:
    git(root, "-c", "user.name=Hand", "-c", "user.email=hand@lab.example", "commit", "-qm", message)


def _tokens(text: str) -> frozenset[int]:
    from biocortex_cli.bio.text import tokenize

    return lesson_fingerprints(tokenize(text))


def test_similarity_is_jaccard_of_unigram_and_bigram_fingerprints() -> None:
    a = _tokens("Call doublets on both modalities and combine the calls for Multiome.")
    b = _tokens("Call doublets on both modalities and combine the calls for 10x Multiome.")
    # tokens call doublet modaliti combin call multiom (+ 10x): 5 shared unigrams and 4 shared
    # bigrams over 10 + 12 - 9 = 13 in the union
    assert jaccard(a, b) == pytest.approx(9 / 13)
    assert jaccard(a, _tokens("Run doublet detection per sample before merging.")) < SIMILARITY


def test_prefix_filter_finds_exactly_the_pairs_of_a_brute_force_scan() -> None:
    import random

    rng = random.Random(3)
    words = [f"w{i}" for i in range(12)]
    sets = [frozenset(rng.sample(range(40), rng.randint(1, 9))) for _ in range(150)]
    sets += [frozenset(f"{w}".__hash__() & 0xFF for w in rng.sample(words, 4)) for _ in range(20)]
    matcher = LessonMatcher(sets, 0.5)
    brute = list(range(len(sets)))  # components of the pairs a scan of every pair finds

    def root(i: int) -> int:
        while brute[i] != i:
            i = brute[i]
        return i

    for i in range(len(sets)):
        for j in range(i + 1, len(sets)):
            if jaccard(sets[i], sets[j]) >= 0.5:
                brute[max(root(i), root(j))] = min(root(i), root(j))
    assert [matcher.root(i) for i in range(len(sets))] == [root(i) for i in range(len(sets))]
    # and a query finds exactly the similar sets
    probe = sets[7]
    assert matcher.similar(probe) == [j for j in range(len(sets)) if jaccard(probe, sets[j]) >= 0.5]


def test_clusters_near_identical_lessons_with_support(lessons_vault: Path, cli: Cli) -> None:
    r = cli("lessons", "--json")
    assert r.code == 0, r.err
    data = r.json()
    assert data["lessons"] == 4 and data["total"] == 1
    (cluster,) = data["clusters"]
    assert cluster["episodes"] == ["ep-a", "ep-b", "ep-c"] and cluster["support"] == 3
    assert cluster["variants"] == 3 and cluster["text"] == DOUBLETS  # ties: the shortest phrasing
    assert cluster["success_rate"] == pytest.approx(2 / 3, abs=1e-4)
    assert cluster["mean_quality"] == pytest.approx((0.9 + 0.7 + 0.3) / 3, abs=1e-4)
    assert cluster["utility"] == 0.5 and cluster["archived_support"] == [] and cluster["promoted"] is None
    assert cluster["id"].startswith("c-")
    # the same vault lists the same bytes; --min-support 1 adds the single QSAR lesson, after it
    assert cli("lessons", "--json").out == r.out
    singles = cli("lessons", "--json", "--min-support", "1").json()["clusters"]
    assert [c["support"] for c in singles] == [3, 1]
    text = cli("lessons").out
    head = f"{cluster['id']}  3 episodes · success 67% · quality 0.63 · utility 0.50 · 3 phrasings"
    assert f"{head}\n  {DOUBLETS}\n" in text


def test_domain_and_limit_filter(lessons_vault: Path, cli: Cli) -> None:
    chem = cli("lessons", "--json", "--min-support", "1", "--domain", "cheminformatics").json()
    assert [c["episodes"] for c in chem["clusters"]] == [["ep-d"]]
    r = cli("lessons", "--json", "--min-support", "1", "--limit", "1")
    assert len(r.json()["clusters"]) == 1 and "1 of 2 lessons shown" in r.err
    none = cli("lessons", "--min-support", "5")
    assert none.code == 0 and none.out == "" and "no lesson is stated by 5 or more episodes" in none.err
    assert cli("lessons", "--min-support", "0").code == 2


def test_archived_episodes_count_apart_and_never_crash(lessons_vault: Path, cli: Cli) -> None:
    """Archived episodes (archive/episodes/, indexed with an archived flag) are not support."""
    src = next(lessons_vault.glob("episodes/*/*/ep-c.md"))
    (lessons_vault / "archive" / "episodes").mkdir(parents=True, exist_ok=True)
    shutil.move(src, lessons_vault / "archive" / "episodes" / "ep-c.md")
    git(lessons_vault, "add", "-A")
    _commit(lessons_vault, "archive: move ep-c — test")
    (cluster,) = cli("lessons", "--json").json()["clusters"]
    assert cluster["episodes"] == ["ep-a", "ep-b"] and cluster["archived_support"] == ["ep-c"]
    assert cluster["success_rate"] == 1.0  # the archived failure no longer counts
    assert "(+1 archived)" in cli("lessons").out
    # every episode of a cluster archived: not listed, and promoting it is refused clearly
    for ident in ("ep-a", "ep-b"):
        shutil.move(next(lessons_vault.glob(f"episodes/*/*/{ident}.md")),
                    lessons_vault / "archive" / "episodes" / f"{ident}.md")
    git(lessons_vault, "add", "-A")
    _commit(lessons_vault, "archive: move two — test")
    r = cli("lessons", "--json", "--min-support", "1")
    assert r.code == 0 and [c["episodes"] for c in r.json()["clusters"]] == [["ep-d"]]
    r = cli("lessons", "promote", DOUBLETS)
    assert r.code == 1 and "every episode that states this lesson is archived (3)" in r.err
    assert "Traceback" not in r.err
    assert not list((lessons_vault / "lessons").glob("lesson-*.md"))


def test_promote_writes_a_linked_lesson_note_and_repromote_updates(lessons_vault: Path, cli: Cli) -> None:
    (cluster,) = cli("lessons", "--json").json()["clusters"]
    r = cli("lessons", "promote", cluster["id"])
    assert r.code == 0, r.err
    ident = r.out.strip()
    assert ident == "lesson-call-doublets-both-modalities-combine-calls"
    rel = f"lessons/{ident}.md"
    text = (lessons_vault / rel).read_text()
    assert text.startswith(f"---\nid: {ident}\ntype: lesson\ncreated: ")
    for link in ("[[ep-a]]", "[[ep-b]]", "[[ep-c]]"):
        assert link in text  # Obsidian backlinks on each episode show the evidence
    assert "supporting:\n- ep-a\n- ep-b\n- ep-c\n" in text and "domains:\n- scRNA-seq\n" in text
    assert git(lessons_vault, "log", "-1", "--format=%s").strip() == (
        f"lesson: promote {ident} — {DOUBLETS}")
    assert cli("check").code == 0
    listed = cli("lessons", "--json").json()["clusters"][0]
    assert listed["promoted"] == ident and listed["new_support"] == []
    # a later episode repeats the lesson: listed as new support, then refresh records it
    _episode(cli, "ep-e", "Call doublets on both modalities and combine their calls for Multiome data.")
    listed = cli("lessons", "--json").json()["clusters"][0]
    assert listed["new_support"] == ["ep-e"]
    assert "1 new episode (run `biocortex lessons refresh`)" in cli("lessons").out
    r = cli("lessons", "refresh", "--json")
    assert r.code == 0, r.err
    assert r.json() == [{"id": ident, "path": rel, "added": ["ep-e"]}]
    assert git(lessons_vault, "log", "-1", "--format=%s").strip() == (
        f"lesson: refresh {ident} — 1 new supporting episode")
    text = (lessons_vault / rel).read_text()
    assert "- ep-e\n" in text and "[[ep-e]]" in text
    assert cli("lessons", "refresh").err.strip() == "biocortex: every promoted lesson is up to date"
    # re-promoting (by its text) updates the same note: no duplicate, new phrasing kept
    r = cli("lessons", "promote", "call doublets on both modalities, combine the calls for multiome data", "--text",
            "For Multiome, call doublets on RNA and ATAC and combine the calls.", "--json")
    assert r.code == 0, r.err
    data = r.json()
    assert data["created"] is False and data["lesson"]["id"] == ident
    assert data["lesson"]["lesson"] == "For Multiome, call doublets on RNA and ATAC and combine the calls."
    assert len(list((lessons_vault / "lessons").glob("lesson-*.md"))) == 1
    assert cli("check").code == 0


def test_promote_unknown_text_and_bad_id(lessons_vault: Path, cli: Cli) -> None:
    r = cli("lessons", "promote", "Always calibrate the mass spectrometer", "--json")
    assert r.code == 1 and r.err_json()["error"]["message"].startswith("no lesson cluster")
    head = git(lessons_vault, "rev-parse", "HEAD")
    for bad in ("bad id", "bad id!"):  # an invalid option value is a usage error
        r = cli("lessons", "promote", DOUBLETS, "--id", bad)
        assert r.code == 2 and f"--id {bad!r} is not a valid id" in r.err and "letters, digits" in r.err
    assert git(lessons_vault, "rev-parse", "HEAD") == head
    assert cli("lessons", "promote", DOUBLETS, "--text", " ").code == 2


def test_summarizer_phrases_the_lesson_and_falls_back(lessons_vault: Path, cli: Cli, tmp_path: Path) -> None:
    script = tmp_path / "summ.py"
    script.write_text("import sys\nlines = sys.stdin.read().splitlines()\n"
                      "print('Combine per-modality doublet calls (%d phrasings).' % (len(lines) - 1))\n")
    import sys

    r = cli("lessons", "promote", DOUBLETS, "--summarizer", f"{sys.executable} {script}", "--json")
    assert r.code == 0, r.err
    assert r.json()["lesson"]["lesson"] == "Combine per-modality doublet calls (3 phrasings)."
    shutil.rmtree(lessons_vault / "lessons")
    (lessons_vault / "lessons").mkdir()
    r = cli("lessons", "promote", DOUBLETS, "--summarizer", "false", "--id", "doublets", "--json")
    assert r.code == 0, r.err
    assert "summarizer 'false' exited with status 1; using the most frequent phrasing" in r.err
    assert r.json()["lesson"]["lesson"] == DOUBLETS and r.json()["lesson"]["id"] == "doublets"


def test_check_validates_lesson_notes(vault: Path, cli: Cli) -> None:
    (vault / "lessons" / "bad.md").write_text(
        "---\nid: bad\ntype: lesson\ncreated: 2026-01-01T00:00:00Z\nauthor: A\n"
        "supporting: [ep-a, 'not an id!']\nsuccess_rate: 2\n---\n# x\n")
    r = cli("check", "--json")
    assert r.code == 1
    messages = {(p["line"], p["message"]) for p in r.json()["problems"]}
    assert (1, "lesson is required text") in messages
    assert (6, "supporting id 'not an id!' is not a valid episode id") in messages
    assert (7, "success_rate must be a number from 0 to 1, not 2") in messages


def test_recall_shows_promoted_lessons_first_within_the_budget(lessons_vault: Path, cli: Cli) -> None:
    assert cli("recall", "doublets multiome", "--json").json()["lessons"] == []
    assert cli("lessons", "promote", DOUBLETS).code == 0
    r = cli("recall", "doublets multiome", "--json")
    assert r.code == 0, r.err
    data = r.json()
    assert [x["id"] for x in data["lessons"]] == ["lesson-call-doublets-both-modalities-combine-calls"]
    assert data["lessons"][0]["support"] == 3
    context = data["context"]
    assert context.startswith("## Lessons that apply\n\n- Call doublets on both modalities and combine the calls "
                              "for Multiome. (3 episodes, 67% succeeded · lesson-call-doublets-")
    assert context.index("## Lessons that apply") < context.index("## Relevant past analyses")
    assert get_counter("cl100k_base").count(context) == data["tokens"] <= data["budget"]
    assert cli("recall", "doublets multiome").out == context
    # unrelated question: no lesson; the --domain filter applies to lessons too
    assert cli("recall", "QSAR scaffold splits", "--json").json()["lessons"] == []
    assert cli("recall", "doublets multiome", "--domain", "cheminformatics", "--json").json()["lessons"] == []
    for budget in range(1, 120, 7):
        r = cli("recall", "doublets multiome", "--json", "--budget", str(budget))
        if r.code == 2:  # nothing fits (issue 17: an error, as in context)
            assert r.err_json()["error"]["code"] == "budget_too_small"
            continue
        small = r.json()
        assert get_counter("cl100k_base").count(small["context"]) == small["tokens"] <= budget


def test_context_has_a_lessons_part(lessons_vault: Path, cli: Cli) -> None:
    assert cli("lessons", "promote", DOUBLETS).code == 0
    r = cli("context", "doublets multiome", "--json", "--budget", "1500")
    assert r.code == 0, r.err
    data = r.json()
    names = [p["name"] for p in data["parts"]]
    assert names[:2] == ["lessons", "episodes"]
    lessons = data["parts"][0]
    assert lessons["heading"] == "## Lessons that apply" and len(lessons["lessons"]) == 1
    assert get_counter("cl100k_base").count(data["context"]) == data["tokens"] <= 1500
    assert sum(p["tokens"] for p in data["parts"]) >= data["tokens"] - len(data["parts"])


def test_lesson_index_follows_edits_and_removal(lessons_vault: Path, cli: Cli) -> None:
    assert cli("lessons", "promote", DOUBLETS, "--id", "doublets").code == 0
    assert len(cli("recall", "doublets multiome", "--json").json()["lessons"]) == 1
    note = lessons_vault / "lessons" / "doublets.md"
    note.write_text(note.read_text().replace("lesson: Call doublets", "lesson: Always call doublets"))
    assert cli("recall", "doublets multiome", "--json").json()["lessons"][0]["lesson"].startswith("Always call")
    note.unlink()
    assert cli("recall", "doublets multiome", "--json").json()["lessons"] == []


def test_clustering_is_deterministic_and_order_free() -> None:
    items = [EpisodeLesson(f"e{i}", text, True, 0.5, False) for i, text in enumerate(
        ["Filter cells by mitochondrial fraction first.", "Filter cells by mitochondrial fraction first!",
         "Check the library strandedness.", "Check library strandedness before counting.", ""])]
    a = cluster_lessons(items)
    b = cluster_lessons(list(reversed(items)))
    assert [c.as_json() for c in a.clusters] == [c.as_json() for c in b.clusters]
    assert a.clusters[0].support == ("e0", "e1")
    assert json.dumps([c.as_json() for c in a.clusters])  # JSON-able


def test_the_obsidian_lesson_template_filled_in_passes_check(lessons_vault: Path, cli: Cli) -> None:
    template = (lessons_vault / "templates" / "lesson.md").read_text()
    note = (template.replace("{{title}}", "hand-lesson")
            .replace("{{date:YYYY-MM-DDTHH:mm:ssZ}}", "2026-11-01T10:00:00Z")
            .replace('author: ""', "author: Hand <hand@lab.example>")
            .replace('lesson: ""', "lesson: Call doublets on both modalities.")
            .replace("supporting: []", "supporting: [ep-a]"))
    (lessons_vault / "lessons" / "hand-lesson.md").write_text(note + "- [[ep-a]]\n")
    r = cli("check")
    assert r.code == 0, r.out + r.err
    # a hand-written lesson note is recalled like a promoted one
    assert [x["id"] for x in cli("recall", "doublets modalities", "--json").json()["lessons"]] == ["hand-lesson"]


def test_cluster_utility_pools_the_feedback_on_its_episodes(lessons_vault: Path, cli: Cli) -> None:
    for n in range(3):
        r = cli("feedback", "r0123456789", "--outcome", "success", "--helpful", "ep-a", "--note", f"run {n}")
        assert r.code == 0, r.err
    helped = cli("lessons", "--json").json()["clusters"][0]["utility"]
    assert cli("feedback", "r0123456789", "--outcome", "failure",
               "--unhelpful", "ep-b", "--unhelpful", "ep-c").code == 0
    for n in range(4):
        assert cli("feedback", "r0123456789", "--outcome", "failure", "--unhelpful", "ep-b",
                   "--note", f"run {n}").code == 0
    hurt = cli("lessons", "--json").json()["clusters"][0]["utility"]
    assert helped > 0.6 and hurt < helped


def test_cluster_utility_counts_votes_on_its_episodes_own_subject(lessons_vault: Path, cli: Cli) -> None:
    """Learning trial: a vote *unhelpful* on a question an episode was never about lowered its
    lesson's utility as much as one on its own subject (every record counted 1 without a question)."""
    def utility() -> float:
        clusters = cli("lessons", "--json").json()["clusters"]
        return next(c["utility"] for c in clusters if "ep-b" in c["episodes"])

    off_topic = cli("recall", "QSAR model for EGFR", "--min-relevance", "0", "--top-k", "10", "--json").json()
    for n in range(4):
        assert cli("feedback", off_topic["recall_id"], "--outcome", "failure", "--unhelpful", "ep-b",
                   "--note", f"run {n}").code == 0
    assert utility() == 0.5
    own = cli("recall", "doublet removal in run ep-b", "--json").json()
    for n in range(4):
        assert cli("feedback", own["recall_id"], "--outcome", "failure", "--unhelpful", "ep-b",
                   "--note", f"run {n}").code == 0
    assert utility() < 0.4


def test_promote_again_with_nothing_new_is_up_to_date(lessons_vault: Path, cli: Cli) -> None:
    (cluster,) = cli("lessons", "--json").json()["clusters"]
    first = cli("lessons", "promote", cluster["id"])
    assert first.code == 0, first.err
    head = git(lessons_vault, "rev-parse", "HEAD")
    again = cli("lessons", "promote", cluster["id"])
    assert again.code == 0, again.err
    assert again.out == first.out  # the id, as usual
    assert f"lessons/{first.out.strip()}.md is up to date" in again.err
    assert git(lessons_vault, "rev-parse", "HEAD") == head and not git(lessons_vault, "status", "--porcelain")
    data = cli("lessons", "promote", cluster["id"], "--json")
    assert data.code == 0 and data.json()["created"] is False and data.json()["added"] == []


@pytest.mark.parametrize(("edit", "message"), [
    ("lesson: 12", "lesson is required text"),
    ("supporting: 5", "supporting must be a list of strings"),
])
def test_a_lesson_note_broken_by_hand_leaves_recall_and_blocks_promote(
        lessons_vault: Path, cli: Cli, edit: str, message: str) -> None:
    assert cli("lessons", "promote", DOUBLETS, "--id", "doublets").code == 0
    assert len(cli("recall", "doublets multiome", "--json").json()["lessons"]) == 1
    note = lessons_vault / "lessons" / "doublets.md"
    good = note.read_text()
    lines = good.split("\n")
    key = edit.split(":")[0]
    start = next(i for i, x in enumerate(lines) if x.startswith(f"{key}:"))
    end = next(i for i in range(start + 1, len(lines)) if not lines[i].startswith("- "))
    note.write_text("\n".join([*lines[:start], edit, *lines[end:]]))
    line = start + 1  # the line the problem names
    first = cli("recall", "doublets multiome", "--json")
    assert first.code == 0 and first.json()["lessons"] == []  # the old text is gone from recall
    assert f"lessons/doublets.md:{line}: {message}" in first.err
    second = cli("recall", "doublets multiome", "--json")
    assert second.json()["lessons"] == [] and "lessons/doublets.md" not in second.err  # said once
    listed = cli("lessons")
    assert listed.code == 0 and f"lessons/doublets.md:{line}: {message}" in listed.err
    head = git(lessons_vault, "rev-parse", "HEAD")
    r = cli("lessons", "promote", DOUBLETS)
    assert r.code == 1 and f"lessons/doublets.md:{line}: lesson note cannot be read: {message}" in r.err
    assert "duplicate" in r.err and git(lessons_vault, "rev-parse", "HEAD") == head
    assert sorted(p.name for p in (lessons_vault / "lessons").glob("*.md") if p.name != "README.md") == ["doublets.md"]
    check = cli("check")
    assert check.code == 1 and f"lessons/doublets.md:{line}: {message}" in check.out + check.err
    index = cli("index", "--json")  # index lists it too, every time, as it lists broken episodes
    assert {"path": "lessons/doublets.md", "line": line, "message": message} in index.json()["problems"]
    assert "lessons/doublets.md" in index.err
    note.write_text(good)  # fixed: back in recall
    assert len(cli("recall", "doublets multiome", "--json").json()["lessons"]) == 1


def test_a_printed_lesson_is_injected_and_gets_the_outcomes_credit(lessons_vault: Path, cli: Cli) -> None:
    """Learning trial: the recall log listed the episodes a recall printed and not its promoted
    lessons, so a lesson got no credit from a task that succeeded with it unless named."""
    promoted = cli("lessons", "promote", DOUBLETS, "--json")
    assert promoted.code == 0, promoted.err
    r = cli("recall", "call doublets on both modalities for multiome", "--json").json()
    lesson = [x["id"] for x in r["lessons"]]
    assert lesson
    recorded = cli("feedback", r["recall_id"], "--outcome", "success", "--json").json()
    assert recorded["injected"] == [*(h["id"] for h in r["results"]), *lesson]
    cluster = next(c for c in cli("lessons", "--json").json()["clusters"] if c["promoted"] == lesson[0])
    assert cluster["utility"] > 0.5


def test_lessons_alone_are_printed_under_a_header_with_the_recall_id(lessons_vault: Path, cli: Cli) -> None:
    """Found by the agent trial: an answer of promoted lessons and no past analysis (the episodes
    archived, or filtered out) printed no header, so an agent reading the text had no recall id to
    give `feedback --helpful LESSON`; only the JSON had it."""
    assert cli("lessons", "promote", DOUBLETS).code == 0
    assert cli("forget", "--older-than", "0d").code == 0  # every episode archived; the lesson stays
    count = get_counter("cl100k_base").count
    r = cli("recall", "doublets multiome", "--json")
    assert r.code == 0, r.err
    data = r.json()
    assert data["results"] == [] and [x["id"] for x in data["lessons"]] == [
        "lesson-call-doublets-both-modalities-combine-calls"]
    head = data["vault_commit"][:7]
    assert data["context"].startswith(f"## Recall {data['recall_id']} · {data['tokens']}/{data['budget']} tokens"
                                      f" · vault {head}\n\n## Lessons that apply\n\n- Call doublets")
    assert count(data["context"]) == data["tokens"] <= data["budget"]
    assert cli("recall", "doublets multiome").out == data["context"]
    helpful = cli("feedback", data["recall_id"], "--outcome", "success", "--helpful", data["lessons"][0]["id"],
                  "--json")
    assert helpful.code == 0 and helpful.json()["recall_known"] is True
    for budget in range(1, 90, 3):  # the header only where the budget holds it; never over
        small = cli("recall", "doublets multiome", "--json", "--budget", str(budget))
        if small.code == 0:
            got = small.json()
            assert count(got["context"]) == got["tokens"] <= budget
            assert got["context"].startswith("## Recall ") or not got["context"].startswith("## Relevant")
    # facts alone (nothing to vote on) keep their output as it was: no header
    assert cli("fact", "add", "TP53", "regulates", "MDM2", "--source", "PMID:8319905").code == 0
    facts = cli("recall", "TP53 MDM2", "--json").json()
    assert facts["lessons"] == [] and not facts["context"].startswith("## Recall")
