"""The selection proxy: would a word matcher pick the right tool for what users actually ask?

A request file has one JSON object per line, {"text": "what a user asks", "tool": "tool_name"},
with "tool": null for a request that needs no tool. Every request is scored against every audited
tool with the TF-IDF of `tfidf.py`, as the tutorials' proxy does, over all the text a model reads of
a tool: its name, description and parameter descriptions. It reports:

- top-1 accuracy: requests needing a tool whose best-scoring tool is that tool.
- near-ties: requests needing a tool whose runner-up scores at least 80% of the best; there the
  choice hangs on a few words.
- the call-or-not table: a rule "call the best tool when its score reaches the cutoff" makes two
  mistakes, needed calls skipped and needless calls made; each row counts both at one cutoff.

A real model reads far better than word matching; read these as how much the descriptions give a
reader to go on, never as a forecast of a model's behaviour.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from mcp_types import Tool

from instruments.audit.findings import Cutoff, Ranking, Selection
from instruments.audit.tfidf import TfIdf, everything_read

CUTOFFS = (0.05, 0.1, 0.15, 0.2, 0.3, 0.4)
NEAR_TIE = 0.8


class RequestFileError(Exception):
    """A request file that cannot be read; the message says which line and how to fix it."""


@dataclass(frozen=True)
class Request:
    text: str
    tool: str | None


MAX_REQUEST_FILE_BYTES = 10_000_000


def read_requests(path: Path) -> list[Request]:
    try:
        with path.open("rb") as file:
            data = file.read(MAX_REQUEST_FILE_BYTES + 1)
    except OSError as exc:
        raise RequestFileError(f"Cannot read the request file {path}: {exc.strerror}.") from exc
    if len(data) > MAX_REQUEST_FILE_BYTES:
        raise RequestFileError(
            f"The request file {path} is over {MAX_REQUEST_FILE_BYTES:,} bytes. Give a file of JSON lines."
        )
    requests = []
    for number, raw in enumerate(data.splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise RequestFileError(
                f"{path}, line {number}: not UTF-8 text. Save the file as UTF-8."
            ) from None
        try:
            entry = json.loads(line)
        except (ValueError, RecursionError):  # bad JSON, an integer past Python's digit limit, deep nesting
            entry = None
        if not (
            isinstance(entry, dict)
            and isinstance(entry.get("text"), str)
            and (entry.get("tool") is None or isinstance(entry.get("tool"), str))
        ):
            raise RequestFileError(
                f'{path}, line {number}: expected {{"text": "...", "tool": "tool_name" or null}}. Fix the line.'
            )
        requests.append(Request(entry["text"], entry.get("tool")))
    return requests


def check_tools_exist(requests: Sequence[Request], tools: Sequence[Tool]) -> None:
    names = {tool.name for tool in tools}
    unknown = sorted({r.tool for r in requests if r.tool is not None and r.tool not in names})
    if unknown:
        raise RequestFileError(
            f"The requests name {', '.join(unknown)}, which no audited server offers. "
            "Audit the server that has it too, or correct the tool name."
        )


def select(tools: Sequence[Tool], requests: Sequence[Request]) -> Selection:
    proxy = TfIdf([everything_read(tool) for tool in tools])
    choices = []
    for request in requests:
        ranked = sorted(zip(proxy.scores(request.text), (t.name for t in tools), strict=True), reverse=True)
        best_score, best = ranked[0] if ranked else (0.0, None)
        runner_up_score, runner_up = ranked[1] if len(ranked) > 1 else (0.0, None)
        choices.append(
            Ranking(
                request.text,
                request.tool,
                best if best_score > 0 else None,
                best_score,
                runner_up,
                runner_up_score,
            )
        )
    needing = [c for c in choices if c.expected is not None]
    return Selection(
        requests_needing_a_tool=len(needing),
        requests_needing_none=len(choices) - len(needing),
        top1_correct=sum(c.best == c.expected for c in needing),
        near_ties=sum(c.best_score > 0 and c.runner_up_score >= NEAR_TIE * c.best_score for c in needing),
        cutoffs=[
            Cutoff(
                cutoff,
                needed_calls_skipped=sum(c.best_score < cutoff for c in needing),
                needless_calls_made=sum(c.expected is None and c.best_score >= cutoff for c in choices),
            )
            for cutoff in CUTOFFS
        ],
        choices=choices,
    )
