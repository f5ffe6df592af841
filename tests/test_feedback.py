"""Recall ids, the recall log, feedback files, utility and recency in ranking (docs/learning.md)."""

from __future__ import annotations

import json
import random
import re
import subprocess
from pathlib import Path

import pytest
from conftest import BuiltVaults, Cli, git

from biocortex_cli.index.feedback import EXPLORE, utility_value
from biocortex_cli.tokens import get_counter

QUERY = "doublet detection scrublet pbmc"


def add(cli: Cli, ident: str, task: str, *extra: str) -> None:
    r = cli("episode", "add", "--id", ident, "--task", task, "--domain", "scRNA-seq", *extra)
    assert r.code == 0, r.err


def recall(cli: Cli, *args: str) -> dict:  # type: ignore[type-arg]
    r = cli("recall", *args, "--json")
    assert r.code == 0, r.err
    return r.json()  # type: ignore[no-any-return]


BACKGROUND = ("Cell type annotation of lung tissue", "Bulk RNA-seq differential expression in liver",
              "ATAC-seq peak calling in zebrafish", "Variant calling on exomes with GATK",
              "Proteomics quantification with MaxQuant", "Spatial transcriptomics of mouse brain")


@pytest.fixture
def ranked(vault: Path, cli: Cli, built_vaults: BuiltVaults) -> Path:
    """One strongly relevant episode and three equally relevant ones (tied, ordered by id), among
    unrelated ones (so the query's words are rare enough to count)."""
    episodes = [{"id": "strong", "task": "Doublet detection with scrublet on PBMC", "tools": ["scrublet"]}]
    episodes += [{"id": i, "task": "Doublet detection on PBMC before clustering"} for i in ("m-a", "m-b", "m-c")]
    episodes += [{"task": task} for task in BACKGROUND]

    def build() -> None:
        r = cli("episode", "import", "-", stdin="".join(json.dumps(e) + "\n" for e in episodes))
        assert r.code == 0, r.err

    return built_vaults.get("feedback-ranked", vault, build)


def log_lines(vault: Path) -> list[dict]:  # type: ignore[type-arg]
    (path,) = (vault / ".biocortex/logs").glob("recalls-*.jsonl")  # one file a month
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_recall_id_is_derived_from_commit_query_and_options(ranked: Path, cli: Cli) -> None:
    first, second = cli("recall", QUERY), cli("recall", QUERY)
    assert first.code == 0 and first.out == second.out  # byte-identical
    data = recall(cli, QUERY)
    rid = data["recall_id"]
    assert re.fullmatch(r"r[0-9]{12}", rid)
    assert first.out.split("\n", 1)[0].endswith(f"· recall {rid}")
    assert recall(cli, "  Doublet   detection scrublet PBMC ")["recall_id"] == rid  # normalised query
    assert recall(cli, QUERY, "--top-k", "2")["recall_id"] != rid
    assert recall(cli, QUERY, "--budget", "1999")["recall_id"] != rid
    add(cli, "later", "Cell type annotation of PBMC")
    assert recall(cli, QUERY)["recall_id"] != rid  # another commit
    assert get_counter("cl100k_base").count(data["context"]) == data["tokens"]


def test_recall_log_keeps_what_was_injected(ranked: Path, cli: Cli) -> None:
    data = recall(cli, QUERY)
    entry = log_lines(ranked)[-1]
    assert entry["recall_id"] == data["recall_id"] and entry["query"] == QUERY
    assert entry["injected"] == [r["id"] for r in data["results"]] and entry["vault_commit"] == data["vault_commit"]
    assert "logs/" in (ranked / ".gitignore").read_text() and not git(ranked, "status", "--porcelain")
    r = cli("context", QUERY, "--budget", "900", "--json")
    assert r.code == 0, r.err
    ctx = r.json()
    assert re.fullmatch(r"r[0-9]{12}", ctx["recall_id"]) and f"recall {ctx['recall_id']}" in ctx["context"]
    assert log_lines(ranked)[-1]["recall_id"] == ctx["recall_id"]
    assert len(log_lines(ranked)) == 2  # context logs its final recall once


@pytest.mark.parametrize("encoding", ["cl100k_base", "o200k_base"])
def test_every_recall_id_costs_the_same_tokens_in_the_header(encoding: str) -> None:
    """The header's count is taken at index time with REFERENCE_ID: every id must cost the same."""
    from biocortex_cli.render.blocks import HEADER, REFERENCE_ID

    counter = get_counter(encoding)
    rng = random.Random(6)
    ids = [f"r{rng.randrange(10**12):012d}" for _ in range(2000)] + ["r000000000000", "r999999999999"]

    def header(rid: str) -> str:
        return HEADER.format(shown=3, matched=12, tokens=845, budget=2000, head="3f2a9c1", recall_id=rid)

    reference = counter.count(header(REFERENCE_ID))
    assert counter.count(" " + REFERENCE_ID) == 5
    assert all(counter.count(" " + rid) == 5 and counter.count(header(rid)) == reference for rid in ids)


def test_feedback_is_recorded_once_in_a_day_file(ranked: Path, cli: Cli) -> None:
    data = recall(cli, QUERY)
    rid = data["recall_id"]
    args = ("--author", "Ada Lovelace <ada@lab.org>", "feedback", rid, "--outcome", "success",
            "--helpful", "m-c", "--unhelpful", "m-a", "--note", "m-c had the right threshold")
    r = cli(*args, "--json")
    assert r.code == 0, r.err
    rec = r.json()
    assert re.fullmatch(r"feedback/\d{4}/\d{2}/\d{4}-\d{2}-\d{2}\.ada-lab\.org\.jsonl", rec["path"])
    assert rec["recorded"] is True and rec["injected"] == [h["id"] for h in data["results"]]
    assert rec["query"] == QUERY and rec["author"] == "Ada Lovelace <ada@lab.org>"
    line = json.loads((ranked / rec["path"]).read_text(encoding="utf-8"))
    assert list(line) == ["recall_id", "outcome", "helpful", "unhelpful", "injected", "query", "note",
                          "author", "created"]
    assert git(ranked, "log", "-1", "--format=%s") == f"feedback: record {rid} — success, 1 helpful, 1 unhelpful\n"
    commits = git(ranked, "rev-list", "--count", "HEAD")
    again = cli(*args)
    assert again.code == 0 and "already recorded" in again.err
    assert git(ranked, "rev-list", "--count", "HEAD") == commits
    assert len((ranked / rec["path"]).read_text().splitlines()) == 1
    other = cli(*args[:-1], "a second look")  # another note is another record, same file
    assert other.code == 0 and len((ranked / rec["path"]).read_text().splitlines()) == 2


def test_bad_feedback_is_refused(ranked: Path, cli: Cli) -> None:
    rid = recall(cli, QUERY)["recall_id"]
    unknown = cli("feedback", "r0123456789", "--outcome", "success", "--json")
    assert unknown.code == 1 and "no recall r0123456789" in unknown.err_json()["error"]["message"]
    assert unknown.err_json()["error"]["hint"]
    missing = cli("feedback", rid, "--outcome", "success", "--helpful", "no-such-episode")
    assert missing.code == 1 and "no-such-episode" in missing.err
    assert cli("feedback", "nonsense", "--outcome", "success").code == 2
    assert cli("feedback", rid, "--outcome", "maybe").code == 2
    assert cli("feedback", rid, "--outcome", "success", "--helpful", "m-a", "--unhelpful", "m-a").code == 2
    assert not list((ranked / "feedback").glob("*/*/*.jsonl"))
    # an id this clone never recalled still counts when the memories are named and exist
    named = cli("feedback", "r0123456789", "--outcome", "failure", "--unhelpful", "m-b", "--json")
    assert named.code == 0 and "not in this clone's recall log" in named.err
    assert named.json()["injected"] == [] and named.json()["unhelpful"] == ["m-b"]


def test_utility_model() -> None:
    assert utility_value(0, 0) == 0.5
    one, three = utility_value(1, 0), utility_value(3, 0)
    assert 0.5 < one < three < 1 and one < 0.6  # smoothed: one vote does not swing it
    assert utility_value(0, 3) < utility_value(0, 1) < 0.5
    assert utility_value(5, 5) == pytest.approx(0.5 - EXPLORE * (1 - 1 / 11 ** 0.5))  # known average < unknown


def test_helpful_rises_unhelpful_sinks_strong_stays_first(ranked: Path, cli: Cli) -> None:
    before = recall(cli, QUERY, "--explain")
    assert [r["id"] for r in before["results"]] == ["strong", "m-a", "m-b", "m-c"]
    assert "utility" not in before["results"][0]["signals"]  # no feedback in the vault yet
    rid = before["recall_id"]
    for n in range(3):
        r = cli("feedback", rid, "--outcome", "success", "--helpful", "m-c", "--unhelpful", "m-a", "--note", f"run {n}")
        assert r.code == 0, r.err
    after = recall(cli, QUERY, "--explain")
    assert [r["id"] for r in after["results"]] == ["strong", "m-c", "m-b", "m-a"]
    scores = {r["id"]: r["score"] for r in after["results"]}
    base = {r["id"]: r["score"] for r in before["results"]}
    assert base["m-a"] == base["m-b"] == base["m-c"] and scores["m-c"] - base["m-c"] <= 0.1  # at most weight / 2
    signals = {r["id"]: r["signals"] for r in after["results"]}
    assert signals["strong"]["utility"] > 0.5  # injected into successful runs: a small credit
    assert signals["m-c"]["utility"] > signals["m-b"]["utility"] > signals["m-a"]["utility"]
    assert "utility" in cli("recall", QUERY, "--explain").err


def test_malformed_feedback_line_is_reported_and_the_others_count(ranked: Path, cli: Cli) -> None:
    rid = recall(cli, QUERY)["recall_id"]
    rec = cli("feedback", rid, "--outcome", "success", "--helpful", "m-c", "--json").json()
    path = ranked / rec["path"]
    good = path.read_text(encoding="utf-8")
    path.write_text("{not json\n" + good + '{"recall_id": "r1", "outcome": "meh"}\n', encoding="utf-8")
    git(ranked, "-c", "user.name=T", "-c", "user.email=t@lab.org", "commit", "-qam", "hand edit")
    r = cli("recall", QUERY, "--json")
    assert r.code == 0
    assert f"{rec['path']}:1:" in r.err
    utility = {h["id"]: h["signals"]["utility"] for h in r.json()["results"]}
    assert utility["m-c"] > utility["m-b"]  # the good line in the middle still counts
    index = cli("index", "--json").json()
    assert [(p["path"], p["line"]) for p in index["problems"]] == [(rec["path"], 1), (rec["path"], 3)]
    assert "outcome" in index["problems"][1]["message"]
    check = cli("check")
    assert check.code == 1 and f"{rec['path']}:1: not a JSON object" in check.out + check.err


def _worked_out(terms: list[str]) -> float:
    """The rank score from --explain's rank terms, computed as they say."""
    head = re.fullmatch(r"\((.*)\) / ([0-9.]+) = [0-9.]+", terms[0])
    assert head, terms
    score = sum(float(w) * float(v) for w, v in re.findall(r"([0-9.]+)·\S+ ([0-9.]+)", head[1])) / float(head[2])
    for term in terms[1:]:
        if found := re.fullmatch(r"\+ ([0-9.]+)·\(utility ([0-9.]+) − 0\.5\)", term):
            score += float(found[1]) * (float(found[2]) - 0.5)
        elif found := re.fullmatch(r"× recency ([0-9.]+)", term):
            score *= float(found[1])
    return score


def test_explain_shows_how_the_rank_is_computed(ranked: Path, cli: Cli) -> None:
    """Learning trial: --explain printed `score 1.00 (rank 1.23)` beside `text 1.00` (the signals
    are clipped, the rank is not), so the rank could not be worked out from what it printed."""
    rid = recall(cli, QUERY)["recall_id"]
    assert cli("feedback", rid, "--outcome", "success", "--helpful", "m-c", "--unhelpful", "m-a").code == 0
    config = ranked / ".biocortex/config.yaml"
    config.write_text(config.read_text().replace("half_life_days: 0.0", "half_life_days: 30"))
    for question in (QUERY, "what went wrong with doublet detection"):  # the second weighs the outcome
        data = recall(cli, question, "--explain")
        assert data["results"]
        for hit in data["results"]:
            terms = hit["matched"]["rank"]
            assert terms[0].startswith("(") and abs(_worked_out(terms) - hit["rank_score"]) < 0.02, (hit, terms)
            if "utility" in hit["signals"]:
                assert any(t.startswith("+ 0.2·(utility") for t in terms)
    text = cli("recall", QUERY, "--explain").err
    assert "explain:      rank: (" in text and "text 1.00" in text


def test_recency_decay_is_relative_to_the_newest_episode(vault: Path, cli: Cli) -> None:
    add(cli, "old", "Doublet detection on PBMC", "--created", "2024-01-01T00:00:00Z")
    add(cli, "new", "Doublet detection on PBMC", "--created", "2024-03-01T00:00:00Z")
    assert [r["id"] for r in recall(cli, QUERY)["results"]] == ["new", "old"]  # tie: by id
    config = vault / ".biocortex/config.yaml"
    config.write_text(config.read_text().replace("half_life_days: 0.0", "half_life_days: 30"))
    data = recall(cli, QUERY)
    signals = {r["id"]: r["signals"] for r in data["results"]}
    assert signals["new"]["recency"] == 1.0
    assert signals["old"]["recency"] == pytest.approx(2 ** (-60 / 30), abs=1e-4)
    assert data["results"][1]["score"] == pytest.approx(data["results"][0]["score"] * 0.25, abs=1e-3)


def test_feedback_from_two_clones_merges_without_conflict(vault: Path, cli: Cli, tmp_path: Path) -> None:
    add(cli, "m-a", "Doublet detection on PBMC")
    rid = recall(cli, QUERY)["recall_id"]
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(vault), str(clone)], check=True)
    for root, note in ((vault, "from the lab"), (clone, "from the laptop")):
        r = cli("--vault", str(root), "--author", "Ada <ada@lab.org>", "feedback", rid, "--outcome", "success",
                "--helpful", "m-a", "--note", note)
        assert r.code == 0, r.err
    subprocess.run(["git", "-C", str(vault), "-c", "user.name=A", "-c", "user.email=a@x", "pull", "-q",
                    "--no-rebase", "--no-edit", str(clone)], check=True, capture_output=True)
    files = list((vault / "feedback").glob("*/*/*.jsonl"))
    assert len(files) == 1
    notes = sorted(json.loads(line)["note"] for line in files[0].read_text().splitlines())
    assert notes == ["from the lab", "from the laptop"]
    assert "<<<<<<<" not in files[0].read_text() and cli("check").code == 0


def test_a_line_that_is_not_utf8_is_one_problem_and_the_others_count(ranked: Path, cli: Cli) -> None:
    rid = recall(cli, QUERY)["recall_id"]
    rec = cli("feedback", rid, "--outcome", "success", "--helpful", "m-c", "--json").json()
    path = ranked / rec["path"]
    good = path.read_bytes()
    bad = good.replace(b'"m-c"', b'"m-b"').replace(b"success", b"failure").replace(b'"note": ""', b'"note": "caf\xe9"')
    path.write_bytes(bad + good)  # the bad line first: line 2 still counts
    git(ranked, "-c", "user.name=T", "-c", "user.email=t@lab.org", "commit", "-qam", "hand edit")
    index = cli("index", "--json")
    assert index.code == 0, index.err
    assert [(p["path"], p["line"]) for p in index.json()["problems"]] == [(rec["path"], 1)]
    assert "not UTF-8" in index.json()["problems"][0]["message"]
    utility = {h["id"]: h["signals"]["utility"] for h in recall(cli, QUERY, "--explain")["results"]}
    assert utility["m-c"] > utility["m-b"] == utility["m-a"]  # the good line counts, the bad one (m-b helpful) not
    check = cli("check")
    assert check.code == 1 and f"{rec['path']}:1: not UTF-8" in check.out + check.err
    # the next feedback rewrites the day file: the hand-typed byte is kept, not turned into U+FFFD
    rid = recall(cli, QUERY)["recall_id"]
    assert cli("feedback", rid, "--outcome", "failure", "--unhelpful", "m-a").code == 0
    after = path.read_bytes()
    assert after.startswith(bad + good) and b"caf\xe9" in after and "\ufffd".encode() not in after
    assert len(after.splitlines()) == 3


def test_index_check_sees_feedback_edited_by_hand(ranked: Path, cli: Cli) -> None:
    rid = recall(cli, QUERY)["recall_id"]
    rec = cli("feedback", rid, "--outcome", "success", "--helpful", "m-c", "--json").json()
    assert cli("index").code == 0
    assert cli("index", "--check").code == 0
    line = json.dumps({"recall_id": rid, "outcome": "failure", "unhelpful": ["m-c"], "note": "by hand"})
    with (ranked / rec["path"]).open("a", encoding="utf-8") as f:  # appended with >>, not committed
        f.write(line + "\n")
    stale = cli("index", "--check")
    assert stale.code == 1 and "feedback" in stale.err and "--full" in stale.err
    before = {h["id"]: h["signals"]["utility"] for h in recall(cli, QUERY, "--explain")["results"]}
    assert cli("index", "--full").code == 0
    assert cli("index", "--check").code == 0
    after = {h["id"]: h["signals"]["utility"] for h in recall(cli, QUERY, "--explain")["results"]}
    assert after["m-c"] < before["m-c"]  # the hand-written vote counts after --full


def test_feedback_finds_a_recall_in_the_old_single_log(ranked: Path, cli: Cli) -> None:
    data = recall(cli, QUERY)
    logs = ranked / ".biocortex/logs"
    (monthly,) = logs.glob("recalls-*.jsonl")
    monthly.rename(logs / "recalls.jsonl")  # as versions before the monthly files wrote it
    r = cli("feedback", data["recall_id"], "--outcome", "success", "--json")
    assert r.code == 0, r.err
    assert r.json()["injected"] == [h["id"] for h in data["results"]] and r.json()["query"] == QUERY


ORGANOID_Q = "preprocess the new day-25 organoid single-cell data: filter low-quality cells and multiplets"
VARIANT_Q = "germline variants in exomes with GATK"


@pytest.fixture
def variants(vault: Path, cli: Cli) -> Path:
    """The best variant recipe and its own failed attempt, nearly tied for a variant question;
    an organoid episode; unrelated ones."""
    task = "Call germline variants in 40 exomes with GATK"
    episodes = [
        {"id": "variant-recipe", "task": task, "plan": "VQSR with HapMap and Omni truth sets.",
         "result": "Ti/Tv 2.9 on the cohort data; Mendelian errors down 80%.", "success": True, "quality": 0.9},
        {"id": "variant-attempt", "task": task, "plan": "Hard filters on QD, FS and MQ.",
         "result": "Ti/Tv 2.4 on the cohort data; Mendelian errors stayed high.", "success": False, "quality": 0.4},
        {"id": "organoid-qc", "task": "QC of day-25 kidney organoid scRNA-seq", "domains": ["scRNA-seq"],
         "plan": "Per-sample thresholds on genes and mitochondrial reads.", "result": "Kept 91% of cells."},
    ]
    for e in episodes[:2]:
        e.update(domains=["variant calling"], tools=["GATK"])
    episodes += [{"task": t} for t in (*BACKGROUND, "Somatic variant calling in tumour-normal pairs with Mutect2")]
    r = cli("episode", "import", "-", stdin="".join(json.dumps(e) + "\n" for e in episodes))
    assert r.code == 0, r.err
    return vault


def test_a_vote_counts_for_questions_like_its_own(variants: Path, cli: Cli) -> None:
    """One "unhelpful" vote on an off-topic hit used to lower that episode for every later
    question: the best variant recipe fell below its own failed attempt."""
    before = recall(cli, VARIANT_Q)
    assert [h["id"] for h in before["results"][:2]] == ["variant-recipe", "variant-attempt"]
    off_topic = recall(cli, ORGANOID_Q)
    r = cli("feedback", off_topic["recall_id"], "--outcome", "failure", "--unhelpful", "variant-recipe")
    assert r.code == 0, r.err
    after = recall(cli, VARIANT_Q)  # no word in common with the organoid question
    assert [h["id"] for h in after["results"][:2]] == ["variant-recipe", "variant-attempt"]
    assert after["results"][0]["signals"]["utility"] == 0.5
    # the vote counts in full for the question it was given on ...
    same = {h["id"]: h["signals"] for h in recall(cli, ORGANOID_Q, "--min-relevance", "0", "--top-k", "20")["results"]}
    assert same["variant-recipe"]["utility"] == round(utility_value(0, 1), 4)
    # ... in part for a question that shares some of its words
    partly = {h["id"]: h["signals"] for h in recall(cli, "filter germline exome variants in organoid data",
                                                         "--min-relevance", "0")["results"]}
    assert utility_value(0, 1) < partly["variant-recipe"]["utility"] < 0.5
    # the injection credit of the failed organoid task stays weak, and only for that kind of question
    assert utility_value(0, 1) < same["organoid-qc"]["utility"] < 0.5
    assert cli("recall", VARIANT_Q).out == cli("recall", VARIANT_Q).out  # reproducible


def test_without_a_question_a_vote_counts_on_the_memorys_own_subject(variants: Path, cli: Cli) -> None:
    """forget --utility-below and biocortex lessons have no question: a memory's utility is the one
    for its own task. Found by the learning trial: every vote counted in full there, so `forget
    --utility-below 0.5` would have archived an episode voted helpful twice on its own subject and
    unhelpful three times on questions it was never about."""
    for question in (ORGANOID_Q, "docking ligands into a kinase pocket", "structural variants in long reads"):
        rid = recall(cli, question, "--min-relevance", "0")["recall_id"]
        r = cli("feedback", rid, "--outcome", "failure", "--unhelpful", "variant-recipe")
        assert r.code == 0, r.err
    for n in range(2):
        rid = recall(cli, VARIANT_Q + (" again" if n else ""))["recall_id"]
        assert cli("feedback", rid, "--outcome", "success", "--helpful", "variant-recipe").code == 0
    listed = cli("forget", "--utility-below", "0.5", "--dry-run", "--json")
    assert listed.code == 0, listed.err
    assert "variant-recipe" not in [e["id"] for e in listed.json()["episodes"]]
    # votes on its own subject still count: unhelpful there, it is listed
    rid = recall(cli, VARIANT_Q)["recall_id"]
    for n in range(4):
        assert cli("feedback", rid, "--outcome", "failure", "--unhelpful", "variant-attempt",
                   "--note", str(n)).code == 0
    r = cli("forget", "--utility-below", "0.4", "--dry-run", "--json")
    assert [e["id"] for e in r.json()["episodes"]] == ["variant-attempt"]


def test_own_subject_evidence_is_the_evidence_for_the_task_as_the_question(variants: Path, cli: Cli) -> None:
    """own_evidence computes, in one pass, what evidence() gives with each memory's task as the
    question (the sums a recall for that task would weigh): the same floats, summed in the same order."""
    from biocortex_cli.index.build import refresh
    from biocortex_cli.index.feedback import evidence, own_evidence, question_fingerprints
    from biocortex_cli.store.vault import Vault

    questions = [ORGANOID_Q, VARIANT_Q, "germline exome filtering", "docking ligands", "Call germline variants"]
    for n, question in enumerate(questions):
        rid = recall(cli, question, "--min-relevance", "0", "--top-k", "5")["recall_id"]
        vote = ("--helpful", "variant-recipe") if n % 2 else ("--unhelpful", "variant-recipe")
        assert cli("feedback", rid, "--outcome", "success" if n % 2 else "failure", *vote).code == 0
    assert cli("feedback", "r0123456789", "--outcome", "success", "--helpful", "organoid-qc").code == 0  # no question
    vault = Vault(variants)
    conn, _report = refresh(vault, vault.config.tokenizer.encoding)
    try:
        own = own_evidence(conn)
        tasks = dict(conn.execute("SELECT id, task FROM docs"))
        assert set(own) >= {"variant-recipe", "variant-attempt", "organoid-qc"}
        for ident, sums in own.items():
            alone = evidence(conn, [ident], question=question_fingerprints(tasks[ident])).get(ident, (0.0, 0.0))
            assert sums == alone, ident
        assert own_evidence(conn, ["variant-recipe"]) == {"variant-recipe": own["variant-recipe"]}
    finally:
        conn.close()


def test_the_json_says_whether_the_recall_was_known(ranked: Path, cli: Cli) -> None:
    """Found by an agent trial: feedback on a recall this clone never logged warned on stderr only;
    over MCP (no stderr) an agent could not tell it from a recall that injected nothing."""
    rid = recall(cli, QUERY)["recall_id"]
    known = cli("feedback", rid, "--outcome", "success", "--json").json()
    assert known["recall_known"] is True
    unknown = cli("feedback", "r0123456789", "--outcome", "failure", "--unhelpful", "m-b", "--json").json()
    assert unknown["recall_known"] is False and unknown["injected"] == []


def test_a_reviewer_retracts_a_bad_vote_and_it_stops_counting(ranked: Path, cli: Cli) -> None:
    """User trial: `git revert` of a vote does nothing under merge=union, so a bad vote could only
    be undone by deleting its line by hand. A retraction is a line of its own; the vote stops counting."""
    first = recall(cli, QUERY)
    rid = first["recall_id"]
    neutral = {h["id"]: h["signals"].get("utility", 0.5) for h in first["results"]}
    agent = ("--author", "Lab Agent <agent@lab.org>")
    vote = cli(*agent, "feedback", rid, "--outcome", "success", "--helpful", "m-c", "--unhelpful", "m-a", "--json")
    assert vote.code == 0, vote.err
    path, created = ranked / vote.json()["path"], "2026-01-01T00:00:00Z"  # the agent voted some time ago
    path.write_text(path.read_text().replace(vote.json()["created"], created))
    git(ranked, "-c", "user.name=T", "-c", "user.email=t@lab.org", "commit", "-qam", "an earlier vote")
    voted = {h["id"]: h["signals"]["utility"] for h in recall(cli, QUERY)["results"]}
    assert voted["m-c"] > voted["m-b"] > voted["m-a"]
    # a later, unrelated vote on another recall stays
    other = recall(cli, "doublet detection scrublet", "--top-k", "1")["recall_id"]  # injects "strong" alone
    assert cli(*agent, "feedback", other, "--outcome", "success", "--helpful", "strong").code == 0

    undo = cli("--author", "PI <pi@lab.org>", "feedback", rid, "--retract", "--note", "m-a was right", "--json")
    assert undo.code == 0, undo.err
    line = undo.json()
    assert line["retract"] == [{"author": "Lab Agent <agent@lab.org>", "created": created}]
    assert [w["helpful"] for w in line["withdrawn"]] == [["m-c"]]
    assert git(ranked, "log", "-1", "--format=%s") == f"feedback: retract {rid} — 1 record by Lab Agent\n"
    assert json.loads(path.read_text().splitlines()[0])["helpful"] == ["m-c"]  # the vote's line is kept
    after = {h["id"]: h["signals"].get("utility", 0.5) for h in recall(cli, QUERY)["results"]}
    assert after["m-a"] == after["m-b"] == after["m-c"] == neutral["m-c"]  # the vote no longer counts
    assert after["strong"] > 0.5  # the other recall's vote still does
    assert cli("check").code == 0

    again = cli("--author", "PI <pi@lab.org>", "feedback", rid, "--retract", "--json")
    assert again.code == 1 and "retracted already" in again.err_json()["error"]["message"]
    assert cli("feedback", rid, "--retract", "--outcome", "success").code == 2
    assert cli("feedback", rid).code == 2  # --outcome is required without --retract
    # the same vote recorded again counts again (the withdrawn line does not make it "already recorded")
    redo = cli(*agent, "feedback", rid, "--outcome", "success", "--helpful", "m-c", "--unhelpful", "m-a", "--json")
    assert redo.code == 0 and redo.json()["recorded"] is True
    assert {h["id"]: h["signals"]["utility"] for h in recall(cli, QUERY)["results"]}["m-c"] > after["m-c"]


def test_explain_shows_the_votes_behind_a_utility(ranked: Path, cli: Cli) -> None:
    """PI trial: `--explain` printed `utility 0.53` and nothing on where it came from."""
    rid = recall(cli, QUERY)["recall_id"]
    assert cli("feedback", rid, "--outcome", "failure", "--helpful", "m-c", "--unhelpful", "m-a").code == 0
    data = recall(cli, QUERY, "--explain")
    matched = {h["id"]: h["matched"] for h in data["results"]}
    assert matched["m-c"]["feedback"][0] == "for 1.00" and matched["m-c"]["feedback"][1].startswith("against 0.00")
    assert matched["m-a"]["feedback"][:1] == ["for 0.00"] and matched["m-a"]["feedback"][1].startswith("against 1.00")
    assert matched["strong"]["feedback"][1].startswith("against 0.25")  # injected into a failure, not named
    unrelated = recall(cli, "variant calling on exomes", "--explain")["results"]
    assert all(h["matched"].get("feedback", ["for 0.00"])[0] == "for 0.00" for h in unrelated)
    err = cli("recall", QUERY, "--explain").err
    assert "explain:      feedback: for 1.00, against 0.00 (weighed votes)\n" in err


def test_feedback_on_a_recall_that_injected_nothing_says_it_moves_nothing(ranked: Path, cli: Cli) -> None:
    """Agent trial: 6 of 31 feedback commits were on recalls that found nothing and named nothing;
    each was a commit that changed no ranking, and nothing said so."""
    empty = recall(cli, "phosphoproteomics site localisation")
    assert empty["results"] == []
    r = cli("feedback", empty["recall_id"], "--outcome", "success")
    assert r.code == 0 and "moves no ranking" in r.err and "--helpful" in r.err
    named = cli("feedback", empty["recall_id"], "--outcome", "success", "--helpful", "m-b")
    assert named.code == 0 and "moves no ranking" not in named.err
