"""The instruments: what measures an MCP server's surface from the host's side.

The host loop and transcript checker (`instruments.host`), the surface audit (`instruments.audit`),
the benchmark (`instruments.bench`), the demo (`instruments.demo`), the server generator
(`instruments.new`), the tool docs writer (`instruments.tooldocs`) and token counting
(`instruments.tokens`). None imports a server, except the demo and the benchmark, which run them.
"""
