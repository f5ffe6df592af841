"""Conversations in and out: OpenAI and Anthropic chat messages, as a JSON array, an object with
``"messages"``, or JSON Lines (one message per line).

Every message keeps the exact source text it was parsed from (``Message.raw``), so the messages
``compress`` keeps are printed byte for byte as they came, in the container they came in; only
the summary message is new. Anything that is not a conversation is a :class:`DataError` with the
line it was found on.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from biocortex_cli.errors import DataError

if TYPE_CHECKING:
    from biocortex_cli.tokens import TokenCounter

Container = Literal["array", "object", "jsonl"]

ROLES = ("system", "developer", "user", "assistant", "tool", "function")
SYSTEM_ROLES = frozenset({"system", "developer"})
#: keys of an ``{"messages": [...]}`` wrapper that are part of the model's context (Anthropic's
#: top-level system prompt, tool definitions); counted as a fixed cost, never compressed.
CONTEXT_KEYS = ("system", "tools", "functions")

_FORMATS_HINT = ('expected a JSON array of messages, an object {"messages": [...]}, '
                 "or JSON Lines with one message object per line")
_WS = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()


@dataclass(frozen=True)
class Message:
    """One message of the input: its 1-based position, source line, exact text and value."""

    index: int
    line: int
    raw: str
    data: dict[str, Any]

    @property
    def role(self) -> str:
        return str(self.data["role"])

    @property
    def is_system(self) -> bool:
        return self.role in SYSTEM_ROLES

    @property
    def calls_tools(self) -> bool:
        """An assistant message that asks for tool calls (its results must follow it)."""
        if self.role != "assistant":
            return False
        if self.data.get("tool_calls") or self.data.get("function_call"):
            return True
        return any(b.get("type") in ("tool_use", "server_tool_use") for b in self.blocks())

    @property
    def is_tool_result(self) -> bool:
        if self.role in ("tool", "function"):
            return True
        return self.role == "user" and any(b.get("type") == "tool_result" for b in self.blocks())

    def blocks(self) -> list[dict[str, Any]]:
        content = self.data.get("content")
        return content if isinstance(content, list) else []


@dataclass(frozen=True)
class Conversation:
    """A parsed input. ``head``/``tail`` surround the messages (``[``/``]``, the wrapper object's
    other keys); ``separator`` is what stood between the first two messages."""

    container: Container
    text: str
    messages: tuple[Message, ...]
    head: str = ""
    tail: str = ""
    separator: str = "\n"
    context: tuple[Any, ...] = field(default=())  # wrapper values counted as fixed context
    style: str = "openai"  # "anthropic" when its tool blocks or top-level system prompt appear

    @property
    def format_name(self) -> str:
        """e.g. "openai json-array", "anthropic json-object", "openai jsonl"."""
        container = {"array": "json-array", "object": "json-object", "jsonl": "jsonl"}[self.container]
        return f"{self.style} {container}"

    def render(self, parts: Sequence[str | dict[str, Any]]) -> str:
        """The conversation in its own container with ``parts`` as its messages: a ``str`` is a
        kept message's exact source text, a ``dict`` a new message serialised in the input's style."""
        if self.container == "jsonl":
            crlf = bool(self.messages) and self.messages[0].raw.endswith("\r")
            lines = [p if isinstance(p, str) else self._dump_line(p) + ("\r" if crlf else "") for p in parts]
            end = "\n" if self.text.endswith("\n") else ""
            return "\n".join(lines) + end
        indent = self.head[len(self.head.rstrip(" \t")):] if "\n" in self.separator else ""
        rendered = [p if isinstance(p, str) else self._dump_element(p, indent) for p in parts]
        return self.head + self.separator.join(rendered) + self.tail

    def _sample(self) -> str:
        return self.messages[0].raw if self.messages else ""

    def _dump_line(self, value: dict[str, Any]) -> str:
        compact = '": ' not in self._sample() and '", ' not in self._sample()
        return json.dumps(value, ensure_ascii=False, separators=(",", ":") if compact else None)

    def _dump_element(self, value: dict[str, Any], indent: str) -> str:
        sample = self._sample()
        if "\n" not in sample:
            return self._dump_line(value)
        second = sample.split("\n", 1)[1]
        unit = len(second) - len(second.lstrip(" ")) - len(indent)
        text = json.dumps(value, ensure_ascii=False, indent=unit if unit > 0 else 2)
        return text.replace("\n", "\n" + indent)


def parse(text: str, path: str = "<stdin>") -> Conversation:
    """Parse a conversation, or raise DataError saying where and what is wrong."""
    from biocortex_cli.store.files import check_unicode

    try:
        conv = _parse(text, path)
    except RecursionError:  # '[[[[…' 100k deep: json's decoder recurses per level
        raise DataError("JSON nested too deeply to be a conversation", path=path, hint=_FORMATS_HINT) from None
    except ValueError as exc:  # not a JSONDecodeError (those are reported with their line): 5000-digit integers
        raise DataError(f"not valid JSON: {exc}", path=path, hint=_FORMATS_HINT) from None
    for m in conv.messages:
        check_unicode(m.data, path, m.line)
    return conv


def _parse(text: str, path: str) -> Conversation:
    start = _WS.match(text, 0)
    pos = start.end() if start else 0
    if text.startswith("\ufeff"):
        pos = _WS.match(text, 1).end()  # type: ignore[union-attr]
    if pos >= len(text):
        raise DataError("empty input: no conversation to compress", path=path, hint=_FORMATS_HINT)
    first = text[pos]
    if first == "[":
        return _parse_array_document(text, pos, path)
    if first == "{":
        try:
            value, end = _DECODER.raw_decode(text, pos)
        except json.JSONDecodeError as exc:
            raise _json_error(exc, path) from None
        rest = _WS.match(text, end)
        if rest is not None and rest.end() >= len(text):
            if isinstance(value, dict) and "messages" in value:
                return _parse_object_document(text, pos, path, value)
            if "\n" in text[pos:end].strip():
                raise DataError('one JSON object without "messages": not a conversation', path=path,
                                line=_line_at(text, pos), hint=_FORMATS_HINT)
            return _parse_jsonl(text, path)
        if "\n" in text[pos:end]:
            raise DataError("more than one JSON value, and the first spans several lines "
                            "(JSON Lines needs one message per line)", path=path,
                            line=_line_at(text, rest.end() if rest else end), hint=_FORMATS_HINT)
        return _parse_jsonl(text, path)
    raise DataError("not JSON: a conversation starts with '[' or '{'", path=path,
                    line=_line_at(text, pos), hint=_FORMATS_HINT)


def _line_at(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


def _json_error(exc: json.JSONDecodeError, path: str, line_offset: int = 0) -> DataError:
    return DataError(f"not valid JSON: {exc.msg} (column {exc.colno})", path=path,
                     line=exc.lineno + line_offset, hint=_FORMATS_HINT)


def _scan_array(text: str, pos: int, path: str) -> tuple[list[tuple[Any, int, int]], int]:
    """Elements of the JSON array at ``pos`` as (value, start, end), and the end of the array."""
    items: list[tuple[Any, int, int]] = []
    i = _WS.match(text, pos + 1).end()  # type: ignore[union-attr]
    if text.startswith("]", i):
        return items, i + 1
    while True:
        try:
            value, end = _DECODER.raw_decode(text, i)
        except json.JSONDecodeError as exc:
            raise _json_error(exc, path) from None
        items.append((value, i, end))
        j = _WS.match(text, end).end()  # type: ignore[union-attr]
        if text.startswith(",", j):
            i = _WS.match(text, j + 1).end()  # type: ignore[union-attr]
        elif text.startswith("]", j):
            return items, j + 1
        else:
            what = "end of input" if j >= len(text) else repr(text[j])
            raise DataError(f"not valid JSON: expected ',' or ']' after a message, found {what}",
                            path=path, line=_line_at(text, j), hint=_FORMATS_HINT)


def _messages_from(text: str, items: list[tuple[Any, int, int]], path: str) -> tuple[Message, ...]:
    messages = []
    line, last = 1, 0
    for n, (value, start, end) in enumerate(items, 1):
        line += text.count("\n", last, start)
        last = start
        messages.append(_message(value, n, line, text[start:end], path))
    return tuple(messages)


def _layout(text: str, items: list[tuple[Any, int, int]], open_end: int, close_start: int) -> tuple[str, str, str]:
    """(head, separator, tail) around the elements of an array."""
    if not items:
        return text[:open_end], "", text[open_end:]
    head = text[: items[0][1]]
    tail = text[items[-1][2]:]
    if len(items) > 1:
        separator = text[items[0][2]: items[1][1]]
    else:
        lead = text[open_end: items[0][1]]
        separator = "," + lead if "\n" in lead else ", "
    return head, separator, tail


def _parse_array_document(text: str, pos: int, path: str) -> Conversation:
    items, end = _scan_array(text, pos, path)
    rest = _WS.match(text, end).end()  # type: ignore[union-attr]
    if rest < len(text):
        raise DataError("extra text after the array of messages", path=path, line=_line_at(text, rest),
                        hint=_FORMATS_HINT)
    head, separator, tail = _layout(text, items, pos + 1, end - 1)
    messages = _messages_from(text, items, path)
    return Conversation("array", text, messages, head, tail, separator, style=_style(messages))


def _parse_object_document(text: str, pos: int, path: str, value: dict[str, Any]) -> Conversation:
    if not isinstance(value["messages"], list):
        raise DataError(f'"messages" must be a list of messages, not {_kind(value["messages"])}',
                        path=path, line=_line_at(text, pos), hint=_FORMATS_HINT)
    # Walk the object's keys to find where the messages array sits in the text.
    i = _WS.match(text, pos + 1).end()  # type: ignore[union-attr]
    while True:
        key, i = _DECODER.raw_decode(text, i)
        i = _WS.match(text, i).end()  # type: ignore[union-attr]
        i = _WS.match(text, i + 1).end()  # type: ignore[union-attr]  # past ':'
        if key == "messages":
            items, end = _scan_array(text, i, path)
            break
        _, i = _DECODER.raw_decode(text, i)
        i = _WS.match(text, i).end()  # type: ignore[union-attr]
        i = _WS.match(text, i + 1).end()  # type: ignore[union-attr]  # past ','
    head, separator, tail = _layout(text, items, i + 1, end - 1)
    context = tuple(value[k] for k in CONTEXT_KEYS if value.get(k))
    messages = _messages_from(text, items, path)
    style = "anthropic" if "system" in value else _style(messages)
    return Conversation("object", text, messages, head, tail, separator, context, style)


def _parse_jsonl(text: str, path: str) -> Conversation:
    messages: list[Message] = []
    offset = 1 if text.startswith("\ufeff") else 0
    for line_no, line in enumerate(text[offset:].split("\n"), 1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError as exc:
            raise DataError(f"line {line_no}: not valid JSON: {exc.msg} (column {exc.colno})",
                            path=path, line=line_no,
                            hint="JSON Lines: one message object per line, no line breaks inside") from None
        messages.append(_message(value, len(messages) + 1, line_no, line, path))
    return Conversation("jsonl", text, tuple(messages), separator="\n", style=_style(messages))


def _style(messages: Sequence[Message]) -> str:
    for m in messages:
        if any(b.get("type") in ("tool_use", "tool_result") for b in m.blocks()):
            return "anthropic"
    return "openai"


def _kind(value: Any) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean", int: "a number",
            float: "a number", type(None): "null"}.get(type(value), type(value).__name__)


def _message(value: Any, index: int, line: int, raw: str, path: str) -> Message:
    where = f"message {index}"
    if not isinstance(value, dict):
        raise DataError(f"{where} is {_kind(value)}, not a message object", path=path, line=line,
                        hint='a message looks like {"role": "user", "content": "..."}')
    role = value.get("role")
    if role is None:
        raise DataError(f'{where} has no "role"', path=path, line=line,
                        hint=f"every message needs a role: {', '.join(ROLES)}")
    if not isinstance(role, str) or role not in ROLES:
        raise DataError(f"{where} has an unknown role {role!r}", path=path, line=line,
                        hint=f"known roles: {', '.join(ROLES)}")
    content = value.get("content")
    if not (content is None or isinstance(content, str | list)):
        raise DataError(f"{where}: content is {_kind(content)}; expected a string, null or a list of "
                        "content blocks", path=path, line=line)
    if isinstance(content, list):
        for n, block in enumerate(content, 1):
            if not isinstance(block, dict) or not isinstance(block.get("type"), str):
                raise DataError(f"{where}: content block {n} is {_kind(block)} without a string "
                                '"type"; expected blocks like {"type": "text", "text": "..."}',
                                path=path, line=line)
    return Message(index, line, raw, value)


# ---------------------------------------------------------------------------------------------
# What a message says, for counting and for summaries
# ---------------------------------------------------------------------------------------------


def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def count_texts(data: dict[str, Any]) -> list[str]:
    """The texts whose tokens a message costs: every string value as it is, every other value
    (content blocks, tool calls) as compact JSON; keys are not counted (OpenAI's recipe)."""
    out = []
    for value in data.values():
        if isinstance(value, str):
            out.append(value)
        elif value is not None:
            out.append(_compact(value))
    return out


PER_MESSAGE = 3  # <|start|>{role}<|message|> … <|end|>
PER_NAME = 1


def message_costs(messages: Sequence[Message], counter: TokenCounter) -> list[int]:
    """Tokens of each message, chat overhead included (one batched count for all of them)."""
    pieces: list[str] = []
    owners: list[int] = []
    costs = []
    for n, message in enumerate(messages):
        texts = count_texts(message.data)
        pieces.extend(texts)
        owners.extend([n] * len(texts))
        costs.append(PER_MESSAGE + (PER_NAME if "name" in message.data else 0))
    for owner, count in zip(owners, counter.count_many(pieces), strict=True):
        costs[owner] += count
    return costs


def context_texts(conv: Conversation) -> list[str]:
    return [v if isinstance(v, str) else _compact(v) for v in conv.context]


@dataclass(frozen=True)
class ToolCall:
    name: str
    arguments: Any  # parsed JSON arguments when possible, else the raw string
    id: str = ""


@dataclass(frozen=True)
class Parts:
    """A message taken apart for the summarizer: prose, tool calls and tool output."""

    prose: list[str]
    calls: list[ToolCall]
    outputs: list[str]
    error_flagged: bool = False  # a tool_result with "is_error": true
    result_of: tuple[str, ...] = ()  # ids of the tool calls this message answers
    tool_name: str | None = None  # the tool's name, when the result message gives it


def _arguments(raw: Any) -> Any:
    if isinstance(raw, str):
        try:
            return json.loads(raw)
        except ValueError:
            return raw
    return raw


def _block_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(_block_text(b) for b in content)
    if isinstance(content, dict):
        if isinstance(content.get("text"), str):
            return str(content["text"])
        if "content" in content:
            return _block_text(content["content"])
    return ""


def parts(message: Message) -> Parts:
    data = message.data
    prose: list[str] = []
    calls: list[ToolCall] = []
    outputs: list[str] = []
    flagged = False
    ids: list[str] = []
    is_output = message.role in ("tool", "function")
    if data.get("tool_call_id"):
        ids.append(str(data["tool_call_id"]))
    content = data.get("content")
    if isinstance(content, str):
        (outputs if is_output else prose).append(content)
    for block in message.blocks():
        kind = block.get("type")
        if kind in ("text", "input_text", "output_text"):
            (outputs if is_output else prose).append(str(block.get("text", "")))
        elif kind in ("tool_use", "server_tool_use"):
            calls.append(ToolCall(str(block.get("name", "?")), block.get("input"), str(block.get("id", ""))))
        elif kind == "tool_result":
            outputs.append(_block_text(block.get("content", "")))
            flagged = flagged or bool(block.get("is_error"))
            ids.append(str(block.get("tool_use_id", "")))
        elif kind == "refusal":
            prose.append(str(block.get("refusal", "")))
    for call in data.get("tool_calls") or []:
        if isinstance(call, dict):
            fn: dict[str, Any] = call["function"] if isinstance(call.get("function"), dict) else {}
            calls.append(ToolCall(str(fn.get("name", call.get("type", "?"))), _arguments(fn.get("arguments")),
                                  str(call.get("id", ""))))
    fc = data.get("function_call")
    if isinstance(fc, dict):
        calls.append(ToolCall(str(fc.get("name", "?")), _arguments(fc.get("arguments"))))
    name = data.get("name") if is_output and isinstance(data.get("name"), str) else None
    return Parts(prose, calls, outputs, flagged, tuple(ids), name)


def groups(messages: Sequence[Message]) -> Iterator[tuple[int, int]]:
    """Half-open ranges of positions that must stay together: a message that calls tools with
    the result messages that follow it; every other message alone."""
    i = 0
    while i < len(messages):
        j = i + 1
        if messages[i].calls_tools:
            while j < len(messages) and messages[j].is_tool_result:
                j += 1
        yield i, j
        i = j
