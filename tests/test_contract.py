"""The contract ships in the repo (issue 17 item 10): every ``--json`` shape has a JSON Schema in
docs/schema/, named in docs/json.md, and each command's output on a demo-like vault validates
against it. The validator is a small one here (the Draft 2020-12 keywords the schemas use), so
the contract needs no dependency; where jsonschema is installed (the dev extra brings it with
mcp), the schemas are also checked as Draft 2020-12 and the outputs validated by it too."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO, Cli, git

SCHEMAS = REPO / "docs" / "schema"
SAMPLES = REPO / "examples" / "sample_episodes.jsonl"
TRANSCRIPT = REPO / "tests" / "data" / "transcripts" / "04_bulk_rnaseq_deseq2.json"

#: every command that takes --json -> the schema of what it prints
SHAPES = {
    "check": "check.json", "clone": "clone.json", "dataset add": "dataset.json", "dataset list": "dataset-list.json",
    "dataset refresh": "dataset-refresh.json", "dataset remove": "dataset-remove.json",
    "dataset show": "dataset-show.json", "entity import": "entity-import.json", "entity merge": "entity-merge.json",
    "fact import": "fact-import.json", "fact unsource": "fact.json", "compress": "compress.json",
    "context": "context.json",
    "doctor": "doctor.json", "entity alias": "entity-alias.json", "entity show": "entity.json",
    "episode add": "episode.json", "episode import": "episode-import.json", "episode list": "episode-list.json",
    "episode related": "episode-related.json", "episode show": "episode.json", "eval": "eval.json",
    "fact add": "fact.json", "fact list": "fact-list.json", "fact query": "fact-query.json",
    "fact retract": "fact.json", "fact supersede": "fact.json", "fact verify": "fact-verify.json",
    "feedback": "feedback.json", "forget": "forget.json", "guide": "guide.json", "index": "index.json",
    "init": "init.json", "lessons": "lessons.json", "lessons promote": "lessons-promote.json",
    "lessons refresh": "lessons-refresh.json", "log": "log.json", "recall": "recall.json",
    "restore": "restore.json", "sync": "sync.json", "vocabulary accept": "vocabulary-accept.json",
    "vocabulary check": "vocabulary-check.json", "vocabulary show": "vocabulary-show.json",
    "vocabulary suggest": "vocabulary-suggest.json", "vocabulary remove": "vocabulary-remove.json",
}
#: schemas of a second form of a command's output (index --check, vocabulary show without TEXT,
#: feedback --retract)
SECOND_FORMS = {"index-check.json", "vocabulary-groups.json", "feedback-retract.json"}


# --- a small validator: the keywords docs/schema/ uses ---------------------------------------------

def _load(name: str) -> dict[str, Any]:
    return json.loads((SCHEMAS / name).read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def _resolve(ref: str, base: str) -> tuple[dict[str, Any], str]:
    name, _, pointer = ref.partition("#")
    name = name or base
    node: Any = _load(name)
    for part in [p for p in pointer.split("/") if p]:
        node = node[part]
    return node, name


_TYPES = {"object": dict, "array": list, "string": str, "boolean": bool, "null": type(None)}


def _is(value: Any, kind: str) -> bool:
    if kind == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "number":
        return isinstance(value, int | float) and not isinstance(value, bool)
    return isinstance(value, _TYPES[kind])


def problems(value: Any, schema: dict[str, Any], base: str, where: str = "$") -> list[str]:
    """Where ``value`` breaks ``schema`` (read from file ``base``), as ``$.path: reason`` lines."""
    if "$ref" in schema:
        target, name = _resolve(schema["$ref"], base)
        return problems(value, target, name, where)
    out: list[str] = []
    kinds = schema.get("type")
    if kinds is not None:
        kinds = [kinds] if isinstance(kinds, str) else kinds
        if not any(_is(value, k) for k in kinds):
            return [f"{where}: {type(value).__name__} is not {'/'.join(kinds)}"]
    if "const" in schema and value != schema["const"]:
        out.append(f"{where}: {value!r} is not {schema['const']!r}")
    if "enum" in schema and value not in schema["enum"]:
        out.append(f"{where}: {value!r} is not one of {schema['enum']}")
    if "minimum" in schema and _is(value, "number") and value < schema["minimum"]:
        out.append(f"{where}: {value} < {schema['minimum']}")
    if "maximum" in schema and _is(value, "number") and value > schema["maximum"]:
        out.append(f"{where}: {value} > {schema['maximum']}")
    if isinstance(value, dict):
        out += [f"{where}: {key!r} is missing" for key in schema.get("required", []) if key not in value]
        props = schema.get("properties", {})
        extra = schema.get("additionalProperties", True)
        for key, item in value.items():
            if key in props:
                out += problems(item, props[key], base, f"{where}.{key}")
            elif extra is False:
                out.append(f"{where}: {key!r} is not allowed")
            elif isinstance(extra, dict):
                out += problems(item, extra, base, f"{where}.{key}")
    if isinstance(value, list) and "items" in schema:
        for i, item in enumerate(value):
            out += problems(item, schema["items"], base, f"{where}[{i}]")
    return out


def _check(output: str, name: str) -> Any:
    data = json.loads(output)
    found = problems(data, _load(name), name)
    assert found == [], f"{name}: " + "; ".join(found[:10])
    try:
        import jsonschema
        from referencing import Registry, Resource
    except ImportError:  # the small validator above has said it already
        return data
    registry: Registry = Registry().with_resources(
        (path.name, Resource.from_contents(json.loads(path.read_text()))) for path in SCHEMAS.glob("*.json"))
    jsonschema.Draft202012Validator(_load(name), registry=registry).validate(data)
    return data


# --- the tests -----------------------------------------------------------------------------------------

def test_every_json_command_has_a_schema_named_in_json_md() -> None:
    from biocortex_cli.cli.app import command

    def walk(cmd: Any, words: tuple[str, ...]) -> list[str]:
        found = [" ".join(words)] if any("--json" in getattr(p, "opts", ()) for p in cmd.params) else []
        for name, sub in sorted(getattr(cmd, "commands", {}).items()):
            found += walk(sub, (*words, name))
        return found

    assert sorted(walk(command(), ())) == sorted(SHAPES)
    shipped = {p.name for p in SCHEMAS.glob("*.json")}
    assert set(SHAPES.values()) | {"error.json"} | SECOND_FORMS == shipped
    text = (REPO / "docs" / "json.md").read_text(encoding="utf-8")
    for name in shipped:
        assert f"(schema/{name})" in text, f"docs/json.md does not link schema/{name}"
        schema = _load(name)
        assert schema["$id"] == name and schema["title"]
    for command_name in SHAPES:
        assert f"`{command_name} --json`" in text, f"docs/json.md does not name `{command_name} --json`"


def test_the_schemas_are_draft_2020_12() -> None:
    jsonschema = pytest.importorskip("jsonschema")
    for path in SCHEMAS.glob("*.json"):
        jsonschema.Draft202012Validator.check_schema(json.loads(path.read_text()))


def test_the_error_form_and_its_codes() -> None:
    from biocortex_cli.errors import CODES

    assert _load("error.json")["properties"]["error"]["properties"]["code"]["enum"] == list(CODES)


def test_every_json_shape_on_a_demo_vault(vault: Path, cli: Cli, tmp_path: Path) -> None:
    def ok(*args: str, stdin: str | None = None) -> str:
        r = cli(*args, "--json", stdin=stdin)
        assert r.code == 0, (args, r.err)
        return r.out

    seen: set[str] = set()

    def shape(words: str, *args: str, stdin: str | None = None) -> Any:
        seen.add(words)
        return _check(ok(*words.split(), *args, stdin=stdin), SHAPES[words])

    shape("init", str(tmp_path / "another"))
    shape("episode import", str(SAMPLES))
    added = shape("episode add", "--task", "Doublets in 10x Multiome PBMC, called per sample",
                  "--tool", "scDblFinder", "--lesson", "Call doublets per sample before merging.", "--success",
                  "--no-suggest")
    shape("episode show", added["id"])
    shape("episode list", "--limit", "5")
    shape("episode related", "2026-03-14-multiome-doublets", "--limit", "3")
    recalled = shape("recall", "what went wrong with doublets in 10x multiome?", "--explain")
    assert recalled["results"] and recalled["explain"]
    shape("recall", "doublets in 10x multiome", "--compact")
    fact = shape("fact add", "TP53", "regulates", "MDM2", "--source", "PMID:8319905", "--confidence", "0.95")
    shape("entity alias", "TP53", "p53")
    shape("fact query", "p53", "--hops", "2")
    shape("fact verify", "TP53", "regulates", "MDM2")
    newer = json.loads(ok("fact", "add", "TP53", "regulates", "CDKN1A", "--source", "PMID:8242752"))
    draft = json.loads(ok("fact", "add", "KEAP1", "activates", "NFE2L2", "--source", "agent:draft"))
    shape("fact retract", draft["id"], "--reason", "draft claim")
    shape("fact supersede", fact["id"], "--by", newer["id"])
    shape("fact list", "--status", "all")
    shape("fact import", str(REPO / "examples" / "curated_facts.tsv"))
    sourced = json.loads(ok("fact", "add", "TP53", "binds", "MDM2", "--source", "PMID:8319905", "--source",
                            "agent:draft"))
    shape("fact unsource", sourced["id"], "agent:draft")
    aliases = tmp_path / "aliases.tsv"
    aliases.write_text("name\talias\nBRD4\tHUNK1\n", encoding="utf-8")
    shape("entity import", str(aliases))
    ok("fact", "add", "NRF2", "activates", "HMOX1", "--source", "PMID:1")
    shape("entity merge", "NFE2L2", "NRF2")
    shape("dataset add", str(REPO / "examples" / "datasets" / "regulation_sample.tsv"), "--name", "regulation-sample",
          "--version", "1", "--licence", "CC0-1.0", "--map", "subject=TF", "--map", "object=Target", "--map",
          "predicate=Regulation", "--map", "publications=Reference", "--predicate-map", "Activation=activates",
          "--predicate-map", "Repression=inhibits", "--qualifier", "taxon=9606")
    shape("dataset list")
    shape("dataset show", "regulation-sample")
    shape("dataset refresh")
    shape("entity show", "TP53")
    shape("context", "KEAP1 knockout RNA-seq: what went wrong before?", "--conversation", str(TRANSCRIPT),
          "--budget", "2500")
    shape("compress", str(TRANSCRIPT), "--budget", "3400")
    shape("feedback", recalled["recall_id"], "--outcome", "success", "--helpful", recalled["results"][0]["id"])
    _check(ok("feedback", recalled["recall_id"], "--retract", "--json"), "feedback-retract.json")
    clusters = shape("lessons", "--limit", "3")
    shape("lessons promote", clusters["clusters"][0]["id"])
    shape("lessons refresh")
    forgotten = shape("forget", "--older-than", "400d", "--quality-below", "0.4")
    shape("restore", forgotten["episodes"][0]["id"])
    shape("guide")
    shape("index")
    seen.add("index")
    _check(ok("index", "--check"), "index-check.json")
    shape("check")
    shape("doctor")
    shape("log", "--since", "1d")
    shape("vocabulary suggest", "--min-support", "1", "--limit", "0")
    shape("vocabulary accept", "doublet | multiplet", "CRISPR screen | knockout screen")
    shape("vocabulary remove", "knockout screen | CRISPR screen")
    shape("vocabulary show", "doublets in multiome")
    _check(ok("vocabulary", "show"), "vocabulary-groups.json")
    shape("vocabulary check")
    shape("eval", str(REPO / "tests" / "data" / "eval_small"), "--k", "3")
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(vault), str(remote)], check=True)
    git(vault, "remote", "add", "origin", str(remote))
    shape("sync")
    shape("clone", str(remote), str(tmp_path / "clone"))
    shape("dataset remove", "regulation-sample", "--reason", "superseded")
    assert seen == set(SHAPES)
    r = cli("episode", "show", "no-such-episode", "--json")
    assert r.code == 1 and r.out == ""
    _check(r.err.strip().splitlines()[-1], "error.json")


def test_spec_references_point_to_the_shipped_contract() -> None:
    """README, docs, benchmarks' READMEs and --help name documents that ship, never "SPEC §…": no
    such document is in the repo."""
    texts = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md")), *sorted((REPO / "biocortex_cli").rglob("*.py")),
             *sorted((REPO / "benchmarks").rglob("README.md")), *sorted((REPO / "vault_template").rglob("*.md"))]
    stale = [f"{p.relative_to(REPO)}:{n}" for p in texts
             for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if re.search(r"\bSPEC\b", line)]
    assert stale == []
