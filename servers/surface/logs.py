"""What a server writes to stderr: plain, one line per record, with caller-sent text escaped and cut.

A host such as Claude Desktop keeps a server's stderr as its log. Lines there must read the same
whatever is installed (the SDK logs through rich when it can, wrapping at 80 columns), and nothing a
caller sends may forge a line or flood the log: names and values from a request go through
`printable` before they are logged.
"""

from __future__ import annotations

import logging
import re
import sys
import traceback
from types import TracebackType

LOGGED_TEXT_CHARS = 40  # of one name or value from a request
LOGGED_LINE_CHARS = 2000  # of a whole record, whatever its source
CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


def printable(text: str, limit: int = LOGGED_TEXT_CHARS) -> str:
    """`text` on one line: control characters escaped as Python writes them, cut to `limit` characters."""
    cut = len(text) > limit
    escaped = repr(text[:limit])[1:-1]
    return f"{escaped}... ({len(text)} characters)" if cut else escaped


class OneLineFormatter(logging.Formatter):
    """A record as one line; an exception as its type, message and the line that raised it."""

    def formatException(
        self,
        ei: tuple[type[BaseException], BaseException, TracebackType | None] | tuple[None, None, None],
    ) -> str:
        kind, error, trace = ei
        if kind is None:
            return ""
        where = traceback.extract_tb(trace)[-1] if trace else None
        at = f" (at {where.filename}:{where.lineno} in {where.name})" if where else ""
        return f"{kind.__name__}: {error}{at}"

    def format(self, record: logging.LogRecord) -> str:
        line = CONTROL.sub(
            lambda found: f"\\x{ord(found.group()):02x}", super().format(record).replace("\n", " | ")
        )
        return (
            line
            if len(line) <= LOGGED_LINE_CHARS
            else f"{line[:LOGGED_LINE_CHARS]}... ({len(line)} characters)"
        )


def configure_logging() -> None:
    """Replace whatever handlers the SDK installed with one plain handler on stderr."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(OneLineFormatter(LOG_FORMAT))
    logging.basicConfig(level=logging.INFO, handlers=[handler], force=True)
