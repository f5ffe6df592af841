"""Entry point. Answers ``--version`` before any framework loads; hands the rest to the app.

Start-up matters (agents call biocortex hundreds of times per task): this module imports only
the standard library, and :mod:`biocortex_cli.cli.app` loads typer and the command modules,
whose core imports happen inside the commands that need them. See docs/performance.md.
"""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args in (["--version"], ["-V"]):
        from biocortex_cli import __version__

        sys.stdout.write(f"biocortex {__version__}\n")
        return 0
    from biocortex_cli.cli import fast

    code = fast.run(args)
    if code is not None:
        return code
    from biocortex_cli.cli.app import run

    return run(args)


def entry() -> None:  # console script
    raise SystemExit(main())
