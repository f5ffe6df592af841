"""Everything memory holds about one entity, for `entity show`."""

from __future__ import annotations

from typing import Any

from biocortex_cli.errors import NotFoundError
from biocortex_cli.store import entity_notes
from biocortex_cli.store.vault import Vault


def entity_page(vault: Vault, name: str) -> dict[str, Any]:
    from biocortex_cli.store.episodes import EpisodeFilter, list_episodes
    from biocortex_cli.store.fact_query import MemoryFacts, resolve_entity
    from biocortex_cli.store.facts import clean_text, load_aliases, load_facts

    wanted = clean_text(name, "entity name")
    facts, _problems = load_facts(vault)
    aliases = load_aliases(vault)
    matched, how = resolve_entity(wanted, MemoryFacts(facts, aliases))
    if not matched or (how == "substring" and len(matched) > 1):
        hint = f"did you mean: {', '.join(matched[:8])}" if matched else "list entities in entities/"
        raise NotFoundError(f"no entity named {wanted!r}", hint=hint)
    canonical = matched[0]
    keys = aliases.spellings(canonical)
    out_facts = [f.as_json() for f in facts if f.subject.casefold() in keys]
    in_facts = [f.as_json() for f in facts if f.object.casefold() in keys and f.subject.casefold() not in keys]
    episodes, _ = list_episodes(vault, EpisodeFilter())
    mentions = [{"id": ep.id, "path": ep.path, "task": ep.task, "success": ep.success}
                for ep in episodes if keys & {e.casefold() for e in ep.strings("entities")}]
    rel = entity_notes.entity_rel(canonical)
    kind = entity_notes.entity_kind(canonical)
    if (vault.root / rel).is_file():
        from biocortex_cli.store.notes import read_note

        meta = read_note(vault.root / rel, rel).meta
        kind = str(meta.get("kind") or kind)
    return {"name": canonical, "kind": kind, "path": rel if (vault.root / rel).is_file() else None,
            "aliases": aliases.names.get(canonical, [canonical]),
            "facts_out": out_facts, "facts_in": in_facts, "episodes": mentions}
