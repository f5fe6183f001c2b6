"""The host side of tool use, on the MCP SDK's client: definitions in, requests out, results back, until an answer.

Modules, each with one job:

- `transcript`: a conversation independent of provider (person, model replies with tool calls, results).
- `formats`: MCP tools and results in Anthropic Messages and OpenAI Chat Completions shapes.
- `strict_schema`: an MCP input schema as an OpenAI strict-mode schema, or why it cannot be one.
- `toolbox`: MCP servers over stdio (or in memory), their tools as one list, calls that always end in a result.
- `loop`: the host loop, with an iteration cap, a token budget and a stop reason.
- `bill`: tokens each model request reads (definitions, system, conversation, tool results) and writes.
- `models`, `anthropic_model`, `openai_model`: the model interface, a scripted model and real providers.
- `checker`: tool-use transcript rules, from any app, in either format.
- `report`, `cli`: output for people, and the command line (`__main__` only starts it).
"""
