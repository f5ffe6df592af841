"""Documents and help that must not drift from the code."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from biocortex_cli.cli.docs import DOCUMENTS
from biocortex_cli.store.config import SECTIONS, Config, parse_config

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("rel", sorted(DOCUMENTS))
def test_generated_documents_are_current(rel: str) -> None:
    committed = (ROOT / rel).read_text(encoding="utf-8")
    assert committed == DOCUMENTS[rel](), f"{rel} is stale: run `python -m biocortex_cli.cli.docs`"


def test_template_config_holds_every_setting_at_its_default() -> None:
    import yaml

    data = yaml.safe_load((ROOT / "vault_template/.biocortex/config.yaml").read_text())
    config = parse_config(data)
    defaults = Config()
    for name, cls in SECTIONS.items():
        assert set(data[name]) == set(cls._fields), name
        assert getattr(config, name) == getattr(defaults, name), name


def _commands() -> list[tuple[str, object]]:
    from biocortex_cli.cli.app import command

    root = command()
    out: list[tuple[str, object]] = []

    def walk(prefix: str, cmd: object) -> None:
        out.append((prefix, cmd))
        for name, sub in sorted(getattr(cmd, "commands", {}).items()):
            walk(f"{prefix} {name}".strip(), sub)

    walk("", root)
    return out


def test_every_command_and_option_has_help() -> None:
    missing = []
    for name, cmd in _commands():
        if name and not (getattr(cmd, "help", None) or "").strip():
            missing.append(f"command '{name}'")
        for param in getattr(cmd, "params", []):
            if param.param_type_name == "option" and not (param.help or "").strip():
                missing.append(f"option {'/'.join(param.opts)} of '{name or 'biocortex'}'")
            if param.param_type_name == "argument" and not (getattr(param, "help", None) or "").strip():
                missing.append(f"argument {param.name} of '{name}'")
    assert not missing, missing


@pytest.mark.parametrize("argv", [["--help"], ["episode", "--help"], ["recall", "--help"], ["init", "--help"]])
def test_help_goes_to_stdout_and_exits_0(cli, argv: list[str]) -> None:  # type: ignore[no-untyped-def]
    r = cli(*argv)
    assert r.code == 0 and "Usage:" in r.out


def test_agent_guide_stays_under_600_tokens_and_is_printed(cli, vault: Path) -> None:  # type: ignore[no-untyped-def]
    from biocortex_cli.tokens import get_counter

    text = (ROOT / "vault_template/AGENTS.md").read_text(encoding="utf-8")
    assert get_counter("cl100k_base").count(text) < 600
    assert (vault / "AGENTS.md").read_text(encoding="utf-8") == text  # init ships it
    r = cli("guide")
    assert r.code == 0 and r.out == text + ("" if text.endswith("\n") else "\n")
    data = cli("guide", "--json").json()
    assert data["tokens"] < 600 and "biocortex recall" in data["text"] and "episode add" in data["text"]


def test_help_placeholders_follow_one_convention(cli) -> None:  # type: ignore[no-untyped-def]
    """Upper case everywhere: QUERY, [FILE], --top-k N, --min-relevance X, --task TASK — never typer's
    {query} or click's <int>, <float range> (docs/cli.md says the convention)."""
    for name, cmd in _commands():
        for param in getattr(cmd, "params", []):
            if param.param_type_name == "argument" or not (param.is_flag or param.count):
                assert param.metavar and param.metavar == param.metavar.upper(), (name, param.name)
        r = cli(*name.split(), "--help")
        usage = r.out.split("\n", 1)[0]
        assert r.code == 0 and not re.search(r"(?:^|\s)(?:<[a-z][a-z ]*>|\{[a-z_]+\})", r.out), (name, r.out)
        required = [p.metavar for p in getattr(cmd, "params", []) if p.param_type_name == "argument" and p.required]
        assert all(f" {m}" in usage for m in required), usage


def _shell(script: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run ``biocortex`` from bash, as a person would (bash stays the parent: `; true`)."""
    shim = f'biocortex() {{ "{sys.executable}" -m biocortex_cli "$@"; }}\n'
    return subprocess.run(["bash", "-c", shim + script + "; true"], capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, timeout=60, check=False)


def test_shell_completion_completes_commands_and_options() -> None:
    words = {"biocortex epi": "episode", "biocortex episode li": "list", "biocortex recall --to": "--top-k"}
    for line, expected in words.items():
        r = _shell("biocortex", {"_BIOCORTEX_COMPLETE": "complete_bash", "COMP_WORDS": line,
                                 "COMP_CWORD": str(len(line.split()) - 1)})
        assert expected in r.stdout.split(), (line, r.stdout, r.stderr)
    for shell in ("bash", "zsh", "fish"):
        script = _shell("biocortex", {"_BIOCORTEX_COMPLETE": f"source_{shell}"})
        assert "_BIOCORTEX_COMPLETE" in script.stdout, script.stderr


def test_install_and_show_completion_work_from_a_shell(isolated_env: Path) -> None:
    shown = _shell("biocortex --show-completion")
    assert "_biocortex_completion" in shown.stdout and "complete_bash" in shown.stdout, shown.stderr
    installed = _shell("biocortex --install-completion; echo \"exit=$?\"")
    assert "exit=0" in installed.stdout, installed.stdout + installed.stderr
    assert "biocortex" in (isolated_env / ".bashrc").read_text(encoding="utf-8")



def test_the_package_says_its_licence_and_platforms(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """MIT, with the LICENSE text in the wheel, and POSIX only (the write lock is flock) in the README
    and the classifiers. The same wheel holds the package's data and the vault template (install trial)."""
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert 'license = "MIT"' in pyproject
    assert (ROOT / "LICENSE").read_text(encoding="utf-8").startswith("MIT License\n")
    assert "\"Operating System :: POSIX\"" in pyproject and "Microsoft :: Windows" not in pyproject
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "POSIX only" in readme and "flock" in readme
    backend = pytest.importorskip("hatchling.build")  # the build backend (PEP 517), when it is installed
    monkeypatch.chdir(ROOT)
    built = backend.build_wheel(str(tmp_path))
    import zipfile

    with zipfile.ZipFile(tmp_path / built) as zf:
        names = zf.namelist()
        assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names), names
    # and what the package reads at run time from its own folder, so it works installed, away from the repository
    shipped = {f"biocortex_cli/{p.relative_to(ROOT / 'biocortex_cli').as_posix()}"
               for p in (ROOT / "biocortex_cli/data").iterdir() if p.is_file()}
    shipped |= {f"biocortex_cli/{p.relative_to(ROOT).as_posix()}" for p in (ROOT / "vault_template").rglob("*")
                if p.is_file()}
    assert {"biocortex_cli/data/vocabulary.sqlite", "biocortex_cli/data/cl100k_base.tiktoken",
            "biocortex_cli/vault_template/AGENTS.md"} <= shipped
    assert shipped <= set(names), sorted(shipped - set(names))


def test_every_environment_variable_the_code_reads_is_documented() -> None:
    from biocortex_cli.cli.docs import ENVIRONMENT

    read = re.compile(r'environ\.get\(\s*"(BIOCORTEX_\w+)"|environ\[\s*"(BIOCORTEX_\w+)"\s*\]'
                      r'|getenv\(\s*"(BIOCORTEX_\w+)"|^\w+_ENV\s*=\s*"(BIOCORTEX_\w+)"', re.MULTILINE)
    found = {name for path in (ROOT / "biocortex_cli").rglob("*.py")
             for match in read.finditer(path.read_text(encoding="utf-8")) for name in match.groups() if name}
    assert found == set(ENVIRONMENT), "document it in biocortex_cli/cli/docs.py ENVIRONMENT"


def _shell_lines(block: str) -> list[str]:
    """The commands of a ```sh block: continuation lines joined."""
    return [c.strip() for c in block.replace("\\\n", " ").splitlines() if c.strip()]


def test_the_readme_use_block_runs_as_written(isolated_env: Path, tmp_path: Path) -> None:
    """README's "Use" block, command by command, in bash, with the user's own files taken from the repository
    (past_analyses.jsonl: the sample episodes; chat.json: a transcript). Every command exits 0 but
    `fact verify` of a claim memory does not hold (4, as its comment says). Install trial: `episode show` and
    `feedback --helpful` named ids no vault holds (exit 1)."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"## Use\n\n```sh\n(.*?)```", text, re.S)
    assert block is not None
    files = {"past_analyses.jsonl": ROOT / "examples/sample_episodes.jsonl",
             "chat.json": ROOT / "tests/data/transcripts/04_bulk_rnaseq_deseq2.json"}
    commands = _shell_lines(block.group(1))
    script = f'biocortex() {{ "{sys.executable}" -m biocortex_cli "$@"; }}\n'
    for i, command in enumerate(commands):
        for name, path in files.items():
            command = command.replace(name, str(path))
        script += f'{command}\necho "exit=$? {i}" >&2\n'
    run = subprocess.run(["bash", "-c", script], cwd=tmp_path, capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=300, check=False)
    codes = {commands[int(i)]: int(code) for code, i in re.findall(r"^exit=(\d+) (\d+)$", run.stderr, re.M)}
    assert len(codes) == len(commands), run.stderr
    expected = {c: 4 if c.startswith("biocortex fact verify") else 0 for c in commands}
    assert codes == expected, run.stderr


def test_the_sdist_holds_what_make_test_and_make_lint_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An unpacked sdist runs `make test` and `make lint`: every folder they read ships, scripts/ included (the
    builders of the shipped vocabulary and secret rules, which tests load and mypy checks). Install trial: the
    sdist had no scripts/."""
    import tarfile

    backend = pytest.importorskip("hatchling.build")
    monkeypatch.chdir(ROOT)
    built = backend.build_sdist(str(tmp_path))
    with tarfile.open(tmp_path / built) as tf:
        names = {n.split("/", 1)[1] for n in tf.getnames() if "/" in n}
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    linted = re.search(r"ruff check (.+)", makefile)
    assert linted is not None
    for folder in linted.group(1).split():  # the Python files ruff and mypy read
        sources = {p.relative_to(ROOT).as_posix() for p in (ROOT / folder).rglob("*.py") if "out" not in p.parts}
        assert sources and sources <= names, (folder, sorted(sources - names)[:5])


def _anchors(text: str) -> set[str]:
    """The anchors a markdown file offers: its headings as GitHub slugs them, and `<a id="…">`."""
    headings = {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-")
                for h in re.findall(r"^#+ (.*)$", text, re.MULTILINE)}
    return headings | set(re.findall(r'<a id="([^"]+)">', text))


def test_every_link_between_the_documents_reaches_a_file_and_its_anchor() -> None:
    """A reader follows `[docs/json.md, recall](json.md#recall)` literally. Docs trial: recall.md and agents.md
    linked to anchors json.md did not have."""
    files = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    broken = []
    for path in files:
        for target, anchor in re.findall(r"\]\(([^)#\s:]*)(?:#([^)\s]+))?\)", path.read_text(encoding="utf-8")):
            linked = (path.parent / target).resolve() if target else path
            if not linked.exists():
                broken.append(f"{path.name}: {target}")
            elif anchor and linked.suffix == ".md" and anchor not in _anchors(linked.read_text(encoding="utf-8")):
                broken.append(f"{path.name}: {target}#{anchor}")
    assert not broken, broken


def test_the_facts_block_runs_as_written(isolated_env: Path, tmp_path: Path) -> None:
    """docs/facts.md's opening block, command by command, in bash, in a new vault. Its placeholders are filled
    the way a reader would: `trrust.tsv …` is a small TRRUST-like file (which also gives NRF2 and NFE2L2 notes
    of their own, for the merge), `hgnc_aliases.tsv` a file of aliases, and ID, OLD_ID and NEW_ID the ids that
    `fact add` prints. Every command exits 0 but `fact verify` of a claim memory does not hold (4)."""
    text = (ROOT / "docs/facts.md").read_text(encoding="utf-8")
    block = re.search(r"```sh\n(.*?)```", text, re.S)
    assert block is not None
    (tmp_path / "trrust.tsv").write_text("NFE2L2\tHMOX1\tActivation\tPMID:10473555\n"
                                         "NRF2\tNQO1\tActivation\tPMID:9240432\n", encoding="utf-8")
    (tmp_path / "hgnc_aliases.tsv").write_text("name\talias\nHMOX1\tHO-1\n", encoding="utf-8")
    ids = {"ID": "biocortex fact add TP53 regulates MDM2 --source agent:misread",
           "OLD_ID": "biocortex fact add p53 regulates CDKN1A --source PMID:8242752",
           "NEW_ID": "biocortex fact add TP53 activates CDKN1A --source PMID:8242752"}
    commands = [re.sub(r"\s+#.*$", "", c) for c in _shell_lines(block.group(1))]
    script = f'biocortex() {{ "{sys.executable}" -m biocortex_cli "$@"; }}\nbiocortex init vault >/dev/null\ncd vault\n'
    for i, command in enumerate(commands):
        command = command.replace(" …", "").replace("trrust.tsv", f"{tmp_path}/trrust.tsv")
        command = command.replace("hgnc_aliases.tsv", f"{tmp_path}/hgnc_aliases.tsv")
        for name, add in ids.items():
            if re.search(rf"\b{name}\b", command):
                script += f"{name}=$({add})\n"
                command = re.sub(rf"\b{name}\b", f"${name}", command)
        script += f'{command}\necho "exit=$? {i}" >&2\n'
    run = subprocess.run(["bash", "-c", script], cwd=tmp_path, capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=300, check=False)
    codes = {commands[int(i)]: int(code) for code, i in re.findall(r"^exit=(\d+) (\d+)$", run.stderr, re.M)}
    assert codes == {c: 4 if c.startswith("biocortex fact verify") else 0 for c in commands}, run.stderr
    log = subprocess.run(["git", "log", "--format=%s"], cwd=tmp_path / "vault", capture_output=True, text=True,
                         check=True).stdout
    for subject in ("entity: alias TP53 — p53", "fact: import 2 facts", "fact: unsource ", "fact: retract ",
                    "fact: supersede ", "entity: merge NRF2 into NFE2L2", "entity: import 1 aliases"):
        assert subject in log, (subject, log)
