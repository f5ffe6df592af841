"""The vault as Obsidian sees it: parsed with obsidiantools (an Obsidian-vault reader from PyPI,
a test-only dependency), the link graph, properties, colour groups, Home.md tables, templates."""

from __future__ import annotations

import datetime as dt
import json
import re
from pathlib import Path

import pytest
import yaml

from biocortex_cli.store.entity_notes import file_stem
from tests.conftest import REPO, BuiltVaults, Cli

SAMPLE = REPO / "examples" / "sample_episodes.jsonl"
TEMPLATE = REPO / "vault_template"
FOLDERS = ("episodes", "facts", "entities", "lessons", "datasets", "archive")


@pytest.fixture
def demo(vault: Path, cli: Cli, built_vaults: BuiltVaults) -> Path:
    """Like `make demo`: the sample episodes, a few facts and an alias (built once per process)."""

    def build() -> None:
        assert cli("episode", "import", SAMPLE).code == 0
        assert cli("entity", "alias", "TP53", "p53").code == 0
        for triple in (("TP53", "activates", "CDKN1A"), ("p53", "regulates", "MDM2"),
                       ("KRAS", "interacts_with", "SOS1")):
            assert cli("fact", "add", *triple, "--source", "PMID:1").code == 0

    return built_vaults.get("obsidian-demo", vault, build)


def test_obsidian_reads_the_expected_link_graph(demo: Path) -> None:
    otools = pytest.importorskip("obsidiantools.api")
    ov = otools.Vault(demo).connect().gather()
    notes = {name: demo / path for name, path in ov.md_file_index.items()}
    kind = {name: (ov.front_matter_index.get(name) or {}).get("type") for name in notes
            if notes[name].parent.name != "templates"}
    entities = {name for name, k in kind.items() if k == "entity"}
    assert all(notes[name].parent.name == "entities" for name in entities)
    episodes = [name for name, k in kind.items() if k == "episode"]
    facts = [name for name, k in kind.items() if k == "fact"]
    assert len(episodes) == sum(1 for line in SAMPLE.read_text().splitlines() if line.strip())
    assert len(facts) == 3

    related = 0
    for name in episodes:  # each episode links to the entity notes of its `entities`, and related episodes
        meta = ov.front_matter_index[name]
        # one entity note per name ignoring case (TOX and Tox link to one file, as Obsidian resolves them)
        linked = {file_stem(e).casefold() for e in meta["entities"]}
        links = {link.casefold() for link in ov.wikilinks_index[name]}
        assert links == linked | {r.casefold() for r in meta.get("related") or []}, name
        assert linked <= {e.casefold() for e in entities} and set(meta.get("related") or []) <= set(episodes)
        assert set(ov.wikilinks_index[name]) - set(meta.get("related") or []) <= entities  # the exact file names
        related += len(meta.get("related") or [])
    assert related > 0
    for name in facts:  # each fact links to its subject and object, resolved through aliases
        meta = ov.front_matter_index[name]
        assert ov.wikilinks_index[name] == [file_stem(meta["subject"]), file_stem(meta["object"])]
    assert "p53" in ov.front_matter_index["TP53"]["aliases"]
    via_alias = next(n for n in facts if n.startswith("tp53--regulates--mdm2-"))  # added as p53
    assert ov.wikilinks_index[via_alias] == ["TP53", "MDM2"]
    tp53_in = set(ov.backlinks_index["TP53"])
    assert {n for n in facts if n.startswith("tp53--")} <= tp53_in
    assert {n for n in episodes if "TP53" in ov.front_matter_index[n]["entities"]} <= tp53_in
    graph = ov.graph
    assert all(graph.has_edge(e, t) for e in episodes for t in ov.wikilinks_index[e])
    # no broken links, except the placeholders of the templates (hidden from the graph by its filter)
    for missing in ov.nonexistent_notes:
        assert {notes[src].parent.name for src in ov.backlinks_index[missing]} == {"templates"}, missing
    graph_conf = json.loads((demo / ".obsidian/graph.json").read_text())
    assert "-path:templates" in graph_conf["search"]

    # every property has the type .obsidian/types.json declares, so Obsidian and Dataview read it
    types = json.loads((demo / ".obsidian/types.json").read_text())["types"]
    for name in [*episodes, *facts, *entities]:
        for key, value in ov.front_matter_index[name].items():
            if key in types:
                assert VALUE_CHECKS[types[key]](value), (name, key, value)

    # the graph's colour groups: one per memory folder, and every note falls in its folder's group
    groups = [g["query"] for g in graph_conf["colorGroups"]]
    assert sorted(groups) == sorted(f"path:{f}" for f in FOLDERS)
    for name, path in notes.items():
        top = path.relative_to(demo).parts[0]
        if kind.get(name) in ("episode", "fact", "entity", "lesson", "dataset"):
            assert f"path:{top}" in groups, name


def test_home_tables_list_episodes_by_domain_success_and_quality(vault: Path, cli: Cli) -> None:
    assert cli("episode", "import", "-", stdin=SAMPLE.read_text().splitlines()[0]).code == 0
    home = (vault / "Home.md").read_text()
    dataview = re.findall(r"```dataview\n(.*?)```", home, re.S)
    assert any("FLATTEN domains AS domain" in q and "success" in q and "quality" in q for q in dataview)
    base = yaml.safe_load(re.search(r"```base\n(.*?)```", home, re.S).group(1))  # type: ignore[union-attr]
    view = base["views"][0]
    assert {"domains", "success", "quality"} <= set(view["order"])
    assert 'file.inFolder("episodes")' in base["filters"]["and"]
    # the properties the tables read are in every imported episode, with the types they need
    episode = next((vault / "episodes").rglob("20*.md")).read_text()
    meta = yaml.safe_load(episode.split("---\n")[1])
    assert isinstance(meta["domains"], list) and isinstance(meta["success"], bool)
    assert isinstance(meta["quality"], float) and meta["type"] == "episode"


def instantiate(template: str, title: str) -> str:
    """What Obsidian's core Templates plugin does: {{title}}, {{date:FORMAT}} (moment.js)."""
    now = dt.datetime(2026, 11, 23, 9, 30, 5, tzinfo=dt.timezone.utc)

    def date(m: re.Match[str]) -> str:
        fmt = m.group(1)
        for moment, strf in (("YYYY", "%Y"), ("MM", "%m"), ("DD", "%d"), ("HH", "%H"), ("mm", "%M"),
                             ("ss", "%S")):
            fmt = fmt.replace(moment, strf)
        return now.strftime(fmt.replace("Z", "")) + ("+00:00" if fmt.endswith("Z") else "")

    return re.sub(r"\{\{date:([^}]+)\}\}", date, template.replace("{{title}}", title))


def test_notes_made_from_the_templates_pass_check(vault: Path, cli: Cli) -> None:
    episode = instantiate((vault / "templates/episode.md").read_text(), "2026-11-23-qc-by-hand")
    episode = (episode.replace('author: ""', 'author: "Ada Lovelace <ada@lab.example>"')
               .replace('task: ""', 'task: "Manual QC of a PBMC run"')
               .replace('result: ""', 'result: "12% low-quality cells removed"'))
    (vault / "episodes/2026/11").mkdir(parents=True)
    (vault / "episodes/2026/11/2026-11-23-qc-by-hand.md").write_text(episode)
    assert cli("fact", "add", "TP53", "activates", "CDKN1A", "--source", "PMID:1").code == 0
    fact = instantiate((vault / "templates/fact.md").read_text(), "tp53-activates-mdm2-by-hand")
    fact = (fact.replace('author: ""', 'author: "Ada Lovelace <ada@lab.example>"')
            .replace('subject: ""', "subject: TP53").replace('predicate: ""', "predicate: activates")
            .replace('object: ""', "object: CDKN1A").replace("source: []", "source: [PMID:8242752]")
            .replace("[[Subject]] predicate [[Object]]", "[[TP53]] activates [[CDKN1A]]"))
    (vault / "facts/tp53").mkdir(parents=True, exist_ok=True)
    (vault / "facts/tp53/tp53-activates-mdm2-by-hand.md").write_text(fact)
    result = cli("check")
    assert result.code == 0, result.out + result.err
    shown = cli("episode", "show", "2026-11-23-qc-by-hand", "--json").json()
    assert shown["task"] == "Manual QC of a PBMC run" and shown["success"] is True


#: frontmatter keys whose values are maps or lists of maps: Obsidian has no property type for them
#: (it shows them as YAML), so types.json leaves them out
MAPS = {"provenance", "evidence", "retracted", "qualifiers", "reopened", "columns", "predicates", "removed"}
VALUE_CHECKS = {
    "text": lambda v: isinstance(v, str),
    "multitext": lambda v: isinstance(v, list) and all(isinstance(x, str) for x in v),
    "aliases": lambda v: isinstance(v, list) and all(isinstance(x, str) for x in v),
    "checkbox": lambda v: isinstance(v, bool),
    "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
    "datetime": lambda v: isinstance(v, dt.datetime) or (isinstance(v, str) and bool(dt.datetime.fromisoformat(
        v.replace("Z", "+00:00")))),
}


def _frontmatter(path: Path) -> dict[str, object]:
    text = path.read_text(encoding="utf-8")
    return yaml.safe_load(text.split("---\n", 2)[1]) or {} if text.startswith("---\n") else {}


def test_types_json_types_every_key_the_tool_writes(demo: Path, cli: Cli) -> None:
    """Drive every writer (episodes with provenance and related episodes, facts added, merged,
    retracted and superseded, entity aliases, a promoted lesson, forget and restore) and compare
    the keys of the notes it wrote with .obsidian/types.json."""
    added = cli("episode", "add", "--task", "Doublet removal in PBMC with scDblFinder", "--tool", "scDblFinder",
                "--domain", "scRNA-seq", "--result", "r", "--success", "--quality", "0.7", "--lesson", "l",
                "--entity", "CD14", "--plan", "p", "--link-related", "2", "--no-suggest")
    assert added.code == 0, added.err
    with_provenance = '{"task": "Bulk RNA-seq", "provenance": {"commit": "abc1234", "data": ["GSE1"]}}'
    assert cli("episode", "add", "--from-json", "-", stdin=with_provenance).code == 0
    first = cli("fact", "add", "KEAP1", "inhibits", "NFE2L2", "--source", "PMID:9887101").out.strip()
    assert cli("fact", "add", "KEAP1", "inhibits", "NFE2L2", "--source", "PMID:2", "--confidence", "0.6").code == 0
    wrong = cli("fact", "add", "KEAP1", "activates", "NFE2L2", "--source", "agent:draft").out.strip()
    assert cli("fact", "retract", wrong, "--reason", "draft").code == 0
    assert cli("fact", "add", "KEAP1", "activates", "NFE2L2", "--source", "PMID:4", "--reopen").code == 0
    assert cli("fact", "add", "Myc", "activates", "Cdk4", "--source", "PMID:5", "--taxon", "mouse").code == 0
    assert cli("fact", "add", "NRF2", "activates", "HMOX1", "--source", "PMID:6").code == 0
    assert cli("entity", "merge", "NFE2L2", "NRF2").code == 0
    newer = cli("fact", "add", "KEAP1", "ubiquitinates", "NFE2L2", "--source", "PMID:3").out.strip()
    assert cli("fact", "supersede", first, "--by", newer).code == 0
    cluster = cli("lessons", "--json").json()["clusters"][0]["id"]
    assert cli("lessons", "promote", cluster).code == 0
    table = demo.parent / "regulation.tsv"
    table.write_text("TF\tTarget\tMode\tPMIDs\nKEAP1\tNFE2L2\tRepression\t9887101\n")
    for name in ("trrust", "kept"):
        assert cli("dataset", "add", table, "--name", name, "--version", "2", "--licence", "CC BY-SA 4.0",
                   "--title", "TRRUST-like", "--url", "https://example.org", "--map", "subject=TF",
                   "--map", "object=Target", "--map", "predicate=Mode", "--map", "publications=PMIDs",
                   "--predicate-map", "Repression=inhibits", "--qualifier", "taxon=9606").code == 0
    table.write_text(table.read_text() + "KEAP1\tTP53\tRepression\t1\n")
    assert cli("dataset", "refresh", "trrust", "--accept-change", "--version", "3").code == 0
    assert cli("dataset", "remove", "trrust", "--reason", "replaced").code == 0
    old = cli("episode", "list", "--json").json()[-1]["id"]
    assert cli("forget", "--older-than", "2000-01-01T00:00Z", "--quality-below", "1").code == 0
    assert cli("restore", old).code in (0, 1)

    types = json.loads((TEMPLATE / ".obsidian/types.json").read_text(encoding="utf-8"))["types"]
    assert (demo / ".obsidian/types.json").read_text(encoding="utf-8") == (
        TEMPLATE / ".obsidian/types.json").read_text(encoding="utf-8")
    written: dict[str, set[str]] = {}
    for folder in FOLDERS:
        for path in (demo / folder).rglob("*.md"):
            for key, value in _frontmatter(path).items():
                written.setdefault(key, set()).add(path.relative_to(demo).as_posix())
                if key in types:
                    assert VALUE_CHECKS[types[key]](value), (path, key, value)
    kinds = {str(_frontmatter(p).get("type")) for f in FOLDERS for p in (demo / f).rglob("*.md")}
    assert {"episode", "fact", "entity", "lesson", "dataset"} <= kinds
    assert {"provenance", "related", "evidence", "retracted", "superseded_by", "supersedes", "updated",
            "supporting", "phrasings", "success_rate", "aliases", "kind", "checksum", "licence",
            "removed", "columns"} <= set(written)  # every writer ran
    untyped = sorted(set(written) - set(types) - MAPS)
    assert not untyped, {k: sorted(written[k])[:2] for k in untyped if k in written}
    assert set(written) >= MAPS and not MAPS & set(types)


def test_templates_write_keys_as_the_tool_does(vault: Path) -> None:
    """Every key of the Obsidian templates is typed, with a value of that type (`source` a list,
    as `fact add` writes it)."""
    types = json.loads((vault / ".obsidian/types.json").read_text(encoding="utf-8"))["types"]
    for name in ("episode", "fact", "lesson"):
        meta = yaml.safe_load(instantiate((vault / f"templates/{name}.md").read_text(), "x").split("---\n")[1])
        for key, value in meta.items():
            assert key in types, (name, key)
            assert VALUE_CHECKS[types[key]](value), (name, key, value)


#: what Obsidian does not read as a link: fenced and inline code, %% comments %%, HTML comments
_NOT_LINKS = re.compile(r"```.*?```|`[^`\n]*`|%%.*?%%|<!--.*?-->", re.S)


def unresolved_links(root: Path) -> list[str]:
    """Every ``[[link]]`` in the vault's notes that Obsidian would show as unresolved, as
    ``path:line: [[link]]``. Obsidian's rules: the target is the text before ``|`` (a label) and
    ``#`` (a heading) or ``^`` (a block); a target with ``/`` matches the end of a note's path,
    any other the name of a note in any folder (the shortest path wins when several match),
    ignoring case; ``.md`` may be written. A note's ``aliases:`` are offered as link text when one
    types a link, but ``[[alias]]`` itself stays unresolved: a link biocortex writes must name
    the file."""
    notes = [p.relative_to(root).as_posix()[:-3] for p in root.rglob("*.md")
             if not any(part.startswith(".") for part in p.relative_to(root).parts)
             and p.relative_to(root).parts[0] != "templates"]
    names = {n.rsplit("/", 1)[-1].casefold() for n in notes}
    paths = [n.casefold() for n in notes]
    bad = []
    for rel in notes:
        text = (root / f"{rel}.md").read_text(encoding="utf-8")
        text = _NOT_LINKS.sub(lambda m: "\n" * m.group(0).count("\n"), text)
        for n, line in enumerate(text.splitlines(), 1):
            for link in re.findall(r"\[\[([^\]]+)\]\]", line):
                target = re.split(r"[#^|]", link, maxsplit=1)[0].strip().casefold().removesuffix(".md")
                found = (any(p == target or p.endswith("/" + target) for p in paths) if "/" in target
                         else target in names)
                if not found:
                    bad.append(f"{rel}.md:{n}: [[{link}]]")
    return bad


#: names that are no file name on some systems (`:` `/` `*` `?` `"` `<` `>` `|` `\`, brackets, `#`)
AWKWARD = ("GO:0008150", "CL:0000540", "KRAS G12C", "HLA-DRB1*15:01", "IL-2/IL-15", "CD4<CD8>", "p53 [isoform]",
           "what?", 'a "quoted" name', "x\\y", "#tag", "ENSG00000141510", "rs12345")


def test_every_link_a_write_makes_resolves_in_obsidian(vault: Path, cli: Cli) -> None:
    """Drive every writer with awkward entity names and check the whole vault's links the way
    Obsidian resolves them, the frontmatter as YAML, and the history as a PI reviews it."""
    assert cli("episode", "import", "-", stdin="\n".join(SAMPLE.read_text().splitlines()[:12])).code == 0
    for n, name in enumerate(AWKWARD):
        episode = {"task": f"Look at {name} in run {n}", "entities": [name, "TP53"], "success": n % 2 == 0,
                   "quality": 0.1 + n / 20, "lessons": ["Use a background of expressed genes for GO enrichment."],
                   "related": []}
        added = cli("episode", "add", "--from-json", "-", "--no-suggest", stdin=json.dumps(episode))
        assert added.code == 0, added.err
    assert cli("fact", "add", "KRAS G12C", "activates", "IL-2/IL-15", "--source", "PMID:24256730").code == 0
    assert cli("fact", "add", "GO:0008150", "part_of", "CL:0000540", "--source", "agent:test").code == 0
    assert cli("fact", "add", "HLA-DRB1*15:01", "associated_with", "MONDO:0005301", "--source", "PMID:1").code == 0
    assert cli("entity", "alias", "TP53", "p53").code == 0
    assert cli("fact", "add", "p53", "regulates", "MDM2", "--source", "PMID:8319905").code == 0
    assert cli("fact", "add", "NRF2", "regulates", "HMOX1", "--source", "PMID:9887101").code == 0
    assert cli("entity", "merge", "NFE2L2", "NRF2").code == 0
    assert cli("lessons", "promote", "Use a background of expressed genes for GO enrichment.").code == 0
    assert cli("forget", "--quality-below", "0.3").code == 0
    archived = sorted(p.stem for p in (vault / "archive").rglob("*.md") if p.name != "README.md")
    assert archived and cli("restore", archived[0]).code == 0
    assert cli("check").code == 0

    assert unresolved_links(vault) == []
    for path in vault.rglob("*.md"):
        rel = path.relative_to(vault).as_posix()
        if rel.startswith(("templates/", ".")) or not path.read_text(encoding="utf-8").startswith("---\n"):
            continue
        meta = _frontmatter(path)
        assert isinstance(meta, dict) and meta.get("type"), rel
        for key in ("aliases", "entities", "supporting", "tools", "domains", "lessons", "source"):
            assert key not in meta or isinstance(meta[key], list), (rel, key)
    # every link from an archived or live episode, a fact or a lesson reaches its entity note by its
    # file name: Obsidian would otherwise create an empty note on click
    names = {p.stem for p in (vault / "entities").glob("*.md")}
    for name in AWKWARD:
        assert file_stem(name) in names, name


def test_the_link_checker_resolves_as_obsidian_does(tmp_path: Path) -> None:
    (tmp_path / "entities").mkdir()
    (tmp_path / "entities/TP53.md").write_text("---\naliases: [p53]\n---\n")
    (tmp_path / "entities/GO_0008150.md").write_text("")
    (tmp_path / "note.md").write_text("[[tp53]] [[GO_0008150|GO:0008150]] [[entities/TP53#Facts]] [[TP53.md]]\n"
                                      "`[[code]]` <!-- [[comment]] -->\n[[p53]] [[GO:0008150]]\n")
    assert unresolved_links(tmp_path) == ["note.md:3: [[p53]]", "note.md:3: [[GO:0008150]]"]


def test_check_says_which_file_a_link_by_name_or_alias_means(vault: Path, cli: Cli) -> None:
    """Obsidian resolves a link by file name only: [[GO:0008150]] (file GO_0008150.md) and
    [[p53]] (an alias of TP53) stay unresolved there; check says what to write instead."""
    assert cli("fact", "add", "TP53", "part_of", "GO:0008150", "--source", "PMID:1").code == 0
    assert cli("entity", "alias", "TP53", "p53").code == 0
    note = vault / "episodes/2026/11/2026-11-23-by-hand.md"
    note.parent.mkdir(parents=True)
    note.write_text("---\nid: 2026-11-23-by-hand\ntype: episode\ncreated: '2026-11-23T09:00:00Z'\n"
                    "author: Ada <ada@lab.example>\ntask: GO by hand\n---\n"
                    "[[GO:0008150]] [[p53]] [[IL-2/IL-15]]\n")
    result = cli("check")
    assert result.code == 1
    assert "link [[GO:0008150]] points to no note\n  hint: the note is GO_0008150.md (Obsidian links by file " \
           "name): write [[GO_0008150|GO:0008150]]" in result.out
    assert "hint: the note is TP53.md (Obsidian links by file name): write [[TP53|p53]]" in result.out
    assert "link [[IL-2/IL-15]] points to no note\n  hint: create IL-2_IL-15.md or fix the link" in result.out
    assert unresolved_links(vault) == ["episodes/2026/11/2026-11-23-by-hand.md:8: [[GO:0008150]]",
                                       "episodes/2026/11/2026-11-23-by-hand.md:8: [[p53]]",
                                       "episodes/2026/11/2026-11-23-by-hand.md:8: [[IL-2/IL-15]]"]
