"""Plain-text renderings of core results (no rich: output is read by agents and pipes)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from biocortex_cli.store.check import VaultProblem
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
