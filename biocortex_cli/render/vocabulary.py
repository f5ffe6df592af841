"""Text of ``biocortex vocabulary``: suggestions to review, what was accepted, what a text expands to."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from biocortex_cli.ops.vocabulary import AcceptReport, RemoveReport, SuggestReport


def suggestions_text(report: SuggestReport) -> str:
    """One numbered line per suggestion (the number ``vocabulary accept`` takes), with its support and
    association."""
    lines = []
    for n, s in enumerate(report.suggestions, start=1):
        why = []
        if s.feedback:
            why.append(f"{s.feedback} helpful episodes {s.asked()}")
        if s.alike:
            why.append(f"{s.alike} alike episode pairs")
        lines.append(f"{n:>3}. {' | '.join(s.words)}    support {s.support} ({', '.join(why)}), "
                     f"association {s.association:.2f} · e.g. {', '.join(s.evidence[:3])}")
    return "\n".join(lines) + "\n" if lines else ""


def accepted_text(report: AcceptReport) -> str:
    lines = [f"{report.path}: - {g.text()}" for g in report.accepted]
    lines += [f"{report.path}: skipped {group} ({why})" for group, why in report.skipped]
    return "\n".join(lines) + "\n"


def removed_text(report: RemoveReport) -> str:
    return "".join(f"{report.path}:{g.line}: removed - {g.text()}\n" for g in report.removed)


def expansion_text(shown: dict[str, Any]) -> str:
    """``vocabulary show``: the groups of the note, or a text's synonyms and withheld terms."""
    if "groups" in shown:
        return "".join(f"{shown['path']}:{g['line']}: {g['group']}\n" for g in shown["groups"])
    lines = [f"tokens: {' '.join(shown['tokens']) or '-'}"]
    lines += [f"{s['term']} → {s['synonym']}  ({s['written']}; {s['source']} {s['weight']:g}, {s['group']})"
              for s in shown["synonyms"]]
    lines += [f"{w['term']}: not expanded ({w['reason']})" for w in shown["withheld"]]
    if shown["dropped"]:
        lines.append(f"{shown['dropped']} more synonyms cut by the caps")
    return "\n".join(lines) + "\n"
