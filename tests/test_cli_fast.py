"""The typer-free fast path must accept exactly what the typer app accepts, and answer the same."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import Cli

from biocortex_cli.cli import fast


def _typer_command(words: tuple[str, ...]):  # type: ignore[no-untyped-def]
    import typer.main

    from biocortex_cli.cli.app import app

    cmd = typer.main.get_command(app)
    for word in words:
        cmd = cmd.commands[word]  # type: ignore[attr-defined]
    return cmd


@pytest.mark.parametrize("words", sorted(fast.SPECS))
def test_spec_matches_the_typer_command(words: tuple[str, ...]) -> None:
    spec = fast.SPECS[words]
    cmd = _typer_command(words)
    arguments = [p.name for p in cmd.params if p.param_type_name == "argument"]
    assert tuple(arguments) == spec.positionals
    typer_options: dict[str, str] = {}
    for p in cmd.params:
        if p.param_type_name == "option":
            for opt in [*p.opts, *p.secondary_opts]:
                if opt.startswith("--") and opt != "--help":
                    typer_options[opt] = p.name
    assert {o: spec.options[o][0] for o in spec.options} == typer_options
    for p in cmd.params:
        lo, hi = getattr(p.type, "min", None), getattr(p.type, "max", None)
        if lo is not None:
            assert spec.minimum.get(p.name) == lo, p.name
        if hi is not None:
            assert spec.maximum.get(p.name) == hi, p.name


def test_fast_and_typer_paths_answer_the_same(vault: Path, cli: Cli, capsys: pytest.CaptureFixture[str]) -> None:
    from biocortex_cli.cli import app

    assert cli("fact", "add", "TP53", "regulates", "MDM2", "--source", "PMID:8319905").code == 0
    assert cli("episode", "add", "--task", "TP53 ChIP-seq peaks", "--id", "chip").code == 0
    for argv in (["fact", "query", "TP53", "--json"], ["fact", "verify", "TP53", "regulates", "MDM2"],
                 ["fact", "query", "TP53", "--hops", "2", "--limit", "5"], ["episode", "list"],
                 ["recall", "TP53 ChIP-seq", "--json"], ["log"], ["log", "--since", "2d", "--json"],
                 ["episode", "show", "chip"], ["episode", "show", "chip", "--json"]):
        assert fast.parse(argv) is not None, argv
        fast_result = cli(*argv)
        capsys.readouterr()
        code = app.run([*argv])
        typer_out = capsys.readouterr().out
        assert (fast_result.code, fast_result.out) == (code, typer_out), argv


@pytest.mark.parametrize("argv", [
    ["fact", "query", "TP53", "--help"],
    ["fact", "verify", "TP53", "regulates"], ["fact", "query", "TP53", "--limit", "x"],
])
def test_anything_unusual_goes_to_typer(argv: list[str]) -> None:
    assert fast.parse(argv) is None


@pytest.mark.parametrize("argv", [
    ["fact", "query", "TP53", "--hops", "9"], ["fact", "verify", "TP53", "regulates", "MDM2", "--min-confidence", "2"],
    ["recall", "doublets", "--top-k", "0"], ["episode", "list", "--limit", "0"],
])
def test_a_value_out_of_range_gets_the_api_s_one_message_on_both_paths(
        vault: Path, cli: Cli, capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    """Ranges are checked once, by the library API (biocortex_cli/api/checks.py), whichever parser ran."""
    from biocortex_cli.cli import app

    assert fast.parse(argv) is not None
    fast_result = cli(*argv)
    capsys.readouterr()
    code = app.run([*argv])
    typer_err = capsys.readouterr().err
    assert fast_result.code == code == 2
    assert fast_result.err == typer_err and "must be" in typer_err
