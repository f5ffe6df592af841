"""Plain-text renderings of core results (no rich: output is read by agents and pipes):
check reports, episode lists, related episodes."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from biocortex_cli.ops.check import VaultProblem
    from biocortex_cli.recall.related import Related
    from biocortex_cli.store.episodes import Episode


def check_report(problems: Sequence[VaultProblem]) -> str:
    lines = []
    for p in problems:
        lines.append(str(p))
        if p.hint:
            lines.append(f"  hint: {p.hint}")
    return "\n".join(lines)


def outcome(ep: Episode) -> str:
    return {True: "success", False: "failure", None: "unknown"}[ep.success]


def episode_line(ep: Episode) -> str:
    quality = f"{ep.quality:.2f}" if ep.quality is not None else "  -  "
    return f"{ep.id}  {ep.created[:10]}  {outcome(ep):<7}  q {quality}  {' '.join(ep.task.split())}"


def episode_lines(episodes: Sequence[Episode]) -> str:
    return "\n".join(episode_line(ep) for ep in episodes)


def related_text(related: Sequence[Related]) -> str:
    lines = []
    for r in related:
        outcome = {True: "success", False: "failure", None: "unknown"}[r.success]
        lines.append(f"{r.id}  {r.score:.2f}  {outcome:<7}  {' '.join(r.task.split())}")
        lines.extend(f"  {reason}" for reason in r.reasons)
    return "\n".join(lines)
