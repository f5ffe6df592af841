"""Human-readable explanation of a recall (printed to stderr with --explain)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from biocortex_cli.recall.engine import RecallResult


def explain_text(result: RecallResult) -> str:
    lines = [f"explain: query terms: {', '.join(result.query_terms) or '-'}"]
    if result.unknown_terms:
        lines.append(f"explain: not in the vault: {', '.join(result.unknown_terms)}")
    if result.ignored_terms:
        lines.append(f"explain: too common to count: {', '.join(result.ignored_terms)}")
    lines.append(f"explain: {result.matched} of {result.searched} episodes passed the gate; "
                 f"dropped {result.dropped}")
    for rank, hit in enumerate(result.results, start=1):
        signals = "  ".join(f"{k} {v:.2f}" for k, v in hit.signals.items())
        lines.append(f"explain: {rank}. {hit.id}  score {hit.score:.2f}  [{signals}]"
                     + ("  (shortened)" if hit.shortened else ""))
        for key, values in hit.matched.items():
            if values:
                lines.append(f"explain:      {key}: {', '.join(values)}")
    return "\n".join(lines)
