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


def test_a_secret_pasted_into_a_note_by_hand_is_flagged_by_check(vault: Path, cli: Cli) -> None:
    """Writes through biocortex refuse credentials (docs/reliability.md, "Secrets"); a key pasted
    into a note in Obsidian never passes a write, so `check` (and `doctor`) must say where it is —
    without printing it, and without touching the rest of the note."""
    from secret_corpus import LOOKALIKES, SHAPES

    rel = _episode(cli, "2026-11-24-annotation", "Cell type annotation of PBMC with an LLM")
    note = vault / rel
    env_password, slack = SHAPES[0], SHAPES[5]
    text = note.read_text().replace("tools:\n", f"notes: '{env_password.text}'\ntools:\n", 1)
    text += f"\nPasted by mistake: {slack.text}\nAccessions, not secrets: {' '.join(LOOKALIKES[:12])}\n"
    note.write_text(text)
    r = cli("check", "--json")
    assert r.code == 1
    found = [p for p in r.json()["problems"] if p["path"] == str(rel)]
    assert [(p["line"], p["severity"]) for p in found] == [
        (text[: text.index("notes:")].count("\n") + 1, "error"),
        (text[: text.index("Pasted by mistake")].count("\n") + 1, "error")]
    assert "field 'notes'" in found[0]["message"] and "body" in found[1]["message"]
    for needle in (env_password.needle, slack.needle):
        assert needle not in r.out + r.err
    assert note.read_text() == text  # flagged, nothing removed
    plain = cli("check")
    assert f"{rel}:{found[1]['line']}: " in plain.out and slack.needle not in plain.out + plain.err
    assert "remove" in plain.out
    doctor = cli("doctor", "--json")
    assert doctor.code == 1 and str(rel) in doctor.out


def test_entities_written_as_obsidian_links_are_found_by_the_entity_filter(vault: Path, cli: Cli) -> None:
    """Obsidian's property editor stores a link in a list property as ``"[[TP53]]"`` (or
    ``"[[TP53|p53]]"``, ``"[[CL_0000844|CL:0000844]]"`` as biocortex writes its own links):
    `episode list --entity TP53` found nothing, while `entity show TP53` listed the episode."""
    folder = vault / "episodes" / "2026" / "10"
    folder.mkdir(parents=True)
    (folder / "2026-10-03-kupffer.md").write_text(
        "---\nid: 2026-10-03-kupffer\ntype: episode\ncreated: '2026-10-03T10:00:00Z'\n"
        "author: Zoë Ñúñez <zoe@lab.example>\ntask: Isolate Kupffer cells from mouse liver\n"
        "entities:\n- '[[TP53]]'\n- '[[Clec4f|Clec4f+]]'\n- '[[CL_0000091|CL:0000091]]'\n---\n# Kupffer\n",
        encoding="utf-8")
    for wanted in ("TP53", "tp53", "Clec4f", "Clec4f+", "CL:0000091"):
        listed = cli("episode", "list", "--entity", wanted, "--json")
        assert listed.code == 0, listed.err
        assert [e["id"] for e in listed.json()] == ["2026-10-03-kupffer"], wanted
    shown = cli("episode", "show", "2026-10-03-kupffer", "--json").json()
    assert shown["entities"] == ["[[TP53]]", "[[Clec4f|Clec4f+]]", "[[CL_0000091|CL:0000091]]"]  # as written


def test_an_id_obsidian_made_from_a_title_with_accents_gets_an_ascii_one_to_use(vault: Path, cli: Cli) -> None:
    """The episode template fills ``id`` with the note's title; a French colleague's title gave
    ``2026-10-03-hépatocytes-kupffer``. `check` called it invalid with only the rule as a hint."""
    template = (vault / "templates" / "episode.md").read_text()
    rel = "episodes/2026/10/2026-10-03-hépatocytes Kupffer.md"
    (vault / rel).parent.mkdir(parents=True, exist_ok=True)
    (vault / rel).write_text(template.replace("{{title}}", "2026-10-03-hépatocytes Kupffer")
                             .replace("{{date:YYYY-MM-DDTHH:mm:ssZ}}", "2026-10-03T10:00:00Z"))
    r = cli("check", "--json")
    [problem] = [p for p in r.json()["problems"] if p["path"] == rel and "id" in p["message"]]
    assert r.code == 1 and problem["line"] == 2
    assert "id: 2026-10-03-hepatocytes-Kupffer" in problem["hint"]
    assert "renamed 2026-10-03-hepatocytes-Kupffer.md" in problem["hint"]


def test_a_created_without_a_time_zone_is_a_warning(vault: Path, cli: Cli) -> None:
    """Obsidian's date-time picker writes the person's local time with no zone
    (``2026-11-24T10:42``); biocortex reads such a value as UTC. `check` said nothing (obsidian
    trial); it now warns, and the vault still passes."""
    rel = _episode(cli, "2026-11-24-picked", "Cell type annotation of PBMC")
    note = vault / rel
    text = note.read_text()
    start = text.index("created:")
    line = text[:start].count("\n") + 1
    # (an unquoted YAML timestamp with seconds, 2026-11-24T10:42:00, is UTC by YAML's own rule)
    for written in ("2026-11-24T10:42", "'2026-11-24T10:42:00'", '"2026-11-24T10:42"'):
        end = text.index("\n", start)
        note.write_text(text[:start] + f"created: {written}" + text[end:])
        r = cli("check", "--json")
        assert r.code == 0, (written, r.out)
        [problem] = [p for p in r.json()["problems"] if p["path"] == str(rel)]
        assert (problem["line"], problem["severity"]) == (line, "warning")
        assert "no time zone" in problem["message"] and "read as UTC" in problem["message"]
    for written in ("'2026-11-24T10:42:00Z'", "'2026-11-24T10:42:00+01:00'"):
        end = text.index("\n", start)
        note.write_text(text[:start] + f"created: {written}" + text[end:])
        assert [p for p in cli("check", "--json").json()["problems"] if p["path"] == str(rel)] == [], written
