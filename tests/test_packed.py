"""Derived data packed, not JSON (biocortex_cli/packed.py): what is read back is what a JSON round
trip gave, and an index or cache of the JSON format is rebuilt, never misread."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from conftest import Cli
from hypothesis import given
from hypothesis import strategies as st

from biocortex_cli.packed import canonical, pack, unpack

SCALARS = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text()
KEYS = st.text() | st.integers() | st.booleans() | st.none()
JSON_DATA = st.recursive(SCALARS, lambda inner: st.lists(inner) | st.lists(inner).map(tuple)
                         | st.dictionaries(KEYS, inner), max_leaves=20)
STR_KEYED = st.recursive(SCALARS, lambda inner: st.lists(inner) | st.dictionaries(st.text(), inner), max_leaves=20)


@given(JSON_DATA)
def test_unpack_gives_what_a_json_round_trip_gives(value: Any) -> None:
    assert repr(unpack(pack(value))) == repr(json.loads(json.dumps(value)))  # repr: True is not 1, 1 not 1.0


@given(st.dictionaries(st.text(), STR_KEYED))
def test_sorted_keys_as_json_sorts_them(value: dict[str, Any]) -> None:
    assert repr(unpack(pack(value, sort_keys=True))) == repr(json.loads(json.dumps(value, sort_keys=True)))


@given(st.dictionaries(st.text(), st.dictionaries(st.text(), SCALARS)))
def test_one_value_has_one_canonical_text(value: dict[str, Any]) -> None:
    reordered = {k: dict(reversed(v.items())) for k, v in reversed(value.items())}
    assert canonical(reordered) == canonical(value)


@pytest.mark.parametrize("old", ['"cl100k_base"', b'{"key": "c199bc82-5114", "data": {}}', b"", b"\x00", 9, None])
def test_what_pack_did_not_make_is_a_value_error(old: object) -> None:
    with pytest.raises(ValueError):
        unpack(old)


@pytest.mark.parametrize("value", [{1, 2}, b"bytes", {"a": object()}, [1j]])
def test_what_json_cannot_hold_is_refused(value: object) -> None:
    with pytest.raises(TypeError):
        pack(value)


def _as_json_text(conn: sqlite3.Connection) -> None:
    """Rewrite an index's meta table as the JSON format wrote it (every value JSON text)."""
    from biocortex_cli.index.store import get_meta

    meta = get_meta(conn)
    with conn:
        conn.executemany("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)",
                         [(k, json.dumps(v, sort_keys=True)) for k, v in meta.items()])


def test_an_index_of_the_json_format_is_rebuilt(vault: Path, cli: Cli) -> None:
    assert cli("fact", "add", "TP53", "activates", "CDKN1A", "--source", "PMID:8242752").code == 0
    assert cli("fact", "verify", "TP53", "activates", "CDKN1A").code == 0
    conn = sqlite3.connect(vault / ".biocortex" / "index.sqlite")
    _as_json_text(conn)
    with conn:
        conn.execute("UPDATE meta SET value = '9' WHERE key = 'schema'")
    conn.close()
    r = cli("fact", "verify", "TP53", "activates", "CDKN1A")
    assert r.code == 0 and r.out.startswith("supported: TP53 activates CDKN1A")
    assert "rebuilding the index: index schema 9, this biocortex reads" in r.err
    conn = sqlite3.connect(vault / ".biocortex" / "index.sqlite")
    assert conn.execute("SELECT typeof(value) FROM meta WHERE key = 'schema'").fetchone() == ("integer",)
    conn.close()


def test_fact_tables_of_the_json_format_are_filled_again(vault: Path, cli: Cli) -> None:
    assert cli("fact", "add", "TP53", "activates", "CDKN1A", "--source", "PMID:8242752").code == 0
    before = cli("fact", "verify", "TP53", "activates", "CDKN1A", "--json").json()
    conn = sqlite3.connect(vault / ".biocortex" / "index.sqlite")
    with conn:  # the tables of version 2: the record as JSON text
        conn.execute("UPDATE fact_state SET value = '2' WHERE key = 'tables'")
        for rel, record in conn.execute("SELECT rel, record FROM facts").fetchall():
            conn.execute("UPDATE facts SET record = ? WHERE rel = ?", (json.dumps(unpack(record)), rel))
    conn.close()
    assert cli("fact", "verify", "TP53", "activates", "CDKN1A", "--json").json() == before
    conn = sqlite3.connect(vault / ".biocortex" / "index.sqlite")
    assert {t for (t,) in conn.execute("SELECT typeof(record) FROM facts")} == {"blob"}
    conn.close()


def test_a_dataset_index_of_the_json_format_is_out_of_date_and_rebuilt(vault: Path, cli: Cli, tmp_path: Path) -> None:
    edges = tmp_path / "edges.tsv"
    edges.write_text("MAP100\tBRCA10000\tActivation\t7\n", encoding="utf-8")
    assert cli("dataset", "add", str(edges), "--name", "grn", "--version", "1", "--licence", "CC0", "--no-header",
               "--map", "subject=1", "--map", "object=2", "--map", "predicate=3", "--map", "publications=4",
               "--predicate-map", "Activation=activates").code == 0
    before = cli("fact", "verify", "MAP100", "activates", "BRCA10000", "--json")
    assert before.code == 0
    conn = sqlite3.connect(vault / ".biocortex" / "datasets" / "grn.sqlite")
    _as_json_text(conn)
    conn.close()
    r = cli("fact", "verify", "MAP100", "activates", "BRCA10000", "--json")
    assert r.json() == before.json()
    assert "indexing dataset grn@1" in r.err and "out of date" in r.err
    assert cli("fact", "verify", "MAP100", "activates", "BRCA10000").err == ""  # rebuilt once


@pytest.mark.parametrize("cache", [".biocortex/tmp/config.cache", ".biocortex/datasets/notes.cache"])
def test_a_cache_that_cannot_be_unpacked_is_made_again(vault: Path, cli: Cli, tmp_path: Path, cache: str) -> None:
    edges = tmp_path / "edges.tsv"
    edges.write_text("MAP100\tBRCA10000\tActivation\t7\n", encoding="utf-8")
    assert cli("dataset", "add", str(edges), "--name", "grn", "--version", "1", "--licence", "CC0", "--no-header",
               "--map", "subject=1", "--map", "object=2", "--map", "predicate=3",
               "--predicate-map", "Activation=activates").code == 0
    before = cli("fact", "verify", "MAP100", "activates", "BRCA10000", "--json").json()
    path = vault / cache
    path.write_text(json.dumps(unpack(path.read_bytes())), encoding="utf-8")  # as the JSON format wrote it
    assert cli("fact", "verify", "MAP100", "activates", "BRCA10000", "--json").json() == before
    assert isinstance(unpack(path.read_bytes()), dict)  # written again, packed
