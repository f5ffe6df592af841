"""`biocortex sync`: two clones of one bare repository on disk, writing at the same time."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import BuiltVaults, Cli, gated_git, git, run_process

DAY = "feedback/2026/11/2026-11-23.team.jsonl"


@pytest.fixture
def team(tmp_path: Path, cli: Cli, built_vaults: BuiltVaults) -> tuple[Path, Path, Path]:
    """A bare remote, clone ``a`` (where the vault was made) and clone ``b`` (a fresh clone):
    built once per test process, then copied with the clones pointed at the copy's remote."""
    home = tmp_path / "team"
    remote, a, b = home / "remote.git", home / "a", home / "b"

    def build() -> None:
        home.mkdir()
        assert cli("init", a).code == 0
        git(home, "init", "-q", "--bare", "-b", "main", str(remote))
        git(a, "remote", "add", "origin", str(remote))
        first = cli("--vault", a, "sync")
        assert first.code == 0, first.err
        git(home, "clone", "-q", str(remote), str(b))

    built_vaults.get("team", home, build)
    for clone in (a, b):
        git(clone, "remote", "set-url", "origin", str(remote))
    return remote, a, b


def add_episode(cli: Cli, root: Path, who: str, task: str, *extra: str) -> str:
    result = cli("--vault", root, "--author", f"{who} <{who.lower()}@lab.example>", "episode", "add",
                 "--task", task, "--result", "done", "--success", "--quality", "0.7", *extra)
    assert result.code == 0, result.err
    return result.out.strip()


def append_feedback(root: Path, who: str, recall_id: str) -> None:
    """What `biocortex feedback` writes: one JSON line appended, one commit."""
    path = root / DAY
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as fh:
        fh.write(json.dumps({"recall_id": recall_id, "outcome": "success", "helpful": [], "unhelpful": [],
                             "injected": [], "query": "doublets", "note": "", "author": f"{who} <{who}@lab.example>",
                             "created": "2026-11-23T10:00:00Z"}) + "\n")
    git(root, "add", DAY)
    git(root, "-c", f"user.name={who}", "-c", f"user.email={who}@lab.example", "commit", "-q", "-m",
        f"feedback: record {recall_id} — useful")


def episode_ids(root: Path) -> set[str]:
    return {p.stem for p in (root / "episodes").rglob("*.md") if p.name != "README.md"}


def test_two_clones_writing_at_once_both_end_with_every_record(team: tuple[Path, Path, Path], cli: Cli) -> None:
    _remote, a, b = team
    append_feedback(a, "ada", "r0")  # the shared day file exists on both sides before they diverge
    assert cli("--vault", a, "sync").code == 0
    assert cli("--vault", b, "sync").code == 0
    ids = {add_episode(cli, a, "Ada", "Doublet removal in PBMC scRNA-seq with scDblFinder"),
           add_episode(cli, b, "Bob", "DESeq2 on knockdown bulk RNA-seq of MYC targets", "--entity", "MYC"),
           add_episode(cli, b, "Bob", "MYC ChIP-seq peak calling with MACS2", "--entity", "MYC")}
    append_feedback(a, "ada", "r1")
    append_feedback(b, "bob", "r2")  # both append to the same file: union merge, no conflict
    append_feedback(b, "bob", "r3")

    first = cli("--vault", a, "sync", "--json")
    assert first.code == 0, first.err
    assert first.json()["pushed"] == 2 and first.json()["pulled"] == 0
    second = cli("--vault", b, "sync", "--json")
    assert second.code == 0, second.err
    report = second.json()
    assert report["pulled"] == 2 and report["pushed"] == 4
    arrived = report["arrived"]
    assert [e["text"] for e in arrived["episodes"]] == ["Doublet removal in PBMC scRNA-seq with scDblFinder"]
    assert arrived["episodes"][0]["success"] is True and arrived["episodes"][0]["author"].startswith("Ada")
    assert arrived["feedback"] == {"ada": 1}
    assert arrived["authors"] == {"Ada": 1, "ada": 1}
    assert report["index"]["episodes"] == 3
    third = cli("--vault", a, "sync", "--json")
    assert third.code == 0 and third.json()["arrived"]["feedback"] == {"bob": 2}

    for root in (a, b):
        assert episode_ids(root) == ids
        lines = (root / DAY).read_text().splitlines()
        assert sorted(json.loads(x)["recall_id"] for x in lines) == ["r0", "r1", "r2", "r3"]
        assert git(root, "status", "--porcelain") == ""
        assert cli("--vault", root, "check").code == 0
    assert git(a, "rev-parse", "HEAD") == git(b, "rev-parse", "HEAD")


def test_entity_note_created_on_both_sides_is_merged_not_a_conflict(team: tuple[Path, Path, Path],
                                                                     cli: Cli) -> None:
    _remote, a, b = team
    add_episode(cli, a, "Ada", "NEWG1 knockout screen", "--entity", "NEWG1")
    add_episode(cli, b, "Bob", "NEWG1 expression in liver", "--entity", "NEWG1")
    assert cli("--vault", a, "sync").code == 0
    result = cli("--vault", b, "sync", "--json")
    assert result.code == 0, result.err
    assert result.json()["merged_notes"] == ["entities/NEWG1.md"]
    assert "Ada" in (b / "entities/NEWG1.md").read_text()  # the remote's copy
    assert len(episode_ids(b)) == 2 and cli("--vault", b, "check").code == 0


def test_concurrent_syncs_retry_when_the_remote_moved(team: tuple[Path, Path, Path], cli: Cli) -> None:
    _remote, a, b = team
    for i in range(3):
        add_episode(cli, a, "Ada", f"Ada's analysis number {i} of spatial transcriptomics")
        add_episode(cli, b, "Bob", f"Bob's analysis number {i} of proteomics")
    procs = [subprocess.Popen([sys.executable, "-m", "biocortex_cli", "--vault", str(root), "sync", "--json"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for root in (a, b)]
    outs = [p.communicate(timeout=60) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], [o[1] for o in outs]
    assert sum(json.loads(o[0])["pushed"] for o in outs) == 6
    for root in (a, b):
        assert run_process("--vault", str(root), "sync").code == 0
    assert episode_ids(a) == episode_ids(b) and len(episode_ids(a)) == 6


def test_a_real_conflict_leaves_the_vault_as_it_was(team: tuple[Path, Path, Path], cli: Cli) -> None:
    _remote, a, b = team
    for root, words in ((a, "Our lab's memory (Ada's version)"), (b, "Our lab's memory (Bob's version)")):
        home = root / "Home.md"
        home.write_text(home.read_text().replace("# Lab memory", f"# {words}"))
        git(root, "-c", "user.name=x", "-c", "user.email=x@y", "commit", "-qam", "home: edit title")
    add_episode(cli, b, "Bob", "An episode that must not be lost")
    assert cli("--vault", a, "sync").code == 0
    head, text = git(b, "rev-parse", "HEAD"), (b / "Home.md").read_text()
    result = cli("--vault", b, "sync")
    assert result.code == 1
    assert "Home.md" in result.err and "the vault was left as it was" in result.err
    assert "git rebase origin/main" in result.err  # the hint: how to solve it by hand
    assert git(b, "rev-parse", "HEAD") == head and (b / "Home.md").read_text() == text
    assert git(b, "status", "--porcelain") == "" and not (b / ".git/rebase-merge").exists()
    assert len(episode_ids(b)) == 1


def test_aliases_added_in_both_clones_are_both_kept(team: tuple[Path, Path, Path], cli: Cli) -> None:
    """Two people name the same gene on the same day (lab trial 2026-11-24): each alias is one
    line of the entity note's ``aliases``, side by side, so git saw a conflict and sync stopped."""
    _remote, a, b = team
    assert cli("--vault", a, "fact", "add", "TP53", "regulates", "MDM2", "--source", "PMID:8319905").code == 0
    assert cli("--vault", a, "sync").code == 0
    assert cli("--vault", b, "sync").code == 0
    assert cli("--vault", a, "--author", "Ada <ada@lab.example>", "entity", "alias", "TP53", "p53").code == 0
    assert cli("--vault", b, "--author", "Bob <bob@lab.example>", "entity", "alias", "TP53", "Trp53").code == 0
    add_episode(cli, b, "Bob", "TP53 knockout in organoids", "--entity", "TP53")
    assert cli("--vault", a, "sync").code == 0
    result = cli("--vault", b, "sync", "--json")
    assert result.code == 0, result.err
    assert "entities/TP53.md" in result.json()["merged_notes"]
    assert cli("--vault", a, "sync").code == 0
    for root in (a, b):
        shown = cli("--vault", root, "entity", "show", "p53", "--json")
        assert shown.code == 0, shown.err
        assert shown.json()["aliases"] == ["TP53", "p53", "Trp53"]
        assert cli("--vault", root, "check").code == 0
    assert (a / "entities/TP53.md").read_text() == (b / "entities/TP53.md").read_text()
    assert git(b, "status", "--porcelain") == ""
    # one side taking an alias out while the other adds one is for a person to settle
    note = a / "entities/TP53.md"
    note.write_text(note.read_text().replace("- Trp53\n", ""))
    git(a, "-c", "user.name=Ada", "-c", "user.email=ada@lab.example", "commit", "-qam", "entity: TP53 is not Trp53")
    assert cli("--vault", b, "entity", "alias", "TP53", "LFS1").code == 0
    assert cli("--vault", a, "sync").code == 0
    head = git(b, "rev-parse", "HEAD")
    result = cli("--vault", b, "sync")
    assert result.code == 1 and "entities/TP53.md" in result.err
    assert git(b, "rev-parse", "HEAD") == head


def test_a_secret_committed_by_hand_is_never_pushed(team: tuple[Path, Path, Path], cli: Cli) -> None:
    """Writes through biocortex refuse credentials, and `check` flags one pasted by hand; but a
    person's own `git commit` of that note was pushed by `sync` to every clone (lab trial)."""
    from secret_corpus import LOOKALIKES, SHAPES

    remote, a, _b = team
    ident = add_episode(cli, a, "Ada", "Cell type annotation of PBMC with an LLM")
    rel = next(a.glob(f"episodes/**/{ident}.md")).relative_to(a).as_posix()
    assert cli("--vault", a, "sync").code == 0
    pushed = git(remote, "rev-parse", "HEAD")
    slack = SHAPES[5]
    note = a / rel
    clean = note.read_text()
    note.write_text(clean + f"\nPasted by mistake: {slack.text}\n")
    ada = ("-c", "user.name=Ada", "-c", "user.email=ada@lab.example")
    git(a, *ada, "commit", "-qam", "notes from the meeting")
    note.write_text(clean + f"\nAccessions, not secrets: {' '.join(LOOKALIKES[:12])}\n")
    git(a, *ada, "commit", "-qam", "the key taken out again (still in the commit before)")
    result = cli("--vault", a, "sync", "--json")
    assert result.code == 1 and git(remote, "rev-parse", "HEAD") == pushed  # nothing went up
    error = result.err_json()["error"]
    assert error["path"] == rel and error["line"] == clean.count("\n") + 2
    assert "nothing was pushed" in error["message"] and "git rebase -i" in error["hint"]
    assert slack.needle not in result.out + result.err
    # the commit rewritten without it: the look-alikes pass and everything goes up
    git(a, "reset", "-q", "--soft", "HEAD~2")
    git(a, *ada, "commit", "-qm", "accessions from the meeting")
    assert cli("--vault", a, "sync").code == 0
    assert git(remote, "rev-parse", "HEAD") == git(a, "rev-parse", "HEAD")


def test_a_secret_in_a_commit_message_written_by_hand_is_never_pushed(team: tuple[Path, Path, Path],
                                                                     cli: Cli) -> None:
    """biocortex scans the messages and authors of its own commits; one a person writes with git
    was pushed as it was."""
    from secret_corpus import SHAPES

    remote, a, _b = team
    ident = add_episode(cli, a, "Ada", "Cell type annotation of PBMC with an LLM")
    assert cli("--vault", a, "sync").code == 0
    pushed = git(remote, "rev-parse", "HEAD")
    note = next(a.glob(f"episodes/**/{ident}.md"))
    note.write_text(note.read_text() + "\nChecked by hand.\n")
    git(a, "-c", "user.name=Ada", "-c", "user.email=ada@lab.example", "commit", "-qam",
        f"checked; the webhook was {SHAPES[5].text}")
    result = cli("--vault", a, "sync", "--json")
    assert result.code == 1 and git(remote, "rev-parse", "HEAD") == pushed
    error = result.err_json()["error"]
    assert "the commit message" in error["message"] and "nothing was pushed" in error["message"]
    assert SHAPES[5].needle not in result.out + result.err
    git(a, "-c", "user.name=Ada", "-c", "user.email=ada@lab.example", "commit", "-q", "--amend", "-m", "checked")
    assert cli("--vault", a, "sync").code == 0


def test_allow_secret_pushes_a_secret_committed_by_hand(team: tuple[Path, Path, Path], cli: Cli) -> None:
    from secret_corpus import SHAPES

    remote, a, _b = team
    ident = add_episode(cli, a, "Ada", "Cell type annotation of PBMC with an LLM")
    rel = next(a.glob(f"episodes/**/{ident}.md"))
    (a / rel).write_text((a / rel).read_text() + f"\n{SHAPES[5].text}\n")
    git(a, "-c", "user.name=Ada", "-c", "user.email=ada@lab.example", "commit", "-qam", "a test token")
    assert cli("--vault", a, "sync").code == 1
    assert cli("--vault", a, "--allow-secret", "sync").code == 0
    assert git(remote, "rev-parse", "HEAD") == git(a, "rev-parse", "HEAD")


def test_no_remote(vault: Path, cli: Cli) -> None:
    result = cli("sync")
    assert result.code == 1
    assert "no git remote" in result.err and "git remote add origin" in result.err


def test_unreachable_remote_changes_nothing(team: tuple[Path, Path, Path], cli: Cli, tmp_path: Path) -> None:
    _remote, a, _b = team
    add_episode(cli, a, "Ada", "Work done while the server is down")
    git(a, "remote", "set-url", "origin", str(tmp_path / "gone.git"))
    head = git(a, "rev-parse", "HEAD")
    result = cli("--vault", a, "sync", "--json")
    assert result.code == 1
    error = result.err_json()["error"]
    assert "cannot reach the remote origin" in error["message"] and "not changed" in error["hint"]
    assert git(a, "rev-parse", "HEAD") == head and git(a, "status", "--porcelain") == ""


def test_ssh_remote_never_prompts(team: tuple[Path, Path, Path], cli: Cli) -> None:
    _remote, a, _b = team
    git(a, "remote", "set-url", "origin", "ssh://nobody@127.0.0.1:9/lab.git")  # port 9: discard, closed
    result = cli("--vault", a, "sync", "--timeout", "20")
    assert result.code == 1 and "cannot reach the remote origin" in result.err


def test_uncommitted_changes_stop_sync(team: tuple[Path, Path, Path], cli: Cli) -> None:
    _remote, a, _b = team
    (a / "episodes" / "draft.md").write_text("---\nid: draft\n---\n")
    head = git(a, "rev-parse", "HEAD")
    result = cli("--vault", a, "sync")
    assert result.code == 1
    assert "uncommitted change" in result.err and "episodes/draft.md" in result.err
    assert "commits nothing of yours" in result.err
    assert git(a, "rev-parse", "HEAD") == head and (a / "episodes" / "draft.md").exists()


def test_obsidian_settings_and_plugins(team: tuple[Path, Path, Path], cli: Cli) -> None:
    _remote, a, b = team
    add_episode(cli, b, "Bob", "Something to pull")
    assert cli("--vault", b, "sync").code == 0
    plugin = a / ".obsidian/plugins/dataview/main.js"  # a new plugin: untracked, outside memory
    plugin.parent.mkdir(parents=True)
    plugin.write_text("// dataview\n")
    result = cli("--vault", a, "sync")
    assert result.code == 0, result.err
    assert len(episode_ids(a)) == 1 and plugin.exists()
    graph = a / ".obsidian/graph.json"  # Obsidian rewrites its tracked settings as you use it
    graph.write_text(graph.read_text().replace('"scale": 1', '"scale": 0.8'))
    result = cli("--vault", a, "sync")
    assert result.code == 1 and ".obsidian/graph.json" in result.err
    assert "git checkout -- .obsidian" in result.err and '"scale": 0.8' in graph.read_text()


def test_the_same_fact_added_in_both_clones_merges_its_evidence(team: tuple[Path, Path, Path], cli: Cli) -> None:
    _remote, a, b = team
    for root, who, pmid, conf in ((a, "Ada", "PMID:5", "0.6"), (b, "Bob", "PMID:6", "0.5")):
        r = cli("--vault", root, "--author", f"{who} <{who.lower()}@lab.example>", "fact", "add",
                "NEWGENE1", "activates", "NEWGENE2", "--source", pmid, "--confidence", conf)
        assert r.code == 0, r.err
    assert cli("--vault", b, "sync").code == 0
    merged = cli("--vault", a, "sync", "--json")
    assert merged.code == 0, merged.err
    rel = next(p for p in merged.json()["merged_notes"] if "/facts/" in f"/{p}")
    assert cli("--vault", b, "sync").code == 0
    for root in (a, b):
        fact = cli("--vault", root, "fact", "query", "NEWGENE1", "--json").json()
        (only,) = [f for f in fact["facts"] if f["predicate"] == "activates"]
        assert sorted(only["source"]) == ["PMID:5", "PMID:6"]
        assert only["confidence"] == pytest.approx(1 - 0.4 * 0.5)
        assert (root / rel).read_text() == (a / rel).read_text()
        assert cli("--vault", root, "check").code == 0
    # a real disagreement still stops: one side retracts, the other adds evidence
    fid = only["id"]
    assert cli("--vault", a, "fact", "retract", fid, "--reason", "misread").code == 0
    assert cli("--vault", b, "fact", "add", "NEWGENE1", "activates", "NEWGENE2", "--source", "PMID:7").code == 0
    assert cli("--vault", a, "sync").code == 0
    head = git(b, "rev-parse", "HEAD")
    stuck = cli("--vault", b, "sync")
    assert stuck.code == 1 and "change the same lines" in stuck.err and rel in stuck.err
    assert git(b, "rev-parse", "HEAD") == head and not (b / ".git" / "rebase-merge").exists()


def test_no_write_lands_in_a_paused_rebase_or_on_a_detached_head(team: tuple[Path, Path, Path], cli: Cli) -> None:
    """A commit made there is lost when the person runs `git rebase --abort`."""
    _remote, a, b = team
    for root, text in ((a, "from a"), (b, "from b")):
        (root / "Home.md").write_text(text + "\n")
        git(root, "-c", "user.name=T", "-c", "user.email=t@lab.example", "commit", "-qam", f"home: {text}")
    assert cli("--vault", b, "sync").code == 0
    paused = subprocess.run(["git", "-c", "user.name=T", "-c", "user.email=t@lab.example", "pull", "-q",
                             "--rebase", "origin", "main"], cwd=a, capture_output=True, text=True, check=False)
    assert paused.returncode != 0 and (a / ".git" / "rebase-merge").exists()
    head = git(a, "rev-parse", "HEAD")
    r = cli("--vault", a, "episode", "add", "--task", "written mid-rebase", "--success")
    assert r.code == 1 and "a rebase is in progress" in r.err and "git rebase --continue" in r.err
    assert git(a, "rev-parse", "HEAD") == head and not list((a / "episodes").rglob("*written*"))
    s = cli("--vault", a, "sync")
    assert s.code == 1 and "a rebase is in progress" in s.err
    git(a, "rebase", "--abort")
    git(a, "checkout", "-q", "--detach", "HEAD")
    r = cli("--vault", a, "episode", "add", "--task", "written detached", "--success")
    assert r.code == 1 and "HEAD is detached" in r.err


def test_a_push_the_server_refuses_is_not_retried_and_says_why(team: tuple[Path, Path, Path], cli: Cli) -> None:
    remote, a, _b = team
    hook = remote / "hooks" / "pre-receive"
    hook.write_text("#!/bin/sh\necho 'protected branch: ask the PI' >&2\nexit 1\n")
    hook.chmod(0o755)
    add_episode(cli, a, "Ada", "Doublet removal in PBMC scRNA-seq with scDblFinder")
    r = cli("--vault", a, "sync")
    assert r.code == 1 and "protected branch: ask the PI" in r.err and "kept moving" not in r.err


GATED_SSH = """#!/bin/sh
# A "remote over ssh" that is the bare repository on disk, held at a gate: it says it arrived (a
# line in "arrived"), then waits for the test to open the gate before serving git (as a slow
# network would).
for arg; do last="$arg"; done
echo x >> "{gate}/arrived"
while [ ! -e "{gate}/open" ]; do sleep 0.05; done
exec sh -c "$(printf '%s' "$last" | sed 's/^git-upload-pack/git upload-pack/; s/^git-receive-pack/git receive-pack/')"
"""


def gated(team: tuple[Path, Path, Path], tmp_path: Path, cli: Cli, bob_task: str) -> tuple[Path, dict[str, str]]:
    """Clone ``a`` syncing over "ssh" through :data:`GATED_SSH` (the gate folder and the
    environment that uses it returned), after Bob put one episode on the remote."""
    import os

    remote, a, b = team
    gate = tmp_path / "gate"
    gate.mkdir()
    ssh = tmp_path / "gated-ssh"
    ssh.write_text(GATED_SSH.format(gate=gate))
    ssh.chmod(0o755)
    git(a, "remote", "set-url", "origin", f"ssh://lab-server{remote}")
    add_episode(cli, b, "Bob", bob_task)
    assert cli("--vault", b, "sync").code == 0
    return gate, {**os.environ, "GIT_SSH_COMMAND": str(ssh)}


def arrived(gate: Path) -> int:
    """How many git connections reached the gate."""
    path = gate / "arrived"
    return len(path.read_text().splitlines()) if path.exists() else 0


def start_sync(root: Path, env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "biocortex_cli", "--vault", str(root), "sync", "--json"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)


def at_gate(gate: Path, proc: subprocess.Popen[str]) -> None:
    """Until ``proc``'s fetch is held at the gate. No time limit: it gets there or ends (then this
    fails with its output)."""
    import time

    while not arrived(gate):
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.02)


def test_a_write_does_not_wait_for_a_slow_remote(team: tuple[Path, Path, Path], tmp_path: Path, cli: Cli) -> None:
    """Only the rebase holds the write lock: while sync waits for the remote, an agent's write
    lands at once, and is rebased and sent with the rest."""
    _remote, a, b = team
    gate, env = gated(team, tmp_path, cli, "Bob's proteomics run, already on the remote")
    sync = start_sync(a, env)
    try:
        at_gate(gate, sync)
        write = subprocess.Popen([sys.executable, "-m", "biocortex_cli", "--vault", str(a), "--author",
                                  "Ada <ada@lab.example>", "episode", "add", "--task",
                                  "Ada's spatial run, written while sync waits", "--result", "done", "--success",
                                  "--quality", "0.7"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        assert write.stderr is not None
        # a write that had to wait for the lock says so first, then hangs until the gate opens
        first_line = write.stderr.readline()
        assert "waiting for the vault's write lock" not in first_line
        _out, rest = write.communicate()
        assert write.returncode == 0, first_line + rest
        assert sync.poll() is None  # still held at the gate
    finally:
        (gate / "open").touch()
    out, err = sync.communicate()
    assert sync.returncode == 0, err
    report = json.loads(out)
    # Bob's episode arrived; Ada's write, made while the fetch waited, was rebased on it and sent
    assert report["pulled"] == 1 and report["pushed"] == 1
    assert git(a, "status", "--porcelain") == ""
    second = run_process("--vault", str(a), "sync", "--json", env=env)
    assert second.code == 0, second.err
    assert second.json()["pushed"] == 0
    assert cli("--vault", b, "sync").code == 0
    assert episode_ids(a) == episode_ids(b)


def test_two_syncs_of_one_clone_take_turns(team: tuple[Path, Path, Path], tmp_path: Path, cli: Cli) -> None:
    """A second sync of the same clone waits for the first (``.biocortex/sync.lock``) instead of
    racing it for the remote-tracking ref; both end well."""
    import queue
    import threading
    import time

    _remote, a, b = team
    gate, env = gated(team, tmp_path, cli, "Bob's run, already on the remote")
    add_episode(cli, a, "Ada", "Ada's run, to be pushed")
    first = start_sync(a, env)
    second: subprocess.Popen[str] | None = None
    try:
        at_gate(gate, first)
        second = start_sync(a, env)
        said: queue.Queue[str] = queue.Queue()
        stderr = second.stderr
        assert stderr is not None
        threading.Thread(target=lambda: [said.put(line) for line in stderr], daemon=True).start()
        lines: list[str] = []
        while not any("waiting for the vault's write lock" in line for line in lines):  # it says it waits
            assert arrived(gate) == 1, "the second sync did not wait: it reached the remote too"
            assert second.poll() is None or not said.empty(), lines
            while not said.empty():
                lines.append(said.get())
            time.sleep(0.02)
    finally:
        (gate / "open").touch()
    out, err = first.communicate()
    assert first.returncode == 0, err
    assert json.loads(out)["pushed"] == 1
    assert second is not None
    out, err = second.communicate()
    assert second.returncode == 0, "".join(lines) + err
    assert json.loads(out)["pushed"] == 0
    assert cli("--vault", b, "sync").code == 0
    assert episode_ids(a) == episode_ids(b)


# --- the team trial (2026-11-24): a PI, a postdoc and an agent over a simulated week -------------


def kill_sync_at_its_rebase(root: Path, shim: Path, gate: Path) -> None:
    """Start `biocortex sync` whose git stops at `rebase --continue` (conftest :func:`gated_git`), and
    kill -9 it and its git there: the rebase is left in progress."""
    for left in ("open", "paused"):
        (gate / left).unlink(missing_ok=True)
    proc = subprocess.Popen([sys.executable, "-m", "biocortex_cli", "--vault", str(root), "sync"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "PATH": f"{shim}{os.pathsep}{os.environ['PATH']}"},
                            start_new_session=True)
    try:
        while not (gate / "paused").exists():
            assert proc.poll() is None, proc.communicate()
            time.sleep(0.02)
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
    finally:
        (gate / "open").touch()


def hand_commit(root: Path, message: str) -> None:
    git(root, "-c", "user.name=Pat", "-c", "user.email=pat@lab.example", "commit", "-qam", message)


def episode_file(root: Path, ident: str) -> Path:
    return next((root / "episodes").rglob(f"{ident}.md"))


def test_a_conflict_solved_with_plain_git_and_committed_with_its_markers_is_never_pushed(
        team: tuple[Path, Path, Path], cli: Cli) -> None:
    """Two people change the quality of one episode by hand; the one who syncs second follows the
    hint with plain git and commits the file as git left it. Before: the hint's `git pull --rebase`
    failed in the clone that made the first push (no upstream), the markers were pushed to every
    clone, the note dropped out of recall, and `check` spoke of YAML, not of the conflict."""
    remote, a, b = team
    ident = add_episode(cli, b, "Bob", "Doublet removal in PBMC scRNA-seq with scDblFinder")
    assert cli("--vault", b, "sync").code == 0 and cli("--vault", a, "sync").code == 0
    for root, quality in ((b, "0.8"), (a, "0.6")):
        note = episode_file(root, ident)
        note.write_text(note.read_text().replace("quality: 0.7", f"quality: {quality}"))
        hand_commit(root, f"quality {quality}")
    assert cli("--vault", b, "sync").code == 0
    stuck = cli("--vault", a, "sync")
    assert stuck.code == 1 and "change the same lines" in stuck.err
    assert git(a, "config", "branch.main.merge").strip() == "refs/heads/main"  # git pull works here too
    command = re.findall(r"`(git rebase [^`]+)`", stuck.err)[0]
    said = subprocess.run(command.split(), cwd=a, capture_output=True, text=True, check=False)
    assert said.returncode == 1 and "CONFLICT" in said.stdout + said.stderr  # the hint works as written
    git(a, "add", "-A")
    subprocess.run(["git", "-c", "user.name=Pat", "-c", "user.email=pat@lab.example", "rebase", "--continue"],
                   cwd=a, capture_output=True, env={**os.environ, "GIT_EDITOR": "true"}, check=True)
    note = episode_file(a, ident)
    marker = note.read_text().splitlines().index("<<<<<<< HEAD") + 1
    rel = note.relative_to(a).as_posix()
    before = git(remote, "rev-parse", "main")
    refused = cli("--vault", a, "sync")
    assert refused.code == 1 and f"{rel}:{marker}:" in refused.err and "conflict marker" in refused.err
    assert "Traceback" not in refused.err and refused.out == ""
    assert git(remote, "rev-parse", "main") == before  # nothing was pushed
    checked = cli("--vault", a, "check")
    assert checked.code == 1 and f"{rel}:{marker}: a git conflict marker" in checked.out + checked.err
    assert "invalid YAML" not in checked.out + checked.err
    note.write_text(re.sub(r"<<<<<<< HEAD\nquality: 0.8\n=======\nquality: 0.6\n>>>>>>> [^\n]*\n",
                           "quality: 0.7\n", note.read_text()))
    hand_commit(a, "quality: settled")
    assert cli("--vault", a, "check").code == 0 and cli("--vault", a, "sync").code == 0


def test_a_sync_killed_during_its_rebase_is_undone_by_the_next_write_or_sync(
        team: tuple[Path, Path, Path], tmp_path: Path, cli: Cli) -> None:
    """kill -9 of a sync (an agent framework's time limit) while it rebases left the rebase in
    progress: every write of every agent on that clone failed ("a rebase is in progress") until a
    person ran `git rebase --abort`. The next write or sync now undoes it: every commit kept."""
    _remote, a, b = team
    for root, who, pmid in ((a, "Ada", "PMID:5"), (b, "Bob", "PMID:6")):  # a fact sync merges: it continues
        r = cli("--vault", root, "--author", f"{who} <{who.lower()}@lab.example>", "fact", "add",
                "NEWGENE1", "activates", "NEWGENE2", "--source", pmid)
        assert r.code == 0, r.err
    mine = add_episode(cli, a, "Ada", "Ada's spatial run before the kill")
    assert cli("--vault", b, "sync").code == 0
    shim, gate = gated_git(tmp_path, "rebase --continue", "paused")
    head = git(a, "rev-parse", "HEAD").strip()
    kill_sync_at_its_rebase(a, shim, gate)
    assert (a / ".git" / "rebase-merge").exists()  # what the kill left
    wrote = cli("--vault", a, "episode", "add", "--task", "An agent's next run", "--success")
    assert wrote.code == 0, wrote.err
    assert not (a / ".git" / "rebase-merge").exists()
    assert git(a, "merge-base", "--is-ancestor", head, "HEAD") == ""  # every commit kept
    synced = cli("--vault", a, "sync")
    assert synced.code == 0, synced.err
    assert cli("--vault", b, "sync").code == 0
    assert episode_ids(a) == episode_ids(b) and mine in episode_ids(b)
    # killed again: now sync itself undoes it, and says so
    r = cli("--vault", b, "fact", "add", "NEWGENE1", "activates", "NEWGENE2", "--source", "PMID:8")
    assert r.code == 0 and cli("--vault", a, "fact", "add", "NEWGENE1", "activates", "NEWGENE2",
                               "--source", "PMID:9").code == 0
    assert cli("--vault", b, "sync").code == 0
    kill_sync_at_its_rebase(a, shim, gate)
    again = cli("--vault", a, "sync")
    assert again.code == 0, again.err
    assert "a sync was stopped during its rebase: it was undone" in again.err
    fact = cli("--vault", a, "fact", "query", "NEWGENE1", "--json").json()
    (only,) = [f for f in fact["facts"] if f["predicate"] == "activates"]
    assert sorted(only["source"]) == ["PMID:5", "PMID:6", "PMID:8", "PMID:9"]


def test_a_killed_sync_s_rebase_is_not_undone_over_a_person_s_edit(team: tuple[Path, Path, Path],
                                                                  cli: Cli) -> None:
    """Undoing resets the files: when one changed since the kill, nothing is undone and the error
    says what to do."""
    _remote, a, b = team
    for root, text in ((a, "from a"), (b, "from b")):
        (root / "Home.md").write_text(text + "\n")
        hand_commit(root, f"home: {text}")
    assert cli("--vault", b, "sync").code == 0
    paused = subprocess.run(["git", "-c", "user.name=T", "-c", "user.email=t@lab.example", "pull", "-q",
                             "--rebase", "origin", "main"], cwd=a, capture_output=True, text=True, check=False)
    assert paused.returncode != 0
    (a / ".git" / "biocortex-sync-rebase").write_text("x\n")  # as if sync had started it
    (a / "Home.md").write_text("what Pat typed while it was paused\n")
    r = cli("--vault", a, "episode", "add", "--task", "written mid-rebase", "--success")
    assert r.code == 1 and "a `biocortex sync` was stopped during its rebase" in r.err
    assert (a / "Home.md").read_text() == "what Pat typed while it was paused\n"
    s = cli("--vault", a, "sync")
    assert s.code == 1 and "copy any edit of yours aside" in s.err
    assert (a / "Home.md").read_text() == "what Pat typed while it was paused\n"


def test_the_same_lesson_promoted_in_both_clones_is_merged(team: tuple[Path, Path, Path], cli: Cli) -> None:
    _remote, a, b = team
    for i in (1, 2):
        add_episode(cli, a, "Ada", f"Bulk RNA-seq of batch {i}", "--lesson", "include batch as a covariate in DESeq2")
    assert cli("--vault", a, "sync").code == 0 and cli("--vault", b, "sync").code == 0
    for root, who in ((a, "Ada"), (b, "Bob")):
        r = cli("--vault", root, "--author", f"{who} <{who.lower()}@lab.example>", "lessons", "promote",
                "include batch as a covariate in DESeq2")
        assert r.code == 0, r.err
    assert cli("--vault", a, "sync").code == 0
    merged = cli("--vault", b, "sync", "--json")
    assert merged.code == 0, merged.err
    (rel,) = merged.json()["merged_notes"]
    assert rel.startswith("lessons/") and "Ada" in (b / rel).read_text()
    assert cli("--vault", b, "check").code == 0


def test_a_clone_on_another_branch_does_not_fork_the_team_s_vault(team: tuple[Path, Path, Path],
                                                                   cli: Cli) -> None:
    """A teammate's clone on `master` (git switch -c master): sync pushed it as a new branch, a
    second vault nobody saw, and its notice even said how to clone that branch."""
    remote, a, b = team
    git(b, "switch", "-q", "-c", "master")
    ident = add_episode(cli, b, "Bob", "Bob's CRISPR screen with MAGeCK")
    r = cli("--vault", b, "sync")
    assert r.code == 1 and "the team's vault is on main" in r.err and "Traceback" not in r.err
    assert git(remote, "branch", "--list", "master") == ""
    assert "git switch main && git merge master" in r.err
    git(b, "switch", "-q", "main")
    git(b, "merge", "-q", "--ff-only", "master")
    assert cli("--vault", b, "sync").code == 0 and cli("--vault", a, "sync").code == 0
    assert ident in episode_ids(a)


def test_a_remote_rewritten_by_force_push_loses_nothing_and_says_so(team: tuple[Path, Path, Path],
                                                                    cli: Cli) -> None:
    _remote, a, b = team
    ident = add_episode(cli, a, "Ada", "Ada's proteomics run")
    assert cli("--vault", a, "sync").code == 0 and cli("--vault", b, "sync").code == 0
    git(a, "reset", "-q", "--hard", "HEAD~1")
    git(a, "push", "-q", "--force", "origin", "main")
    add_episode(cli, b, "Bob", "Bob's run after the rewrite")
    r = cli("--vault", b, "sync", "--json")
    assert r.code == 0, r.err
    (notice,) = r.json()["notices"]
    assert "rewritten (force-pushed)" in notice and "dropped 1 commit," in notice and notice in r.err
    assert "if it were meant" in notice
    assert r.json()["pushed"] == 2
    assert cli("--vault", a, "sync").code == 0 and ident in episode_ids(a)


def test_a_note_that_arrives_with_conflict_markers_is_named(team: tuple[Path, Path, Path], cli: Cli) -> None:
    """Pushed with plain git (not sync), the markers reach the other clones: sync says which note,
    at which line, instead of pulling it in silence while the index skips it."""
    _remote, a, b = team
    ident = add_episode(cli, a, "Ada", "ChIP-seq replicate 1 of MYC")
    note = episode_file(a, ident)
    note.write_text(note.read_text().replace("quality: 0.7\n", "<<<<<<< HEAD\nquality: 0.7\n=======\n"
                                             "quality: 0.9\n>>>>>>> 1a2b3c4 (quality)\n"))
    hand_commit(a, "quality")
    git(a, "push", "-q", "origin", "main")
    r = cli("--vault", b, "sync", "--json")
    assert r.code == 0, r.err
    rel = note.relative_to(a).as_posix()
    (notice,) = r.json()["notices"]
    assert notice.startswith(f"{rel}:9: arrived with a git conflict marker") and notice in r.err


def test_a_sync_killed_while_git_wrote_its_rebase_state_is_undone(team: tuple[Path, Path, Path], cli: Cli) -> None:
    """Killed (with its git) in the first instants of the rebase, git's state holds `head-name`
    but no `orig-head`: `git rebase --abort` cannot read it. The branch had not moved: the state
    is dropped and the write goes ahead."""
    _remote, a, _b = team
    head = git(a, "rev-parse", "HEAD").strip()
    state = a / ".git" / "rebase-merge"
    state.mkdir()
    (state / "head-name").write_text("refs/heads/main\n")
    (state / "interactive").write_text("")
    (a / ".git" / "biocortex-sync-rebase").write_text(f"{head}\n")  # what sync wrote before its rebase
    wrote = cli("--vault", a, "episode", "add", "--task", "An agent's run after the kill", "--success")
    assert wrote.code == 0, wrote.err
    assert not state.exists() and git(a, "rev-parse", "HEAD~1").strip() == head
    assert git(a, "symbolic-ref", "HEAD").strip() == "refs/heads/main"
    assert cli("--vault", a, "sync").code == 0
