"""Global options (``--vault``, ``--author``, ``--debug``) and output helpers for commands."""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from biocortex_cli.store.git import Author
    from biocortex_cli.store.vault import Vault


@dataclass
class GlobalOptions:
    vault: str | None = None
    author: str | None = None
    debug: bool = False
    secret_policy: str = "refuse"  # refuse, redact or allow (--redact / --allow-secret)


OPTIONS = GlobalOptions()


def vault() -> Vault:
    from dataclasses import replace

    from biocortex_cli.store.vault import find_vault

    found = find_vault(OPTIONS.vault)
    return found if OPTIONS.secret_policy == found.secret_policy else replace(found, secret_policy=OPTIONS.secret_policy)


def author(vault: Vault) -> Author:
    """Who the commits of this command are by (``--author``, else the environment, else git)."""
    return vault.author(OPTIONS.author)


def out(text: str) -> None:
    """Requested data to stdout (always ends with one newline)."""
    sys.stdout.write(text if text.endswith("\n") else text + "\n")


def emit_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2) + "\n")


def info(text: str) -> None:
    """Everything that is not the requested data goes to stderr."""
    sys.stderr.write(text + "\n")
