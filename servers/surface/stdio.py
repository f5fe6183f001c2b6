"""MCP over stdin and stdout: one JSON-RPC message per line, and a process that stops when asked.

What the SDK's stdio transport does, plus three things a person relies on:
- A line that is not a JSON-RPC message gets a JSON-RPC error back instead of silence, with the
  request's id whenever it can be read, so the client can match the answer to what it sent.
- Ctrl-C and SIGTERM stop the server at once, even while it waits on stdin: the SDK reads stdin in a
  worker thread the event loop must wait for, so it ignores Ctrl-C until stdin closes. Here a daemon
  thread reads, which nothing has to wait for.
- Nothing is lost on the way out (see servers/surface/transport.py): a client that writes its requests
  and closes stdin at once still gets every answer.
As the SDK does, stdout is kept for JSON-RPC alone: while serving, fd 1 points at stderr, so a stray
print() cannot corrupt the protocol, and fd 0 at the null device, so nothing else reads the requests.
"""

from __future__ import annotations

import json
import os
import sys
import threading
from typing import Any, BinaryIO

import anyio
import anyio.from_thread
import anyio.lowlevel
import mcp_types
from anyio.streams.memory import MemoryObjectSendStream
from mcp.server.mcpserver import MCPServer
from mcp.shared.message import SessionMessage
from mcp_types import (
    INTERNAL_ERROR,
    INVALID_REQUEST,
    PARSE_ERROR,
    ErrorData,
    JSONRPCError,
    JSONRPCMessage,
    JSONRPCRequest,
    JSONRPCResponse,
    RequestId,
)
from pydantic import ValidationError

from servers.surface.sdk import lowlevel_server
from servers.surface.transport import InFlight, Stop

# Python refuses to turn longer digit strings into int (sys.get_int_max_str_digits), and so does the
# SDK's parser; reading the id again must not trip on them.
MAX_INT_DIGITS = 4300
# Lines read from stdin that the server has not taken yet: the reading thread waits once there are
# this many, so a client that writes faster than the server reads is held back, not kept in memory.
LINES_AHEAD = 16


async def serve_stdio(server: MCPServer[Any], stop: Stop) -> None:
    """Serve until `stop` is requested (stdin closing requests it too), then drain and return."""
    lowlevel = lowlevel_server(server)
    wire_in, wire_out = _claim_stdio()
    lines_in, lines = anyio.create_memory_object_stream[bytes](LINES_AHEAD)
    room = threading.Semaphore(LINES_AHEAD)
    to_server, messages = anyio.create_memory_object_stream[SessionMessage | Exception]()
    from_server, answers = anyio.create_memory_object_stream[SessionMessage]()
    in_flight = InFlight[RequestId]()

    async def write(message: JSONRPCMessage) -> None:
        text = message.model_dump_json(by_alias=True, exclude_unset=True) + "\n"
        with anyio.CancelScope(shield=True):  # once begun, a message is written whole
            await anyio.to_thread.run_sync(_write_line, wire_out, text.encode())

    async def read_requests() -> None:
        # to_server stays open after stdin closes: the SDK cancels the calls in flight once it ends.
        async with lines:
            async for line in lines:
                room.release()
                message = parse(line)
                if isinstance(message, JSONRPCError):
                    await write(message)
                elif isinstance(message, JSONRPCRequest) and stop.requested.is_set():
                    await write(refusal(message.id, "The server is stopping and takes no new requests."))
                else:
                    if isinstance(message, JSONRPCRequest):
                        in_flight.add(message.id)
                    await to_server.send(SessionMessage(message))
        stop.request(0)  # stdin closed

    async def write_answers() -> None:
        async for answer in answers:
            if isinstance(answer.message, JSONRPCResponse | JSONRPCError) and answer.message.id is not None:
                in_flight.discard(answer.message.id)
            await write(answer.message)

    threading.Thread(
        target=_read_lines,
        args=(wire_in, lines_in, room, anyio.lowlevel.current_token()),
        daemon=True,
    ).start()
    async with anyio.create_task_group() as tasks:
        tasks.start_soon(read_requests)
        tasks.start_soon(write_answers)
        tasks.start_soon(lowlevel.run, messages, from_server, lowlevel.create_initialization_options())
        await stop.requested.wait()
        await stop.drain(in_flight)
        tasks.cancel_scope.cancel()
    for request_id in sorted(in_flight.keys, key=str):
        await write(refusal(request_id, "The server stopped before it finished this request."))


def _claim_stdio() -> tuple[BinaryIO, BinaryIO]:
    """Private copies of stdin and stdout for the protocol; fd 0 then reads nothing, fd 1 goes to stderr."""
    sys.stdout.flush()
    wire_in, wire_out = os.fdopen(os.dup(0), "rb"), os.fdopen(os.dup(1), "wb")
    nothing = os.open(os.devnull, os.O_RDONLY)
    os.dup2(nothing, 0)
    os.close(nothing)
    os.dup2(2, 1)
    return wire_in, wire_out


def _read_lines(
    wire: BinaryIO,
    lines: MemoryObjectSendStream[bytes],
    room: threading.Semaphore,
    token: anyio.lowlevel.EventLoopToken,
) -> None:
    """The reading thread: hand each line to the event loop; closing the stream says stdin ended.

    Lines go over as plain calls, never as coroutines: a coroutine handed over just as the event loop
    ends is never run, and Python prints a warning about it on stderr on the way out.
    """
    try:
        for line in iter(wire.readline, b""):
            room.acquire()  # a place in the stream's buffer, so send_nowait never has to wait
            anyio.from_thread.run_sync(lines.send_nowait, line, token=token)
        anyio.from_thread.run_sync(lines.close, token=token)
    except (anyio.BrokenResourceError, anyio.RunFinishedError):
        pass  # the server stopped first: nobody is reading any more


def _write_line(wire: BinaryIO, line: bytes) -> None:
    wire.write(line)
    wire.flush()


def parse(line: bytes) -> JSONRPCMessage | JSONRPCError:
    """The message on `line`, or the JSON-RPC error that answers it."""
    text = line.decode("utf-8", errors="replace")  # as the SDK reads stdin
    try:
        return mcp_types.jsonrpc_message_adapter.validate_json(text, by_name=False)
    except ValidationError as error:
        return rejection(error, text)


def rejection(error: ValidationError, text: str) -> JSONRPCError:
    """The JSON-RPC error for an unreadable line: a parse error or an invalid request, carrying the
    request's id whenever it can be read, so the client can match the answer to what it sent."""
    sent, long_integer = _lenient_json(text)
    if not any(problem["type"] == "json_invalid" for problem in error.errors()):
        invalid = ErrorData(
            code=INVALID_REQUEST,
            message='Invalid request: a JSON-RPC 2.0 message needs "jsonrpc": "2.0" and a "method", '
            'plus an "id" for a request and an object as "params".',
        )
        return JSONRPCError(jsonrpc="2.0", id=_request_id(sent), error=invalid)
    if sent is _UNREADABLE:
        message = "Parse error: send one complete JSON object per line."
    elif long_integer:
        message = (
            f"Parse error: a number in this request has more than {MAX_INT_DIGITS} digits. "
            "Send long numbers as strings."
        )
    elif _has_lone_surrogate(sent):
        message = (
            "Parse error: this request's text holds a lone surrogate (such as \\ud800), which is not "
            "Unicode. Send valid UTF-8 text."
        )
    else:
        message = "Parse error: NaN, Infinity and numbers beyond a double's range are not JSON. Send them as strings."
    return JSONRPCError(
        jsonrpc="2.0", id=_request_id(sent), error=ErrorData(code=PARSE_ERROR, message=message)
    )


def refusal(request_id: RequestId, reason: str) -> JSONRPCError:
    """The answer to a request the server will not finish because it is stopping."""
    message = f"{reason} Send it again once the server runs again."
    return JSONRPCError(jsonrpc="2.0", id=request_id, error=ErrorData(code=INTERNAL_ERROR, message=message))


class _LongInteger(str):
    """The digits of an integer too long to convert, kept as text so the rest can still be read."""


_UNREADABLE = object()


def _lenient_json(text: str) -> tuple[Any, bool]:
    """`text` parsed by a reader that accepts what the SDK's refuses (long integers, lone surrogates),
    and whether it held an integer too long to convert."""
    long_integer = False

    def integer(digits: str) -> int | str:
        nonlocal long_integer
        if len(digits.lstrip("-")) <= MAX_INT_DIGITS:
            return int(digits)
        long_integer = True
        return _LongInteger(digits)

    try:
        return json.loads(text, parse_int=integer), long_integer
    except (ValueError, RecursionError):
        return _UNREADABLE, long_integer


def _has_lone_surrogate(sent: Any) -> bool:
    try:
        json.dumps(sent, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _request_id(sent: Any) -> RequestId | None:
    """The id of a JSON-RPC request object, if it is one the answer can carry back as it came."""
    request_id = sent.get("id") if isinstance(sent, dict) else None
    if isinstance(request_id, bool | _LongInteger) or not isinstance(request_id, str | int):
        return None
    if isinstance(request_id, str) and _has_lone_surrogate(request_id):
        return None
    return request_id
