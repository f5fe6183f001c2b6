"""The surface audit: score any MCP server's tool surface the way a model experiences it.

`mcp-surface-audit [options] --server 'COMMAND'...` (or `python -m instruments.audit`) starts each
server, reads its tools, probes them with bad arguments that are safe to send, and reports
(docs/audit.md). One module per job:

- connect: start a stdio server or reach a Streamable HTTP one, and list its tools.
- costs: token cost of each definition and of the set, in Anthropic's and OpenAI's shapes.
- checklist: the per-tool checklist; setchecks: tool count, near-duplicates, name collisions.
- probe: the bad calls per tool, which of them are safe to send, and what each gets back.
- selection: the TF-IDF selection proxy over a request file; tfidf: the TF-IDF itself.
- score: one number per server; report: tables or JSON; run: the order of it all; cli: the options.
- corpus: `make audit-corpus`, the pinned real servers of corpus.json audited in sandboxes.
"""
