"""The one place that maps failures to exit codes and messages (docs/json.md, "Exit codes and
errors"): 0 ok · 1 bad data, not found, failed check · 2 usage · 3 internal error (one line plus
where the traceback was written; ``--debug`` prints it) · 130 interrupted (Ctrl-C), 143 stopped by
SIGTERM, 129 by SIGHUP. With ``--json`` errors are
``{"error": {"code", "message", "path", "line", "hint"}}`` on stderr, ``code`` one of
``errors.CODES``.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable

from biocortex_cli.errors import BiocortexError, error_json

TYPE_CHECKING = False  # as in errors.py: `typing` stays off recall's start-up path
if TYPE_CHECKING:
    from typing import Any


class Interrupted(BaseException):
    """Raised by our SIGINT, SIGTERM and SIGHUP handler; a BaseException so no framework turns it
    into exit 1. A write it interrupts rolls back (store/vault.py), as for Ctrl-C."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _on_signal(signum: int, frame: object) -> None:
    raise Interrupted(signum)


def _emit(message: str, *, path: str | None, line: int | None, hint: str | None,
          as_json: bool, code: str, prefix: str = "error", problems: list[dict[str, Any]] | None = None) -> None:
    """One error on stderr. It never repeats a secret it quotes (an option value typer echoes,
    a refused id): errors end up in agents' logs and CI output."""
    from biocortex_cli.store.secrets import redact

    message, path = redact(message), redact(path) if path else path
    if as_json:
        import json

        if problems is not None:  # an import's bad rows, each as the text form printed it
            problems = [{**p, "message": redact(str(p.get("message", "")))} for p in problems]
        payload = error_json(message, code=code, path=path, line=line, hint=hint, problems=problems)
        sys.stderr.write(json.dumps(payload, ensure_ascii=False) + "\n")
        return
    where = f"{path}:{line}: " if path and line else (f"{path}: " if path else "")
    sys.stderr.write(f"biocortex: {prefix}: {where}{message}\n")
    if hint:
        sys.stderr.write(f"  hint: {hint}\n")


def report(exc: BiocortexError, as_json: bool) -> int:
    _emit(exc.message, path=exc.path, line=exc.line, hint=exc.hint, as_json=as_json, code=exc.code,
          problems=exc.problems)
    return exc.exit_code


def _crash_log(exc: BaseException) -> str:
    """Write the traceback to a private per-user folder (0700; the file 0600): never a shared
    temp folder another user could read, pre-create or link. Secrets in the arguments and the
    message are redacted: an agent's command line often holds what it should not."""
    import time
    import traceback

    from biocortex_cli.store.files import NOFOLLOW, user_dir
    from biocortex_cli.store.secrets import redact

    folder = user_dir("crash")
    path = folder / f"crash-{time.strftime('%Y%m%dT%H%M%S')}-{os.getpid()}.log"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | NOFOLLOW, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(redact(f"argv: {sys.argv!r}\n" + "".join(traceback.format_exception(exc))))
    return str(path)


def guarded(call: Callable[[], int], *, as_json: bool, debug: bool) -> int:
    """Run ``call`` and turn every failure into its exit code and one clear message."""
    import _signal  # signal's C core: `signal` itself makes its enums at import (~3.4 M instructions)

    previous = {}
    try:
        # `timeout`, `kill`, agent frameworks and systemd stop a process with SIGTERM; a closed
        # terminal sends SIGHUP: each rolls a write back like Ctrl-C, then exits 128 + the signal
        for signum in (_signal.SIGINT, _signal.SIGTERM, getattr(_signal, "SIGHUP", None)):
            if signum is not None:
                previous[signum] = _signal.signal(signum, _on_signal)
    except ValueError:  # not the main thread (tests calling main() from a thread)
        pass
    try:
        if not sys.stderr.isatty():  # no bars: core code writes its notices itself (biocortex_cli/progress.py)
            return _guarded(call, as_json=as_json, debug=debug)
        from biocortex_cli.cli.progress import bars

        with bars():
            return _guarded(call, as_json=as_json, debug=debug)
    finally:
        for signum, handler in previous.items():  # as they were (main() called in-process, e.g. tests)
            _signal.signal(signum, handler)


def _guarded(call: Callable[[], int], *, as_json: bool, debug: bool) -> int:
    try:
        return call()
    except BiocortexError as exc:
        return report(exc, as_json)
    except (Interrupted, KeyboardInterrupt) as exc:
        import signal

        signum = exc.signum if isinstance(exc, Interrupted) else signal.SIGINT
        name = signal.Signals(signum).name
        said = f"interrupted ({name})" if signum != signal.SIGINT else "interrupted"
        if as_json:
            _emit(said, path=None, line=None, hint=None, as_json=True, code="interrupted")
        else:
            sys.stderr.write(f"biocortex: {said}\n")
        return 128 + signum
    except BrokenPipeError:
        # the reader went away (`biocortex recall … | head`): not an error of ours
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except Exception as exc:
        if type(exc).__module__.endswith("click.exceptions"):  # typer's usage errors
            if type(exc).__name__ == "NoArgsIsHelpError" and getattr(exc, "ctx", None) is not None:
                sys.stdout.write(exc.ctx.get_help() + "\n")  # type: ignore[attr-defined]  # `biocortex`: help, exit 0
                return 0
            code = int(getattr(exc, "exit_code", 2))
            if code and hasattr(exc, "format_message"):
                hint = "see `biocortex --help`"
                ctx = getattr(exc, "ctx", None)
                if ctx is not None:
                    hint = f"see `{ctx.command_path} --help`"
                    if "unexpected extra argument" in exc.format_message():  # an agent's unquoted query
                        asks = ctx.command_path.endswith(("recall", "context"))
                        hint = (f"quote text that has spaces, e.g. {ctx.command_path} "
                                + ('"doublets in 10x multiome"' if asks else '"…"'))
                _emit(exc.format_message(), path=None, line=None, hint=hint, as_json=as_json, code="usage")
            return code
        if debug:
            import traceback

            traceback.print_exc()
        try:
            where = f"traceback written to {_crash_log(exc)}"
        except Exception as log_exc:  # no folder to write it to: say so, never fail here
            where = f"no traceback written ({type(log_exc).__name__}: {log_exc})"
        _emit(f"internal error ({type(exc).__name__}: {exc}); this is a bug", path=None, line=None,
              hint=f"{where}; rerun with --debug to print it", as_json=as_json, code="internal")
        return 3
