"""The four ontologies of the shipped vocabulary (CL, UBERON, MONDO, EFO): their rules on small
ontologies written here (scripts/build_vocabulary.py's own functions), and their groups in the
shipped data file. No mocks."""

from __future__ import annotations

import importlib.util
import sqlite3
import sys
from pathlib import Path
from types import ModuleType

import pytest

from biocortex_cli.bio import vocabulary
from biocortex_cli.bio.text import tokenize
from biocortex_cli.bio.vocabulary import SOURCE_WEIGHTS, Expansion, Local, expand, genes

ROOT = Path(__file__).resolve().parent.parent


def synonyms(text: str, local: Local | None = None) -> dict[str, Expansion]:
    return {e.synonym: e for e in expand(tokenize(text), local=local).expansions}


def phrase(text: str) -> str:
    return " ".join(tokenize(text))


@pytest.fixture(scope="module")
def builder() -> ModuleType:
    spec = importlib.util.spec_from_file_location("build_vocabulary", ROOT / "scripts" / "build_vocabulary.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up while it loads
    try:
        spec.loader.exec_module(module)
    finally:
        del sys.modules[spec.name]
    return module


def term(label: str, *synonyms: str, deprecated: bool = False) -> dict[str, object]:
    return {"label": label, "synonyms": list(synonyms), "deprecated": deprecated, "ancestors": {}}


def compile_ontologies(builder: ModuleType, tmp_path: Path, *, words: set[str] = frozenset(),
                       terms: set[str] = frozenset(), genes: set[str] = frozenset()) -> tuple[Local, object]:
    """Two small ontologies through the builder's rules into a vocabulary file used as ``local``."""
    cl = {
        "CL:1": term("glimmerocyte", "shiny cell", "Glimmer"),  # "glimmer": an English word here
        "CL:2": term("zorbocyte", "zorb cell", "T zorbocyte"),  # "T zorbocyte" loses its "t"
        "CL:3": term("quaggocyte", "quagga cell", deprecated=True),
        # "of the" and a possessive's "s" drop as a question's would; "A" and "out" carry meaning
        "CL:4": term("pod of the blarg gland", "blarg pod cell", "Quux's pod", "pod A cell", "knock-out pod cell"),
        "UBERON:9": term("snorf organ", "snorf"),  # not CL's own prefix
    }
    mondo = {
        "MONDO:1": term("zorb disease", "zorb cell"),  # "zorb cell" is CL:2's too: ambiguous
        "MONDO:2": term("glorp syndrome", "GLORP1", "glorp disorder"),  # GLORP1 is a gene
        "MONDO:3": term("blarg fever", "blarg pyrexia", "heart attack", "BF"),  # the lab's term; "BF": short
        "MONDO:4": term("glimmer fever", "GLIMMER"),  # an acronym that reads as a word: left out
    }
    cl_source = builder.Source("CL", "", "", "", "", "", "", "", "")
    mondo_source = builder.Source("MONDO", "", "", "", "", "", "", "", "")
    withheld: dict[str, tuple[str, str]] = {}
    tally = builder.Tally()
    groups = builder.ontology_groups([(cl_source, cl), (mondo_source, mondo)], frozenset(words), set(terms),
                                     set(genes), withheld, tally)
    path = tmp_path / "ontologies.sqlite"
    builder.write(path, groups, withheld, {})
    return Local(path), tally


def test_the_rules_on_two_small_ontologies(builder: ModuleType, tmp_path: Path) -> None:
    local, tally = compile_ontologies(builder, tmp_path, words={"glimmer"}, terms={phrase("heart attack")},
                                      genes={phrase("GLORP1")})
    # a group is a term's label and exact synonyms, at the ontologies' weight
    found = synonyms("zorbocyte", local)
    assert found == {}  # its only other synonym, "zorb cell", is ambiguous and "T zorbocyte" is lossy
    found = synonyms("glimmerocyte", local)
    assert set(found) == {phrase("shiny cell"), "glimmer"}
    assert {(e.source, e.group, e.weight) for e in found.values()} == {("ontology", "CL:1", SOURCE_WEIGHTS["ontology"])}
    # a single English word is a target, never a key
    assert "glimmer" in synonyms("shiny cell", local)
    assert synonyms("glimmer", local) == {}
    # a key of two ontology terms is withheld, and says whose it is
    result = expand(tokenize("zorb cell"), local=local)
    assert result.expansions == ()
    assert [(w.term, w.reason) for w in result.withheld] == [
        (phrase("zorb cell"), "ambiguous: a label or exact synonym of CL:2, MONDO:1")]
    assert synonyms("zorb disease", local) == {}
    # a gene's key and the lab's term stay theirs: the member is left out, the rest of the group stays
    assert set(synonyms("glorp syndrome", local)) == {phrase("glorp disorder")}
    assert set(synonyms("blarg fever", local)) == {phrase("blarg pyrexia")}
    # a single word under three characters is neither a key nor a target ("ES", "MS")
    assert synonyms("bf", local) == {}
    assert synonyms("glimmer fever", local) == {}  # GLIMMER left out, no group
    assert "glorp1" not in {k for k, in sqlite3.connect(local.path).execute("SELECT key FROM term")}
    # a name that loses only joining words is kept ("pod of the blarg gland" is "pod blarg gland")
    assert set(synonyms("blarg pod cell", local)) == {phrase("pod of the blarg gland"), phrase("Quux's pod")}
    assert set(synonyms("pod of blarg gland", local)) == {phrase("blarg pod cell"), phrase("quux pod")}
    assert phrase("blarg pod cell") in synonyms("quux pod", local)
    # deprecated terms and terms of another prefix are not used
    assert synonyms("quaggocyte", local) == {} and synonyms("snorf organ", local) == {}
    counts = tally.counts  # type: ignore[attr-defined]
    assert counts["CL", "terms"] == 3 and counts["MONDO", "terms"] == 4 and counts["MONDO", "acronym"] == 1
    assert counts["CL", "lossy"] == 3 and counts["CL", "target only"] == 1
    assert counts["MONDO", "gene"] == 1 and counts["MONDO", "term"] == 1 and counts["MONDO", "short"] == 1
    assert counts["CL", "ambiguous"] == 1 and counts["MONDO", "ambiguous"] == 1


def test_without_an_ontology_its_keys_are_no_longer_ambiguous(builder: ModuleType, tmp_path: Path) -> None:
    assert builder.without("cl, EFO") == ("CL", "EFO")
    with pytest.raises(Exception, match="unknown source hgnc"):
        builder.without("hgnc")
    spec_cl = builder.Source("CL", "", "", "", "", "", "", "", "")
    groups = builder.ontology_groups([(spec_cl, {"CL:2": term("zorbocyte", "zorb cell")})], frozenset(), set(),
                                     set(), {}, builder.Tally())
    path = tmp_path / "cl.sqlite"
    builder.write(path, groups, {}, {})
    assert phrase("zorb cell") in synonyms("zorbocyte", Local(path))


# --- the shipped data file --------------------------------------------------------------------


def test_cell_types_anatomy_diseases_and_factors_expand_both_ways() -> None:
    for one, other, group in (("Kupffer cell", "hepatic macrophage", "CL:0000091"),
                              ("ear lobe", "earlobe", "UBERON:0001847"),
                              ("coronary artery disease", "coronary heart disease", "MONDO:0005010"),
                              ("Schoenlein-Henoch purpura", "anaphylactoid purpura", "MONDO:0019167"),
                              ("systolic blood pressure", "systolic pressure", "EFO:0006335")):
        found = synonyms(one)[phrase(other)]
        assert (found.source, found.group, found.weight) == ("ontology", group, SOURCE_WEIGHTS["ontology"]), one
        assert phrase(one) in synonyms(other), other
    assert SOURCE_WEIGHTS["hgnc"] > SOURCE_WEIGHTS["ontology"] == 0.6 > SOURCE_WEIGHTS["edam"]


def test_the_lab_list_keeps_its_terms() -> None:
    """cardiomyocyte / cardiac muscle cell (CL) and heart attack / myocardial infarction (MONDO) are
    the lab list's: they expand as the lab list says, and the ontologies add nothing to them."""
    for one, other in (("cardiomyocyte", "cardiac muscle cell"), ("heart attack", "myocardial infarction"),
                       ("nerve cell", "neuron")):
        assert synonyms(one)[phrase(other)].source == "lab"
        assert {e.source for e in synonyms(one).values()} == {"lab"}, one


def test_an_english_word_of_an_ontology_is_a_target_only() -> None:
    assert synonyms("pectus")["chest"].group == "UBERON:0001443"
    assert synonyms("herpes zoster")[phrase("shingles")].group == "MONDO:0005609"
    assert synonyms("chest") == {} and synonyms("shingles") == {}


def test_an_abbreviation_under_three_characters_is_left_out() -> None:
    """MONDO lists ES for Ewing sarcoma and MS for multiple sclerosis: in a lab they are embryonic
    stem cells and mass spectrometry, so a question about the disease does not look for them."""
    assert "es" not in synonyms("Ewing sarcoma") and "ms" not in synonyms("multiple sclerosis")
    assert synonyms("Ewing sarcoma")  # the rest of the group stays


def test_an_acronym_that_reads_as_a_word_is_left_out() -> None:
    """MONDO lists HIT for heparin-induced thrombocytopenia and TEN for toxic epidermal necrolysis:
    as targets, a question about the disease would look for every screen's *hits*."""
    assert "hit" not in synonyms("heparin-induced thrombocytopenia")
    assert "ten" not in synonyms("toxic epidermal necrolysis")
    assert synonyms("toxic epidermal necrolysis")  # the rest of the group stays


def test_a_gene_key_keeps_its_gene_meaning_only() -> None:
    """MONDO lists CADASIL for the disease (MONDO:0000914), HGNC for NOTCH3: it stays NOTCH3's."""
    found = synonyms("CADASIL")
    assert "notch3" in found and {e.source for e in found.values()} == {"hgnc"}
    disease = synonyms("CADASIL syndrome")
    assert {e.group for e in disease.values()} == {"MONDO:0000914"} and "cadasil" not in disease


def test_a_name_of_two_ontology_terms_is_withheld_and_is_no_gene() -> None:
    """MONDO lists *pituitary gland* for hypophysitis; UBERON's gland has the same name."""
    result = expand(tokenize("pituitary gland"))
    assert result.expansions == ()
    assert ("pituitari gland", "ambiguous: a label or exact synonym of MONDO:0021156, UBERON:0000007") in {
        (w.term, w.reason) for w in result.withheld}
    assert genes("pituitary gland") == ((), "")  # facts do not take it for an ambiguous gene alias
    assert genes("NRF2")[1].startswith(vocabulary.GENE_AMBIGUITY)


def test_a_name_with_of_the_is_a_key_as_a_question_would_say_it() -> None:
    """UBERON's *neck of uterus* is the uterine cervix; a question saying *neck of the uterus*
    tokenises the same way (the ontology's name loses only "of")."""
    assert synonyms("neck of the uterus")[phrase("uterine cervix")].group == "UBERON:0000002"


def test_a_disease_named_by_mondo_and_efo_is_mondos() -> None:
    """EFO names diseases after MONDO: osteomalacia is MONDO:0001068 and EFO:1002027, one disease,
    so the name expands through MONDO's group and EFO's member is left out."""
    found = synonyms("osteomalacia")
    assert found and {e.group for e in found.values()} == {"MONDO:0001068"}
    assert expand(tokenize("osteomalacia")).withheld == ()


def test_mondo_takes_a_name_it_shares_with_efo_only(builder: ModuleType, tmp_path: Path) -> None:
    mondo = builder.Source("MONDO", "", "", "", "", "", "", "", "")
    efo = builder.Source("EFO", "", "", "", "", "", "", "", "")
    cl = builder.Source("CL", "", "", "", "", "", "", "", "")
    tally = builder.Tally()
    groups = builder.ontology_groups(
        [(cl, {"CL:1": term("flurb cell", "flurbocyte")}),
         (mondo, {"MONDO:1": term("zorb disease", "zorbosis"), "MONDO:2": term("flurb disease", "flurbocyte")}),
         (efo, {"EFO:1": term("zorbosis", "zorb syndrome")})],
        frozenset(), set(), set(), {}, tally)
    path = tmp_path / "ontologies.sqlite"
    builder.write(path, groups, {}, {})
    local = Local(path)
    # MONDO and EFO alone: MONDO's; EFO keeps the rest of its group
    assert set(synonyms("zorbosis", local)) == {phrase("zorb disease")}
    assert set(synonyms("zorb syndrome", local)) == set()
    # a name CL also has stays ambiguous
    assert synonyms("flurbocyte", local) == {}
    counts = tally.counts  # type: ignore[attr-defined]
    assert counts["EFO", "MONDO's"] == 1 and counts["CL", "ambiguous"] == 1


def test_the_data_file_records_the_ontologies() -> None:
    meta = vocabulary.metadata()
    assert "cellxgene-ontology-guide 1.11.1" in meta["sources"]
    notice = (Path(vocabulary.PATH).parent / "NOTICE-vocabulary.txt").read_text(encoding="utf-8")
    for name, licence in (("CL", "CC BY 4.0"), ("UBERON", "CC BY 3.0"), ("MONDO", "CC BY 4.0"),
                          ("EFO", "Apache License 2.0")):
        assert meta[f"sha256_{name}"] in notice
        assert f"Licence: {licence}" in notice
    db = sqlite3.connect(f"file:{vocabulary.PATH}?mode=ro", uri=True)
    by_prefix = dict(db.execute("SELECT substr(label, 1, instr(label, ':') - 1), count(*) FROM synonym_group "
                                "WHERE source = 'ontology' GROUP BY 1"))
    db.close()
    assert set(by_prefix) == {"CL", "UBERON", "MONDO", "EFO"} and min(by_prefix.values()) > 100
