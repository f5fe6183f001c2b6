"""The surface audit: score any MCP server's tool surface the way a model experiences it.

`python -m instruments.audit [options] -- COMMAND [ARGS...]` (or `mcp-surface-audit`) starts the
server, reads its tools, probes them with bad arguments, and reports. One module per job:

- connect: start a stdio server or reach a Streamable HTTP one, and list its tools.
- costs: token cost of each definition and of the set, in Anthropic's and OpenAI's shapes.
- checklist: the per-tool checklist; setchecks: tool count, near-duplicates, name collisions.
- probe: four bad calls per tool and what each gets back.
- selection: the TF-IDF selection proxy over a request file; tfidf: the TF-IDF itself.
- score: one number per server; report: tables or JSON; run: the order of it all; cli: the options.
"""
