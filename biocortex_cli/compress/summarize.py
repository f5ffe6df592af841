"""The summary of the compressed portion of a conversation.

Built in (the default): a deterministic extract, no model involved. Two pinned lines come first
at every budget: the user's first request and the assistant's latest conclusions (:func:`pinned`),
whole when the summary can hold them. Then one pass over the messages collects what an agent
needs to go on: decisions and instructions, errors (the informative line
of a traceback or log) with the sentence that fixed or explained them, tool calls with their
parameters, file paths, identifiers and biological entities (``biocortex_cli.bio.entities``),
numbers with units or named parameters, and open questions. A gene-like symbol that only a tool's
output shows (one more row of a table) is not an entity unless someone wrote it too. Each item is tagged with the number
of the message it came from (``m12``). The portion is cut into segments; each segment's items
are ranked (kind, cue strength, repetition, recency) and as many as fit its share of the budget
are printed, under a ``### messages i–j`` heading when there are several. When the segments'
shares get too small (level 1 does not fit), groups of ``FANOUT`` neighbouring segments are
merged and their items re-ranked together: level 2, then 3, and so on.

With ``--summarizer CMD``: the same segments, as a plain transcript, are piped to the command,
whose stdout is the summary (protocol in docs/compress.md); summaries that together do not fit
are piped again in groups (level 2, 3…). If the command fails, times out, prints nothing or more
than its share, the built-in summary is used instead, with one warning.

A summary message of an earlier ``compress`` run found in the portion is read back item by item,
so compressing an already compressed conversation summarises the summary instead of losing it.
Items keep the message numbers, labels, counts and fixes it gave them: numbers are those of the
conversation before any compression (:func:`renumber`), the same in every summary of a chain;
its header's counts of messages, tokens and tool calls add to the new ones, so the tool counts
are totals over everything the summary stands for.
"""

from __future__ import annotations

import copy
import functools
import json
import math
import os
import re
import shlex
import signal
import subprocess
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from biocortex_cli.compress.formats import Message, ToolCall, parts
from biocortex_cli.errors import UsageError

if TYPE_CHECKING:
    from biocortex_cli.tokens import TokenCounter

SUMMARY_MARK = "[biocortex summary"
MIN_SUMMARY_TOKENS = 64  # the smallest summary content compress will write
MIN_BLOCK_TOKENS = 256  # below this share per segment, segments are merged (next level)
FANOUT = 4  # segments merged per level
SEGMENT_CHARS = 60_000  # built-in: message text per level-1 segment
COMMAND_SEGMENT_CHARS = 240_000  # --summarizer: transcript text per call at level 1
ENTITY_SCAN_CHARS = 400_000  # entity extraction reads at most this much of the portion
OUTPUT_EDGE = 3000  # characters at each end of a long tool output scanned for paths and numbers
ENTITY_EDGE = 1500  # … and for entities (the top of a sorted table, the totals at the end of a log)
MAX_MISSES = 40  # selection stops looking down a ranking after this many items that do not fit
DEFAULT_TIMEOUT = 120.0

SECTIONS = ("decision", "error", "tool", "file", "entity", "number", "question")
TITLES = {"decision": "Decisions and instructions", "error": "Errors and fixes", "tool": "Tool calls",
          "file": "Files", "entity": "Identifiers and entities", "number": "Numbers",
          "question": "Open questions"}
INLINE = {"file": ", ", "entity": ", ", "number": "; "}
#: share of a block's budget each section may fill first; what is left goes by rank
SHARES = {"decision": 0.24, "error": 0.2, "tool": 0.14, "file": 0.1, "entity": 0.14, "number": 0.08,
          "question": 0.1}
#: opens the tool counts when an earlier summary did not count its calls (they are lower bounds)
PARTIAL_TOOLS = "at least: "
#: at most this many tools are named in a ``Tool calls (…)`` line; the others are counted together
MAX_TOOLS_NAMED = 8
MAX_SENTENCE = 360
MAX_ERROR_LINE = 240
#: the pinned lines: the user's first request and the assistant's latest conclusions, kept first
#: at every budget (whole sentences, else cut): each within its share of the summary's room (the
#: conclusions also within what the request leaves); the blocks get the rest
REQUEST_TITLE, CONCLUSION_TITLE = "Request", "Latest conclusions"
REQUEST_SHARE, CONCLUSION_SHARE = 0.5, 0.6
#: an assistant message says a conclusion (not just "Counting." beside a tool call) from this long
MIN_CONCLUSION_CHARS = 120

# --- what counts as what ---------------------------------------------------------------------

_EXT = (r"h5ad|h5mu|h5|hdf5|loom|mtx|rds|rda|RData|csv|tsv|txt|tab|json|jsonl|ya?ml|toml|bam|bai|sam"
        r"|cram|crai|vcf|bcf|g?vcf|bed|bedpe|bigwig|bw|bedgraph|narrowPeak|broadPeak|gtf|gff3?|fa|fasta"
        r"|fna|faa|fastq|fq|gz|bgz|zip|tar|py|R|r|Rmd|ipynb|sh|smk|nf|wdl|cwl|pdf|png|svg|jpe?g|html|log"
        r"|parquet|feather|xlsx|mzML|mzXML|raw|sdrf|tbi|csi|pkl|pt|ckpt|zarr|idx|dict|sf|k2d|tiktoken|md")
_PATH = re.compile(
    r"(?<![\w/.:~@${}<>-])(?:"
    r"(?:~|\.{1,2})?/(?:[\w.+@*-]+/)+[\w.+@*-]*"  # /abs/path, ./rel/path, ~/x/y (2+ components; S*/ globs)
    r"|(?:~|\.{1,2})?/[\w+@-][\w.+@-]*\.(?:" + _EXT + r")"  # /file.ext
    r"|[\w.+@-]+/(?:[\w.+@*-]+/)*[\w+@*-][\w.+@*-]*\.(?:" + _EXT + r")"  # rel/dir/file.ext, rel/*.ext
    r"|[\w+@-][\w.+@-]*\.(?:" + _EXT + r")"  # file.ext
    r")(?![\w/])")
_UNITS = frozenset("""
    % bp kb kbp Mb Mbp Gb Gbp nt aa kDa Da fold read reads cell cells nuclei gene genes sample samples peak peaks
    variant variants SNP SNPs SNV SNVs indel indels loci cluster clusters barcode barcodes UMI UMIs spot spots guide
    guides sgRNA sgRNAs protein proteins peptide peptides PSM PSMs precursor precursors species taxa OTUs ASVs contig
    contigs bin bins pg ng µg ug mg µl ul µL uL ml mL pM nM µM uM mM °C GB MB TB GiB MiB KB s sec second seconds ms
    min minute minutes h hr hrs hour hours day days core cores thread threads CPU CPUs GPU GPUs ppm Th cM nm µm um
    mm cm donor donors patient patients individual individuals replicate replicates libraries library lane lanes run
    runs feature features transcript transcripts hit hits doublet doublets residue residues batch batches
""".split())
_NUM = r"-?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:[eE][-+]?\d+)?"
# Each pattern starts with a character class or a literal, which the regex engine scans for fast.
_COMPARISON = re.compile(r"(?:<=|>=|==|=|<|>|≤|≥)\s?(?=[-\d])" + _NUM + r"(?![\w.])")
_NAME_BEFORE = re.compile(r"(?:adj\.? ?p|[A-Za-z_][\w.\-]*)\s?$")
_FLAG = re.compile(r"-(?:-[A-Za-z][\w-]*[ =]|[A-Za-z] )" + _NUM + r"(?![\w.])")
_WITH_UNIT = re.compile(r"(?<![\w.,])(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:[eE][-+]?\d+)? ?"
                        r"(%|[A-Za-zµ°][\w°]*)(?![\w/])")
_DIGIT = re.compile(r"\d")
_LEAD_WORDS = re.compile(r"(?:[A-Za-z][\w-]*\s+){1,2}$")
_STRONG_ERROR = re.compile(
    r"(?:\[E::\w+\]|\b[A-Z]\w*(?:Error|Exception)\b|\bERROR\b|\bFATAL\b|\bFatal error|\b[Ee]rror(?::| in )"
    r"|No such file or directory|command not found|Permission denied|Segmentation fault|core dumped"
    r"|\bKilled\b|[Oo]ut of memory|\bOOM\b|non-zero exit|exit (?:status|code) [1-9]\d*|A USER ERROR)")
_WEAK_ERROR = re.compile(
    r"\b(?:failed|failure|cannot|can't|could not|couldn't|unable to|not found|invalid|mismatch"
    r"|refused|aborted|timed out|does not (?:contain|exist|match)|doesn't exist|no such|not present"
    r"|unrecognized|unknown (?:option|argument))\b")
# Substrings one of which every match of the error patterns contains: a plain substring search
# rules out most tool output (tables, logs) before any regex runs.
_STRONG_HINTS = ("rror", "xception", "ERROR", "FATAL", "Killed", "emory", "OOM", "denied", "No such",
                 "not found", "exit", "[E::", "Segmentation", "dumped")
_WEAK_HINTS = ("fail", "annot", "an't", "ould", "nable", "not found", "nvalid", "ismatch", "efused", "borted",
               "timed out", "does", "doesn't", "o such", "not present", "nrecognized", "nknown")
_EXCEPTION_LINE = re.compile(r"^\s*[\w.]*(?:Error|Exception)\b.*:|^\s*(?:ERROR|FATAL|Error in |Error:|error:)")
_NOT_INFORMATIVE = re.compile(r"^\s*(?:Traceback \(most recent call last\)|File \".*\", line \d+|\^+\s*$)")
_DECIDE = re.compile(
    r"\b(?:decid(?:e|ed|ing)|decision|conclu(?:de|ded|sion)|final(?:ly|i[sz]ed?)?|chose|choose|choosing"
    r"|going with|go with|settled? on|agreed?|recommend(?:ed|ation)?|opt(?:ed)? (?:for|to)|in summary"
    r"|we (?:will|should|must)|we'll)\b", re.IGNORECASE)
_PLAN = re.compile(r"\b(?:I(?:'ll| will)|let's|let us|switch(?:ed|ing)? to|plan(?:ned)? (?:is|to)|next,? )",
                   re.IGNORECASE)
_ACT = re.compile(
    r"\b(?:keep|kept|exclud\w*|remov\w*|drop\w*|filter\w*|threshold\w*|cut-?offs?|retain\w*|use[sd]?"
    r"|using|set (?:\w+ )?to|select\w*|prefer\w*|requir\w*|regress\w*|normali[sz]\w*|downsampl\w*"
    r"|rarefy|imput\w*|merg\w*|restrict\w*|only)\b", re.IGNORECASE)
_CAUSE = re.compile(
    r"\b(?:because|due to|caused by|(?:issue|problem|error|cause|culprit|mistake) (?:is|was)|my mistake|means)\b",
    re.IGNORECASE)
_FIX = re.compile(
    r"\b(?:fix(?:ed|es|ing)?|resolv(?:e|ed|es|ing)|solv(?:e|ed)|workaround|work around|instead|switch(?:ed|ing)? to"
    r"|re-?ran|re-?run|retry|retried|succeeded|now works|works now|that worked|the right|correct(?:ed)?)\b",
    re.IGNORECASE)
_FIX_WEAK = re.compile(
    r"\b(?:install(?:ed|ing)?|upgrad\w+|downgrad\w+|renam\w+|convert\w*|need(?:s|ed)? to|should"
    r"|use[sd]?|add(?:ed|ing)?|set|pass(?:ed|ing)?|round\w*|specif\w+|point\w* to)\b", re.IGNORECASE)
_OPEN = re.compile(
    r"\b(?:open question|TODO|TBD|unclear|not sure|unknown whether|need to (?:check|confirm|verify|ask)"
    r"|remains? to be|follow[- ]up|to be determined|still (?:need|open|unresolved|pending))\b", re.IGNORECASE)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[\"'(\[A-Z0-9*`])")
_BULLET = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+")
_FENCE = re.compile(r"^\s*(```|~~~)")
#: an entry's tag: ``- m6 run_r: ``, ``- m3–m9 ×4 assistant: ``, ``- m14: `` (label: a role or a tool's name)
_TAG = re.compile(r"^- m(\d+)(?:–m(\d+))?(?: ×(\d+))?(?: ([^:\s]+))?: ")
_FIX_TAG = re.compile(r" → fix \(m(\d+)\): ")
_SUMMARY_LEVEL = re.compile(r"· level (\d+)")
_PIN = re.compile(r"\(m(\d+) ([^()\s]+)\): ")  # after the title of a pinned line
#: the header line of a summary: what it covers (see :func:`_header`)
_HEADER = re.compile(r"\[biocortex summary of messages? (\d+)(?:–(\d+))? · ([\d,]+) messages?, ([\d,]+) tokens"
                     r"(?:, (at least )?([\d,]+) tool calls?)? · level (\d+)\]")
#: one tool's count in a ``Tool calls (…):`` line (tool names have no spaces)
_TOOL_COUNT = re.compile(r"(\S+) ×(\d[\d,]*)")


# --- items -----------------------------------------------------------------------------------


@dataclass
class Item:
    """One thing worth keeping, merged over its repetitions within a segment."""

    section: str
    key: str
    text: str
    first: int
    last: int
    weight: float
    count: int = 1
    label: str = ""  # role or tool name printed after the message tag
    fix: str = ""  # errors: the sentence that fixed or explained it
    fix_at: int = 0
    cost: int = 0  # estimated tokens of the rendered entry
    variants: set[str] | None = None  # files: the distinct paths merged under one pattern

    def score(self, span: tuple[int, int]) -> float:
        lo, hi = span
        recency = (self.last - lo) / (hi - lo) if hi > lo else 1.0
        return self.weight * min(1.5, 1.0 + 0.25 * math.log2(self.count)) * (0.6 + 0.4 * recency)

    def merge(self, other: Item) -> None:
        self.count += other.count
        self.first = min(self.first, other.first)
        if other.last >= self.last:
            self.last = other.last
            self.text = other.text
            self.label = other.label or self.label
        self.weight = max(self.weight, other.weight)
        if other.fix and (not self.fix or other.fix_at > self.fix_at):
            self.fix, self.fix_at = other.fix, other.fix_at
        if other.variants:
            self.variants = (self.variants or set()) | other.variants

    def entry(self) -> str:
        if self.section in INLINE:
            if self.variants and len(self.variants) > 1:
                return f"{self.text} (+{len(self.variants) - 1} like it)"
            return self.text
        tag = f"m{self.first}" if self.count == 1 or self.first == self.last else f"m{self.first}–m{self.last}"
        if self.count > 1:
            tag += f" ×{self.count}"
        if self.label:
            tag += f" {self.label}"
        line = f"- {tag}: {self.text}"
        if self.fix:
            line += f" → fix (m{self.fix_at}): {self.fix}"
        return line


@dataclass
class Digest:
    """The items of a run of messages (one segment, or merged segments at a higher level)."""

    first: int
    last: int
    items: dict[tuple[str, str], Item] = field(default_factory=dict)
    tools: dict[str, int] = field(default_factory=dict)  # calls per tool name
    #: calls an earlier summary counted without naming their tool (its header has the total)
    unnamed: int = 0
    #: an earlier summary did not count its calls: the counts are lower bounds
    partial: bool = False
    #: (message, text, weight) still to scan for entities
    entity_texts: list[tuple[int, str, float]] = field(default_factory=list)

    def add(self, item: Item) -> None:
        key = (item.section, item.key)
        if key in self.items:
            self.items[key].merge(item)
        else:
            self.items[key] = item

    def absorb(self, other: Digest) -> None:
        self.first = min(self.first, other.first)
        self.last = max(self.last, other.last)
        for item in other.items.values():
            twin = copy.copy(item)
            twin.variants = set(item.variants) if item.variants else None
            self.add(twin)
        for name, n in other.tools.items():
            self.tools[name] = self.tools.get(name, 0) + n
        self.unnamed += other.unnamed
        self.partial = self.partial or other.partial


def _clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _short_value(key: str, value: Any) -> str:
    limit = 240 if key in ("code", "command", "cmd", "script", "query", "sql", "shell", "bash") else 100
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return text if len(text) <= limit else text[: limit - 2] + "…" + text[-1:]


def render_call(call: ToolCall) -> str:
    args = call.arguments
    if isinstance(args, dict):
        inner = ", ".join(f"{k}={_short_value(str(k), v)}" for k, v in args.items())
    elif args in (None, ""):
        inner = ""
    else:
        inner = _short_value("code", args)
    return _clip(f"{call.name}({inner})", 400)


def _sentences(text: str) -> Iterable[str]:
    """Sentences of prose outside code fences, bullets stripped."""
    in_code = False
    for line in text.split("\n"):
        if _FENCE.match(line):
            in_code = not in_code
            continue
        if in_code or line.startswith(("    ", "\t", "|", ">>>", "$ ")) or not line.strip():
            continue
        line = _BULLET.sub("", line).strip()
        for sentence in _SENTENCE_END.split(line):
            sentence = sentence.strip().strip("*").strip()
            if len(sentence) >= 12:
                yield sentence


def _hint_lines(text: str, hints: tuple[str, ...]) -> list[tuple[int, int]]:
    """(start, end) of every line holding one of ``hints`` (plain substring search: fast on the
    megabytes of tables and logs a long conversation carries)."""
    spans: dict[int, int] = {}
    for hint in hints:
        i = text.find(hint)
        while i != -1:
            start = text.rfind("\n", 0, i) + 1
            end = text.find("\n", i)
            end = len(text) if end == -1 else end
            spans[start] = end
            i = text.find(hint, end)
    return sorted(spans.items())


def _error_lines(text: str, strong_only: bool) -> tuple[list[str], bool]:
    """The informative error lines of a text (an exception line first), at most two, and whether
    any of them is a certain error (not just a word like "failed")."""
    found: list[tuple[int, int, int]] = []  # (rank, start, end)
    for start, end in _hint_lines(text, _STRONG_HINTS):
        line = text[start:end]
        if _STRONG_ERROR.search(line) and not _NOT_INFORMATIVE.match(line):
            found.append((0 if _EXCEPTION_LINE.match(line) else 1, start, end))
    certain = bool(found)
    if not found and not strong_only:
        for start, end in _hint_lines(text, _WEAK_HINTS):
            line = text[start:end]
            if _WEAK_ERROR.search(line) and not _NOT_INFORMATIVE.match(line):
                found.append((2, start, end))
    if not found:
        return [], False
    best = min(rank for rank, _, _ in found)
    chosen = [f for f in found if f[0] == best][-1:]  # the last of the best kind
    shown = text[chosen[0][1]: chosen[0][2]].strip()
    others = [f for f in found if f not in chosen and text[f[1]: f[2]].strip() != shown]
    if others and best > 0:
        chosen.append(others[0])
    out = []
    for _, start, end in sorted(chosen, key=lambda f: f[1]):
        line = text[start:end].strip()
        # R and many CLIs put the message on the line after "Error in f(x) :"
        if line.endswith(":") and end < len(text):
            after = text.find("\n", end + 1)
            following = text[end + 1: len(text) if after == -1 else after].strip()
            if following:
                line = f"{line} {following}"
        out.append(_clip(line, MAX_ERROR_LINE))
    return out, certain


def _error_key(text: str) -> str:
    return re.sub(r"\d+", "#", text.casefold())[:160]


def _numbers(text: str) -> Iterable[tuple[str, str]]:
    """(key, shown text) for numbers with units, named values (``min_genes=200``, ``p < 0.05``,
    ``QD < 2.0``) and command-line flags (``--trim-5 23``, ``-r 100``)."""
    if not _DIGIT.search(text):
        return
    for m in _COMPARISON.finditer(text):
        name = _NAME_BEFORE.search(text, max(0, m.start() - 40), m.start())
        if name and text[name.start() - 1: name.start()] != "-":  # --flag=3 is a flag
            core = " ".join(text[name.start(): m.end()].split())
            yield core, core
    for m in _FLAG.finditer(text):
        before = text[m.start() - 1: m.start()]
        if before.isalnum() or before in ("-", "_"):  # part of a word or of a longer dash run
            continue
        core = " ".join(m.group().split())
        yield core, core
    for m in _WITH_UNIT.finditer(text):
        if m.group(1) not in _UNITS:
            continue
        core = " ".join(m.group().split())
        lead = _LEAD_WORDS.search(text, max(0, m.start() - 40), m.start())
        yield core, (f"{' '.join(lead.group().split())} {core}" if lead else core)


def _path_key(path: str) -> str:
    """Paths that differ only in numbers (per-sample files) or a final slash are one item (and so
    are the values of one name on the rows of a tool's output)."""
    return re.sub(r"\d+", "#", path.rstrip("/"))


def _strings(value: Any) -> Iterable[str]:
    """The strings inside a tool call's arguments (code, commands, paths), unescaped."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


#: a component of 16+ letters and digits in both cases, or with a '+': a run of base64 (an image a
#: tool printed), not a directory or file name
_RANDOM_COMPONENT = re.compile(r"(?=[^/]*[A-Z])(?=[^/]*[a-z])(?=[^/]*\d)[A-Za-z\d+=]{16,}|[\w=]*\+[\w+=]{7,}")


def _paths(text: str) -> Iterable[str]:
    for m in _PATH.finditer(text):
        path = m.group()
        if path.endswith("**"):  # markdown bold around a path: **/data/x.tsv**
            path = path.rstrip("*")
        path = path.rstrip(".,;:")
        if len(path) < 4 or ("/" not in path and "." not in path):
            continue
        if path.replace("/", "").replace(".", "").isdigit() or path.startswith("/dev/"):  # dates, devices
            continue
        if any(_RANDOM_COMPONENT.fullmatch(part) for part in path.split("/")):
            continue
        yield path


# --- extraction --------------------------------------------------------------------------------


class _Extractor:
    """One pass over the portion, in order; errors wait for the sentence that fixes them."""

    def __init__(self, segments: list[Digest]) -> None:
        self.segments = segments
        self.pending: list[Item] = []
        self.pending_age = 0
        self.call_names: dict[str, str] = {}

    def run(self, messages: Sequence[Message], segment_of: Sequence[int]) -> None:
        for message, seg in zip(messages, segment_of, strict=True):
            digest = self.segments[seg]
            content = message.data.get("content")
            if isinstance(content, str) and content.startswith(SUMMARY_MARK):
                self._earlier_summary(message, content, digest)
                continue
            self._message(message, digest)

    def _message(self, message: Message, digest: Digest) -> None:
        idx, role = message.index, message.role
        p = parts(message)
        texts: list[str] = []
        for call in p.calls:
            shown = render_call(call)
            if call.id:
                self.call_names[call.id] = call.name
            digest.tools[call.name] = digest.tools.get(call.name, 0) + 1
            digest.add(Item("tool", shown, shown, idx, idx, 1.2))
            texts.extend(_strings(call.arguments))
        tool = p.tool_name or next((self.call_names[i] for i in p.result_of if i in self.call_names), "")
        for output in p.outputs:
            lines, certain = _error_lines(output, strong_only=False)
            if lines and not certain and len(output.strip().split("\n")) <= 5:
                certain = True  # a short output that only says it failed
            if p.error_flagged:
                certain = True
                if not lines:
                    lines = [_clip(next((ln for ln in output.split("\n") if ln.strip()), "error"), MAX_ERROR_LINE)]
            if lines:
                text = " | ".join(lines)
                item = Item("error", _error_key(text), text, idx, idx, 2.0 if certain else 1.2, label=tool)
                digest.add(item)
                if certain:
                    self.pending.append(digest.items[("error", item.key)])
                    self.pending_age = 0
        if role in ("user", "assistant"):
            self._prose(message, p.prose, digest, narration=bool(p.calls))
        said = "\n".join(t for t in (*p.prose, *texts) if t)  # prose and call arguments
        output = "\n".join(t for t in p.outputs if t)
        for text, weight in ((said, 1.4), (output, 0.8)):
            # long tool output (tables, logs): paths, numbers and entities from its head and tail only
            long = len(text) > 2 * OUTPUT_EDGE and weight < 1
            scan = f"{text[:OUTPUT_EDGE]}\n{text[-OUTPUT_EDGE:]}" if long else text
            for path in _paths(scan):
                digest.add(Item("file", _path_key(path), path, idx, idx, weight, variants={path}))
            for key, shown in _numbers(scan):
                if weight < 1:  # tool output: DP=92, DP=140, … on every row of a table are one entry
                    digest.add(Item("number", _path_key(key), shown, idx, idx, 0.6 * weight, variants={shown}))
                else:
                    digest.add(Item("number", key, shown, idx, idx, 0.6 * weight))
            if scan:
                entities = f"{text[:ENTITY_EDGE]}\n{text[-ENTITY_EDGE:]}" if long else scan
                digest.entity_texts.append((idx, entities, weight))

    def _prose(self, message: Message, prose: list[str], digest: Digest, narration: bool) -> None:
        """Decisions, questions and instructions; for an assistant after an error, its diagnosis and fix."""
        idx, role = message.index, message.role
        explaining = role == "assistant" and bool(self.pending)
        cause = fix = weak_fix = ""
        scale = 0.7 if narration else 1.0  # the text that goes with a tool call narrates it
        for text in prose:
            if role == "user":
                for line in _error_lines(text, strong_only=True)[0]:
                    item = Item("error", _error_key(line), line, idx, idx, 1.6, label="user")
                    digest.add(item)
                    self.pending.append(digest.items[("error", item.key)])
            for sentence in _sentences(text):
                shown = _clip(sentence, MAX_SENTENCE)
                if explaining:
                    if not cause and _CAUSE.search(sentence):
                        cause = shown
                        fixes = bool(_FIX.search(sentence))  # "it was X; I fixed it with Y"
                        fix = fix or ("(same sentence)" if fixes else "")
                        continue
                    if not fix and _FIX.search(sentence):
                        fix = shown
                        continue
                    if not weak_fix and _FIX_WEAK.search(sentence):
                        weak_fix = shown
                key = shown.casefold()
                if sentence.endswith("?") or _OPEN.search(sentence):
                    digest.add(Item("question", key, shown, idx, idx, 1.3, label=role))
                elif _DECIDE.search(sentence):
                    digest.add(Item("decision", key, shown, idx, idx, 2.0 * scale, label=role))
                elif role == "user":
                    digest.add(Item("decision", key, shown, idx, idx, 1.5, label=role))
                elif _PLAN.search(sentence):
                    digest.add(Item("decision", key, shown, idx, idx, 1.2 * scale, label=role))
                elif _ACT.search(sentence) and len(sentence) >= 40:
                    digest.add(Item("decision", key, shown, idx, idx, 1.0 * scale, label=role))
        if not explaining:
            return
        fix = "" if fix == "(same sentence)" else fix or weak_fix
        explanation = " ".join(t for t in (cause, fix) if t)
        if explanation:
            for item in self.pending:
                if not item.fix:
                    item.fix, item.fix_at = _clip(explanation, 2 * MAX_SENTENCE), idx
            self.pending.clear()
        else:
            self.pending_age += 1
            if self.pending_age >= 3:  # nobody explained it: stop waiting
                self.pending.clear()

    def _earlier_summary(self, message: Message, content: str, digest: Digest) -> None:
        """Items of a summary written by an earlier run, with the message numbers, labels, counts
        and fixes it gave them; its tool counts add to the digest's."""
        idx = message.index  # the first message it covers: files, entities, numbers have no number
        section = None
        by_title = {title: name for name, title in TITLES.items()}
        named = 0
        for line in content.split("\n"):
            head = line.split(" (", 1)[0].rstrip(":")
            if line.startswith("- ") and section and section not in INLINE:
                digest.add(_earlier_item(section, line, idx))
                continue
            name, _, rest = line.partition(": ")
            if name in by_title and by_title[name] in INLINE:
                sec = by_title[name]
                for value in rest.split(INLINE[sec]):
                    if value.strip():
                        key = value.strip() if sec != "entity" else value.strip().casefold()
                        digest.add(Item(sec, key, value.strip(), idx, idx, 1.5))
                section = None
            elif head in by_title:
                section = by_title[head]
                if section == "tool":
                    for tool, n in _tool_counts(line):
                        digest.tools[tool] = digest.tools.get(tool, 0) + n
                        named += n
        covered = earlier_summary(message)
        if covered is not None and covered.calls_known:
            digest.unnamed += max(0, covered.calls - named)  # its blocks that named none, a command's summary
        else:
            digest.partial = True


def _earlier_item(section: str, line: str, first: int) -> Item:
    """An entry of an earlier summary (``- m6 run_r: Error … → fix (m9): …``) as the item it was."""
    tag = _TAG.match(line)
    text, label, last, count = line[2:], "earlier", first, 1
    if tag:
        text, label = line[tag.end():], tag.group(4) or ""
        first = int(tag.group(1))
        last = int(tag.group(2) or first)
        count = int(tag.group(3) or 1)
    fix, fix_at = "", 0
    found = _FIX_TAG.search(text)
    if found:
        text, fix, fix_at = text[: found.start()], text[found.end():], int(found.group(1))
    key = _error_key(text) if section == "error" else text if section == "tool" else text.casefold()
    return Item(section, key, text, first, last, 2.2 if section in ("decision", "error") else 1.5, count=count,
                label=label, fix=fix, fix_at=fix_at)


def _tool_counts(line: str) -> Iterable[tuple[str, int]]:
    """(tool, calls) from a ``Tool calls (python ×3, bash ×1):`` line; entries that name no single
    tool (``2 other tools ×5``) are left out: the summary's header has the total."""
    inner = line[line.find("(") + 1: line.rfind(")")]
    for entry in inner.removeprefix(PARTIAL_TOOLS).split(", "):
        found = _TOOL_COUNT.fullmatch(entry)
        if found:
            yield found.group(1), int(found.group(2).replace(",", ""))


# --- earlier summaries: what they cover, and the numbering they keep ------------------------------


@dataclass(frozen=True)
class Earlier:
    """What the header line of an earlier run's summary says it covers."""

    first: int  # 0: a header that does not say (edited, or cut short)
    last: int
    messages: int
    tokens: int | None
    calls: int  # tool calls in the messages it covers
    calls_known: bool  # False: ``calls`` is a lower bound
    level: int


def earlier_summary(message: Message) -> Earlier | None:
    """The header of ``message`` if it is a summary an earlier ``compress`` wrote, else None."""
    content = message.data.get("content")
    if not isinstance(content, str) or not content.startswith(SUMMARY_MARK):
        return None
    head = content.split("\n", 1)[0]
    found = _HEADER.match(head)
    if found is None:
        said = _SUMMARY_LEVEL.search(head)
        return Earlier(0, 0, 1, None, 0, False, int(said.group(1)) if said else 1)
    first, last, messages, tokens, at_least, calls, level = found.groups()
    return Earlier(int(first), int(last or first), int(messages.replace(",", "")), int(tokens.replace(",", "")),
                   int((calls or "0").replace(",", "")), calls is not None and not at_least, int(level))


def renumber(messages: Sequence[Message]) -> list[Message]:
    """``messages`` numbered as the conversation was before any compression: an earlier summary
    stands for the messages its header says it covers (its number is the first of them), and the
    messages after it are numbered on from the last. A summary of a summary therefore speaks of
    the same ``m12`` as the summary it read, and of the messages since with the numbers they
    would have had."""
    out, shift = [], 0
    for m in messages:
        covered = earlier_summary(m)
        if covered is not None and covered.first:
            out.append(replace(m, index=covered.first))
            shift = max(shift, covered.last - m.index)
        else:
            out.append(replace(m, index=m.index + shift) if shift else m)
    return out


def _last(message: Message) -> int:
    """The number of the last message ``message`` stands for (an earlier summary: the last it covers)."""
    covered = earlier_summary(message)
    return max(message.index, covered.last) if covered is not None else message.index


def _segment(messages: Sequence[Message], limit: int) -> list[int]:
    """Segment number of each message: consecutive runs of about ``limit`` characters."""
    out = []
    seg, size = 0, 0
    for m in messages:
        if size and size + len(m.raw) > limit:
            seg, size = seg + 1, 0
        size += len(m.raw)
        out.append(seg)
    return out


def _scan_entities(digests: list[Digest], later: Sequence[str] = (), named: set[str] | None = None) -> set[str]:
    """Entities of each digest: every one that people or the agent wrote (prose, tool calls, errors,
    ``later``: the messages kept verbatim after the portion), then from tool output the identifiers
    (accessions, Ensembl, dbSNP, …) and only the gene-like symbols written somewhere too — a
    table's other rows (non-hits under a threshold, read names) are not what the conversation is
    about. Returns the names written (``named``, a set to go on from, grows)."""
    from biocortex_cli.bio.entities import extract_entities

    share = max(8_000, ENTITY_SCAN_CHARS // max(1, len(digests)))
    named = set() if named is None else named
    left = ENTITY_SCAN_CHARS // 4  # what the kept messages say: enough to know their names, and bounded
    for text in later:
        for piece in _pieces(text[:left]):
            named.update(e.name.casefold() for e in extract_entities(piece))
        left -= min(left, len(text))
    found: list[list[tuple[int, str, str, float, bool]]] = []  # per digest: message, name, kind, weight, said
    for digest in digests:
        # (message, text, weight, written by a person or the agent): an error line is tool output
        # unless the user pasted it; the fix that follows it is the agent's
        texts = [(i.last, i.text, 1.5, i.section != "error" or i.label == "user") for i in digest.items.values()
                 if i.section in ("decision", "error", "question", "tool")]
        texts += [(i.fix_at, i.fix, 1.5, True) for i in digest.items.values() if i.section == "error" and i.fix]
        texts += [(idx, text, weight, weight >= 1)  # prose before tool output
                  for idx, text, weight in sorted(digest.entity_texts, key=lambda t: -t[2])]
        seen, mine = 0, []
        for idx, text, weight, said in texts:
            for piece in _pieces(text[: max(0, share - seen)]):
                for entity in extract_entities(piece):
                    mine.append((idx, entity.name, entity.kind, weight, said))
                    if said:
                        named.add(entity.name.casefold())
            seen += len(text)
            if seen >= share:
                break
        found.append(mine)
        digest.entity_texts = []
    for digest, mine in zip(digests, found, strict=True):
        for idx, name, kind, weight, said in mine:
            if said or kind != "gene" or name.casefold() in named:
                digest.add(Item("entity", name.casefold(), name, idx, idx, weight))
    return named


def _pieces(text: str, size: int = 4000) -> Iterable[str]:
    """``text`` in pieces of about ``size`` characters cut at line ends (entity extraction cost
    grows faster than linearly with the length of one call)."""
    start = 0
    while start < len(text):
        end = start + size
        if end < len(text):
            cut = text.rfind("\n", start, end)
            end = cut + 1 if cut > start else end
        yield text[start:end]
        start = end


def extract(messages: Sequence[Message], segment_chars: int | None = None,
            later: Sequence[Message] = (), tail: Sequence[Message] = ()) -> list[Digest]:
    """The level-1 digests of ``messages`` (one per segment of ``SEGMENT_CHARS``); ``later``, the
    messages after them, only tells which entities the conversation names. ``tail``: messages
    right after ``messages``, read on from where they left off (an error there may find its fix
    in the tail) into one more digest of their own, the last: a summary can then be written with
    or without them from one reading."""
    segment_of = _segment(messages, segment_chars or SEGMENT_CHARS)
    digests: list[Digest] = []
    for seg, message in zip(segment_of, messages, strict=True):
        if seg == len(digests):
            digests.append(Digest(message.index, message.index))
        digests[seg].last = _last(message)
    extractor = _Extractor(digests)
    extractor.run(messages, segment_of)
    named = _scan_entities(digests, [_said(m) for m in (*tail, *later)])
    if tail:
        extractor.segments = [Digest(tail[0].index, _last(tail[-1]))]
        extractor.run(tail, [0] * len(tail))
        _scan_entities(extractor.segments, [_said(m) for m in later], named)
        digests.append(extractor.segments[0])
    return digests


def _said(message: Message) -> str:
    """What a person or the agent wrote in ``message``: its prose and its tool calls' arguments."""
    p = parts(message)
    return "\n".join([*(t for t in p.prose if t), *(text for c in p.calls for text in _strings(c.arguments))])


# --- the pinned lines: the first request, the latest conclusions -------------------------------------


@dataclass(frozen=True)
class Pin:
    index: int  # the message it comes from
    label: str  # user or assistant (as an earlier summary gave it, when read back from one)
    text: str


def _prose_text(message: Message) -> str:
    """The message's prose outside code fences, on one line."""
    lines, in_code = [], False
    for text in parts(message).prose:
        for line in (text or "").split("\n"):
            if _FENCE.match(line):
                in_code = not in_code
            elif not in_code:
                lines.append(line)
    return " ".join(" ".join(lines).split())


def _earlier_pin(message: Message, content: str, title: str) -> Pin | None:
    """The line an earlier summary pinned under ``title``, with the message number and label it
    gave it (``Request (m2 user): …``)."""
    for line in content.split("\n"):
        if line.startswith(title + " (m"):
            found = _PIN.match(line, len(title) + 1)
            if found:
                return Pin(int(found.group(1)), found.group(2), line[found.end():])
            return Pin(message.index, "earlier", line.split("): ", 1)[1]) if "): " in line else None
    return None


def pinned(messages: Sequence[Message]) -> tuple[Pin | None, Pin | None]:
    """The user's first request and the assistant's latest conclusions in ``messages``: the first
    user message with prose, and the latest assistant message with at least ``MIN_CONCLUSION_CHARS``
    of prose. A summary of an earlier run carries its own (``Request …``, ``Latest conclusions …``):
    the request it kept is the first; its conclusions count when nothing newer says one."""
    return (_find_pin(messages, REQUEST_TITLE, "user", 1),
            _find_pin(messages[::-1], CONCLUSION_TITLE, "assistant", MIN_CONCLUSION_CHARS))


def _find_pin(messages: Sequence[Message], title: str, role: str, min_chars: int) -> Pin | None:
    """The first of ``messages`` from ``role`` with ``min_chars`` of prose, or the line an earlier
    summary pinned under ``title``, whichever comes first."""
    for m in messages:
        content = m.data.get("content")
        if isinstance(content, str) and content.startswith(SUMMARY_MARK):
            kept = _earlier_pin(m, content, title)
            if kept and kept.text:
                return kept
        elif m.role == role:
            text = _prose_text(m)
            if len(text) >= min_chars:
                return Pin(m.index, role, text)
    return None


def _pin_line(title: str, pin: Pin, cap: int, counter: TokenCounter) -> str:
    """``Title (mN label): text`` in at most ``cap`` tokens: whole sentences from the start, else
    the text cut on a word."""
    head = f"{title} (m{pin.index} {pin.label}): "
    line = head + pin.text
    if counter.count(line) <= cap:
        return line
    sentences = _SENTENCE_END.split(pin.text)
    kept = ""
    for n in range(1, len(sentences)):
        candidate = head + " ".join(sentences[:n]) + " …"
        if counter.count(candidate) > cap:
            break
        kept = candidate
    return kept or counter.truncate(line, max(0, cap - 1)) + "…"


def _drop_pinned(digests: list[Digest], pins: Sequence[Pin], shown: str) -> None:
    """Leave out of the blocks the sentences the pinned lines already show."""
    at = {p.index for p in pins}
    for digest in digests:
        for key, item in list(digest.items.items()):
            if item.section in ("decision", "question") and item.first == item.last and item.first in at \
                    and item.text.rstrip("…") in shown:
                del digest.items[key]


# --- rendering within a budget -------------------------------------------------------------------


def _cost(item: Item, counter: TokenCounter) -> int:
    """Estimated tokens of an item's entry, counted once, only for items selection looks at."""
    if not item.cost:
        item.cost = counter.count(item.entry()) + (1 if item.section in INLINE else 2)
    return item.cost


def _tools_line(digest: Digest) -> str:
    """``Tool calls (python ×12, bash ×3):``: calls per tool over everything the block covers,
    an earlier summary's counts included; the calls an earlier summary counted without naming
    their tool are said as such, and counts that may be short open with ``at least:``."""
    ranked = sorted(digest.tools.items(), key=lambda kv: (-kv[1], kv[0]))
    entries = [f"{name} ×{n:,}" for name, n in ranked[:MAX_TOOLS_NAMED]]
    others = ranked[MAX_TOOLS_NAMED:]
    if others:
        entries.append(f"{len(others)} other tool{'s' if len(others) > 1 else ''} ×{sum(n for _, n in others):,}")
    if digest.unnamed:
        entries.append(f"{digest.unnamed:,} by tools an earlier summary did not name")
    if not entries:
        return f"{TITLES['tool']}:"
    return f"{TITLES['tool']} ({PARTIAL_TOOLS if digest.partial else ''}{', '.join(entries)}):"


def _render(digest: Digest, chosen: Sequence[Item], title: str, counts: bool = False) -> str:
    """The chosen items by section; ``counts``: the tool counts line even without a call listed."""
    lines = [title] if title else []
    for section in SECTIONS:
        items = sorted((i for i in chosen if i.section == section), key=lambda i: (i.first, i.last, i.key))
        if not items and not (counts and section == "tool"):
            continue
        if section in INLINE:
            lines.append(f"{TITLES[section]}: " + INLINE[section].join(i.entry() for i in items))
            continue
        lines.append(_tools_line(digest) if section == "tool" else f"{TITLES[section]}:")
        lines.extend(i.entry() for i in items)
    return "\n".join(lines)


def render_digest(digest: Digest, budget: int, counter: TokenCounter, title: str = "") -> str:
    """The digest's best items, in order, within ``budget`` tokens (never more)."""
    items = list(digest.items.values())
    span = (digest.first, digest.last)
    # ties keep discovery order: earlier in a message (the top of a sorted table) ranks first
    ranked = sorted(items, key=lambda i: (-i.score(span), -i.last))
    header = {s: counter.count(TITLES[s]) + 3 for s in SECTIONS}
    header["tool"] = counter.count(_tools_line(digest)) + 1
    room = budget - (counter.count(title) + 1 if title else 0)
    chosen: list[Item] = []
    used_by: dict[str, int] = dict.fromkeys(SECTIONS, 0)
    total = 0
    by_section: dict[str, list[Item]] = {s: [] for s in SECTIONS}
    for item in ranked:
        by_section[item.section].append(item)
    for section in SECTIONS:  # first, each section up to its share (its best entry in any case)
        quota, misses = SHARES[section] * room, 0
        for item in by_section[section]:
            cost = _cost(item, counter) + (0 if used_by[section] else header[section])
            if (used_by[section] + cost <= quota or not used_by[section]) and total + cost <= room:
                chosen.append(item)
                used_by[section] += cost
                total += cost
            else:
                misses += 1
                if misses > MAX_MISSES:
                    break
    taken = {id(i) for i in chosen}
    misses = 0
    for item in ranked:  # then the rest by rank
        if id(item) in taken:
            continue
        cost = _cost(item, counter) + (0 if used_by[item.section] else header[item.section])
        if total + cost <= room:
            chosen.append(item)
            used_by[item.section] += cost
            total += cost
        else:
            misses += 1
            if misses > MAX_MISSES:
                break
    if not chosen:  # nothing in this segment is worth a line: no heading either
        return ""
    # the calls per tool, even when none of them is listed: the next summary adds to them
    counts = bool(digest.tools or digest.unnamed) and not used_by["tool"] and total + header["tool"] <= room
    text = _render(digest, chosen, title, counts)
    actual = counter.count(text)
    while actual > budget and chosen:  # estimates were short: drop the lowest-ranked items
        rank = {id(i): n for n, i in enumerate(ranked)}
        chosen.sort(key=lambda i: rank[id(i)])
        excess = actual - budget
        while chosen and excess > 0:
            excess -= chosen.pop().cost
        text = _render(digest, chosen, title, counts)
        actual = counter.count(text)
    if not chosen:
        return ""
    return text if actual <= budget else counter.truncate(text, budget)


# --- the summary ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Summary:
    text: str
    levels: int
    summarizer: str  # "built-in", "command" or "built-in (fallback)"
    warnings: tuple[str, ...] = ()
    left_out: int = 0  # the last messages it was given and does not cover (``spare``)


def _messages_span(first: int, last: int) -> str:
    return f"message {first}" if first == last else f"messages {first}–{last}"


@dataclass(frozen=True)
class _Covered:
    """What a summary of ``messages`` (numbered by :func:`renumber`) stands for: earlier
    summaries among them count as the messages and tool calls their headers say."""

    first: int
    last: int
    messages: int
    calls: int
    calls_known: bool  # False: an earlier summary did not count its calls
    earlier_level: int  # 0: no earlier summary among them

    @classmethod
    def of(cls, messages: Sequence[Message]) -> _Covered:
        count = calls = level = 0
        known = True
        for m in messages:
            covered = earlier_summary(m)
            if covered is None:
                count += 1
                calls += len(parts(m).calls)
                continue
            count += covered.messages
            calls += covered.calls
            known = known and covered.calls_known
            level = max(level, covered.level)
        return cls(messages[0].index, _last(messages[-1]), count, calls, known, level)

    def header(self, tokens: int, level: int) -> str:
        n, calls = self.messages, f"{'' if self.calls_known else 'at least '}{self.calls:,}"
        return (f"{SUMMARY_MARK} of {_messages_span(self.first, self.last)} · {n:,} message{'' if n == 1 else 's'}, "
                f"{tokens:,} tokens, {calls} tool call{'' if self.calls == 1 else 's'} · level {level}]")


def _note(by: str, cut_after: bool) -> str:
    after = ("The messages after this one are verbatim, except for text cut where a [… cut …] mark says so."
             if cut_after else "The messages after this one are verbatim.")
    return (f"Condensed by {by}; mN = message N of the conversation before any compression (the same N in "
            f"every later summary). {after}")


def _assemble(messages: Sequence[Message], tokens: Callable[[], int], budget: int, counter: TokenCounter, by: str,
              build: Callable[[int], tuple[list[str], int]], cut_after: bool = False) -> tuple[str, int]:
    """Header (and note, when there is room) + the blocks ``build`` makes within what is left.
    ``tokens`` (of the conversation the portion stands for) is asked for only once the blocks are
    written."""
    covered = _Covered.of(messages)
    earlier = covered.earlier_level
    header = covered.header(10**12, max(earlier + 1, 9))  # the longest it can be, for sizing
    note = _note(by, cut_after)
    with_note = budget >= 4 * counter.count(header + note) + MIN_BLOCK_TOKENS
    reserved = counter.count(header) + 1 + (counter.count(note) + 1 if with_note else 0)
    blocks, level = build(max(0, budget - reserved))
    level = max(level, earlier + 1) if earlier else level
    lines = [covered.header(tokens(), level)] + ([note] if with_note else []) + blocks
    text = _redacted("\n".join(lines))
    return (text if counter.count(text) <= budget else counter.truncate(text, budget)), level


def _redacted(text: str) -> str:
    """``text`` with every credential the vault's secret scan finds replaced by ``[REDACTED:kind]``:
    a summary is derived text, and what it copies should be what memory may hold."""
    from biocortex_cli.store.secrets import redact

    return redact(text)


def builtin_blocks(digests: list[Digest], budget: int, counter: TokenCounter) -> tuple[list[str], int]:
    """Level 1 blocks if each segment's share is at least MIN_BLOCK_TOKENS, else merge (level 2…)."""
    level = 1
    while len(digests) > 1 and budget // len(digests) - 2 < MIN_BLOCK_TOKENS:
        merged = []
        for n in range(0, len(digests), FANOUT):
            group = digests[n: n + FANOUT]
            head = Digest(group[0].first, group[0].last)
            for digest in group:
                head.absorb(digest)
            merged.append(head)
        digests = merged
        level += 1
    if len(digests) == 1:
        return [render_digest(digests[0], budget, counter)], level
    share = budget // len(digests) - 2
    return [render_digest(d, share, counter, f"### {_messages_span(d.first, d.last)}") for d in digests], level


def transcript(messages: Sequence[Message]) -> str:
    """The portion as plain text for a summarizer command."""
    out = []
    for m in messages:
        p = parts(m)
        if earlier_summary(m) is not None:
            out.append(f"[{_messages_span(m.index, _last(m))} · summary by an earlier compress]")
        else:
            out.append(f"[message {m.index} · {m.role}{' · tool result' if p.outputs and m.role != 'tool' else ''}]")
        out.extend(t for t in (*p.prose, *p.outputs) if t)
        out.extend(f"→ tool call: {render_call(c)}" for c in p.calls)
        out.append("")
    return "\n".join(out)


class CommandFailed(Exception):
    pass


#: terminal escapes (colours, cursor moves, titles) and control characters other than tab and
#: newline: what a command prints for a terminal, not for a conversation
_TERMINAL = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b.?|[\x00-\x08\x0b-\x1f\x7f]")


def _end_group(proc: subprocess.Popen[bytes]) -> None:
    """Kill the command and every process it started (its process group), and reap it."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (AttributeError, ProcessLookupError, PermissionError):  # no process groups (Windows); gone
        proc.kill()
    proc.wait()
    for pipe in (proc.stdin, proc.stdout, proc.stderr):  # a process that left the group may hold them
        if pipe is not None:
            pipe.close()


def _run_command(argv: list[str], text: str, budget: int, level: int, span: tuple[int, int], timeout: float,
                 counter: TokenCounter) -> str:
    env = {**os.environ, "BIOCORTEX_SUMMARY_TOKENS": str(budget), "BIOCORTEX_SUMMARY_LEVEL": str(level),
           "BIOCORTEX_SUMMARY_MESSAGES": f"{span[0]}-{span[1]}", "BIOCORTEX_TOKEN_ENCODING": counter.encoding}
    try:  # in a process group of its own, so that a time-out ends whatever it started too
        proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                env=env, start_new_session=True)
    except OSError as exc:
        raise CommandFailed(f"could not be run ({exc.strerror or exc})") from None
    try:
        stdout, stderr = proc.communicate(text.encode("utf-8"), timeout=timeout)
    except subprocess.TimeoutExpired:
        _end_group(proc)
        raise CommandFailed(f"timed out after {timeout:g} s") from None
    except BaseException:  # Ctrl-C, SIGTERM: the command goes with us
        _end_group(proc)
        raise
    if proc.returncode != 0:
        last = (stderr.decode("utf-8", "replace").strip().splitlines() or [""])[-1]
        raise CommandFailed(f"exited with status {proc.returncode}" + (f" ({_clip(last, 160)})" if last else ""))
    try:
        out = _TERMINAL.sub("", stdout.decode("utf-8").replace("\r\n", "\n")).strip()
    except UnicodeDecodeError:
        raise CommandFailed("printed text that is not UTF-8") from None
    if not out:
        raise CommandFailed("printed nothing")
    used = counter.count(out)
    if used > budget:
        raise CommandFailed(f"overran its budget ({used:,} tokens > {budget:,})")
    return out


def command_blocks(messages: Sequence[Message], budget: int, counter: TokenCounter, argv: list[str],
                   timeout: float, segment_chars: int | None = None) -> tuple[list[str], int]:
    segment_of = _segment(messages, segment_chars or COMMAND_SEGMENT_CHARS)
    inputs: list[tuple[int, int, str]] = []
    for seg in range(segment_of[-1] + 1):
        group = [m for m, s in zip(messages, segment_of, strict=True) if s == seg]
        inputs.append((group[0].index, _last(group[-1]), transcript(group)))
    level = 1
    while True:
        n = len(inputs)
        share = budget if n == 1 else max(MIN_BLOCK_TOKENS, budget // n - 2)
        outs = [(a, b, _run_command(argv, text, share, level, (a, b), timeout, counter)) for a, b, text in inputs]
        blocks = [text if len(outs) == 1 else f"### {_messages_span(a, b)}\n{text}" for a, b, text in outs]
        if sum(counter.count_many(blocks)) + len(blocks) <= budget or n == 1:
            return blocks, level
        inputs = []
        for k in range(0, n, FANOUT):
            group_out = outs[k: k + FANOUT]
            joined = "\n\n".join(f"[summary of messages {a}–{b}]\n{text}" for a, b, text in group_out)
            inputs.append((group_out[0][0], group_out[-1][1], joined))
        level += 1


def summarizer_argv(command: str) -> list[str]:
    """``--summarizer``'s command line, split like a shell's; a usage error when it cannot be."""
    try:
        argv = shlex.split(command)
    except ValueError as exc:
        raise UsageError(f"--summarizer: cannot split the command line ({exc})",
                         hint="quote it like a shell command: --summarizer 'llm -m gpt-4o-mini'") from None
    if not argv:
        raise UsageError("--summarizer is empty", hint="give a command, e.g. --summarizer 'llm -m gpt-4o-mini'")
    return argv


def summarize(messages: Sequence[Message], *, budget: int, tokens: int | Callable[[int], int], counter: TokenCounter,
              command: str | None = None, timeout: float = DEFAULT_TIMEOUT, later: Sequence[Message] = (),
              spare: int = 0, spare_tokens: int = 0) -> Summary:
    """The summary of ``messages`` (the compressed portion, numbered by their positions in the
    input) in at most ``budget`` tokens. ``tokens``: what the conversation the first ``n`` of them
    stand for counted (an earlier summary counts as the tokens its header says), a number or a
    function of ``n`` asked once the summary is written. ``later``: the messages kept after the
    portion (they tell which entities the conversation names). ``spare``: the built-in summary
    leaves the last ``spare`` messages out if without them it leaves ``spare_tokens`` of its budget
    unused (the caller keeps them, cut, in what is left; ``Summary.left_out`` says so). Entries are
    numbered as the conversation was before any compression (:func:`renumber`)."""
    def count(n: int) -> int:
        return tokens(n) if callable(tokens) else tokens

    messages = renumber(messages)
    if command is not None:
        argv = summarizer_argv(command)
        try:
            text, level = _assemble(messages, functools.partial(count, len(messages)), budget, counter,
                                    "an external summarizer",
                                    lambda room: command_blocks(messages, room, counter, argv, timeout))
            return Summary(text, level, "command")
        except CommandFailed as exc:
            warning = f"biocortex: warning: summarizer {command!r} {exc}; using the built-in summary"
            text, level, left_out = _builtin(messages, count, budget, counter, later, spare, spare_tokens)
            return Summary(text, level, "built-in (fallback)", (warning,), left_out)
    text, level, left_out = _builtin(messages, count, budget, counter, later, spare, spare_tokens)
    return Summary(text, level, "built-in", left_out=left_out)


def _builtin(messages: Sequence[Message], tokens: Callable[[int], int], budget: int, counter: TokenCounter,
             later: Sequence[Message] = (), spare: int = 0, spare_tokens: int = 0) -> tuple[str, int, int]:
    """The built-in summary, and how many of the last messages it left out (``spare`` or 0): one
    reading of the messages, written without the spare ones first; with them if that leaves less
    than ``spare_tokens`` unused."""
    head = messages[: len(messages) - spare] if 0 < spare < len(messages) else messages
    tail = messages[len(head):]
    digests = extract(head, later=(*tail, *later) if tail else later, tail=tail)
    if tail:
        apart = [replace(d, items=dict(d.items)) for d in digests[:-1]]  # the pinned lines drop items
        text, level = _builtin_text(head, apart, tokens, budget, counter, cut_after=True)
        if budget - counter.count(text) >= spare_tokens:
            return text, level, len(tail)
        digests[-2].absorb(digests.pop())
    text, level = _builtin_text(messages, digests, tokens, budget, counter)
    return text, level, 0


def _builtin_text(messages: Sequence[Message], digests: list[Digest], tokens: Callable[[int], int], budget: int,
                  counter: TokenCounter, cut_after: bool = False) -> tuple[str, int]:
    request, conclusion = pinned(messages)

    def build(room: int) -> tuple[list[str], int]:
        """The pinned lines first, each within its share; the blocks get the rest."""
        lines, used = [], 0
        for title, pin, share in ((REQUEST_TITLE, request, REQUEST_SHARE),
                                  (CONCLUSION_TITLE, conclusion, CONCLUSION_SHARE)):
            if pin is not None:
                lines.append(_pin_line(title, pin, min(room - used, int(room * share)), counter))
                used += counter.count(lines[-1]) + 1
        _drop_pinned(digests, [p for p in (request, conclusion) if p is not None], "\n".join(lines))
        blocks, level = builtin_blocks(digests, max(0, room - used), counter)
        return lines + [b for b in blocks if b], level

    return _assemble(messages, functools.partial(tokens, len(messages)), budget, counter,
                     "biocortex compress (deterministic extract)", build, cut_after)
