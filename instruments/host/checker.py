"""Check a tool-use transcript, from this host or any app, against the rules the model APIs enforce.

Input: Anthropic Messages or OpenAI Chat Completions, as a bare list of messages, an object with
`messages` (and optionally `system`, `tools`), or a full request body; the format is detected from the
shapes it uses. Each defect names the message (its 0-based index in `messages`) and the tool-call id.
A transcript that ends on tool requests not yet answered is pending execution, not broken.

The rules, with the source of each, are listed in docs/host-loop.md ("The transcript rules").
"""

from __future__ import annotations

import json
import stat
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from instruments.console import printable

ANTHROPIC = "Anthropic Messages"
OPENAI = "OpenAI Chat Completions"
PLAIN = "plain conversation (no tool use)"
# Hours of conversation; a bigger file is not worth holding in memory (a pipe from /dev/zero is endless).
MAX_FILE_BYTES = 8_000_000


class Unreadable(ValueError):
    """The input is not a transcript in either format; the message says why."""


@dataclass(frozen=True)
class Defect:
    message: int
    call_id: str | None
    text: str

    def __str__(self) -> str:
        call = f" ({self.call_id})" if self.call_id else ""
        return f"message {self.message}{call}: {self.text}"


@dataclass(frozen=True)
class Verdict:
    format: str
    messages: int
    calls: int
    pending: tuple[str, ...]  # ids still waiting for a result at the end of the transcript
    defects: tuple[Defect, ...]

    def summary(self) -> str:
        shape = f"{self.format}, {plural(self.messages, 'message')}, {plural(self.calls, 'tool call')}"
        if self.defects:
            return f"{plural(len(self.defects), 'defect')} ({shape})"
        waiting = len(self.pending)
        pending = (
            f", {waiting} still awaiting {'its result' if waiting == 1 else 'results'}" if waiting else ""
        )
        return f"well formed ({shape}{pending})"


def plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


def check(data: Any) -> Verdict:
    """Check a parsed transcript; raises Unreadable when it is neither format."""
    messages, tools = _messages_and_tools(data)
    kind = detect_format(data, messages, tools)
    offered = _offered(tools, kind)
    if kind == ANTHROPIC:
        return _Anthropic(messages, offered).verdict()
    if kind == OPENAI:
        return _OpenAI(messages, offered).verdict()
    return Verdict(PLAIN, len(messages), 0, (), ())


def check_file(path: Path) -> Verdict:
    return check(read_transcript(path))


def read_transcript(path: Path) -> Any:
    """The parsed JSON in the file at `path`; Unreadable for anything that is not a bounded JSON file."""
    try:
        if not stat.S_ISREG(path.stat().st_mode):
            # A pipe or device may never end (/dev/zero) or block until written to (a FIFO).
            raise Unreadable("not a regular file; save the transcript to a file and check that")
        with path.open("rb") as file:
            raw = file.read(MAX_FILE_BYTES + 1)
    except OSError as error:
        raise Unreadable(f"cannot read the file ({error.strerror})") from None
    if len(raw) > MAX_FILE_BYTES:
        raise Unreadable(
            f"larger than {MAX_FILE_BYTES // 1_000_000} MB, the most this checker reads; "
            "check the messages of one request at a time"
        )
    try:
        return json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise Unreadable("not UTF-8 text") from None
    except json.JSONDecodeError as error:
        raise Unreadable(f"not JSON (line {error.lineno}, column {error.colno}: {error.msg})") from None
    except RecursionError:
        raise Unreadable("its JSON is nested too deeply to be a transcript") from None
    except ValueError:  # the one other refusal: an integer over Python's 4,300-digit conversion limit
        raise Unreadable(
            "a number in it has more than 4,300 digits, more than any transcript holds"
        ) from None


def detect_format(data: Any, messages: Sequence[dict[str, Any]], tools: Any) -> str:
    anthropic, openai = set(), set()
    if isinstance(data, dict) and "system" in data:
        anthropic.add("a top-level system prompt")
    for tool in tools if isinstance(tools, list) else []:
        if isinstance(tool, dict) and "input_schema" in tool:
            anthropic.add("tools with input_schema")
        if isinstance(tool, dict) and "function" in tool:
            openai.add("function tools")
    for message in messages:
        if message["role"] in ("system", "developer", "tool"):
            openai.add(f"{message['role']} messages")
        if "tool_calls" in message:
            openai.add("tool_calls")
        for block in _blocks(message):
            if block.get("type") in ("tool_use", "tool_result"):
                anthropic.add(f"{block['type']} blocks")
    if anthropic and openai:
        raise Unreadable(
            f"it mixes Anthropic shapes ({', '.join(sorted(anthropic))}) with OpenAI shapes "
            f"({', '.join(sorted(openai))}); check one format at a time"
        )
    return ANTHROPIC if anthropic else OPENAI if openai else PLAIN


def _messages_and_tools(data: Any) -> tuple[list[dict[str, Any]], Any]:
    if isinstance(data, list):
        messages, tools = data, None
    elif isinstance(data, dict) and isinstance(data.get("messages"), list):
        messages, tools = data["messages"], data.get("tools")
    else:
        raise Unreadable("expected a list of messages, or an object with a messages list")
    for index, message in enumerate(messages):
        if not isinstance(message, dict) or not isinstance(message.get("role"), str):
            raise Unreadable(f"message {index} is not an object with a role")
    return messages, tools


def _offered(tools: Any, kind: str) -> set[str] | None:
    """The names of the tools the request offered, or None when the transcript does not say."""
    if not isinstance(tools, list):
        return None
    names = set()
    for tool in tools:
        if not isinstance(tool, dict):
            continue
        function = tool.get("function")
        name = (
            (function.get("name") if isinstance(function, dict) else None)
            if kind == OPENAI
            else tool.get("name")
        )
        if isinstance(name, str):
            names.add(name)
    return names


def _blocks(message: dict[str, Any]) -> list[dict[str, Any]]:
    content = message.get("content")
    return [block for block in content if isinstance(block, dict)] if isinstance(content, list) else []


@dataclass
class _Rules:
    """What both formats share: requests by id, where each was answered, and the defects found."""

    messages: list[dict[str, Any]]
    offered: set[str] | None
    requests: dict[str, tuple[int, str]] = field(default_factory=dict)  # id -> (message index, tool name)
    answers: defaultdict[str, list[int]] = field(default_factory=lambda: defaultdict(list))
    defects: list[Defect] = field(default_factory=list)
    pending: list[str] = field(default_factory=list)

    def defect(self, index: int, call_id: Any, text: str) -> None:
        self.defects.append(Defect(index, str(call_id) if call_id is not None else None, text))

    def request(self, index: int, call_id: Any, name: Any) -> None:
        if not isinstance(call_id, str) or not call_id:
            self.defect(index, None, f"a request for {name} has no id, so no result can answer it")
        elif call_id in self.requests:
            self.defect(index, call_id, f"this id was already used in message {self.requests[call_id][0]}")
        else:
            if self.offered is not None and name not in self.offered:
                self.defect(
                    index, call_id, f"asks for {name!r}, which is not among the tools the request offers"
                )
            self.requests[call_id] = (index, str(name))

    def answer(self, index: int, call_id: Any, id_field: str) -> None:
        if isinstance(call_id, str) and call_id:
            self.answers[call_id].append(index)
        else:
            self.defect(index, None, f"a result needs the {id_field} of the request it answers")

    def finish(self, kind: str) -> Verdict:
        for call_id, indexes in self.answers.items():
            if call_id not in self.requests:
                self.defect(indexes[0], call_id, "this result answers no request: no tool call has this id")
            elif len(indexes) > 1:
                self.defect(
                    indexes[1],
                    call_id,
                    f"a second result for one request (the first is in message {indexes[0]})",
                )
        ordered = sorted(self.defects, key=lambda defect: defect.message)
        return Verdict(kind, len(self.messages), len(self.requests), tuple(self.pending), tuple(ordered))


class _Anthropic(_Rules):
    def verdict(self) -> Verdict:
        for index, message in enumerate(self.messages):
            self._read(index, message)
        last = len(self.messages) - 1
        for call_id, (index, name) in self.requests.items():
            answered = self.answers.get(call_id, [])
            if not answered and index == last:
                self.pending.append(call_id)
            elif not answered:
                self.defect(
                    index,
                    call_id,
                    f"{name} gets no tool_result; message {index + 1} must answer every tool_use",
                )
            elif answered[0] != index + 1:
                between = range(index + 1, answered[0])
                self.defect(answered[0], call_id, _misplaced(index, answered[0], between))
        return self.finish(ANTHROPIC)

    def _read(self, index: int, message: dict[str, Any]) -> None:
        first_other: str | None = None  # the type of the first block that is not a tool_result
        for block in _blocks(message):
            kind = block.get("type")
            if kind == "tool_use":
                if message["role"] != "assistant":
                    self.defect(index, block.get("id"), "a tool_use block belongs in an assistant message")
                if not isinstance(block.get("input"), dict):
                    self.defect(index, block.get("id"), "the tool_use input must be a JSON object")
                self.request(index, block.get("id"), block.get("name"))
            elif kind == "tool_result":
                call_id = block.get("tool_use_id")
                if message["role"] != "user":
                    self.defect(index, call_id, "a tool_result block belongs in a user message")
                if first_other:
                    self.defect(
                        index,
                        call_id,
                        f"a {first_other} block comes before this tool_result; tool_result blocks go first",
                    )
                    first_other = None  # one defect per message is enough to point at the fix
                self.answer(index, call_id, "tool_use_id")
            else:
                first_other = first_other or str(kind)


class _OpenAI(_Rules):
    def verdict(self) -> Verdict:
        for index, message in enumerate(self.messages):
            self._read(index, message)
        for call_id, (index, name) in self.requests.items():
            follow_up_end = self._end_of_tool_messages(index + 1)
            answered = self.answers.get(call_id, [])
            if any(index < where < follow_up_end for where in answered):
                continue
            if answered:
                # Other calls' tool messages are not "in between"; anything else is.
                between = [i for i in range(index + 1, answered[0]) if self.messages[i]["role"] != "tool"]
                self.defect(answered[0], call_id, _misplaced(index, answered[0], between))
            elif follow_up_end == len(self.messages):
                self.pending.append(call_id)
            else:
                self.defect(
                    index,
                    call_id,
                    f"{name} gets no tool message before message {follow_up_end}; each call needs one",
                )
        return self.finish(OPENAI)

    def _read(self, index: int, message: dict[str, Any]) -> None:
        calls = message.get("tool_calls") or []
        if calls and message["role"] != "assistant":
            self.defect(index, None, "tool_calls belong on an assistant message")
        for call in calls if isinstance(calls, list) else []:
            call = call if isinstance(call, dict) else {}
            function = call["function"] if isinstance(call.get("function"), dict) else {}
            self.request(index, call.get("id"), function.get("name"))
            if not _is_json_object(function.get("arguments")):
                self.defect(index, call.get("id"), "the arguments must be JSON text of an object")
        if message["role"] == "tool":
            self.answer(index, message.get("tool_call_id"), "tool_call_id")

    def _end_of_tool_messages(self, start: int) -> int:
        """The index of the first message at or after `start` that is not a tool message."""
        end = start
        while end < len(self.messages) and self.messages[end]["role"] == "tool":
            end += 1
        return end


def _misplaced(asked: int, answered: int, between: Sequence[int]) -> str:
    if answered <= asked:
        return f"this result comes before its request in message {asked}"
    if len(between) == 1:
        others = f"message {between[0]} comes"
    elif list(between) == list(range(between[0], between[-1] + 1)):
        others = f"messages {between[0]} to {between[-1]} come"
    else:
        others = f"messages {', '.join(map(str, between))} come"
    return f"this result answers message {asked}, but {others} in between; results must follow at once"


def _is_json_object(arguments: Any) -> bool:
    if not isinstance(arguments, str):
        return False
    try:
        return isinstance(json.loads(arguments), dict)
    except json.JSONDecodeError:
        return False


def main(paths: Sequence[str]) -> int:
    """Check each file; print one line per defect. Exit 2 if any file is unreadable, else 1 on defects."""
    status = 0
    for path in paths:
        # Ids and names come from the file: escaped, so they cannot rewrite the terminal or fail to encode.
        shown = printable(path)
        try:
            verdict = check_file(Path(path))
        except Unreadable as problem:
            print(f"{shown}: unreadable: {printable(str(problem))}")
            status = 2
            continue
        print(f"{shown}: {printable(verdict.summary())}")
        for defect in verdict.defects:
            print(f"{shown}: {printable(str(defect))}")
        if verdict.defects and status == 0:
            status = 1
    return status
