"""Helpers the suite's own tests share; a server's contract test uses servers/surface/testing.py instead."""

from __future__ import annotations

from servers.surface.testing import error_text, stdio_server

__all__ = ["INITIALIZED", "error_text", "initialize", "stdio_server"]


def initialize(request_id: int | str) -> dict[str, object]:
    """The handshake's first request, for tests that speak raw JSON-RPC to a server."""
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "tests", "version": "1"},
        },
    }


INITIALIZED: dict[str, object] = {"jsonrpc": "2.0", "method": "notifications/initialized"}
