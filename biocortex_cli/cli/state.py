"""Global options (``--vault``, ``--author``, ``--debug``) and output helpers for commands."""


import sys

TYPE_CHECKING = False  # mypy takes it as True; `typing` (~16 M instructions) stays off recall's path
if TYPE_CHECKING:
    from typing import Any

    from biocortex_cli.store.git import Author
    from biocortex_cli.store.vault import Vault


class GlobalOptions:  # replaced whole, never changed; a plain class
    __slots__ = ("author", "debug", "secret_policy", "vault")

    def __init__(self, vault: str | None = None, author: str | None = None, debug: bool = False,
                 secret_policy: str = "refuse") -> None:  # refuse, redact or allow (--redact / --allow-secret)
        self.vault, self.author, self.debug, self.secret_policy = vault, author, debug, secret_policy


OPTIONS = GlobalOptions()
# patterns, not compiled ones: used on a terminal only, so `re` compiles (and caches) them there
_CONTROL = "[\x00-\x08\x0b-\x1f\x7f-\x9f]"
_C1 = "[\x80-\x9f]"


def vault() -> "Vault":
    from biocortex_cli.store.vault import Vault, find_vault

    found = find_vault(OPTIONS.vault)
    return found if OPTIONS.secret_policy == found.secret_policy else Vault(found.folder, OPTIONS.secret_policy)


def author(vault: "Vault") -> "Author":
    """Who the commits of this command are by (``--author``, else the environment, else git)."""
    return vault.author(OPTIONS.author)


def out(text: str) -> None:
    """Requested data to stdout (always ends with one newline)."""
    write(text if text.endswith("\n") else text + "\n")


def write(text: str) -> None:
    """Requested text to stdout as it is, except: under ``--redact`` no secret is printed either,
    and on a terminal, control characters a note may hold (escape sequences that move the
    cursor, retitle the window or hide text) are shown as ``\\x1b`` instead of obeyed."""
    if OPTIONS.secret_policy == "redact":
        from biocortex_cli.store.secrets import redact

        text = redact(text)
    sys.stdout.write(neutralised(text) if sys.stdout.isatty() else text)


def neutralised(text: str) -> str:
    """``text`` with every control character but newline and tab written as ``\\xNN``."""
    import re  # here, not at the top: `re` (with `enum`) costs ~15 M instructions; only a terminal needs it

    return re.sub(_CONTROL, lambda m: f"\\x{ord(m.group()):02x}", text) if re.search(_CONTROL, text) else text


def emit_json(data: "Any") -> None:
    import re

    from biocortex_cli.cli import json_text

    if OPTIONS.secret_policy == "redact":
        from biocortex_cli.store.secrets import scrub

        data = scrub(data)
    text = json_text.dumps(data) + "\n"  # json.dumps(data, ensure_ascii=False, indent=2), faster
    # JSON escapes C0 controls itself; C1 ones (U+0080-U+009F, e.g. the CSI U+009B) it leaves raw
    sys.stdout.write(re.sub(_C1, lambda m: f"\\u{ord(m.group()):04x}", text) if sys.stdout.isatty() else text)


def info(text: str) -> None:
    """Everything that is not the requested data goes to stderr (secrets removed under --redact)."""
    if OPTIONS.secret_policy == "redact":
        from biocortex_cli.store.secrets import redact

        text = redact(text)
    sys.stderr.write((neutralised(text) if sys.stderr.isatty() else text) + "\n")
