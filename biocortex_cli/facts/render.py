"""Text of facts: the line recall prints, and lines for people (query answers, verdicts, entity pages).

The recall line and the header are rendered when facts are indexed and cached with their token
counts (facts/index.py); the index stores :data:`FORMAT` beside them and renders them again when
it differs, so a change here never prints old and new lines side by side.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from biocortex_cli.progress import plural
from biocortex_cli.render.blocks import format_key

TYPE_CHECKING = False  # `typing` is not imported at run time (mypy reads the block)
if TYPE_CHECKING:
    from typing import Any

    from biocortex_cli.facts.evidence import Side
    from biocortex_cli.facts.model import Fact
    from biocortex_cli.facts.query import Contest, QueryResult, Verdict

#: the key of what facts/index.py caches: the recall line and header here, the record (model.py)
FORMAT = format_key(__file__, os.path.join(os.path.dirname(__file__), "model.py"))  # os.path: verify's path
RECALL_HEADER = "## Known facts about the entities in the question\n\n"


def recall_line(fact: Fact) -> str:
    """The line recall prints for a fact (and whose tokens the index stores)."""
    sources = ", ".join(fact.sources) or "unsourced"
    return f"- {fact.sentence()} ({sources}; confidence {fact.confidence:g}) · {fact.id}\n"


def fact_line(fact: Fact, hops: int | None = None) -> str:
    status = "" if fact.status == "current" else f"  [{fact.status}]"
    where = f"  ({hops} hops)" if hops and hops > 1 else ""
    sources = ", ".join(fact.sources) or "unsourced"
    return f"{fact.sentence()}  ·  {fact.confidence:g}  ·  {sources}  ·  {fact.id}{status}{where}"


def fact_lines(facts: Sequence[Fact]) -> str:
    return "\n".join(fact_line(f) for f in facts)


def query_text(result: QueryResult) -> str:
    if not result.facts:
        return ""
    return "\n".join(fact_line(f, h) for f, h in result.facts)


def verdict_text(v: Verdict) -> str:
    from biocortex_cli.facts.model import qualifier_text

    quals = f" [{qualifier_text(v.qualifiers)}]" if v.qualifiers else ""
    lines = [f"{v.verdict}: {v.subject} {v.predicate.replace('_', ' ')} {v.object}{quals}"]
    if v.pro.evidence or v.con.evidence:
        lines.append(f"  evidence for: {_side(v.pro)} · against: {_side(v.con)}")
    for chain in v.supporting:
        lines.append("  supported by: " + "  →  ".join(fact_line(f) for f in chain))
    for fact in v.contradicting:
        lines.append("  contradicted by: " + fact_line(fact))
    return "\n".join(lines)


def _side(side: Side) -> str:
    if not side.evidence:
        return "none"
    noun = "source" if side.sources == 1 else "independent sources"
    return f"{side.sources} {noun}, weight {side.weight:g}"


def contests_text(contested: Sequence[Contest]) -> str:
    """`check --facts`: the open contradictions, weighed (information, not problems)."""
    if not contested:
        return "facts: no open contradictions"
    open_ = sum(c.verdict == "contested" for c in contested)
    lines = [f"facts: {plural(len(contested), 'open contradiction')}, {open_} contested "
             "(information: evidence on both sides; `fact verify` weighs each claim)"]
    for c in contested:
        state = "contested" if c.verdict == "contested" else "outweighed"
        lines.append(f"- {state}: {c.stronger.sentence()} ({_side(c.pro)}) vs {c.weaker.sentence()} "
                     f"({_side(c.con)}) · {c.stronger.id} / {c.weaker.id}")
    return "\n".join(lines)


def entity_text(page: dict[str, Any]) -> str:
    lines = [f"# {page['name']}  ({page['kind']})", f"aliases: {', '.join(page['aliases']) or '-'}"]
    for title, key in (("facts out", "facts_out"), ("facts in", "facts_in")):
        lines.append(f"\n{title} ({len(page[key])}):")
        lines += [f"- {f['subject']} {f['predicate'].replace('_', ' ')} {f['object']}  ·  "
                  f"{f['confidence']:g}  ·  {f['id']}"
                  + ("" if f.get("status", "current") == "current" else f"  [{f['status']}]")
                  for f in page[key]]
    lines.append(f"\nepisodes ({len(page['episodes'])}):")
    lines += [f"- {e['id']}  {'success' if e['success'] else 'failure' if e['success'] is False else '?'}"
              f"  {e['task']}" for e in page["episodes"]]
    return "\n".join(lines)
