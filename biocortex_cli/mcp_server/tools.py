"""The MCP tools, declared once: each names the library-API function it calls, describes every
argument with its JSON type, and says whether it only reads. Defaults come from the function's
signature and ranges and choices from its ``checks`` (biocortex_cli/api/checks.py), so the input
schemas, the argument checks and docs/agents.md's tool table all come from here.

A tool's result is the function's ``as_json()``: exactly what the command in ``cli`` prints with
``--json``. Arguments are checked before the call: a missing or unknown argument (with the valid
ones listed) or a value of the wrong type is a tool error, never silently dropped; declared
aliases (``tool`` for ``tools``) are accepted.
"""

from __future__ import annotations

import importlib
import inspect
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from biocortex_cli.errors import UsageError

JSON_TYPES: dict[str, Callable[[Any], bool]] = {
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "array": lambda v: isinstance(v, list),
    "object": lambda v: isinstance(v, dict),
}


@dataclass(frozen=True)
class Arg:
    name: str
    types: tuple[str, ...]  # JSON Schema types
    description: str
    required: bool = False
    items: str | None = "string"  # what an array holds (None: anything)
    keyword: str | None = None  # the API function's keyword, when it is not ``name``
    aliases: tuple[str, ...] = ()  # other names accepted for it (never listed in the schema)
    default: Any = None  # for an argument the server reads itself (not the API function's): its default

    @property
    def to(self) -> str:
        return self.keyword or self.name


@dataclass(frozen=True)
class Tool:
    name: str
    function: str  # "module:function" of the library API
    cli: str  # the command whose --json this returns
    description: str
    args: tuple[Arg, ...]
    read_only: bool = True
    idempotent: bool = True  # calling it again with the same arguments changes nothing more
    #: the key of the result's JSON that is its plain text (what the command prints without --json):
    #: such a tool takes ``json`` (see :data:`PLAIN`)
    text: str | None = None

    def api(self) -> Callable[..., Any]:
        module, name = self.function.split(":")
        return getattr(importlib.import_module(module), name)  # type: ignore[no-any-return]

    def schema(self) -> dict[str, Any]:
        """The tool as ``tools/list`` shows it."""
        fn = self.api()
        defaults = {n: p.default for n, p in inspect.signature(fn).parameters.items()
                    if p.default is not inspect.Parameter.empty}
        checks: Mapping[str, Any] = getattr(fn, "checks", {})
        properties = {}
        for arg in self.args:
            prop: dict[str, Any] = {"type": arg.types[0] if len(arg.types) == 1 else list(arg.types),
                                    "description": arg.description}
            if "array" in arg.types and arg.items:
                prop["items"] = {"type": arg.items}
            if arg.to in checks:
                prop.update(checks[arg.to].schema())
            default = defaults.get(arg.to, arg.default)
            if default is not None and default != () and not arg.required:
                prop["default"] = default
            properties[arg.name] = prop
        return {"name": self.name, "title": self.cli, "description": self.description,
                "inputSchema": {"type": "object", "properties": properties,
                                "required": [a.name for a in self.args if a.required],
                                "additionalProperties": False},
                "annotations": {"title": self.cli, "readOnlyHint": self.read_only, "destructiveHint": False,
                                "idempotentHint": self.idempotent, "openWorldHint": False}}

    def keywords(self, arguments: Mapping[str, Any]) -> dict[str, Any]:
        """The API's keyword arguments for ``arguments``, checked against the declaration."""
        by_name = {a.name: a for a in self.args} | {alias: a for a in self.args for alias in a.aliases}
        unknown = sorted(k for k in arguments if k not in by_name)
        if unknown:
            valid = ", ".join(a.name for a in self.args)
            guesses = [g for k in unknown for g in _close(k, by_name)]
            raise UsageError(f"unknown argument{'s' if len(unknown) > 1 else ''} {', '.join(unknown)} for {self.name}",
                             hint=(f"did you mean {', '.join(guesses)}? " if guesses else "") + f"valid: {valid}")
        out: dict[str, Any] = {}
        named: dict[str, str] = {}
        for given, value in arguments.items():
            arg = by_name[given]
            if value is None:
                continue  # null: not given
            if arg.to in out:
                raise UsageError(f"{arg.name} is given twice (as {named[arg.to]} and as {given})",
                                 hint=f"give it once, as {arg.name}")
            named[arg.to] = given
            if not any(JSON_TYPES[t](value) for t in arg.types) or (
                    isinstance(value, list) and arg.items and not all(JSON_TYPES[arg.items](i) for i in value)):
                kinds = " or ".join(f"array of {arg.items}s" if t == "array" and arg.items else t for t in arg.types)
                raise UsageError(f"{arg.name} must be {'an' if kinds[0] in 'aeiou' else 'a'} {kinds}, "
                                 f"not {type(value).__name__} {_short(value)}")
            out[arg.to] = value
        missing = [a.name for a in self.args if a.required and a.to not in out]
        if missing:
            raise UsageError(f"missing required argument{'s' if len(missing) > 1 else ''} {', '.join(missing)} "
                             f"for {self.name}")
        return out

    def options(self) -> dict[str, str]:
        """The command-line spelling of each argument (``--top-k``, ``--tool``) → its name here,
        to name arguments as the agent knows them in messages written for the command line."""
        out = {}
        for arg in self.args:
            for spelling in (arg.name, arg.to, *arg.aliases):
                out["--" + spelling.replace("_", "-")] = arg.name
        return out


def _close(name: str, known: Mapping[str, Arg]) -> list[str]:
    import difflib

    return [known[m].name for m in difflib.get_close_matches(name, list(known), n=1, cutoff=0.7)]


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:39] + "…"


def agent_terms(tool: Tool, text: str | None) -> str | None:
    """``text`` with the command-line options of ``tool``'s arguments named as the arguments."""
    if not text:
        return text
    options = tool.options()
    return re.sub(r"--[a-z][a-z0-9-]*", lambda m: options.get(m.group(0), m.group(0)), text)


#: ``json: false``: the result's text block, which a client puts in the model's context, is only
#: the plain output (within the budget), and the JSON is in ``structuredContent`` alone.
PLAIN = Arg("json", ("boolean",), "false: the text given to the model is only the context, as the command "
                                  "prints it without --json (within the budget; the JSON, whose other keys "
                                  "cost tokens beyond it, stays in structuredContent).", default=True)
QUERY = Arg("query", ("string",), "The task or question, in your own words (e.g. 'remove doublets from 10x "
                                  "Multiome PBMC data'); ask about failures too.", required=True)
HOPS = "Chain or walk up to this many facts (1 = direct facts only)."
MIN_CONFIDENCE = "Ignore facts below this confidence (0-1)."
TAXON = "The species: human, mouse, 9606 or NCBITaxon:10090."

TOOLS: tuple[Tool, ...] = (
    Tool("recall", "biocortex_cli.api.recall:recall", "recall --json",
         "Recall the lab's past analyses (and promoted lessons and known facts) relevant to a task, within a "
         "token budget, before planning it. Returns the JSON of `biocortex recall --json`: \"context\" is the "
         "text to put in the plan, \"results\" the episodes with scores, \"recall_id\" the id for `feedback`.",
         (QUERY,
          Arg("top_k", ("integer",), "At most this many past analyses (default: the vault's episodic.top_k)."),
          Arg("budget", ("integer",), "Token budget of the returned context (default: episodic.token_budget)."),
          Arg("min_relevance", ("number",), "Drop analyses scoring below this, 0-1 (default: "
                                            "episodic.min_relevance)."),
          Arg("domain", ("string",), "Only analyses in this domain, e.g. scRNA-seq."),
          Arg("success_only", ("boolean",), "Only successful analyses."),
          Arg("include_archived", ("boolean",), "Also search archived (forgotten) memory."),
          Arg("explain", ("boolean",), "Add each hit's matched terms and the query's terms."),
          Arg("compact", ("boolean",), "Print each past analysis without its note's path (fewer tokens; its id "
                                       "finds it; default: episodic.compact)."), PLAIN), text="context"),
    Tool("context", "biocortex_cli.api.recall:context", "context --json",
         "Fill one token budget for a planner prompt: the conversation so far (compressed into its share), "
         "lessons that apply, past analyses and facts about the question's entities. Returns the JSON of "
         "`biocortex context --json`: \"context\" is the text, \"parts\" each section with its tokens.",
         (QUERY,
          Arg("budget", ("integer",), "Token budget of the whole context (default: the vault's context.budget)."),
          Arg("conversation", ("string", "array", "object"),
              "The conversation so far, inline: its messages ([{role, content}, …] or {\"messages\": [...]}) "
              "or their text (JSON, JSON Lines).", items=None),
          Arg("conversation_path", ("string",),
              "Instead of conversation: a file inside the vault that holds it (relative to the vault). Files "
              "outside the vault are refused."), PLAIN), text="context"),
    Tool("episode_add", "biocortex_cli.api.episodes:episode_add", "episode add --json",
         "Record one finished analysis (an episode), successful or not: what was asked, the approach, the "
         "tools, the result with numbers, whether it worked, and the lessons. Returns the stored record "
         "(the JSON of `biocortex episode add --json`), with its id and path.",
         (Arg("task", ("string",), "What was asked, in one sentence.", required=True),
          Arg("plan", ("string",), "The approach: methods and parameters."),
          Arg("tools", ("array",), "The tools used, e.g. [\"scDblFinder\", \"Seurat\"].", aliases=("tool",)),
          Arg("domains", ("array",), "The domains, e.g. [\"scRNA-seq\"].", aliases=("domain",)),
          Arg("result", ("string",), "What came out, with numbers, identifiers and file paths."),
          Arg("success", ("boolean",), "Whether the analysis worked (false for a failure: record those too)."),
          Arg("quality", ("number",), "How good the result is, 0-1."),
          Arg("lessons", ("array",), "What to do or avoid next time, one sentence each.", aliases=("lesson",)),
          Arg("entities", ("array",), "Genes, proteins, datasets, … it concerns (more are found in the text).",
              aliases=("entity",)),
          Arg("id", ("string",), "The episode's id (default: date-slug-hash)."),
          Arg("created", ("string",), "When it happened, ISO 8601 (default: now)."),
          Arg("provenance", ("object",), "Where the result came from: code commit, notebook, data accessions, "
                                         "parameters, e.g. {\"commit\": \"3f2a9c1\", \"data\": [\"GSE123456\"]}."),
          Arg("related", ("array",), "Ids of episodes this one follows from or repeats.")),
         read_only=False, idempotent=False),
    Tool("episode_show", "biocortex_cli.api.episodes:episode_show", "episode show --json",
         "One recorded episode (live or archived) by id, every field as it was given. Returns the JSON of "
         "`biocortex episode show --json`.",
         (Arg("id", ("string",), "The episode's id (recall results and episode_list give them).", required=True),)),
    Tool("episode_list", "biocortex_cli.api.episodes:episode_list", "episode list --json",
         "Recorded episodes, newest first, filtered. Returns the JSON of `biocortex episode list --json`: "
         "a list of episode records.",
         (Arg("domain", ("string",), "Only episodes with this domain."),
          Arg("tool", ("string",), "Only episodes that used this tool."),
          Arg("entity", ("string",), "Only episodes mentioning this entity."),
          Arg("success", ("boolean",), "Only successes (true) or failures (false)."),
          Arg("since", ("string",), "Only episodes created at or after this: a date (2026-11-01), a date-time "
                                    "or an age (7d, 2w, 6mo)."),
          Arg("limit", ("integer",), "At most this many."))),
    Tool("fact_add", "biocortex_cli.api.facts:fact_add", "fact add --json",
         "Record a fact (subject, predicate, object) you established, with its sources; the same triple again "
         "merges its sources (the same sources and confidences again change nothing: \"unchanged\"). A fact "
         "that contradicts memory is recorded and listed in \"contradicts\": tell the user. Returns the stored fact "
         "(the JSON of `biocortex fact add --json`).",
         (Arg("subject", ("string",), "Subject, e.g. KEAP1 (aliases resolve to the entity's name).", required=True),
          Arg("predicate", ("string",), "Predicate, e.g. inhibits.", required=True),
          Arg("object", ("string",), "Object, e.g. NFE2L2.", required=True),
          Arg("source", ("array",), "Where it comes from: PMID:…, DOI, episode id, notebook path, URL.",
              aliases=("sources",)),
          Arg("confidence", ("number",), "How sure, 0-1 (default: the vault's facts.default_confidence)."),
          Arg("taxon", ("string",), TAXON + " Another taxon makes another fact (mouse Myc is not human MYC)."),
          Arg("cell_type", ("string",), "The cell type it holds in, e.g. hepatocyte (qualifies the fact)."),
          Arg("context", ("string",), "The condition it holds in, e.g. hypoxia (qualifies the fact)."),
          Arg("reopen", ("boolean",), "Make a retracted or superseded fact current again (refused without it).")),
         read_only=False, idempotent=False),
    Tool("fact_query", "biocortex_cli.api.facts:fact_query", "fact query --json",
         "Facts memory (fact notes and registered datasets) holds about an entity (its exact name, an alias, an "
         "identifier or a synonym; never another gene whose name contains it, unless fuzzy), nearest and most "
         "confident first. Returns the JSON of `biocortex fact query --json`.",
         (Arg("entity", ("string",), "The entity, e.g. KEAP1 or p53.", required=True),
          Arg("predicate", ("string",), "Only facts with this predicate."),
          Arg("hops", ("integer",), HOPS + " 2 also gives the facts about its neighbours."),
          Arg("min_confidence", ("number",), MIN_CONFIDENCE),
          Arg("all", ("boolean",), "Include retracted and superseded facts."),
          Arg("limit", ("integer",), "At most this many facts (0: all)."),
          Arg("fuzzy", ("boolean",), "When no name matches exactly, use the names that contain the text."),
          Arg("taxon", ("string",), TAXON + " Keeps facts of that taxon and unqualified ones."))),
    Tool("fact_verify", "biocortex_cli.api.facts:fact_verify", "fact verify --json",
         "Check a claim against memory (fact notes and registered datasets) before relying on it: "
         "\"verdict\" is supported, contested (evidence on both sides), contradicted or unknown, with the "
         "evidence on each side counted per independent source. Returns the JSON of `biocortex fact verify "
         "--json`.",
         (Arg("subject", ("string",), "Subject of the claim.", required=True),
          Arg("predicate", ("string",), "Predicate of the claim.", required=True),
          Arg("object", ("string",), "Object of the claim.", required=True),
          Arg("hops", ("integer",), HOPS + " Applies to transitive predicates (the vault's facts.transitive)."),
          Arg("min_confidence", ("number",), MIN_CONFIDENCE),
          Arg("taxon", ("string",), TAXON + " Counts facts of that taxon and unqualified ones."))),
    Tool("entity_show", "biocortex_cli.api.facts:entity_show", "entity show --json",
         "An entity by name or alias: its aliases, the facts about it in and out, and the episodes that mention "
         "it. Returns the JSON of `biocortex entity show --json`.",
         (Arg("name", ("string",), "The entity's name or an alias, e.g. p53.", required=True),)),
    Tool("dataset_list", "biocortex_cli.api.datasets:dataset_list", "dataset list --json",
         "The registered datasets (large graphs consulted beside the fact notes: name, version, licence, "
         "file, checksum, mapping) and whether each can answer on this machine. Returns the JSON of "
         "`biocortex dataset list --json`.",
         ()),
    Tool("dataset_show", "biocortex_cli.api.datasets:dataset_show", "dataset show --json",
         "One registered dataset: its record (source, version, licence, file, checksum, column mapping) and "
         "its state here. Returns the JSON of `biocortex dataset show --json`.",
         (Arg("name", ("string",), "The dataset's name, e.g. trrust.", required=True),)),
    Tool("feedback", "biocortex_cli.api.recall:feedback", "feedback --json",
         "Say how a recall (or context) went once the task is done: later recalls rank the memories that "
         "helped higher. Returns the JSON of `biocortex feedback --json` (\"recorded\": false when this "
         "feedback was already recorded).",
         (Arg("recall_id", ("string",), "The recall's id: \"recall_id\" in recall's or context's result.",
              required=True),
          Arg("outcome", ("string",), "Whether the task the recall served succeeded.", required=True),
          Arg("helpful", ("array",), "Ids of the episodes or lessons that helped."),
          Arg("unhelpful", ("array",), "Ids of the episodes or lessons that misled or did not help."),
          Arg("note", ("string",), "A sentence on why.")),
         read_only=False),
    Tool("feedback_retract", "biocortex_cli.api.recall:retract_feedback", "feedback --retract --json",
         "Withdraw the feedback given on a recall when it was wrong: one retraction line, the votes stay in "
         "their files and stop counting; feedback given afterwards counts again. Returns the JSON of "
         "`biocortex feedback RECALL_ID --retract --json`.",
         (Arg("recall_id", ("string",), "The recall whose feedback to withdraw.", required=True),
          Arg("note", ("string",), "A sentence on why.")),
         read_only=False),
    Tool("log", "biocortex_cli.api.vault:log", "log --json",
         "What changed in memory recently: new episodes, new and retracted facts, contradictions, promoted "
         "lessons, archived notes and feedback, by author. Returns the JSON of `biocortex log --json`.",
         (Arg("since", ("string",), "Start of the range: an age (12h, 7d, 2w), a date (2026-11-01) or a "
                                    "commit."),)),
)
BY_NAME = {tool.name: tool for tool in TOOLS}


def tools_markdown() -> str:
    """docs/agents.md's tool table."""
    rows = ["| tool | like | reads only | arguments (required in bold) |", "|---|---|---|---|"]
    for tool in TOOLS:
        args = ", ".join((f"**`{a.name}`**" if a.required else f"`{a.name}`")
                         + (f" (or `{'`, `'.join(a.aliases)}`)" if a.aliases else "") for a in tool.args)
        rows.append(f"| `{tool.name}` | `biocortex {tool.cli}` | {'yes' if tool.read_only else 'no'} | {args} |")
    return "\n".join(rows) + "\n"
