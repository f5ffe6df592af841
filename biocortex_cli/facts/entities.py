"""Everything memory holds about one entity, for `entity show`."""

from __future__ import annotations

from typing import Any

from biocortex_cli.errors import NotFoundError
from biocortex_cli.store import entity_notes
from biocortex_cli.store.vault import Vault


def entity_page(vault: Vault, name: str) -> dict[str, Any]:
    """Read from the sidecar index (facts, aliases, episodes' entity lists) and the entity's own
    note, so it stays fast in a vault of 100k facts or episodes."""
    import contextlib

    from biocortex_cli.bio.text import tokenize
    from biocortex_cli.facts.memory import open_memory
    from biocortex_cli.facts.model import clean_text
    from biocortex_cli.facts.query import resolve_entity
    from biocortex_cli.store.notes import read_note

    wanted = clean_text(name, "entity name")
    conn, source, _problems = open_memory(vault)
    with contextlib.closing(conn):
        matched, _how = resolve_entity(wanted, source)
        if not matched:
            near = source.substring(wanted, 8)
            hint = f"did you mean: {', '.join(near)}" if near else "list entities in entities/"
            raise NotFoundError(f"no entity named {wanted!r}", hint=hint)
        canonical = matched[0]
        keys = source.spellings(canonical)
        facts = sorted(source.touching(keys), key=lambda f: (f.subject.casefold(), f.predicate, f.object.casefold()))
        rel = entity_notes.note_rel(vault.root, canonical)
        kind, aliases = entity_notes.entity_kind(canonical), [canonical]
        if (vault.root / rel).is_file():
            meta = read_note(vault.root / rel, rel).meta
            kind = str(meta.get("kind") or kind)
            listed = meta.get("aliases")
            aliases = [a for a in listed if isinstance(a, str)] if isinstance(listed, list) else aliases
        values = sorted({" ".join(tokenize(n)) or n.casefold() for n in {canonical, *aliases}})
        marks = ",".join("?" for _ in values)
        rows = conn.execute(f"SELECT DISTINCT d.id, d.rel, d.task, d.success FROM attrs a JOIN docs d ON a.doc = d.doc "
                            f"WHERE a.kind = 'entity' AND a.value IN ({marks}) ORDER BY d.created DESC, d.id",
                            values).fetchall()
    return {"name": canonical, "kind": kind, "path": rel if (vault.root / rel).is_file() else None,
            "aliases": aliases,
            "facts_out": [f.as_json() for f in facts if f.subject.casefold() in keys],
            "facts_in": [f.as_json() for f in facts
                         if f.object.casefold() in keys and f.subject.casefold() not in keys],
            "episodes": [{"id": i, "path": r, "task": t, "success": None if s is None else bool(s)}
                         for i, r, t, s in rows]}
