"""The floor: one tool on a bare MCPServer, written the way the SDK's own docs write it.

Every figure in the benchmark is read against this server, so it stays exactly that plain.
"""

from mcp.server import MCPServer

mcp = MCPServer("floor")


@mcp.tool()
def add(a: float, b: float) -> float:
    """Add two numbers."""
    return a + b


if __name__ == "__main__":
    mcp.run()
