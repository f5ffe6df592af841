"""The recall block of one episode: what an agent's planner reads about a past analysis.

Blocks are rendered at index time and their token counts stored, so ``recall`` never loads a
tokenizer. A block is a list of sections; each ends with a newline and the next begins with a
non-space character, which is a pre-token boundary for tiktoken's cl100k/o200k patterns, so the
tokens of a block are exactly the sum of its sections' tokens and any section can be dropped
without recounting. The title and meta sections carry two placeholders, the rank and the
relevance score; numbers of up to three digits are one token each in both encodings, so the
count made with ``0`` and ``0.00`` holds for every rank below 1000 and every score.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from biocortex_cli.records import NamedTuple

TYPE_CHECKING = False  # mypy takes it as True; `typing` (~16 M instructions) stays off recall's path
if TYPE_CHECKING:
    from typing import Any


def format_key(*sources: str) -> str:
    """The key of text the index caches rendered: a CRC-32 of the renderers' source files.

    The index keeps it beside what it rendered (episode blocks here; fact and lesson lines in
    facts/render.py and lessons/render.py) and renders again when it differs, so a change to a
    renderer never prints old and new text side by side."""
    import zlib

    crc = 0
    for source in sources:
        try:
            with open(source, "rb") as fh:  # not pathlib: recall's path
                crc = zlib.crc32(fh.read(), crc)
        except OSError:  # pragma: no cover - no source beside the code (a zip): the version decides
            from biocortex_cli import __version__

            crc = zlib.crc32(f"{source}:{__version__}".encode(), crc)
    return f"{crc:08x}"


#: the key of the episodes' blocks, the header and the shortening line (the index's meta "format")
FORMAT = format_key(__file__)
RANK = "{rank}"
SCORE = "{score}"
SHORTENED = "[shortened to fit the budget; `biocortex episode show` with the id above prints it whole]\n"
#: The suffix of a section's compact variant (``recall --compact``, config ``episodic.compact``):
#: stored beside it, chosen when the index is read (index/store.py ``unpack_sections``).
COMPACT = "~compact"
HEADER = ("## Relevant past analyses — {shown} of {matched} matched · {tokens}/{budget} tokens · vault {head}"
          " · recall {recall_id}\n\n")
#: The header of an answer that holds promoted lessons but no past analysis: the recall id, for
#: ``feedback --helpful LESSON`` (render/recall.py ``compose``).
BARE_HEADER = "## Recall {recall_id} · {tokens}/{budget} tokens · vault {head}\n\n"
#: A recall id is "r" and this many decimal digits (recall/engine.py: recall_id). After its space,
#: " r" is one pre-token and each run of three digits another, and all 1,000 three-digit strings
#: are single tokens in cl100k_base and o200k_base: every id costs 5 tokens (20,000 random ids
#: measured in both encodings; tests/test_feedback.py checks it), so the header is counted once,
#: at index time, with REFERENCE_ID in it, and holds for every id.
RECALL_ID_DIGITS = 12
REFERENCE_ID = "r" + "0" * RECALL_ID_DIGITS
#: The section of an episode's stored block that is printed in *another* episode's block, under its
#: meta line, when that one joins the results as an analysis of the same kind (recall/kin.py): stored
#: with the episode it names, so its exact token count is known without a tokenizer.
VIA = "via"
#: Sections dropped first when the last block must shrink to fit (least useful first).
DROP_ORDER = ("plan", "entities", "tools", "lessons", "result")
_LIMITS = {"task": 60, "plan": 70, "result": 90, "lesson": 45}
MAX_LESSONS = 5


class Section(NamedTuple):
    name: str
    text: str


def clip(text: str, words: int) -> str:
    """``text`` on one line, cut after ``words`` words (then " …")."""
    parts = " ".join(text.split()).split(" ")
    return " ".join(parts) if len(parts) <= words else " ".join(parts[:words]) + " …"


def episode_sections(record: Mapping[str, Any], path: str) -> list[Section]:
    """The block's sections in order, then the compact variants (named ``<section>~compact``)."""
    def strings(key: str) -> list[str]:
        value = record.get(key) or []
        return [str(v) for v in value] if isinstance(value, list) else []

    def text(key: str) -> str:
        value = record.get(key)
        return value if isinstance(value, str) else ""

    success = record.get("success")
    outcome = "success" if success is True else "failure" if success is False else "outcome unknown"
    quality = record.get("quality")
    meta = [f"relevance {SCORE}", outcome]
    if isinstance(quality, int | float) and not isinstance(quality, bool):
        meta.append(f"quality {float(quality):.2f}")
    created = str(record.get("created") or "")[:10]
    if created:
        meta.append(created)
    meta.append(str(record.get("id", "")))
    sections = [
        Section("title", f"### {RANK}. {clip(text('task'), _LIMITS['task'])}\n"),
        Section("meta", " · ".join([*meta, path]) + "\n"),
    ]
    tools, domains = strings("tools"), strings("domains")
    if tools or domains:
        parts = ([f"tools: {', '.join(tools)}"] if tools else []) + (
            [f"domains: {', '.join(domains)}"] if domains else [])
        sections.append(Section("tools", " · ".join(parts) + "\n"))
    if text("plan").strip():
        sections.append(Section("plan", f"plan: {clip(text('plan'), _LIMITS['plan'])}\n"))
    if text("result").strip():
        sections.append(Section("result", f"result: {clip(text('result'), _LIMITS['result'])}\n"))
    lessons = strings("lessons")[:MAX_LESSONS]
    if lessons:
        items = "".join(f"- {clip(lesson, _LIMITS['lesson'])}\n" for lesson in lessons)
        sections.append(Section("lessons", "lessons:\n" + items))
    entities = strings("entities")
    if entities:
        sections.append(Section("entities", f"entities: {', '.join(entities[:12])}\n"))
    # compact: the id alone names the note (`episode show ID`; the path cost ~20 tokens a block), and
    # the date goes when the id begins with it (as generated ids do)
    ident = meta[-1]
    brief = [m for m in meta[:-1] if not (m == created and ident.startswith(created))]
    sections.append(Section("meta" + COMPACT, " · ".join([*brief, ident]) + "\n"))
    sections.append(Section(VIA, via_line(ident)))
    return sections


def via_line(ident: str) -> str:
    """The line of a block found through ``ident``'s (recall/kin.py)."""
    return f"found as an analysis of the same kind as {ident} (its tools and domains)\n"


def fill(text: str, rank: int, score: float) -> str:
    return text.replace(RANK, str(rank)).replace(SCORE, f"{score:.2f}")


def template_text(text: str) -> str:
    """The section as counted at index time (rank 0, score 0.00: same token count as any)."""
    return fill(text, 0, 0.0)


def assemble(sections: Sequence[Section], rank: int, score: float, shortened: bool = False) -> str:
    """The block as printed: its sections, the shortening marker if any, and a blank line.

    The blank line merges with the last line's pre-token, so the index stores for each section
    its count both inside a block and as the block's last section.
    """
    body = "".join(fill(s.text, rank, score) for s in sections)
    if shortened:
        body += SHORTENED
    return body + "\n"


def count_sections(sections: Sequence[Section], encoding: str,
                   count: Callable[[str], int]) -> list[tuple[str, str, int, int]]:
    """(name, text, tokens, tokens as the block's last section) for each section, exact.

    Each line of a section is counted once, with its newline: a line ends with a newline and the
    next begins with a non-space character, a pre-token boundary (the module docstring), so a
    section's tokens are the sum of its lines'. As the block's last section, its final newline
    merges with the blank line that follows; only the pre-tokens after the last line's last
    letter or digit can change, so the difference is that trailing run's (``_blank_line_delta``).
    A section whose lines break the rule (an empty line, a line starting with a space, or with
    ``/``, which o200k's pattern joins to a punctuation run before the newline) is counted whole,
    and so is every section with the estimate (it is not a BPE).
    """
    out = []
    for s in sections:
        text = template_text(s.text)
        lines = text[:-1].split("\n") if text.endswith("\n") and encoding != "estimate" else None
        if lines is None or not all(lines) or "\r" in text or any(
                line[0].isspace() or line[0] == "/" for line in lines[1:]):
            tokens = count(text)
            head, _, last = text.rstrip("\n").rpartition("\n")
            last_tokens = tokens if not head and text == last + "\n" else count(last + "\n")
            out.append((s.name, s.text, tokens, tokens - last_tokens + count(last + "\n\n")))
            continue
        tokens = sum(count(line + "\n") for line in lines)
        out.append((s.name, s.text, tokens, tokens + _blank_line_delta(lines[-1], encoding, count)))
    return out


_DELTAS: dict[tuple[str, str], int] = {}


def _blank_line_delta(line: str, encoding: str, count: Callable[[str], int]) -> int:
    """count(line + "\\n\\n") - count(line + "\\n"). A pre-token that ends with a letter or digit
    followed by punctuation, a symbol or a space never reaches past it (cl100k and o200k
    patterns), so both strings split the same way up to the line's trailing run of such
    characters: only that run, with its newlines, is counted (and cached: a handful of distinct
    runs). When a character at the cut is of another kind (a combining mark, an unassigned code
    point), the line is counted whole."""
    cut = len(line)
    while cut and not line[cut - 1].isalnum():
        cut -= 1
    tail = line[cut:]
    if not line.isascii() and not _clean_cut(line, cut):
        return count(line + "\n\n") - count(line + "\n")
    key = (encoding, tail)
    delta = _DELTAS.get(key)
    if delta is None:
        delta = count(tail + "\n\n") - count(tail + "\n")
        if len(_DELTAS) < 10_000:
            _DELTAS[key] = delta
    return delta


def _clean_cut(line: str, cut: int) -> bool:
    """Whether ``line[cut - 1]`` is a letter or digit and ``line[cut:]`` holds only punctuation,
    symbols and spaces, by Unicode category (what the tokeniser patterns' classes test)."""
    from unicodedata import category

    if cut and category(line[cut - 1])[0] not in "LN":
        return False
    return all(category(c)[0] in "PS" or category(c) == "Zs" for c in line[cut:])
