"""Hot commands answered without loading typer.

Agents call ``recall`` (and list or show episodes, read the log) hundreds of times per task; typer's import
alone costs ~45-60 ms on the 2-core reference machine, several times the rest of a recall. For
the commands below, a well-formed command line is parsed here and handed to the *same* command
function the typer app uses. Anything this parser does not fully understand (``--help``, an
unknown option, a value of the wrong type, a repeated option) returns ``None`` and the typer app
takes over, so messages and usage errors always come from one place.
``tests/test_cli_fast.py`` checks this table against the typer app, option by option.
"""

from __future__ import annotations

TYPE_CHECKING = False  # mypy takes it as True; `typing` (~16 M instructions) stays off recall's path
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

FLAG = "flag"


class Spec:  # a plain class: a dataclass takes ~1 ms to define, a NamedTuple ~0.7 M instructions
    __slots__ = ("function", "module", "options", "positionals")

    def __init__(self, module: str, function: str, positionals: tuple[str, ...],
                 options: dict[str, tuple[str, Any]]) -> None:
        self.module, self.function, self.positionals = module, function, positionals
        #: option -> (parameter, type or FLAG); a "--yes/--no" pair is two entries with True/False.
        #: No ranges: the library API checks them (biocortex_cli/api/checks.py), whichever parser ran.
        self.options = options


SPECS: dict[tuple[str, ...], Spec] = {
    ("recall",): Spec(
        "biocortex_cli.cli.recall", "recall", ("query",),
        {"--top-k": ("top_k", int), "--budget": ("budget", int),
         "--min-relevance": ("min_relevance", float), "--domain": ("domain", str),
         "--success-only": ("success_only", FLAG), "--include-archived": ("include_archived", FLAG),
         "--explain": ("explain", FLAG), "--compact": ("compact", FLAG), "--json": ("json_", FLAG)}),
    ("episode", "list"): Spec(
        "biocortex_cli.cli.episode", "list_", (),
        {"--domain": ("domain", str), "--tool": ("tool", str), "--entity": ("entity", str),
         "--success": ("success", True), "--failure": ("success", False),
         "--since": ("since", str), "--limit": ("limit", int), "--json": ("json_", FLAG)}),
    ("episode", "show"): Spec(
        "biocortex_cli.cli.episode", "show", ("ident",), {"--json": ("json_", FLAG)}),
    ("log",): Spec("biocortex_cli.cli.log", "log", (), {"--since": ("since", str), "--json": ("json_", FLAG)}),
    ("fact", "query"): Spec(
        "biocortex_cli.cli.fact", "query", ("entity",),
        {"--predicate": ("predicate", str), "--hops": ("hops", int),
         "--min-confidence": ("min_confidence", float), "--all": ("all_", FLAG),
         "--limit": ("limit", int), "--fuzzy": ("fuzzy", FLAG), "--taxon": ("taxon", str),
         "--json": ("json_", FLAG)}),
    ("fact", "verify"): Spec(
        "biocortex_cli.cli.fact", "verify", ("subject", "predicate", "object_"),
        {"--hops": ("hops", int), "--min-confidence": ("min_confidence", float), "--taxon": ("taxon", str),
         "--json": ("json_", FLAG)}),
}
GLOBAL_OPTIONS = {"--vault": "vault", "--author": "author"}


def parse(argv: list[str]) -> tuple[Spec, dict[str, str | None], dict[str, Any]] | None:
    """(spec, global options, keyword arguments) for a well-formed hot command, else None."""
    globals_: dict[str, str | None] = {"vault": None, "author": None, "debug": None}
    i = 0
    while i < len(argv) and argv[i].startswith("-"):
        arg = argv[i]
        if arg == "--debug":
            globals_["debug"] = "1"
            i += 1
            continue
        name, eq, value = arg.partition("=")
        if name not in GLOBAL_OPTIONS or globals_[GLOBAL_OPTIONS[name]] is not None:
            return None
        if not eq:
            if i + 1 >= len(argv):
                return None
            value, i = argv[i + 1], i + 1
        globals_[GLOBAL_OPTIONS[name]] = value
        i += 1
    spec = None
    for words, candidate in SPECS.items():
        if tuple(argv[i : i + len(words)]) == words:
            spec, i = candidate, i + len(words)
            break
    if spec is None:
        return None
    kwargs: dict[str, Any] = {}
    positionals: list[str] = []
    only_positionals = False
    while i < len(argv):
        arg = argv[i]
        i += 1
        if only_positionals or not arg.startswith("-") or arg == "-":
            positionals.append(arg)
            continue
        if arg == "--":
            only_positionals = True
            continue
        name, eq, value = arg.partition("=")
        if name not in spec.options:
            return None  # --help, unknown options, short options: typer answers
        param, kind = spec.options[name]
        if param in kwargs:
            return None
        if kind is FLAG or isinstance(kind, bool):
            if eq:
                return None
            kwargs[param] = True if kind is FLAG else kind
            continue
        if not eq:
            if i >= len(argv):
                return None
            value, i = argv[i], i + 1
        try:
            kwargs[param] = kind(value)
        except ValueError:
            return None
    if len(positionals) != len(spec.positionals):
        return None
    kwargs.update(zip(spec.positionals, positionals, strict=True))
    return spec, globals_, kwargs


def run(argv: list[str], *, whole_process: bool = False) -> int | None:
    """Run a hot command without typer; None when the typer app must handle ``argv``.
    ``whole_process``: the process exists for this one command (the console script), so what
    the imports made can leave the cycle collector's view."""
    parsed = parse(argv)
    if parsed is None:
        return None
    spec, globals_, kwargs = parsed
    from biocortex_cli.cli import state
    from biocortex_cli.cli.errors import guarded

    state.OPTIONS = state.GlobalOptions(vault=globals_["vault"], author=globals_["author"],
                                        debug=bool(globals_["debug"]))
    # __import__ with a fromlist returns the module itself (importlib, ~0.4 M instructions, not needed)
    function: Callable[..., int] = getattr(__import__(spec.module, fromlist=[spec.function]), spec.function)
    if whole_process:
        import gc

        # The cycle collector in a process that runs one command (recall at 10k: -18 M
        # instructions, 5%): what the imports made (modules, classes, functions: alive until exit
        # anyway) leaves its view, and it runs every 20,000 allocations rather than 700. Only
        # unreachable cycles, rare here, wait longer (peak memory of recall and of listing 10k
        # episodes unchanged, docs/performance.md). Not in a process that runs many commands
        # (tests, a host calling main()): cycles made before would be kept until it exits.
        gc.freeze()
        gc.set_threshold(20_000, 10, 10)
    return guarded(lambda: function(**kwargs), as_json=bool(kwargs.get("json_")),
                   debug=state.OPTIONS.debug)
