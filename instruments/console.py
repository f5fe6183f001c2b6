"""How every command of the instruments meets the terminal: it ends quietly, and prints only what is safe.

`run_command(main)` is each console script's entry point, and each `__main__.py` imports the command's
own modules under `signals_end_at_once()`. Ctrl-C ends it with exit code 130 and SIGTERM with 143,
without a traceback; the servers it started are stopped on the way out,
because the interruption unwinds through the `async with` blocks that started them. SIGTERM is turned
into the Ctrl-C signal, so both take the one path Python and asyncio handle with care: an exception
raised straight from a SIGTERM handler can land inside asyncio's own I/O code, which swallows it. A
closed pipe (`| head`) ends it quietly too. `printable(text)` escapes control characters, so text that came from a server or a
file cannot move the cursor, recolour or erase what a person reads.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from types import FrameType
from typing import NoReturn

INTERRUPTED = 130  # 128 + SIGINT, what a shell reports for Ctrl-C
TERMINATED = 143  # 128 + SIGTERM


_terminated = threading.Event()  # set by SIGTERM, so that the interruption it causes exits with 143


def _interrupt_for_sigterm(signum: int, frame: FrameType | None) -> None:
    _terminated.set()
    if signal.getsignal(signal.SIGINT) in (signal.SIG_IGN, signal.SIG_DFL, None):
        raise KeyboardInterrupt  # Ctrl-C is ignored here (a background job): interrupt directly
    signal.raise_signal(signal.SIGINT)


def run_command(main: Callable[[], int | None]) -> NoReturn:
    """Run `main` and exit with its code; Ctrl-C, SIGTERM and a closed stdout end it quietly."""
    signal.signal(signal.SIGTERM, _interrupt_for_sigterm)
    try:
        code = main() or 0
        sys.stdout.flush()
    except KeyboardInterrupt:
        code = TERMINATED if _terminated.is_set() else INTERRUPTED
    except BrokenPipeError:
        code = 0
    _close_quietly()
    sys.exit(code)


@contextlib.contextmanager
def signals_end_at_once() -> Iterator[None]:
    """Within it, Ctrl-C and SIGTERM end the process at once with 130 and 143; a signal ignored stays so.

    For importing a command's modules, which takes about a second and leaves nothing to stop: a
    KeyboardInterrupt raised inside a library's import can come out as another error with a traceback
    (pydantic building a schema, or Python 3.11 making a class).
    """
    previous = {
        number: signal.signal(number, _exit_at_once)
        for number in (signal.SIGINT, signal.SIGTERM)
        if signal.getsignal(number) not in (signal.SIG_IGN, None)  # None: set outside Python, left alone
    }
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)


def _exit_at_once(signum: int, frame: FrameType | None) -> None:
    os._exit(INTERRUPTED if signum == signal.SIGINT else TERMINATED)


def _close_quietly() -> None:
    """Point stdout at /dev/null, so the interpreter's last flush cannot fail on a reader that left."""
    with contextlib.suppress(BrokenPipeError, ValueError):
        sys.stdout.flush()
    try:
        descriptor = sys.stdout.fileno()
    except (OSError, ValueError):  # not a real file (a test's capture): nothing to protect
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, descriptor)
    os.close(devnull)


def printable(text: str) -> str:
    """`text` with every control character but newline and tab shown as an escape, e.g. \\x1b."""
    return "".join(
        char if char in "\n\t" or (char.isprintable() and not _is_bidi_control(char)) else _escape(char)
        for char in text
    )


def _is_bidi_control(char: str) -> bool:
    # Bidirectional overrides can reorder what a terminal shows (Trojan Source); isprintable() passes them.
    return "\u202a" <= char <= "\u202e" or "\u2066" <= char <= "\u2069"


def _escape(char: str) -> str:
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"
