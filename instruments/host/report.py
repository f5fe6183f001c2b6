"""A turn written out for people: who produced each part of the transcript, and the token bill per request.

The layout follows the tutorial's worked example: one numbered row per part, the left column naming the
party that produced it (host, person, model, tool), so it is plain that the model only writes requests
and the host does the running and the pasting back.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Sequence

from mcp_types import Tool

from instruments.console import printable
from instruments.host.bill import (
    CACHE_READ,
    CACHE_WRITE,
    SMALLEST_CACHED_PREFIX,
    RequestBill,
    cache_estimate,
    counting_method,
    measure_request,
)
from instruments.host.checker import Verdict, check, plural
from instruments.host.formats import Wire, request_body, result_text
from instruments.host.loop import Turn
from instruments.host.transcript import Message, ModelMessage, PersonMessage, ToolResults

WHO_WIDTH = 22
WIDTH = 120


def transcript_printer(wire: Wire, system: str, tools: Sequence[Tool]) -> Callable[[Sequence[Message]], None]:
    """Print the transcript's first row (what the host sends every time), and return the `on_message`
    for `run_turn` that prints each message as it joins the conversation."""
    printer = TranscriptPrinter()
    printer.setup(wire, system, tools)
    return lambda conversation: printer.message(conversation[-1])


class TranscriptPrinter:
    """Prints the transcript row by row as messages arrive, numbering the parts as the tutorial does."""

    def __init__(self) -> None:
        self._row = 0

    def setup(self, wire: Wire, system: str, tools: Sequence[Tool]) -> None:
        print(f"  #  {'produced by':<{WHO_WIDTH}} content")
        cost = measure_request(wire, system, tools, [])
        names = ", ".join(tool.name for tool in tools)
        self._part(
            "host",
            f"system prompt ({cost.system} tokens) and {plural(len(tools), 'tool definition')} ({cost.definitions} tokens): "
            f"{names}. Re-sent at the start of every request.",
        )

    def message(self, message: Message) -> None:
        if isinstance(message, PersonMessage):
            self._part("person", f'"{message.text}"')
        elif isinstance(message, ModelMessage):
            if message.text:
                self._part("model", message.text)
            for call in message.calls:
                self._part("model", f"tool request {call.id}: {call.name} {call.arguments}")
        else:
            self._results(message)

    def _results(self, message: ToolResults) -> None:
        results = message.results
        each = ", ".join(f"{result.call.name} {result.seconds:.2f} s" for result in results)
        if len(results) == 1:
            self._part("host → tools", f"ran 1 call ({each})")
        else:
            one_by_one = sum(result.seconds for result in results)
            self._part(
                "host → tools",
                f"ran {len(results)} calls at once ({each}): {message.seconds:.2f} s in all, "
                f"against {one_by_one:.2f} s one after another",
            )
        for result in message.results:
            who = "host (refused)" if result.answered_by == "host" else f"tool: {result.answered_by}"
            kind = "error" if result.result.is_error else "result"
            self._part(who, f"{kind} for {result.call.id}: {result_text(result.result)}")

    def _part(self, who: str, text: str) -> None:
        lines = [
            wrapped
            for line in printable(text).splitlines()
            for wrapped in textwrap.wrap(line, WIDTH - WHO_WIDTH - 5) or [""]
        ]
        print(f"{self._row:>3}  {who:<{WHO_WIDTH}} {lines[0] if lines else ''}")
        for line in lines[1:]:
            print(f"{'':>3}  {'':<{WHO_WIDTH}} {line}")
        self._row += 1


def print_outcome(turn: Turn, wire: Wire, tools: Sequence[Tool]) -> Verdict:
    """After the transcript: why the loop stopped, the token bill, and the checker's verdict on the transcript."""
    print(f"Stopped: {turn.stop.detail}")
    for line in bill_lines(turn):
        print(line)
    verdict = check(request_body(wire, turn.system, tools, turn.conversation))
    print(f"Checker: {verdict.summary()}")
    for defect in verdict.defects:
        print(f"Checker: {defect}")
    return verdict


def bill_lines(turn: Turn) -> list[str]:
    """The token bill: one row per request to the model, then what the repeated definitions cost."""
    header = ("request", "definitions", "system", "conversation", "tool results", "read", "written")
    rows = [(str(number), *_figures(request)) for number, request in enumerate(turn.requests, 1)]
    rows.append(("total", *_figures(_total(turn.requests))))
    widths = [max(len(row[column]) for row in [header, *rows]) for column in range(len(header))]
    lines = [
        f"Token bill, {plural(len(turn.requests), 'request')} to the model (counted with {counting_method()} on the JSON "
        "sent; each provider's tokenizer differs somewhat):"
    ]
    lines += [
        "  " + "  ".join(cell.rjust(width) for cell, width in zip(row, widths, strict=True))
        for row in [header, *rows]
    ]
    notes = [
        textwrap.fill(note, WIDTH, initial_indent="  ", subsequent_indent="  ")
        for note in _notes(turn.requests)
    ]
    return lines + notes


def _figures(request: RequestBill) -> tuple[str, ...]:
    parts = (request.definitions, request.system, request.conversation, request.tool_results, request.read)
    return (*(str(part) for part in parts), str(request.written))


def _total(requests: Sequence[RequestBill]) -> RequestBill:
    return RequestBill(
        definitions=sum(request.definitions for request in requests),
        system=sum(request.system for request in requests),
        conversation=sum(request.conversation for request in requests),
        tool_results=sum(request.tool_results for request in requests),
        written=sum(request.written for request in requests),
    )


def _notes(requests: Sequence[RequestBill]) -> list[str]:
    """What the definitions cost over the turn, and what a prompt cache would make of it."""
    if not requests:
        return []
    total = _total(requests)
    cache = cache_estimate(requests)
    share = round(100 * total.definitions / total.read) if total.read else 0
    lines = [
        f"The tool definitions were read {plural(len(requests), 'time')}: {total.definitions} of the "
        f"{total.read} tokens read ({share}%)."
    ]
    if len(requests) < 2:
        return lines  # a cache pays off only when something is read again
    lines += [
        f"A prompt cache on the definitions and system prompt ({cache.prefix} tokens, written once at "
        f"{CACHE_WRITE}x the input price and re-read at {CACHE_READ}x) would bill them as "
        f"{cache.with_cache:.0f} tokens instead of {cache.without_cache:.0f}: {cache.saved:.0f} saved.",
    ]
    if not cache.would_be_cached:
        lines.append(
            f"Below Anthropic's smallest cacheable prefix ({SMALLEST_CACHED_PREFIX} tokens or more, by model), "
            "this prefix would be paid in full today; the saving grows with every tool added."
        )
    return lines
