"""Token counts of recall-block sections: counted line by line, they must equal whole counts."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from biocortex_cli.render.blocks import Section, count_sections, template_text
from biocortex_cli.tokens import get_counter

# pieces that stress the pre-tokeniser at line ends: punctuation runs, slashes, apostrophes,
# non-ASCII letters and marks, ellipses, digits, spaces and tabs
_PIECES = ["word", "Éé", "e\u0301", "…", ".", "!)", "'s", "'", "/", "//x", " ", "\t", "42", "1234",
           "ß", "日本", "·", "-", "--", "*", "#", "→", "x/y", ":", "\u00a0", "🧬", "TP53", "p.(R175H)"]


def _whole(text: str, count) -> tuple[int, int]:  # type: ignore[no-untyped-def]
    tokens = count(text)
    head, _, last = text.rstrip("\n").rpartition("\n")
    last_tokens = tokens if not head and text == last + "\n" else count(last + "\n")
    return tokens, tokens - last_tokens + count(last + "\n\n")


_line = st.lists(st.sampled_from(_PIECES), min_size=0, max_size=8).map("".join)


@pytest.mark.parametrize("encoding", ["cl100k_base", "o200k_base"])
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lines=st.lists(_line, min_size=1, max_size=4))
def test_line_by_line_counts_equal_whole_counts(encoding: str, lines: list[str]) -> None:
    counter = get_counter(encoding)
    assert counter.encoding == encoding
    section = Section("lessons", "".join(f"{line}\n" for line in lines))
    [(_name, _text, tokens, as_last)] = count_sections([section], encoding, counter.count)
    assert (tokens, as_last) == _whole(template_text(section.text), counter.count)


def test_real_sections_and_estimate() -> None:
    sections = [Section("title", "### {rank}. Remove doublets from 10x Multiome …\n"),
                Section("meta", "relevance {score} · failure · 2026-01-02 · ep-1 · episodes/a.md\n"),
                Section("lessons", "lessons:\n- Never trust TF motif activity.\n- Check ArchR/Signac first\n")]
    for encoding in ("cl100k_base", "o200k_base", "estimate"):
        counter = get_counter(encoding)
        got = count_sections(sections, counter.encoding, counter.count)
        assert [(t, a) for _n, _t, t, a in got] == [_whole(template_text(s.text), counter.count)
                                                   for s in sections]
