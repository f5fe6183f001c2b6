"""Reference MCP servers and the host-side tools that measure their surfaces."""
