"""A lab living with its vault (trial of 2026-11-24): what people do in Obsidian and git beside the
tool — rename a note, move it to another folder — and what the tool must still do afterwards."""

from __future__ import annotations

from pathlib import Path

from conftest import Cli, git


def _episode(cli: Cli, ident: str, task: str) -> Path:
    r = cli("episode", "add", "--task", task, "--tool", "scDblFinder", "--id", ident, "--success", "--json")
    assert r.code == 0, r.err
    return Path(r.json()["path"])


def test_an_episode_renamed_or_moved_by_hand_is_still_found_by_its_id(vault: Path, cli: Cli) -> None:
    """Obsidian renames the file when a person retitles a note, and moves it when it is dragged to
    another folder; the id in its frontmatter stays. Recall printed the id, `episode show` of
    that id said "no episode with id"."""
    rel = _episode(cli, "2026-11-24-doublets", "Remove doublets from 10x Multiome PBMC data")
    _episode(cli, "2026-11-24-atac", "ATAC-seq peak calling with MACS2")
    for to in ("episodes/2026/11/Doublet removal (Multiome).md", "episodes/multiome/doublets.md",
               "episodes/2025/01/2026-11-24-doublets-old.md"):
        (vault / to).parent.mkdir(parents=True, exist_ok=True)
        git(vault, "mv", str(rel), to)
        git(vault, "-c", "user.name=Ada", "-c", "user.email=ada@lab.example", "commit", "-qm", f"move to {to}")
        rel = Path(to)
        hit = cli("recall", "doublets Multiome", "--json").json()["results"][0]
        assert (hit["id"], hit["path"]) == ("2026-11-24-doublets", to)
        shown = cli("episode", "show", "2026-11-24-doublets", "--json")
        assert shown.code == 0, (to, shown.err)
        assert shown.json()["path"] == to and shown.json()["task"].startswith("Remove doublets")
        assert cli("episode", "related", "2026-11-24-doublets").code == 0
        # check says why tools that look a note up by its file name will not see it
        checked = cli("check", "--json")
        assert checked.code == 0, checked.out  # a warning: the vault still passes
        [problem] = [p for p in checked.json()["problems"] if p["path"] == to]
        assert problem["severity"] == "warning" and "file name" in problem["message"]
        assert "2026-11-24-doublets.md" in problem["hint"]
