"""Text for reviewers: what changed in memory (``biocortex log``), what a sync brought, what a
new clone holds."""

from __future__ import annotations

from typing import TYPE_CHECKING

from biocortex_cli.progress import plural

if TYPE_CHECKING:
    from biocortex_cli.ops.clone import CloneReport
    from biocortex_cli.ops.history import Digest, Record
    from biocortex_cli.ops.sync import SyncReport

#: items listed per section in text; ``--json`` lists them all
SHOWN = 20


def _short(sha: str | None) -> str:
    return sha[:7] if sha else "the start"


def _range(old: str | None, new: str | None) -> str:
    """``a1b2c3d..e4f5a6b``; a digest from the vault's first commit says so in words."""
    return f"{old[:7]}..{_short(new)}" if old else f"since the first commit, up to {_short(new)}"


def _items(title: str, lines: list[str], total: int | None = None, *, count: int | None = None) -> list[str]:
    """A section: ``title (count)``, then the first lines; ``total`` is how many lines there are
    (``lines`` may hold only the first few), ``count`` what the title counts (default: ``total``)."""
    total = len(lines) if total is None else total
    if not total:
        return []
    out = [f"{title} ({total if count is None else count})"]
    out += [f"- {line}" for line in lines[:SHOWN]]
    if total > SHOWN:
        out.append(f"- … and {total - SHOWN} more (--json lists them all)")
    return [*out, ""]


def _episode(r: Record) -> str:
    outcome = "success" if r.success else "failure" if r.success is False else "outcome not set"
    quality = f" · quality {r.quality:g}" if r.quality is not None else ""
    by = f" · {r.author}" if r.author else ""
    return f"{r.id} — {r.text} ({outcome}{quality}{by})"


def digest_text(d: Digest) -> str:
    """The digest grouped by kind, most important first."""
    head = f"## Memory changes {_range(d.old, d.new)} — {plural(len(d.commits), 'commit')}"
    if d.empty:
        return head + "\n\nNothing new.\n"
    lines = [head, ""]
    authors = d.authors()
    if authors:
        lines += [f"by {', '.join(f'{a} ({n})' for a, n in authors.items())}", ""]
    lines += _items("New episodes", [_episode(r) for r in d.episodes], total=d.totals.get("episodes"))
    lines += _items("New facts", [f"{r.text} · {r.id}" + (f" [{r.status}]" if r.status != "current" else "")
                                  for r in d.facts])
    lines += _items("Retracted or superseded facts",
                    [f"{r.text} · {r.id} [{r.status}]{': ' + r.why if r.why else ''}" for r in d.retracted])
    lines += _items("Contradictions to resolve",
                    [f"{c.text} ({c.fact} / {c.other}; retract or supersede one)" for c in d.contradictions])
    lines += _items("Promoted lessons", [f"{r.id} — {r.text}" for r in d.lessons], total=d.totals.get("lessons"))
    lines += _items("Archived", d.archived)
    lines += _items("Restored from the archive", d.restored)
    retracted = d.feedback_retractions
    lines += _items("Feedback entries", [f"{who}: {n}" + (f" ({retracted[who]} retracting earlier feedback)"
                                                          if retracted.get(who) else "")
                                         for who, n in d.feedback.items()], count=sum(d.feedback.values()))
    lines += _items("Vocabulary groups", [f"added: {g}" for g in d.vocabulary.get("added", [])]
                    + [f"removed: {g}" for g in d.vocabulary.get("removed", [])])
    counts = [f"{folder} +{c['added']} ~{c['modified']} -{c['removed']}" for folder, c in sorted(d.counts.items())]
    if counts:
        lines += ["Notes changed: " + " · ".join(counts), ""]
    return "\n".join(lines).rstrip() + "\n"


def sync_text(report: SyncReport) -> str:
    return digest_text(report.arrived).replace("## Memory changes", "## Arrived from " + report.remote, 1)


def sync_summary(report: SyncReport) -> str:
    """One line for stderr."""
    parts = [f"pulled {plural(report.pulled, 'commit')}", f"pushed {report.pushed}"]
    if report.merged_notes:
        notes = plural(len(report.merged_notes), "entity note")
        parts.append(f"{notes} both sides created kept as the remote has them")
    if report.attempts > 1:
        parts.append(f"{report.attempts} attempts (the remote moved meanwhile)")
    return f"biocortex: synced with {report.remote} ({report.url}), {report.branch}: " + ", ".join(parts)


def clone_summary(report: CloneReport) -> str:
    """What a new clone holds, for stderr: its notes per folder and its last commit."""
    n = report.notes

    def count(k: int, word: str) -> str:
        return f"{k:,} {word}{'' if k == 1 else 's'}"

    held = [count(n["episodes"], "episode") + (f" (+{n['archive']:,} archived)" if n["archive"] else ""),
            count(n["facts"], "fact"), count(n["lessons"], "lesson"), count(n["entities"], "entity note")]
    last = report.last_commit
    where = ("" if report.remote_head in (None, report.branch)
             else f" (the remote's default branch is {report.remote_head})")
    return (f"biocortex: cloned {report.url} into {report.path}, branch {report.branch}{where}\n"
            f"  it holds {', '.join(held)}\n"
            f"  last commit {last.sha} {last.date[:10]} by {last.author}: {last.subject}\n"
            f"  next: cd {report.path} && biocortex recall \"…\"   (biocortex sync shares what you add)")

