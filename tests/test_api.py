"""The library API (biocortex_cli/api) as a program calls it, and the episode keys issue 17 found
silently lost: singular keys are read as their fields, unknown ones are warned about at write time
and, when likely misspelt, by ``check``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from biocortex_cli.errors import UsageError
from tests.conftest import Cli, git

TASK = "Call peaks in zebrafish fin ATAC-seq with MACS2"


def test_the_api_takes_keywords_and_returns_what_the_command_prints(vault: Path, cli: Cli) -> None:
    from biocortex_cli.api.episodes import episode_add, episode_list
    from biocortex_cli.api.facts import fact_add, fact_verify
    from biocortex_cli.api.recall import recall
    from biocortex_cli.store.vault import find_vault

    v = find_vault(str(vault))
    ep = episode_add(v, author=v.author(), task=TASK, tools=["MACS2"], success=True, id="zf-peaks")
    added = fact_add(v, subject="TP53", predicate="regulates", object="MDM2", source=["PMID:8319905"],
                     author=v.author())
    assert ep.id == "zf-peaks" and added.merged is False and added.as_json()["notes"] == []
    assert fact_verify(v, subject="TP53", predicate="regulates", object="MDM2").exit_code == 0
    assert episode_list(v, tool="macs2").as_json() == cli("episode", "list", "--tool", "macs2", "--json").json()
    recalled = recall(v, query="zebrafish ATAC-seq peaks", budget=600)
    assert recalled.result.results[0].id == "zf-peaks" and recalled.as_json()["budget"] == 600


@pytest.mark.parametrize(("call", "message"), [
    ("fact_query", "--hops must be a number from 1 to 5, not 9"),
    ("recall", "--top-k must be at least 1, not 0"),
    ("episode_list", "--limit must be at least 1, not 0"),
])
def test_ranges_are_checked_for_library_callers_too(vault: Path, call: str, message: str) -> None:
    from biocortex_cli.api import episodes, facts, recall
    from biocortex_cli.store.vault import find_vault

    v = find_vault(str(vault))
    calls = {"fact_query": lambda: facts.fact_query(v, entity="TP53", hops=9),
             "recall": lambda: recall.recall(v, query="doublets", top_k=0),
             "episode_list": lambda: episodes.episode_list(v, limit=0)}
    with pytest.raises(UsageError) as raised:
        calls[call]()
    assert raised.value.message == message


def test_singular_keys_from_json_are_the_plural_fields(vault: Path, cli: Cli, tmp_path: Path) -> None:
    """Issue 17: {"tool": [...], "lesson": [...]} was stored as unknown fields, not indexed."""
    src = tmp_path / "ep.json"
    src.write_text(json.dumps({"task": TASK, "tool": ["MACS2"], "lesson": ["Use --nomodel for ATAC-seq"],
                               "domain": ["ATAC-seq"], "entity": ["fn1a"], "success": True}), encoding="utf-8")
    r = cli("episode", "add", "--from-json", src, "--json", "--no-suggest")
    assert r.code == 0 and "warning" not in r.err
    data = r.json()
    assert data["tools"] == ["MACS2"] and data["lessons"] == ["Use --nomodel for ATAC-seq"]
    assert data["domains"] == ["ATAC-seq"] and data["entities"][0] == "fn1a"
    assert not {"tool", "lesson", "domain", "entity"} & set(data)
    assert [e["id"] for e in cli("episode", "list", "--tool", "MACS2", "--json").json()] == [data["id"]]
    assert cli("recall", "MACS2 ATAC-seq peaks", "--json").json()["results"][0]["id"] == data["id"]


def test_singular_keys_in_an_import_are_the_plural_fields(vault: Path, cli: Cli) -> None:
    line = json.dumps({"task": TASK, "id": "zf-import", "tool": ["MACS2"], "lesson": ["Use --nomodel for ATAC-seq"]})
    r = cli("episode", "import", "-", stdin=line + "\n")
    assert r.code == 0 and "warning" not in r.err
    data = cli("episode", "show", "zf-import", "--json").json()
    assert data["tools"] == ["MACS2"] and data["lessons"] == ["Use --nomodel for ATAC-seq"] and "tool" not in data
    assert [e["id"] for e in cli("episode", "list", "--tool", "macs2", "--json").json()] == ["zf-import"]


def test_options_override_a_singular_key_of_the_json(vault: Path, cli: Cli, tmp_path: Path) -> None:
    src = tmp_path / "ep.json"
    src.write_text(json.dumps({"task": TASK, "tool": ["MACS2"]}), encoding="utf-8")
    r = cli("episode", "add", "--from-json", src, "--tool", "Genrich", "--json", "--no-suggest")
    assert r.code == 0 and r.json()["tools"] == ["Genrich"]


def test_a_key_given_both_ways_is_refused_and_nothing_written(vault: Path, cli: Cli) -> None:
    before = git(vault, "rev-parse", "HEAD")
    r = cli("episode", "add", "--from-json", "-", "--json", stdin=json.dumps({"task": TASK, "tool": ["a"],
                                                                              "tools": ["b"]}))
    assert r.code == 1 and "both 'tools' and 'tool' are given" in r.err
    line = json.dumps({"task": TASK, "lesson": ["x"], "lessons": ["y"]})
    r = cli("episode", "import", "-", stdin=line + "\n")
    assert r.code == 1 and "<stdin>:1:" in r.err and "nothing was imported" in r.err
    assert git(vault, "rev-parse", "HEAD") == before


def test_unknown_fields_are_kept_and_warned_about_naming_the_likely_one(vault: Path, cli: Cli) -> None:
    r = cli("episode", "add", "--from-json", "-", "--no-suggest",
            stdin=json.dumps({"task": TASK, "lesons": ["Use --nomodel"], "organism": "zebrafish"}))
    assert r.code == 0
    assert ("biocortex: warning: <stdin>: the episode has the field 'lesons', which biocortex does not know: "
            "kept in the note, not searched; did you mean 'lessons'?") in r.err
    assert "the field 'organism', which biocortex does not know: kept in the note, not searched\n" in r.err
    assert cli("episode", "show", r.out.strip(), "--json").json()["organism"] == "zebrafish"  # kept (vault-format.md)
    lines = "".join(json.dumps({"task": f"{TASK} {i}", "organism": "zebrafish", "sucess": True}) + "\n"
                    for i in range(3))
    r = cli("episode", "import", "-", stdin=lines)
    assert r.code == 0 and r.out.strip() == "3"
    assert "<stdin>: 3 of 3 episodes have the field 'sucess', which biocortex does not know" in r.err
    assert "did you mean 'success'?" in r.err and r.err.count("'organism'") == 1


def test_check_warns_about_a_likely_misspelt_field_and_still_passes(vault: Path, cli: Cli) -> None:
    assert cli("episode", "add", "--task", TASK, "--id", "zf", "--no-suggest").code == 0
    note = next((vault / "episodes").rglob("zf.md"))
    text = note.read_text(encoding="utf-8")
    note.write_text(text.replace("task:", "tool:\n- MACS2\norganism: zebrafish\ntask:", 1), encoding="utf-8")
    r = cli("check")
    rel = note.relative_to(vault).as_posix()
    assert r.code == 0, r.out + r.err
    assert f"{rel}:6: warning: unknown field 'tool': did you mean 'tools'?" in r.out
    assert "organism" not in r.out  # a field of the lab's own is not a mistake
    assert "0 problems, 1 warning" in r.err
    data = cli("check", "--json").json()
    assert data["ok"] is True and [p["severity"] for p in data["problems"]] == ["warning"]
    assert not [f for f in cli("doctor", "--json").json()["findings"] if f["check"] == "notes"]


def test_the_api_s_docstring_lists_every_function() -> None:
    import importlib
    import inspect

    import biocortex_cli.api as api

    missing = []
    for name in ("episodes", "recall", "facts", "datasets", "lessons", "vault", "vocabulary"):
        module = importlib.import_module(f"biocortex_cli.api.{name}")
        for fn_name, fn in inspect.getmembers(module, inspect.isfunction):
            if fn.__module__ == module.__name__ and not fn_name.startswith("_") and f"``{fn_name}``" not in (
                    api.__doc__ or ""):
                missing.append(f"{name}.{fn_name}")
    assert missing == []
