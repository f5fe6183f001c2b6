"""The per-tool checklist: what a model reads of one tool, against the tutorials' quick-start checklist.

Every rule is a heuristic a person can apply by hand. A pass carries the sentence or schema fact that
satisfied it; a failure says what is missing; "n/a" means the rule has nothing to look at.

Sources: Anthropic's "Writing effective tools for agents" and its tool-use docs (say what, when and
when not; describe every parameter; namespace names; return actionable errors), and the MCP spec
(tool definitions, JSON Schema inputSchema, annotations). docs/audit.md gives each rule's source.

- name_valid: the name matches ^[a-zA-Z0-9_-]{1,64}$, the subset Claude and OpenAI both accept.
- input_schema: the definition has an inputSchema that is a valid JSON Schema object (MCP requires one).
- namespaced: the name has at least two words and its first word is a namespace. A common verb
  (get, convert, create, list, read, ...) is not, even when the server is named after it: any
  service's tools could start with it, unless three quarters of the tools start with it and go on with a
  verb (encode_search_experiments, encode_get_file). The server's own name is, as a prefix or a suffix
  (web_search_exa); any other word only on a server of fewer than 6 tools, or when at least half
  its tools share it (browser_click): distance_tool beside buffer_tool, or Shortcut's stories-search
  beside epics-search, names the tool's subject, not its service. A server whose tools are mostly
  grouped under such words has product areas for namespaces (Lark's bitable_ and im_, Azure DevOps'
  repo_ and wit_): there a word at least two tools share passes, unless it is a plural (stories-)
  or the server's descriptions use it as an ordinary lowercase word ("the account"): both name
  records (mastodon's account_, status_), not a product. A word the descriptions write only as a
  name inside a sentence ("from HashiCorp Vault PKI"), an acronym that is not a common format ("an
  SBOM"), or such a name without its vowels (gnfd_ for Greenfield) is a product however few tools share it.
- says_what: the first sentence (past headings such as "🎯 Purpose:", list numbers, and a lone word
  such as the name after "Tool name:") has at least 3 words, one of them a content word beyond the
  name's own words and filler, so it is not the name restated (in Chinese, Japanese or Korean each
  character counts as a word); a first sentence that warns or says when instead ("Use this tool
  when ...") fails; "Use this (as the primary tool) to list ..." says what it does. A first
  sentence two of the server's tools share tells neither apart ("Twilio - Voice: This is the public
  Twilio REST API." on every tool), unless their descriptions are the same whole (an alias, which
  near_duplicates reports).
- says_when: some sentence says when to use it ("Use it when/to/for ...", "useful/essential/perfect
  for ...", "can be used for ...", "whenever the user ...", "for questions about ..."), not "can be
  used to", which describes rather than chooses; in other languages too ("Use para ...", "Úsala
  cuando ...", "Nützlich, um ...", "用于 ...").
- says_when_not: some sentence says when not to, or where the tool stops: "do not use", "not for",
  a deprecation ("DEPRECATED", "use X instead", X any of the server's tools however spelt), a limit
  ("only works within ...", "cannot ...", "at most 100 ...", "the operation will fail if ...",
  "(Cloud only)", "rather than ...", "Requires ...", "requires permissions", "Excludes ...",
  "at most 10,000 returned per request", "≤5000 lines", "Server-only", "NOTHING is changed",
  "does nothing if it exists", "404 if not followed", "tabs will be closed", "Does not
  download ...", "header-level only", "May cause data loss", "The VM must be running",
  "only call if ...", "Read-only: ...", "(...; read-only)", German "nur" and "kein", Portuguese
  "NÃO retorna ..." and "Somente ...", Chinese "本 tool 不提供 ..."), a pointer
  elsewhere ("Prefer symbolic operations if ...", "Use a/b_c for those"), or "call this tool ...
  unless ...". A rate limit on the
  model ("not more than 3 times per question") is not one, nor "use X to find the id" (an input
  fetched first), nor advice on arguments ("For best results, use ..."), nor a number parameter's
  range in its own entry ("num_results: ... (max: 50)"), which numbers_bounded reads.
- params_described: every top-level parameter has a description.
- schema_closed: the input schema sets additionalProperties: false.
- required_declared: every parameter without a default is listed in `required`.
- numbers_bounded: every top-level integer parameter has a minimum and a maximum in the schema, and so
  does every `number` that is a count, size, index, id, duration or limit by its name (head, limit,
  page, per_page, offset, depth, steps, ...) or whose description states a bound in prose ("max: 100"): a bound said only
  in prose does not pass, since nothing enforces it. Other numbers may be any measured value.
- closed_sets_enum: no string parameter describes a fixed set of options in prose ("one of ...",
  "'local', 'remote' or 'all'", "possible values: ...", "Sort column: a, b, or c") without an enum.
  A description's own entry for a parameter counts too, on its own line ("Args: mode: ...") or
  mid-sentence ('operation: "list", "delete" (card, confirm=True)'), and so does a sentence that
  gives its values ("Type is 'pass', 'block', or 'reject'."). Bare words count where the parameter
  or their label names a choice of kind ("Cloud provider: aws or azure", sort_dir "(asc/desc)") or
  the label is "Options:"; beside a free text or an identifier they say what it holds ("URL (XLS, XLSX)").
  So do an entry's options after a dash ("Color mode — cmyk, rgb, or spot"), an entry of two codes
  ("saddle_stitch or perfect_bound"), keys on one line ("Args: date=..., system=drik|vakya"), Chinese
  "part 為 claims、description 或 abstract", "(0=not set, 1=high)", and a description that is only
  the names it takes ("code,maxChangeFilterDate").
  Examples ("e.g.", "Examples:"), formats ("Use format: ...", "YYYY-MM-DD") and lists left open
  ("Standard types: a, b. Custom objects are also supported", "a, b, etc.") list no options.
- title_set: a title is set (on the tool or in its annotations).
- annotations_set: the hints that mean something are set. Per the MCP spec, destructiveHint and
  idempotentHint only mean something when readOnlyHint is false, so a read-only tool needs
  readOnlyHint and openWorldHint; any other needs all four.
- output_schema: an outputSchema is present, or the description does not promise structured results.
- no_hijack: the description and parameter descriptions carry no standing orders aimed at the
  model ("always call", "you must ..."), instructions about other tools, secrecy orders or overrides
  of the model's earlier instructions, and no other audited server's tool names (names with _ or -,
  so plain words do not count). An emphasis word before a plain fact ("IMPORTANT: only searches
  your local collection") is not an order and is not flagged, nor is "always use x_y first" (a
  prerequisite) or "always use x_y=True for ..." (how to fill an argument).
"""

from __future__ import annotations

import functools
import json
import re
from collections import Counter
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass, field
from typing import Any

import jsonschema
from mcp_types import Tool

from instruments.audit.findings import Check, Status
from instruments.audit.schemas import accepted_types, members, properties, required, resolve
from instruments.audit.tfidf import STOP_WORDS

CLIENT_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
# fmt: off
# Verbs any server's tools could start with, so as a prefix they say nothing about whose tool it is.
GENERIC_VERBS = frozenset({
    "get", "set", "list", "create", "delete", "update", "remove", "add", "fetch", "search", "find",
    "read", "write", "run", "call", "convert", "make", "do", "send", "query", "check", "show",
    "execute", "open", "close", "start", "stop", "load", "save", "lookup", "describe", "edit", "move",
    "copy", "insert", "generate", "download", "upload", "post", "put", "patch", "calculate", "compute",
    "parse", "format", "export", "import", "analyze", "analyse", "validate", "resolve", "navigate",
    "take", "select", "type", "click", "press", "handle", "manage", "apply", "merge", "push", "pull",
    "append", "retrieve", "switch", "browse", "scan", "summarize", "summarise", "toggle", "trigger",
    "simulate", "request", "mark", "approve", "reject", "extract", "test", "build", "transform",
    "render", "draw", "plot", "print", "sort", "filter", "count", "measure", "compare", "match",
    "replace", "rename", "clear", "reset", "refresh", "sync", "register", "unregister", "subscribe",
    "unsubscribe", "enable", "disable", "install", "uninstall", "connect", "disconnect", "login",
    "logout", "wait", "watch", "unwatch", "notify", "schedule", "cancel", "confirm", "complete",
    "finish", "assign", "invite", "share", "publish", "deploy", "restart", "kill", "force", "interact",
    "inspect", "explain", "translate", "transcribe", "evaluate", "eval", "predict", "recommend",
    "plan", "think", "reason", "review", "verify", "visualize", "visualise", "capture", "record",
    "play", "pause", "resume", "scroll", "hover", "drag", "drop", "fill", "submit", "upsert", "archive",
    "restore", "lock", "unlock", "attach", "detach", "link", "unlink", "tag", "untag", "split", "join",
    "zip", "unzip", "encode", "decode", "encrypt", "decrypt", "sign", "hash", "ping", "echo", "log",
    "track", "monitor", "report", "view", "display", "use", "invoke", "provide", "give", "screen",
    "adapt", "diagnose", "upgrade", "downgrade", "exec", "rollback", "scale", "expose", "annotate",
    "forward", "drain", "cordon", "uncordon", "rerun", "aggregate", "index", "resize", "finalize",
    # Portuguese and Spanish ("listar_maquinas", "buscar_cve").
    "listar", "buscar", "obter", "obtener", "criar", "crear", "atualizar", "actualizar", "excluir",
    "eliminar", "consultar", "gerar", "generar", "enviar", "mostrar", "calcular",
})
# Words that say nothing about whose tool it is, though they are not verbs.
GENERIC_PREFIXES = frozenset({
    "api", "tool", "tools", "mcp", "server", "app", "service", "util", "utils", "helper", "my",
    "custom", "default", "main", "base", "core", "common", "generic", "misc", "new", "all", "general",
    "config", "collection", "db",
})
# Words that add nothing to what a first sentence says the tool does.
FILLER = frozenset({
    "given", "specific", "specified", "existing", "new", "particular", "certain", "provided", "selected",
    "one", "more", "any", "all", "some", "each", "every", "based", "using", "via", "information",
    "details", "data", "get", "gets", "retrieve", "retrieves", "fetch", "fetches", "return", "returns",
    "provide", "provides", "give", "gives", "show", "shows", "perform", "performs", "allow", "allows",
    "list", "lists", "available", "registered", "active", "running", "current", "content",
    "value", "about", "detailed", "optional", "optionally", "filters", "filtering", "pagination",
    "paginated", "options", "manage", "manages", "operations", "single",
})
# fmt: on
WHAT_MIN_WORDS, WHAT_MIN_NEW_WORDS = 3, 1
STEM_CHARS = 6
# Below this many tools, one prefix per tool is ordinary (system_cpu beside math_add), not a missing namespace.
SHARED_PREFIX_MIN_TOOLS = 6
SHARED_PREFIX_MIN_SHARE = 0.5
VERB_NAMESPACE_MIN_SHARE = 0.75
# A lowercase word in running text; not part of a name such as account_get, `status`, a call f( or a
# host or scheme (ppubs.uspto.gov, hf://).
PROSE_WORD = re.compile(r"(?<![\w./`'\"-])[a-z]+(?![\w/`'\"(-]|\.\w|:/)")
# A capitalised word inside a sentence ("from HashiCorp Vault PKI"): a name, not the sentence's start.
PROPER_NAME = re.compile(r"(?<=[\w,] )(?-i:[A-Z][a-z]+)(?![\w/`'\"(-])")
# Two to four capitalised words in a row ("Hugging Face Hub"), whose initials may name a prefix (hf_).
CAPITALISED_RUN = re.compile(r"(?-i:(?<![\w-])[A-Z][a-z]+(?: [A-Z][a-z]+){1,3})(?![\w-])")
# An acronym anywhere in the prose ("an SBOM for a project"): a name too, unless it is a format or a
# building block any server's tools handle (json_get, html_to_pdf name their object).
ACRONYM = re.compile(r"(?<![\w./`'\"-])(?-i:[A-Z][A-Z0-9]{1,7})(?![\w/`'\"(-])")
# fmt: off
COMMON_ACRONYMS = frozenset({
    "ai", "api", "csv", "html", "http", "https", "id", "ids", "io", "json", "jwt", "llm", "os", "pdf",
    "sql", "ui", "uri", "url", "uuid", "xml", "yaml",
})
# fmt: on
MAX_NESTING = 3  # schemas may refer to themselves
# The longest sentence among the 107 real servers recorded is 1,048 characters; reading further into
# one only costs time on a hostile description (10 MB of padding took 50 s).
MAX_SENTENCE_CHARS = 2000

# A Chinese or Japanese sentence ends at its full stop, exclamation or question mark, with no space.
# A capital starts the next sentence, accented too: "... ambiguo. Úsala cuando ...", "... Łódź".
SENTENCE_BREAK = re.compile(
    r"(?<=[.!?])\s+(?=[A-Z\u00c0-\u00d6\u00d8-\u00de"
    r"\u0106\u010c\u0141\u0143\u0152\u0158\u015a\u0160\u0178\u0179\u017b\u017d])|(?<=[\u3002\uff01\uff1f])"
)
# Docstrings wrap a sentence over several lines; a new line starts a new sentence only after a stop,
# a colon or a heading, or when it starts a list item or a "name: text" entry.
LINE_ENDS_SENTENCE = re.compile(r"[.!?:;\u3002\uff01\uff1f]$|^#")
LINE_STARTS_ITEM = re.compile(r"[-*•#|>]|\d{1,2}[.)]|[\w ]{1,30}(?:\([^)]*\))?:(?:\s|$)")
# Chinese, Japanese and Korean put no spaces between words: each character counts as one.
WORD = re.compile(r"[A-Za-z0-9']+|[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")
NAME_LIKE = re.compile(r"[A-Za-z0-9](?:[\w-]*\w)?")
LIST_NUMBER = re.compile(r"^\(?\d{1,2}[.)](\s+|$)")
# First sentences that say something other than what the tool does: a warning, or when to use it.
NOT_WHAT = re.compile(
    r"^\W*(\w+ ){0,2}(warning|caution|note|important|notice|attention|limit)\b\W*:|^\W*⚠"
    # "Use this tool when you need metadata (parties, judges, ...)" names what comes back; "Call this
    # tool when you need to understand how to ..." does not, and neither does a bare "When ...".
    r"|^\W*(use|call) (this|it)(?: tool| function)?+ (?!(only )?to\b|as (the|a|an) (\w+ ){0,2}(tool|way) to\b)"
    r"(?!(?<=use this tool )when\b)|^\W*(when|if) ",
    re.IGNORECASE,
)
# A label before the text ("🎯 Purpose:", "## Returns"), which a reader skips to find the first sentence.
HEADING = re.compile(r"^\W*(?:\w+\W*){1,3}:$|^[^\w\s]+\W*(?:\w+\W*){1,3}$")
# "[仅限单选/多选题]更新单选或多选题的选项内容" is a sentence: CJK writes no spaces between its words.
CJK_SENTENCE = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]{7}")
# A label's value on a line of its own ("Tool name:\ngetUser"), which the first sentence follows.
LONE_WORD = re.compile(r"^[\w-]+$")
WHEN = re.compile(
    # A bare "use for" only as an order ("Use for ..."): "the shell to use for commands" is not one.
    r"(^\W*(usage:\s*)?(always |only )?use (when|whenever|for|if|to|after|before|at the (start|beginning))|^\W*usage:\s*(if|when)\b"
    r"|(?<!n't )(?<!not )(?<!never )\buse (it|this( tool| function| command| operation| endpoint)?) (\w+ly |only |as a fallback |as (the|a|an) (\w+ ){0,2}tool )?(when|whenever|for|if|to|after|before|instead of)"
    r"|\bcall (it |this |this tool |this function )?(\w+ly |first |again )?(when|whenever|for|if|to|after|before|at (the |session )?start)"
    r"|(?<!not )\bsuitable for|\bonly use\b|\bstart here\b|(?<!not )\bsuit(s|ed (to|for))\b|\buse[- ]cases?\b"
    r"|can be used (for|when)|\bwhen to use\b|\brecommended to use\b|\buse only (if|when)\b|\bshould be used (to|for|when)\b|^\W*used (by [\w ]{1,30} )?(to|for|when)\b"
    r"|(?<!to )\bhelp(s|ing)? (\w+ ){0,2}(identify|find|determine|understand|debug|diagnose|decide|choose|discover|explore|troubleshoot|assess)\b"
    r"|^\W*[\"“][^\"”]{3,}[\"”]\s*(→|->|=>)\W*\w+|\breach for (it|this)\b|\brun (it|this)( tool)? (\w+ly |first )?(when|whenever|before|after)\b|\bin response to\b|\bfor use (with|by|in)\b|\b(typically|usually|commonly|mainly|primarily) used (for|to|when)\b"
    r"|\bbest practice (is )?to\b|\bprerequisite for\b|\b(create|call|run) (one|it|this) when\b"
    r"|\bprefer (this|it)( tool)? (over|to|instead of)\b|\bpreferred over\b|\brequired before\b|^\W*answers ['\"“]"
    r"|when(ever)? (the |a )?(user|you|model|agent|asked)|if (the )?users? (asks?|wants?|needs?|requests?)|if the user|if you (need|want)"
    r"|\b(if|when)\b[^.;]{3,80}, (use|call) (this|it)\b(?!( tool| function)? again)"
    r"|(?<!not )(useful|helpful|ideal|best|good|designed|intended|meant|essential) (for|when|to|if)|\buseful as\b|^\W*<(use_cases?|when_to_use)(?=>)|\bfirst step (to|in|for|when|before)"
    r"|for (questions|requests|tasks|queries) (about|on|that|like)|(perfect|great) (for|when)"
    r"|in (situations|cases) where|(this|it) is for|after (you|you've|you have|the user)"
    r"|once (you|the (user|assistant|model|agent)) (have|has|had)\b)\b"
    # "This is the starting point for any pricing query", "the tool to use when ...", "Common use: ...".
    r"|\bthe starting point for\b|\bthe tool to use (when|for|if)\b|\bcommon (uses?|triggers?):|\bwhen to call\b"
    r"|\buse (it|this)( tool)? first (to|when|for)\b|(?<!not )\b(useful|helpful) (before|after)\b|\bcritical for\b"
    r"|\bthe preferred (way|tool|method) (to|for)\b|\bpreferred\b[^.]{0,40}\btool (when|for)\b"
    r"|\bthe recommended way to\b|\bcall (this|it) first\b"
    r"|\b(ideal|perfekt|nützlich|geeignet) (für|zur|zum|um)\b|\banwendungsfälle\b|\bdient (zur|zum|dazu)\b"
    r"|[\"“][^\"”\n]{3,100}\?[\"”]|\bthe (best|primary|main|first|go-to|safe|cheap|recommended|right|easiest|fastest) (\w+ ){0,2}(way|tool|call|thing|starting point|choice|entry point|action|place)\b(?! (is|was)\b)"
    r"|[\"\u201c\u00ab](what|which|when|where|who|how|why)\b[^\"\u201d\u00bb\n]{3,100}[\"\u201d\u00bb]|\bmust be called (before|after|first)\b"
    r"|\bfor (diagnosing|troubleshooting|debugging|investigating)\b|^\W*better (for|when)\b|^\W*for [\w-]+ (conditions|situations|cases|scenarios)\b"
    r"|\bhandy (right )?(to|for|when|before|after|if)\b|\bthis is how to\b|\buse (them|these) to\b|^\W*uses:\s|\bhilfreich (um|für|bei|wenn)\b|\b(run|return|use|call) (it|this)( tool)? (if|when|on your first|at the (very )?(start|beginning))\b"
    r"|\b(e\.g\.|for example),? (after|when|before|once)\b|\bworth (calling|using|running|checking)\b(?! out)|\bpoll this\b"
    r"|\b(call|use|run) (this|it)( tool)? rather than\b|^\W*fallback (when|for|if)\b|\brun (it|this)( tool)? to\b"
    r"|\b(key|main|primary|go-to|essential|core) tool (for|to|when)\b|\b(nuetzlich|gut) (für|fuer)\b|\b(ideal|perfekt|geeignet) fuer\b|何时调用|何时使用"
    r"|用于|适用于|适合|适用场景|推荐用法|\bиспользуй\b|\bвызывай\b[^.]{0,30}\bкогда\b"
    # Portuguese, Spanish, German and Polish: "Use para descobrir ...", "Úsala cuando ...", "Útil pra ...",
    # "Chame antes de ...", "Nützlich, um ...", "Służy do ...".
    r"|^\W*(use|usa|\u00fasal[ao]|utilize|utilice|chame|llame)( (somente|apenas|solo|s\u00f3lo|s\u00f3))? "
    r"(para|pra|quando|cuando|antes de|depois de|despu\u00e9s de)\b"
    r"|\b(\u00fatil|util|ideal) (para|pra|quando|cuando)\b|\bprimeira op\u00e7\u00e3o para\b|\bn\u00fctzlich, um\b|\bs\u0142u\u017cy do\b"
    # "Sirve para comparar ...", "Consúltalo cuando ...", Czech "vhodné na ...", Polish "Dobre na start",
    # Turkish "... için kullan\u0131l\u0131r", Korean "... 같은 질문에 사용합니다", Chinese "当 ... 时使用此工具".
    r"|\b(sirve|serve) para\b|^\W*cons\u00falta(lo|la|los|las) (cuando|si)\b|\b(vhodn\u00e9|u\u017eite\u010dn\u00e9) (na|pro|k|p\u0159i)\b"
    r"|\bdobre na\b|\bi\u00e7in kullan\u0131l\u0131r\b|\uc9c8\ubb38\uc5d0 \uc0ac\uc6a9|\b(good fit|a good fit) (when|for)\b|^\W*good fit:"
    r"|\u5f53[^\u3002\uff1b]{2,60}\u65f6(\u4f7f\u7528|\u8c03\u7528)|(\u65f6|\u524d|\u540e)[\uff0c,]?\s*(\u53ef\u4ee5)?(\u4f7f\u7528|\u8c03\u7528)(\u6b64|\u8be5|\u672c)\u5de5\u5177",
    re.IGNORECASE,
)
WHEN_NOT = re.compile(
    r"\b(do not|don't|never|not|avoid) (use|call|using|calling)\b|\bnot (for|meant|intended|suitable|designed|a)\b"
    r"|\b(instead|rather),? (use|call)\b|\b(use|call) \S+ instead\b|\bdeprecated\b|\binstead of this\b"
    r"|\bonly (works?|within|for|on|in|searches|supports?|returns?|reads?|lists?|accepts?|allowed|handles?)\b"
    r"|\b(cannot|can't|can not|will not|won't|does not|doesn't|(?<!you )do not|(?<!you )don't) (be used|work|check|prove|verify|guarantee|handle|support|access|read|write|follow|"
    r"return|modify|change|create|delete|search|run|fetch|execute|track|include|store|save|list|show|stop|persist|try|attempt|connect|allow|imply|mean|establish)\b"
    r"|\b(limited to|restricted to|at most|up to|no more than|maximum of|max(imum)?( \w+)?:?)( about| around| roughly)? [~≈]?\d"
    r"|\b(fails|will fail|errors?)( \w+ly)? (if|when|for|unless)\b|\bfails? with\b|\brefuses to\b|\buse only when\b|\bcapped at\b|\bfails the call\b|\bno-op\b|\bmust be \w+ first\b|\bmust have no\b|\b(operation|call|it) will fail\b|\bmust be within\b"
    r"|\bcall this (tool|function)\b[^.]*\bunless\b|\bonly\b[^.]{0,60}\b(can|may) be\b|\bcan only\b"
    r"|\bnot (available|supported|possible) (for|in|on|with)\b|\bno [\w-]+ (available|supported)\b"
    r"|\b(to|for) (?!best results)[^,.;]{3,80}, (use|run|call)\b|\bfor anything else\b|\bnot covered by\b|\bprefer (using|calling)\b|\bprerequisites?:\s*\w|\b(is|are) never (returned|included|shown|listed)\b|\blossy\b"
    r"|\bmay be (lost|masked|truncated|redacted|omitted|restricted|limited)\b|不支持|不适用|请勿|不要|仅支持|仅限|最大|最多|以内|^\W*must (include|be|have)\b|\bprefer \S+ instead\b|\(not\b"
    r"|\b(cannot|can't|can not) \w+|^\W*[\w.-]+( [\w.-]+){0,2} only\W*$|^\W*(?!use\b|call\b)[\w-]+( [\w-]+)? only\b|^\W*skips\b|\bmust be (under|in(?! (the )?[\w-]+ format\b)|within|inside|already)\b|\bnot the (tool|one|right tool) for\b|\b(valid for|expires (after|in)) (\d|an?\b)|\b\d+(\.\d+)+\+|\brequires? \S+ ?(>=|≥)|\bconsider using\b|n't (available|retained|returned|supported|included|stored)\b|\bas opposed to\b|\bwill (raise|throw) (an? )?(\w+ )?(exception|error)\b|\bprefer (the )?(?!this\b|it\b)\S+( tool)? over\b|\bprefer ['\"`]?\w+_\w+['\"`]?|\b(persists?|works?|runs?|succeeds?) only (if|when)\b|\b(sees|shows|returns|lists|includes|searches|covers|supports|retrieves|fetches|reads|finds) only\b|\brather than\b|^\W*((note|important|warning)\W*:\s*)?requires\b(?! ['\"`]| (a |an |the )?(user-provided |[\w']+ ){0,2}(\w*(Id|ID|_id|_name|Name)|name|id|(the )?argument)\b)|\brequires (a|an) (?!(user-provided |\w+ )?(\w*(Id|ID|_id)|the argument)\b)|\brequires? (proper |special |admin |write |read )?(permissions?|access|privileges?|scopes?)\b|\brequires \w+=|\bmust be (explicitly |first )?(enabled|valid|set|configured|installed|authorized)\b|\b(is|are) not (retried|persisted|saved|cached|validated|guaranteed|preserved|filtered|checked|verified|editable|modifiable|writable|deletable|deleted|removed|affected)\b|\breturned \(without\b|\bwithout the (full|complete|entire)\b|\bthe call fails\b|\b(is|are) (refused|rejected|permanent)\b"
    r"|\brefused (above|if|when|for|unless)\b|\birreversible\b|\bonly\b[^.]{0,40}\b(is|are) (currently )?(supported|allowed|accepted)\b|\b(is|are) not yet (available|supported)\b|\bwill be truncated\b|\btruncated (after|at|to|beyond) \d|\bonly allows?\b|^\W*prefer (\w+ )?(tools?|operations?|functions?|methods?|commands?)\b|\bonly (call|use|be used)\b[^.]{0,20}\b(if|when)\b|\bnothing is (changed|written|modified|deleted|removed|sent)\b|(?<!\w)(≤|<=) ?\d|\b(?!read-)\w+-only\b|\b(don't|do not|doesn't|does not) expose\b|\b(available|supported) only\b|\bonly (through|via|with)\b|\btimes? out after\b"
    r"|\b(this tool|it|this) (does not|doesn't|(?-i:NOT)) (?!exist|have|need|require|matter)\w+|\bdoes (?-i:NOT) \w+|\bnever (emits|returns|writes|modifies|changes|deletes|sends)\b|\byou must (be|have) (the |an? )?(owner|admin|member|logged|signed|authenticated|authori[sz]ed|permissions?|access)\b"
    r"|\bstops (after|early|once|when|at)\b|\bdistinct from\b|\b(different from|unlike) (the )?['\"`]?\w+[_-]\w+|(,|;|\s[\u2014\u2013])\s+not (a |an |the )?(?!only\b|found\b|yet\b|to\b|all\b|just\b|as\b)[\w-]+( [\w-]+){0,2}(?=\s*([.;\u2014\u2013]|$))"
    r"|\b(use|call) (the )?(?>['\"`]?(?:(?:\w+/)*\w+_\w+|(?-i:[a-z]+[A-Z]\w+))['\"`]?( tool)?(, ['\"`]?(?:\w+_\w+|(?-i:[a-z]+[A-Z]\w+))['\"`]?)*,? (or ['\"`]?(?:\w+_\w+|(?-i:[a-z]+[A-Z]\w+))['\"`]? )?)(?!first\b|to (find|get|see|look|obtain|learn|know|check)\b)([^.]{0,40}\b)?(to|for|instead|when|if|before|once)\b|\bmust (be|have)\b[^.]*\bbefore\b"
    r"|\b(with|in|belongs? in|see) ['\"`]\w+_\w+['\"`]|\b(is|are) not (returned|included|listed|searched|matched|supported)\b"
    r"|\bwill not match\b|\bunavailable\b|\b(is|are) limited to\b|\b(cannot|can't|can not) be (\w+ed|\w+en|undone)\b|\b(this|it) excludes\b|(^|\()\W*excludes\b|^\W*only\b(?! (after|when|once|if|then)\b)|\b(do not|don't|never) (send|pass|combine|mix)\b"
    r"|\bmust not be used\b|\(requires\b|\b(often|usually|may|might) fail\b|\breturns no (?!results\b)\w+|\breturns (an? )?(API )?error\b(?! (details|messages?|codes?|information|info|objects?)\b)"
    r"|\bretiring\b|\bbeing (discontinued|retired|removed|deprecated)\b|\bwill be (removed|retired|discontinued)\b"
    r"|\b(is|are) (not exposed|redacted|masked|omitted|unaffected)\b|\bonly available\b|\bmust have the \S+ capabilit"
    r"|\bdoes nothing (if|when|unless)\b|\bnever (overwrites|overwritten)\b"
    r"|\binstead\b[^.]{0,80}\b(use|call)\b|\b(is|are) in other_tool\b|\b(use|call) other_tool\W*(\)|$)|(^|[;:]\s)\W*for\b[^.;]{3,80}\b(use|call) ['\"`]?other_tool\b"
    r"|\bmust be (free|unique|empty|unused|idle|online|reachable|plugged in|paired|logged in)\b|\brefused (outside|below|beyond)\b"
    r"|\bneeds? [\w ]{1,30}? (enabled|configured|installed|running|connected)\b|\bwithout (creating|modifying|changing|deleting|writing|returning|validating|altering|touching)\b"
    r"|\bonly\b[^.]{0,40}\b(is|are) (currently )?available\b|必须先|\brequiere\b"
    r"|\bonly (the )?(last|first|latest|most recent|past) \d|\b(in|within|covers?) (quarters in )?the (last|past) \d|^\W*no [\w-]+( (or|and) [\w-]+)?\W*$"
    r"|\brefused in\b|\brefuses?\b[^.]{0,40}\bunless\b|\bwithout (transmitting|sending)\b|\bthere is no\b|\boffers no\b|\(last \d+ ?(KB|MB|lines|entries|items|messages)\)"
    r"|\bthis server (does not|doesn't|cannot|can't|will not|won't) \w+"
    r"|\b(needs?|requires?) --[\w-]+|^\W*[\w.-]+(,? (and |or )?[\w.-]+){0,4} only\s*;|\bnever (the )?full\b|\bno [\w ]{1,30} at all\b"
    r"|\bor (later|earlier)\b|(^|[(;,]|\band)\W*read only\b|\bnicht (den|die|das|der|\u00fcber|f\u00fcr|im|in|mehr|verf\u00fcgbar|unterst\u00fctzt)\b|\bmax\.\s?\d"
    r"|\bserves\b[^.]{0,60}\bonly\b|\bout[- ]of[- ](coverage|range|scope)\b|\b(reports|gives|includes|contains) no\b"
    r"|\b[45]\d\d (if|when|otherwise)\b|\breturns [45]\d\d\b|\bwill be (closed|lost|discarded)\b"
    r"|^\W*(does not|doesn't|will not|won't) \w+|\b(is|are) \w+-[\w-]+ only\b(?! (when|if)\b)|\bmay (cause|expire)\b"
    r"|\bmust be (true to \w+|running|stopped|connected|open)\b|\bmust not exceed\b|\bmust already\b"
    r"|\braises? [`'\"]*\w*(Error|Exception)\b|\b(is|are) (?-i:NOT)\b"
    r"|지원되지 않|지원하지 않|할 수 없|できません|サポートされていません|使用しないで"
    # Coverage, caps and refusals as people write them: "Coverage: office actions from about 2012 on",
    # "Covers recorded assignments from 1955 to present", "Description text is capped per max_chars",
    # "Raises if credentials are not configured", "Not required before build_run_sim".
    r"|\bcoverage:[^.]{0,60}\b(from|since|\d{4})\b|\bcovers?\b[^.]{0,60}\b(from|since) \d{4}\b|\b(from|since) (about |roughly )?(the )?(early |late )?\d{4}s? (on|onwards?|to (the )?present)\b"
    r"|\bcap(ped|s)? (at|per|to) \S|\brefuses?\b[^.]{0,40}\bif\b|\braises?( an? \w+)? (if|when|for)\b|\bnot (required|needed) before\b"
    r"|\bnot to (use|call)\b|\bthis tool is read-only\b|\bnot yet (implemented|wrapped|exposed)\b"
    r"|\bmax(imum)?( [\w-]+){1,2}: ?[~≈]?\d"
    r"|\bfails fast (if|when)\b|\brequires?\b[^.]{0,40}\b(env var|environment variable)"
    r"|\b(up to|within|for|over) the (last|past) \d|\blimit is (only )?\d|\bempty if\b|\b(rejected|refused) with\b"
    r"|\b(cut|trimmed) (to|at|after) \d|\bno longer (works?|supported|available)\b|\bmay not (fully )?(support|work|display|render)\b"
    r"|\bsupports\b[^.()]{1,40}\bonly\b|\b(available|supported) (for|in|on) [^.]{1,40}\bonly\b|\([\w-]+( [\w-]+){0,3} only\)"
    r"|\bmust (be|have) (an? |the )?(admin|owner|[\w-]+ permissions?|permission)\b"
    r"|\bclamped to (?!\d)|\bfails instead of\b"
    # A bare "Read-only." wherever it stands: "(read-only)", "Read-only: it inspects ...", "(bike; read-only)".
    r"|(^|[(;,]|\band)\W*read-only\b(?![ -](access|mode|token|user|replica|connection|api|key|scope|flag|operation))"
    r"|只能|只读|\bnur\b|\bkein(e|en|er)?\b|\bab \d{4}\b|\bbenötigt (einen?|den|die|das)\b|только|максимум"
    # Portuguese and Spanish ("NÃO retorna preço", "Somente pedidos não aceitos ...", "Para alterar use
    # totvs_update_price"), Chinese ("本 tool 不提供研报内容"), German ("dafür 'gesetz_lesen'"), Polish
    # ("Wymaga zalogowania", "Sufit 100"), and "ensures no write operations are performed".
    r"|\bn\u00e3o (use|usar|retorna|inclui|suporta|funciona|altera|aceita)\b|\b(somente|s\u00f3lo|solamente|\u00fanicamente)\b"
    r"|\bprefira\b|\birrevers\u00edvel\b|\bno (devuelve|incluye|soporta|usar)\b"
    r"|\bpara [^.;]{3,60}\b(use|usar|prefira|usa) ['\"`]?\w+_\w+|(本|该|此)\s?(tool|工具)\s?(不|只|仅)(?!需)|仅\s?[\w ]{1,12}可用"
    r"|\bdaf\u00fcr\s+['\"`]?\w+_\w+|\bwymaga\b|\bodrzuca\b|\bsufit \d|\bensures no\b"
    # Spanish ("No se puede deshacer", "no toca las facturas", "hasta 240 meses", "Solo afecta ..."), Czech
    # ("Nejvýš 100 buněk", "až 256 bodů", "použijte mapy_elevation_profile"), "must be done through the
    # Admin UI", "Prefer project-scoped search_tasks".
    r"|\bno (se puede|puede|consulta|sale|toca|da|incluye|devuelve|soporta|acepta)\b"
    r"|\bhasta \d|\bsolo (para|en|se|afecta|devuelve)\b|\bnejv\u00fd\u0161e? \d|\ba\u017e \d|\bpou\u017eijte ['\"`]?\w+_\w+"
    r"|\bmust be done (through|via|in)\b|\bprefer [\w-]+ ['\"`]?\w+_\w+",
    re.IGNORECASE,
)
PARAMETER_RANGE = re.compile(
    r"\b(max(imum)?|min(imum)?|up to|at most|no more than|limited to|capped at)\W{0,3}[~≈]?\d[\d,.]*|(≤|<=|>=|≥) ?\d[\d,.]*",
    re.IGNORECASE,
)
OTHER_TOOL_ORDER = re.compile(
    r"\b(?:do not|don't|never) (?:use|call|run|invoke) ['\"`]?([A-Za-z0-9]+[_-][\w-]+)", re.IGNORECASE
)
# A limit on how often the model may call is not a limit of the tool; it does not say when not to.
RATE_LIMIT = re.compile(
    r"\b(\d+|once|twice) times?\b|\btimes per\b|\bper (question|conversation|turn|minute|hour|session)\b|\b(calls|requests|queries) per request\b"
    r"|\brate.?limit(?!ing)",
    re.IGNORECASE,
)
QUOTED = r"(?:['\"`][\w./=!~<>*+-]+['\"`])"
CLOSED_SET = re.compile(
    # "one of the connect tools", "one of your projects" or "one of TMDB's rating strings" names no fixed
    # options; "one of the following" does.
    r"\bone of\b(?! (the|your|those|these|its|their|our|my) (?!following)| (them|those|these)\b| \w+'s\b)"
    # "Valid values include: ..." gives some of the options, not all of them.
    r"|\b(allowed|valid|possible|accepted|supported|available|optional) (values|options|operations|actions|modes)\b(?! include)"
    r"|\bm(?:ö|oe)gliche werte\b|\bvalores (posibles|possíveis|válidos|permitidos)\b"
    r"|\boptions are\b|\boptions:\s*(?="
    + QUOTED
    + r")|\boptions:\s*[-*•]\s*(?="
    + QUOTED
    + r")|\bmust be (either )?"
    + QUOTED
    + r"|\beither "
    + QUOTED
    + r" or "
    + QUOTED
    + r"|"
    + QUOTED
    + r"(?:, "
    + QUOTED
    + r")*,? or "
    + QUOTED
    # Options each quoted inside a phrase: "local branches ('local'), remote ('remote') or all ('all')".
    + r"|"
    + QUOTED
    + r"[^'\"`{}:]{0,40}"
    + QUOTED
    + r"[^'\"`{}:]{0,40}\bor\b[^'\"`{}:]{0,40}"
    + QUOTED
    # A list in brackets: 'Operation type ("add", "remove", "list")', 'values: ["pcm", "mp3"]'.
    + r"|\bvalues?:\s*\[\s*"
    + QUOTED
    + r"(?:\s*,\s*"
    + QUOTED
    + r")+"
    + r"|\(\s*"
    + QUOTED
    + r"(?:\s*,\s*"
    + QUOTED
    + r")+\s*\)"
    # Two quoted options, the first explained: "'range' (default) or 'instant'".
    + r"|['\"`][a-z][\w-]*['\"`]\s*\([^()]{1,40}\),? or ['\"`][a-z][\w-]*['\"`]"
    # After a colon: "Operation type: 'replace', 'add', 'remove'", "by state: firing, pending, normal, error".
    + r"|(?::|\s[-\u2013\u2014])\s*"
    + QUOTED
    + r"(?:\s*\([^()]{1,30}\))?(?:\s*,\s*"
    + QUOTED
    + r"(?:\s*\([^()]{1,30}\))?){2,}"
    + r"|:\s*[\w-]+(?:, [\w-]+)+,? or [\w-]+(?:\s*\([^)]*\))?\.?(?:$|\s)"
    # Each option explained in turn: '"standard" for full node data, "minimal" for names only'.
    + r"|^\s*"
    + QUOTED
    + r"\s*(?:\(default\)\s*)?(?:for|returns?|means|gives|shows)\b[^'\"`]{0,120}[,;]\s*(?:or )?"
    + QUOTED
    # "Any other value is rejected": whatever came before was the whole set.
    + r"|\bany other value (is|will be) (rejected|refused)\b"
    # A kind's options in brackets: "Direction to sort (asc or desc)", "Priority level (Low, Medium, High)";
    # not what a free text may hold ("Search query (name or email)").
    + r"|\b(status|priority|type|mode|level|direction|order|kind|state)\b[\w ]{0,12}\("
    + r"(?:[a-z][a-z_-]*(?: [a-z][a-z_-]*)?, )*[a-z][a-z_-]*(?: [a-z][a-z_-]*)?(?:,? or |, )[a-z][a-z_-]*(?: [a-z][a-z_-]*)?\)"
    # Each option named with its meaning: "zip=code package (default); image=an existing image".
    + r"|(?<![\w.=/&?])[a-z][\w-]*=(?![\d\W])[^=\n]{1,80}?[,;，；、]\s*[a-z][\w-]*=(?![\d\W])"
    + r"|\b(state|status|type|mode|kind|level|colou?r|priority|sort by|order by|sortable fields are)s?:\s*[\w-]+(?:, (?!and\b|or\b)[\w-]+(?: [\w-]+)?){3,}(?:\s*\([^)]*\))?(?:\.?$|\.\s)"
    # Alternatives between bars: "auto | literal | regex", "updated_by|created_by".
    + r"|(?<![|\w/({.-])[a-z][\w-]*(?: ?\| ?[a-z][\w-]*)+(?![\w|-])"
    # A kind's options between slashes: "周期：daily/weekly/monthly"; not a path ("Path: src/lib/x").
    + r"|(?:\b(period|type|mode|format|status|interval|granularity|frequency|kind|level)|周期|类型|格式|模式)\s*[:：]\s*"
    + r"[a-z][a-z-]*(?:/[a-z][a-z-]*){2,}\s*$"
    + r"|\b(supported|allowed|accepted|available)( (?!include|fields)[\w-]+){0,2}:\s*[\w-]+(?:\s*\([^)]*\))?(, [\w-]+(?:\s*\([^)]*\))?){2,}"
    + r"|\bonly "
    + QUOTED
    + r" (is|are) (currently )?supported\b|\bvalues? (can|must) be (either )?[\w-]+(, [\w-]+)*,? or [\w-]+\b"
    + r"|\bset (it )?to (either )?['\"`]?[\w-]+['\"`]?,? or ['\"`]?[\w-]+['\"`]?\s*(\.|$)"
    + r"|\b(supported|allowed|accepted)( values| options| fields)?( are)?:\s*"
    + QUOTED
    + r"(?:\s*,\s*"
    + QUOTED
    + r")+",
    re.IGNORECASE,
)
# 'Use format: "2h" (hours), "90m" (minutes) or "1.5h"' shows a format by examples, and an option
# "YYYY-MM-DD" or a regular expression (/^...$/) is a pattern to fill in: neither lists the options.
FORMAT = re.compile(r"\b(use|in|with) (the |this )?(format|syntax)\b|(?-i:\bY{2,4}-MM\b)|/\^", re.IGNORECASE)
EXAMPLES = re.compile(
    r"\b(such as|e\.g\.|eg|for example|for instance|like|examples?( values)?:?|includes?|including|common|popular|typical|try"
    r"|exemplos?|ejemplos?|p\. ?ej\.|por exemplo|por ejemplo|z\. ?B\.|beispielsweise)\W*$",
    re.IGNORECASE,
)
# 'e.g. "show version", "FA014250000", or "ID"': the examples began before the part that matched.
EXAMPLES_BEGUN = re.compile(
    r"\b(e\.g\.|eg\.|for example|for instance|such as)\s*['\"`][^.;:]*$", re.IGNORECASE
)
# "Standard types: companies, people. Custom objects are also supported": the list is not all of them.
OPEN_SET = re.compile(
    r"^\W*(etc\b|\.\.\.|…)|\b(are|is) also (supported|accepted|allowed)\b|\band (more|others)\b",
    re.IGNORECASE,
)
PARAMETER_LINE = re.compile(
    r"^(?P<indent>\s*)(?:[-*•]\s*)?(?P<name>\w+)\s*(?:\([^)]*\))?\s*:\s*(?P<text>.*)$"
)
# In a parameter's own entry, options also come unquoted: "polyhaven, sketchfab or polypizza",
# "1d,5d,1mo,3mo", or one "- value: meaning" line each.
LISTED_OPTIONS = re.compile(
    r"(?:^|:\s)(?:[\w-]+(?: \([^)]*\))?, )+[\w-]+(?: \([^)]*\))?,? or [\w-]+\b"
    r"|\b\w*[a-z]\w*(?:,\w*[a-z]\w*){3,}\b|(?:^- [\w-]+:.*\n?){2,}|\((?:[\w-]+, ){2,}[\w-]+\)"
    r"|(?:^[a-z][\w-]*(?: / [a-z][\w-]*)*\s+[\u2014\u2013]\s.*\n?){3,}"
    r"|\A\s*" + QUOTED + r"(?:\s*\([^)]*\))?(?:\s*[,/]\s*" + QUOTED + r"(?:\s*\([^)]*\))?)+",
    re.IGNORECASE | re.MULTILINE,
)
# Options in a Chinese sentence ("part 為 claims、description 或 abstract") and codes with their
# meanings in brackets ("(0=not set, 1=high, 2=medium, 3=low)").
CJK_OPTIONS = re.compile(
    r"^\s*[a-z][\w-]*(?:\uff08[^\uff09]*\uff09)?(?:\s*\u3001\s*[a-z][\w-]*(?:\uff08[^\uff09]*\uff09)?)*"
    r"\s*\u6216\s*[a-z][\w-]*"
    r"|\(\s*\d+\s*=\s*[^=,()]{1,30}(?:,\s*\d+\s*=\s*[^=,()]{1,30})+\)",
    re.MULTILINE,
)
# A parameter's entry that goes on to its options unquoted after a dash ("File color mode — cmyk, rgb,
# grayscale, or spot.") or is only two of them as codes ("saddle_stitch or perfect_bound.", "HOME or
# AWAY"); what an identifier may be ("Account — name, number, or ID", "City or location") is not a set.
ENTRY_OPTIONS = re.compile(
    r"\s[\u2013\u2014]\s*[\w-]+(?:, [\w-]+)+,? or [\w-]+\b"
    r"|(?-i:^(?:[a-z][a-z\d_-]*|[A-Z][A-Z\d_]+)(?: \([^()'\"`/]*\))? or (?:[a-z][a-z\d_-]*|[A-Z][A-Z\d_]+))"
    r"(?: \([^()'\"`/]*\))?\.?$",
    re.IGNORECASE | re.MULTILINE,
)
# Quoted options joined by another language's "or": '"pdf", "xml" o "html"', '"memur" veya "emekli"',
# '"structured_json" または "markdown"'; not numbers, which are examples of an identifier.
OTHER_OR = re.compile(
    QUOTED
    + r"(?:\s*\([^()]{1,40}\))?(?:, "
    + QUOTED
    + r"(?:\s*\([^()]{1,40}\))?)*,?\s*(?:\b(?:o|ou|oder|veya|или)\b|\u307e\u305f\u306f)\s*"
    + QUOTED,
    re.IGNORECASE,
)
# A parameter described by nothing but the names it takes: "code,maxChangeFilterDate", "classifications,
# items" for an `order` or an `expand`.
NAMES_ONLY = re.compile(r"\A\s*[a-z]\w+(?:\s*,\s*[a-z]\w+)+\s*(?:\.\s.*)?\Z", re.IGNORECASE | re.DOTALL)
# A value as a schema would list it: one word or code ("aws", "1d", "IN_PLAY", "mayura:v1", "1000+").
VALUE = r"[\w][\w:+-]*(?:\.\d+)?"
# Options written bare, in the parameter's own description or entry: after a label ("Cloud provider:
# aws or azure", "Options: day, week, month"), in brackets ("(fastq, submitted, or sra)",
# "(asc/desc)"), or three or more between slashes ("new/open/pending/solved", not "titles/overviews/genre
# names").
BARE_OPTIONS = re.compile(
    r"(?<![\w/])(?P<label>[^\W\d][\w ]{0,30})[:：]\s*"
    + VALUE
    + r"(?:\s*\([^()]{1,30}\))?(?:(?:\s*,\s*|\s*,?\s+or\s+|/)"
    + VALUE
    + r"(?:\s*\([^()]{1,30}\))?)+\.?(?=\s*(?:\((?:default|по умолчанию)[^()]*\)\.?)?\s*$|\.\s)"
    + r"|(?<!['\"`])(?<!['\"`] )[(\uff08]\s*"
    + VALUE
    + r"(?:(?:\s*,\s*|\s*,?\s+or\s+|\s*/\s*|\s*\|\s*)"
    + VALUE
    + r")+(?:,\s*default:?\s*"
    + VALUE
    + r")?\s*[)\uff09]"
    + r"|(?<![\w/.:~-])[^\W\d][\w-]*(?:/[^\W\d][\w-]*){2,}(?![\w/.])(?!\s+[^\W\d])",
    re.IGNORECASE | re.MULTILINE,
)
# A label that lists the options whatever the parameter is called; other bare lists count only where
# the parameter or the label names a choice of kind ("sort_dir", "Cloud provider:"), since a free
# text's hints look the same: "Search query (name or email)", "URL of the file (XLS, XLSX)".
OPTIONS_LABEL = re.compile(
    r"^\s*(options|values|choices|(allowed|valid|possible|accepted) values)\s*$", re.IGNORECASE
)
OPEN_LABEL = re.compile(
    r"\b(includes?|including|examples?|exemplos?|ejemplos?|beispiele?|common|default|supports?|supported|popular|built-ins?|for)\s*$",
    re.IGNORECASE,
)
AFTER_PREPOSITION = re.compile(r"\b(for|of|in|on|to|the|an?|from|and|with)\s$", re.IGNORECASE)
CHOICE_WORDS = frozenset(
    [
        "type",
        "kind",
        "mode",
        "format",
        "fmt",
        "status",
        "state",
        "priority",
        "level",
        "severity",
        "direction",
        "dir",
        "order",
        "sort",
        "method",
        "operation",
        "op",
        "operator",
        "action",
        "engine",
        "provider",
        "cloud",
        "platform",
        "model",
        "program",
        "category",
        "interval",
        "period",
        "timeframe",
        "range",
        "granularity",
        "frequency",
        "unit",
        "units",
        "style",
        "orientation",
        "access",
        "visibility",
        "scope",
        "language",
        "lang",
        "strategy",
        "algorithm",
        "field",
        "section",
        "subsystem",
        "color",
        "colour",
    ]
)
# What a free-text or identifier parameter may hold is not a set of its values: "(name or email)".
NOT_VALUES = frozenset(
    [
        "id",
        "ids",
        "name",
        "names",
        "email",
        "emails",
        "path",
        "paths",
        "url",
        "urls",
        "uuid",
        "slug",
        "key",
        "keys",
        "title",
        "username",
        "handle",
        "number",
        "string",
        "text",
        "json",
        "query",
        "keyword",
        "keywords",
        "word",
        "words",
        "code",
        "value",
        "values",
        "file",
        "files",
        "folder",
        "directory",
        "optional",
        "required",
        "default",
        "none",
        "null",
        "e",
        "g",
        "i",
        "etc",
        "example",
        "examples",
        "and",
    ]
)
COUNT_WORDS = frozenset(
    {
        "id",
        "pid",
        "replacements",
        "replicas",
        "port",
        "revision",
        "period",
        "attempts",
        "occurrences",
        "steps",
        "duration",
        "seconds",
        "delay",
        "head",
        "tail",
        "count",
        "limit",
        "max",
        "min",
        "size",
        "page",
        "per",
        "offset",
        "index",
        "depth",
        "lines",
        "line",
        "top",
        "n",
        "num",
        "number",
        "length",
        "timeout",
        "retries",
        "results",
        "items",
        "k",
        "rows",
        "interval",
        "expiration",
        "expires",
        "expiry",
        "ttl",
        "first",
    }
)
PROSE_BOUND = re.compile(
    r"\b(max(imum)?|min(imum)?|at most|at least|up to|between|range|from \d+ to)\b:?\s*\(?-?\d|\(\d+\s*[-\u2013]\s*\d+\)",
    re.IGNORECASE,
)
STRUCTURED = re.compile(
    r"\b(returns?|responds?|answers?)\b[^.]*\b(JSON|object|fields|dictionary)\b", re.IGNORECASE
)
PARAMETER_ITSELF = re.compile(r"\buse (this|it)\b(?! tool\b)", re.IGNORECASE)
HIJACK = (
    (re.compile(r"<\s*important\s*>", re.IGNORECASE), "hidden-instruction tag"),
    (
        re.compile(
            # "Always use absolute paths" is how to fill an argument; "always use this tool" is an order.
            r"\balways (call|run|invoke|prefer)\b(?! (it|this( tool)?) ([^.]{0,60} )?(before|after) (using |calling )?['\"`]?\w+_\w+| ['\"`]?\w+_\w+['\"`]? first\b)|\balways use (this|it|the \w+ tool)\b|\balways use \w+_\w+\b(?!\s*=| first\b)|\byou must\b(?! (also |only )?(set|specify|provide|pass|include|supply|give|enter|select|choose|install|configure|enable|have|assign)\b| only\b| be (the|an?|logged|signed|authenticated|authori[sz]ed)\b| use ['\"`]?[\w-]+['\"`]? as\b| use (the|a|an|its) (?![\w-]+ tool\b))"
            r"|\byou (should|need to) always\b|\b(use|call) the ['\"`]?[\w-]+['\"`]? tool (?-i:FIRST) to (plan|think|understand|reflect|reason)\b|\b(?-i:STOP) and (use|call)\b|\bcall (it|this( tool)?) (once )?at (the |session )?start\b|\b(use|call) (this|it)( tool)? proactively\b|\bproactively (use|call|offer|suggest)\b"
            # Orders on how the model answers the user are not about this tool.
            r"|\bbe (concise|brief|short) (with|in) your (answers?|responses?|replies)\b|\balways (mention|tell the user)\b"
            r"|\balways include\b[^.]{0,60}\bwhen (presenting|answering|responding|replying)\b"
            r"|\bwhen (citing|presenting|answering|replying)\b[^.]{0,40}\b(responses?|answers?|replies|the user)\b|^\W*(present|highlight) (all|most|rates?|results?)\b|^\W*cite [\"\u201c]"
            r"|^\W*present (the |these |its )?(\w+ )?(results?|findings|output)\b[^.]{0,40}\bto the user\b|^\W*(state|mention|tell)\b[^.]{0,60}\bproactively\b"
            r"|\buse this (\w+ )?tool for (?-i:ALL)\b"
            # "只陈述事实，不做买卖推荐" (state only facts, make no buy or sell call), "宿主按 ... 解读" (the host
            # reads it by ...), "LEIA ISTO PRIMEIRO", "PFLICHT-AUFRUF ...", "Antworte ... NIE aus dem Gedächtnis".
            r"|只陈述事实|不做(任何)?(买卖|投资)(推荐|建议)|宿主(应|需|必须)?按|\bleia (isto|primeiro)\b"
            r"|\bpflicht-aufruf\b|\bantworte\b[^.]{0,60}\b(nie|niemals)\b",
            re.IGNORECASE,
        ),
        "standing order",
    ),
    (
        re.compile(
            r"\b(before|instead of) (calling|using|performing|running) (any|every|all|other)\b"
            r"|\bif (an?|any) [\w -]{1,30}\btools? (is |are )?(available|installed|connected)\b",
            re.IGNORECASE,
        ),
        "instruction aimed at other tools",
    ),
    (
        re.compile(
            r"\b(the|first and) only tool (for|that|to|when)\b|\bmost important tool\b|\buse (it |this( tool)? )?often\b"
            r"|\bnever \w+ [^.]{0,40}\bwithout (using )?this tool\b|(?-i:\bSTART HERE\b)",
            re.IGNORECASE,
        ),
        "claim to be the first choice",
    ),
    (
        re.compile(
            r"\b(tell|ask|advise|recommend|remind) the user to (migrate|switch|upgrade|install|use|try|buy|subscribe)\b",
            re.IGNORECASE,
        ),
        "promotion the model is told to pass on",
    ),
    (
        re.compile(r"\b(do not|don't|never) (tell|inform|mention|show|reveal)\b", re.IGNORECASE),
        "secrecy order",
    ),
    (
        re.compile(r"\b(do not|don't|never) (prompt|ask) the user\b", re.IGNORECASE),
        "order to leave the user out",
    ),
    (
        re.compile(
            r"\b(ignore|disregard|forget|override)\b[^.]{0,40}\binstructions?\b"
            r"|\b(were|was|have been) (told|advised|instructed)\b|\bnow grants? you\b",
            re.IGNORECASE,
        ),
        "override of the model's earlier instructions",
    ),
)

WHY = {
    "name_valid": "Claude and OpenAI reject names outside ^[a-zA-Z0-9_-]{1,64}$; such a tool may not load at all.",
    "input_schema": "Without a valid inputSchema a host cannot offer the tool to a model, or offers it wrong.",
    "namespaced": "Beside other servers' tools, a bare verb such as get_ says nothing about whose tool it is.",
    "says_what": "The model picks tools from text alone; a first sentence that restates the name gives it nothing.",
    "says_when": "Without a when-to-use sentence the model guesses when the tool applies.",
    "says_when_not": "Without a when-not sentence the model calls the tool for near-miss requests.",
    "params_described": "An undescribed parameter leaves the model to guess its meaning and format.",
    "schema_closed": "Without additionalProperties: false a misspelled argument is valid by the contract.",
    "required_declared": "A parameter with no default that is not required leaves the model unsure it may omit it.",
    "numbers_bounded": "Without bounds, a wild count, index or amount is valid by the contract and fails late, if at all.",
    "closed_sets_enum": "Options written in prose instead of an enum are not enforced, and the model misspells them.",
    "title_set": "Hosts show the title to people approving calls; without one they show the raw name.",
    "annotations_set": "An unset hint defaults to destructive and open-world, so hosts ask for needless approval.",
    "output_schema": "Structured results without an outputSchema cannot be validated or relied on by clients.",
    "no_hijack": "Text that orders the model about steers it away from the user's request (tool poisoning).",
}
LABELS = {
    "name_valid": "name valid for real clients",
    "input_schema": "valid inputSchema",
    "namespaced": "name namespaced",
    "says_what": "says what it does",
    "says_when": "says when to use it",
    "says_when_not": "says when not to use it",
    "params_described": "every parameter described",
    "schema_closed": "schema closed (additionalProperties: false)",
    "required_declared": "required parameters declared",
    "numbers_bounded": "number parameters bounded",
    "closed_sets_enum": "closed sets given as enums",
    "title_set": "title set",
    "annotations_set": "meaningful annotations set",
    "output_schema": "outputSchema where results are structured",
    "no_hijack": "no words that hijack the model",
}


@dataclass(frozen=True)
class ServerTools:
    """The names of one server's tools and how many start with each word, worked out once per server:
    done per tool, a server of 2,000 tools would cost 4 million comparisons."""

    names: frozenset[str] = frozenset()
    first_words: Counter[str] = field(default_factory=Counter)
    first_sentences: Counter[str] = field(default_factory=Counter)
    # The share of tools whose first word, not a verb, at least one other tool starts with too.
    grouped_share: float = 0.0
    # The lowercase words of its descriptions' prose: a first word written there names a record.
    prose_words: frozenset[str] = frozenset()
    # Words its prose capitalises mid-sentence ("from HashiCorp Vault PKI") or writes as acronyms, lowercased: names.
    proper_names: frozenset[str] = frozenset()
    # Verbs that start nearly all its tools with a verb after them (encode_search_experiments, encode_get_file
    # for the ENCODE project): there the first word cannot be the action, so it names the service.
    verb_namespaces: frozenset[str] = frozenset()

    @classmethod
    def of(cls, names: Iterable[str], descriptions: Iterable[str] = ()) -> ServerTools:
        unique = frozenset(names)
        split_names = [[word.lower() for word in name_words(name)] for name in unique]
        first_words = Counter(words[0] for words in split_names if words)
        generic = GENERIC_VERBS | GENERIC_PREFIXES
        verb_namespaces = frozenset(
            word
            for word, count in first_words.items()
            if word in GENERIC_VERBS
            and count >= SHARED_PREFIX_MIN_TOOLS
            and count >= VERB_NAMESPACE_MIN_SHARE * len(unique)
            and sum(
                len(words) > 2 and words[0] == word and words[1] in GENERIC_VERBS for words in split_names
            )
            >= VERB_NAMESPACE_MIN_SHARE * count
        )
        grouped = sum(count for word, count in first_words.items() if count >= 2 and word not in generic)
        # Aliases (the same description under two names) are the near-duplicate check's business.
        texts = {text: split_sentences(text) for text in set(descriptions)}
        sentences = Counter(first_sentence(split) for split in texts.values())
        del sentences[""]
        prose = frozenset(word for text in texts for word in PROSE_WORD.findall(text))
        proper = frozenset(
            word.lower()
            for split in texts.values()
            for sentence in split
            for word in PROPER_NAME.findall(sentence) + ACRONYM.findall(sentence) + _initials(sentence)
        )
        return cls(
            unique,
            first_words,
            sentences,
            grouped / max(1, len(unique)),
            prose,
            proper - prose - COMMON_ACRONYMS,
            verb_namespaces,
        )


def check_tool(
    tool: Tool,
    server_name: str,
    other_servers_tools: Collection[str],
    schema_problem: str = "",
    server_tools: ServerTools | None = None,
) -> list[Check]:
    """All checklist verdicts for one tool, in the order of the module docstring.

    `schema_problem`: what was wrong with the definition as listed (see `connect.list_tools`).
    `server_tools`: the tools of the same server, which a namespace is shared with and "use X
    instead" may point to.
    `other_servers_tools` should be a set: it is looked up once per word of the descriptions.
    """
    description = tool.description or ""
    sentences = split_sentences(description)
    schema = tool.input_schema
    params = properties(schema)
    numbers = _numbers(schema, params)
    siblings = server_tools or ServerTools()
    verdicts: list[tuple[str, Status, str]] = [
        ("name_valid", *_name_valid(tool.name)),
        ("input_schema", *_input_schema(schema, schema_problem)),
        ("namespaced", *_namespaced(tool.name, server_name, siblings)),
        ("says_what", *_says_what(tool.name, first_sentence(sentences), siblings)),
        ("says_when", *_says_when(tool.name, sentences)),
        ("says_when_not", *_when_not(tool.name, sentences, siblings, params, numbers)),
        ("params_described", *_params_described(params)),
        ("schema_closed", *_schema_closed(schema)),
        ("required_declared", *_required_declared(schema, params)),
        ("numbers_bounded", *_numbers_bounded(params, numbers)),
        ("closed_sets_enum", *_closed_sets(schema, params, description)),
        ("title_set", *_title(tool)),
        ("annotations_set", *_annotations(tool)),
        ("output_schema", *_output_schema(tool, sentences)),
        ("no_hijack", *_no_hijack(description, params, other_servers_tools)),
    ]
    return [Check(key, LABELS[key], status, evidence, WHY[key]) for key, status, evidence in verdicts]


def split_sentences(text: str) -> list[str]:
    """Sentences, list items and headings, without a list's numbers ("1. Retrieves ..." is
    "Retrieves ..."), each judged on its first MAX_SENTENCE_CHARS characters."""
    # A section in markup ("...options.<use_case>Learn ...</use_case>") starts a sentence of its own.
    for tag in set(re.findall(r"</([a-z][\w-]{0,30})>", text)):
        text = re.sub(rf"(</?{tag}>)", r"\n\n\1\n\n", text)
    blocks: list[list[str]] = []
    for line in (line.strip() for line in text.splitlines()):
        if not line:
            blocks.append([])
        elif (
            blocks
            and blocks[-1]
            and not LINE_ENDS_SENTENCE.search(blocks[-1][-1])
            and not LINE_STARTS_ITEM.match(line)
        ):
            blocks[-1].append(line)
        else:
            blocks.append([line])
    parts = (part for block in blocks if block for part in SENTENCE_BREAK.split(" ".join(block)))
    stripped = (LIST_NUMBER.sub("", part.strip()) for part in parts)
    return [sentence[:MAX_SENTENCE_CHARS] for sentence in stripped if sentence]


def name_words(name: str) -> list[str]:
    """browser_take_screenshot, get-issue, mastraDocs: the words a name is made of."""
    return [word for word in re.split(r"[_\-.]+|(?<=[a-z0-9])(?=[A-Z])", name) if word]


def _name_valid(name: str) -> tuple[Status, str]:
    if CLIENT_NAME.match(name):
        return "pass", f"{name} ({len(name)} characters)"
    return "fail", f"{name[:80]!r} has characters or a length outside ^[a-zA-Z0-9_-]{{1,64}}$"


def _input_schema(schema: dict[str, Any], problem: str) -> tuple[Status, str]:
    if problem:
        return "fail", problem
    try:
        text = json.dumps(schema, sort_keys=True)
    except (TypeError, ValueError, RecursionError):
        return "fail", "not valid JSON Schema"
    return _schema_verdict(text)


@functools.lru_cache(maxsize=4096)
def _schema_verdict(text: str) -> tuple[Status, str]:
    """By the schema's text: checking against the metaschema is slow, and generated tools share schemas."""
    schema = json.loads(text)
    try:
        jsonschema.validators.validator_for(schema).check_schema(schema)
    except jsonschema.SchemaError as exc:
        where = "/".join(str(part) for part in exc.path) or "the top level"
        return "fail", f"not valid JSON Schema at {where}: {exc.message}"
    except (RecursionError, TypeError, ValueError):
        return "fail", "not valid JSON Schema"
    return "pass", "a JSON Schema object"


def _namespaced(name: str, server_name: str, server: ServerTools) -> tuple[Status, str]:
    parts = name_words(name)
    if len(parts) < 2:
        return "fail", f"{name} is one word, with no prefix saying which service it belongs to"
    prefix, suffix = parts[0].lower(), parts[-1].lower()
    if prefix in server.verb_namespaces:
        return (
            "pass",
            f"prefix {prefix}_ starts nearly every tool, each with a verb after it: it names the service",
        )
    if prefix in GENERIC_VERBS:
        return "fail", f"{name} starts with the verb {prefix}, which any service's tools could start with"
    if prefix in GENERIC_PREFIXES:
        return "fail", f"{name} starts with {prefix}, which says nothing about whose tool it is"
    service = {word.lower() for word in re.split(r"[^A-Za-z0-9]+", server_name)}
    if prefix in service:
        return "pass", f"prefix {prefix}_ is the server's name"
    if suffix in service - GENERIC_VERBS:  # web_search_exa; not units_convert on a server named convert
        return "pass", f"suffix _{suffix} is the server's name"
    # A namespace is what most of a server's tools share (browser_click, browser_type); a prefix only
    # a few share names their subject: distance_tool beside buffer_tool, stories-search beside epics-search.
    sharing, tools = server.first_words[prefix] + (name not in server.names), len(server.names)
    # Tools grouped mostly by product area (bitable_, im_): each area names whose tool it is. A word the
    # descriptions write as an ordinary one ("post a status") is a record (status_get), not an area.
    # A name the descriptions give ("PPUBS", "Greenfield" for gnfd_) is one even when it ends in s.
    prose = bool({prefix, prefix + "s", prefix + "es"} & server.prose_words)
    named = prefix in server.proper_names or any(_abbreviates(prefix, name) for name in server.proper_names)
    shared = sharing >= 2 and server.grouped_share >= SHARED_PREFIX_MIN_SHARE
    product_area = not prose and (named or (shared and not _plural(prefix)))
    if tools >= SHARED_PREFIX_MIN_TOOLS and sharing < SHARED_PREFIX_MIN_SHARE * tools and not product_area:
        return (
            "fail",
            f"{sharing} of this server's {tools} tools start with {parts[0]}_, so it names their subject, "
            "not the service",
        )
    return "pass", f"prefix {prefix}_ names a domain"


def _initials(sentence: str) -> list[str]:
    """hf for "the Hugging Face Hub": the first letters of two or more capitalised words in a row."""
    found = []
    for run in CAPITALISED_RUN.findall(sentence):
        words = run.split()
        found += [
            "".join(word[0] for word in words[start:end])
            for start in range(len(words))
            for end in range(start + 2, len(words) + 1)
        ]
    return found


def _abbreviates(short: str, name: str) -> bool:
    """gnfd for Greenfield: the name's first and last letters and, between them, some of its consonants
    in order (a word such as "receive" beside "Receivable" keeps its vowels)."""
    if len(short) < 3 or short[0] != name[0] or short[-1] != name[-1] or set(short[1:]) & set("aeiouy"):
        return False
    letters = iter(name)
    return all(letter in letters for letter in short)


def _plural(word: str) -> bool:
    """stories, epics: a plural names records; status, analysis, access are singular."""
    return len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is"))


def _without_spelt_acronyms(sentence: str) -> str:
    """ "Get coronal mass ejection (CME) data." without "(CME)": it spells the words before it again."""

    def spelt(found: re.Match[str]) -> str:
        before = WORD.findall(sentence[: found.start()])
        letters = found.group(1).lower()
        initials = "".join(word[0].lower() for word in before[-len(letters) :])
        return "" if initials == letters else found.group(0)

    return re.sub(r"\s*\((?-i:([A-Z]{2,6}))\)", spelt, sentence)


def first_sentence(sentences: list[str]) -> str:
    """The sentence says_what reads: the first one past headings, and past a lone word when a sentence
    follows ("Tool name:\ngetUser\nDescription:\nRetrieves ...": the word is a label's value)."""
    told = [s for s in sentences if not HEADING.match(s) or CJK_SENTENCE.search(s)]
    return next((s for s in told if not LONE_WORD.match(s)), told[0] if told else "")


def _says_what(name: str, first: str, server: ServerTools) -> tuple[Status, str]:
    if not first:
        return "fail", "no description"
    # "Twilio - Voice: This is the public Twilio REST API." on every tool tells none of them apart.
    if (shared := server.first_sentences[first]) >= 2:
        return "fail", f"first sentence is the same on {shared} of this server's tools: {first}"
    # "PREFERRED MAP TOOL: When ..." is a label, then the sentence; "⚠️ DESTRUCTIVE: Permanently
    # delete a mailbox" warns of what the sentence after it says the tool does.
    first = re.sub(r"^\W*⚠\W*(?-i:DESTRUCTIVE|DANGEROUS|DANGER|IRREVERSIBLE)\W*:\s+", "", first)
    unlabelled = re.sub(r"^\W*(?-i:[A-Z][A-Z ]{2,40}):\s+", "", first)
    if NOT_WHAT.search(first) or NOT_WHAT.search(unlabelled):
        return "fail", f"first sentence is not about what it does: {first}"
    found = WORD.findall(_without_spelt_acronyms(first))
    own = [word.lower() for word in name_words(name)]
    new = {
        part
        for word in found
        for part in _camel_parts(word)
        if part not in STOP_WORDS | FILLER and not any(_same_word(part, word) for word in own)
    }
    if len(found) >= WHAT_MIN_WORDS and len(new) >= WHAT_MIN_NEW_WORDS:
        return "pass", first
    counts = f"words: {len(found)} of {WHAT_MIN_WORDS}, beyond the name: {len(new)} of {WHAT_MIN_NEW_WORDS}"
    return "fail", f"first sentence too thin ({counts}): {first}"


def _same_word(word: str, other: str) -> bool:
    """Forms of one word: log and logs, branch and branches, story and stories, summary and summarize;
    not time and timezone."""
    short, long = sorted((word.lower(), other.lower()), key=len)
    if short == long or (short.endswith("y") and long == short[:-1] + "ies"):
        return True
    if len(short) < 3 or not long.startswith(short[:STEM_CHARS]):
        return False
    return len(short) >= STEM_CHARS or len(long) - len(short) <= 3


def _camel_parts(word: str) -> list[str]:
    """taskId is task and id, so a name's words written together are still the name's."""
    return [part.lower() for part in re.split(r"(?<=[a-z])(?=[A-Z])|'", word) if part]


def _own_name(name: str) -> re.Pattern[str]:
    """The tool's own name in its description, which reads as "this tool"."""
    return re.compile(rf"['\"`]?(?<![\w-]){re.escape(name)}(?![\w-])['\"`]?")


def _says_when(name: str, sentences: list[str]) -> tuple[Status, str]:
    # "use set_tool_tier only for an explicit override", in set_tool_tier's own description
    own = _own_name(name)
    sentence = next((s for s in sentences if WHEN.search(own.sub("this tool", s))), None)
    return ("pass", sentence) if sentence else ("fail", "no sentence says when to use it")


def _when_not(
    name: str, sentences: list[str], server: ServerTools, params: Collection[str], numbers: Collection[str]
) -> tuple[Status, str]:
    # "Use 'request_planning' to ..." in request_planning's own description says when to use it;
    # a sibling's name, however it is spelt (hubspot-search-objects), reads as the other tool, and
    # an argument's ("Use perPage and page for pagination") as no tool at all.
    own = _own_name(name)

    def as_other(word: re.Match[str]) -> str:
        if word.group(0) != name and word.group(0) in server.names:
            return "other_tool"
        # Only a name no word of prose could be ("perPage", "old_name"): "timeout" may be the English word.
        coined = "_" in word.group(0) or re.search(r"[a-z][A-Z]", word.group(0))
        return "the argument" if coined and word.group(0) in params else word.group(0)

    # reStructuredText's ``name`` quotes a name as `name` does.
    read = [
        (sentence, NAME_LIKE.sub(as_other, own.sub("this tool", sentence.replace("``", "`"))))
        for sentence in sentences
    ]
    cued = [
        (sentence, text)
        for sentence, text in read
        if WHEN_NOT.search(text) and not _only_a_range(sentence, numbers)
    ]
    rate_limits = [sentence for sentence, text in cued if RATE_LIMIT.search(text)]
    found = next(
        (s for s, text in cued if not RATE_LIMIT.search(text) and not _about_another_tool(name, text)), None
    )
    if found:
        return "pass", found
    if rate_limits:
        return "fail", f"only a limit on how often to call, which is not when not to use it: {rate_limits[0]}"
    return "fail", "no sentence says when not to use it"


def _only_a_range(sentence: str, numbers: Collection[str]) -> bool:
    """A number's entry ("num_results: Number of results (default: 5, max: 50)") gives its range, which
    the numbers check reads, not a limit of the tool; a list's ("ids: DOIs (max 50)") is one."""
    entry = PARAMETER_LINE.match(sentence)
    return bool(entry and entry["name"] in numbers) and not WHEN_NOT.search(PARAMETER_RANGE.sub("", sentence))


def _about_another_tool(name: str, sentence: str) -> bool:
    """An order such as "do not call 'get_next_task'" in another tool's description is about that one."""
    told = OTHER_TOOL_ORDER.search(sentence)
    if told is None or told.group(1) == name:
        return False
    return not WHEN_NOT.search(OTHER_TOOL_ORDER.sub("", sentence))


def _params_described(params: dict[str, dict[str, Any]]) -> tuple[Status, str]:
    if not params:
        return "n/a", "takes no parameters"
    bare = [name for name, node in params.items() if not str(node.get("description", "")).strip()]
    if bare:
        return "fail", f"no description: {', '.join(bare)}"
    return "pass", f"all {len(params)} described"


def _schema_closed(schema: dict[str, Any]) -> tuple[Status, str]:
    if schema.get("additionalProperties") is False:
        return "pass", "additionalProperties: false"
    return "fail", "additionalProperties is not false"


def _required_declared(schema: dict[str, Any], params: dict[str, dict[str, Any]]) -> tuple[Status, str]:
    if not params:
        return "n/a", "takes no parameters"
    listed = set(required(schema))
    loose = [name for name, node in params.items() if name not in listed and "default" not in node]
    if loose:
        return "fail", f"neither required nor defaulted: {', '.join(loose)}"
    return "pass", f"required: {', '.join(sorted(listed)) or 'none'}; the rest have defaults"


def _numbers(schema: dict[str, Any], params: dict[str, dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """The parameters the numbers check reads, with the schema nodes that must be bounded."""
    found = {
        name: [m for m in members(schema, node) if _must_be_bounded(name, node, m)]
        for name, node in params.items()
    }
    return {name: nodes for name, nodes in found.items() if nodes}


def _numbers_bounded(
    params: dict[str, dict[str, Any]], numbers: dict[str, list[dict[str, Any]]]
) -> tuple[Status, str]:
    """`numbers`: what _numbers found, which says_when_not reads too."""
    if not numbers:
        return "n/a", "no integer or count-like number parameters"
    unbounded = [
        name
        for name, nodes in numbers.items()
        for node in nodes
        if not (
            {"minimum", "exclusiveMinimum"} & node.keys() and {"maximum", "exclusiveMaximum"} & node.keys()
        )
        and not ("enum" in node or "const" in node)  # a fixed set of values bounds them too
    ]
    if unbounded:
        names = list(dict.fromkeys(unbounded))
        prose = [name for name in names if PROSE_BOUND.search(str(params[name].get("description", "")))]
        said = f" ({', '.join(prose)}: a bound said only in prose, which nothing enforces)" if prose else ""
        return "fail", f"missing a minimum or maximum: {', '.join(names)}{said}"
    return "pass", f"bounded: {', '.join(numbers)}"


def _must_be_bounded(name: str, param: dict[str, Any], node: dict[str, Any]) -> bool:
    kind = node.get("type")
    kinds = {kind} if isinstance(kind, str) else set(kind) if isinstance(kind, list) else set()
    if "integer" in kinds:
        return True
    if "number" not in kinds:
        return False
    words = {word.lower() for word in re.split(r"[_\-]+|(?<=[a-z])(?=[A-Z])", name) if word}
    return bool(words & COUNT_WORDS) or bool(PROSE_BOUND.search(str(param.get("description", ""))))


def _closed_sets(
    schema: dict[str, Any], params: dict[str, dict[str, Any]], description: str
) -> tuple[Status, str]:
    texts = dict(_text_fields(schema, params, "", 0))
    docs = _parameter_docs(description, params)
    if not texts:
        return "n/a", "no text parameters"
    for name, node in texts.items():
        has_enum = any("enum" in m or "const" in m for m in members(schema, node))
        # A parameter's own name in quotes is not one of its values: "`outputDirectory` is relative to ...".
        own = re.compile(rf"['\"`]({re.escape(name.rsplit('.', 1)[-1])})['\"`]")
        # An anyOf branch's own description ("Predefined period: ...") is read as the parameter's.
        described = [str(node.get("description", ""))] + [
            str(m["description"]) for m in members(schema, node) if m is not node and "description" in m
        ]
        said = own.sub(r"\1", "\n".join(described))
        listed = own.sub(r"\1", docs.get(name, ""))
        mentioned = _mentions(description, name) if name in params and name not in docs else ""
        cue = (
            _options(CLOSED_SET, said)
            or _options(CLOSED_SET, listed)
            or _options(LISTED_OPTIONS, listed)
            or _options(CLOSED_SET, mentioned)
            or _options_in(CJK_OPTIONS, said, listed, mentioned)
            or _options_in(ENTRY_OPTIONS, said, listed, unless=_holds_free_text)
            or _options_in(NAMES_ONLY, str(node.get("description", "")), unless=_holds_free_text)
            or _options_in(OTHER_OR, said, listed, mentioned, unless=_has_identifier)
            # A pattern in the schema already constrains what the prose describes.
            or (
                "pattern" not in node
                and (
                    _bare_options(name, said) or _bare_options(name, listed) or _bare_options(name, mentioned)
                )
            )
        )
        if cue and not has_enum:
            return "fail", f"{name} lists options in prose ({cue.group(0)!r}) but has no enum"
    enums = [name for name, node in texts.items() if any("enum" in m for m in members(schema, node))]
    return "pass", f"enums: {', '.join(enums)}" if enums else "no text parameter lists fixed options"


def _options(pattern: re.Pattern[str], text: str) -> re.Match[str] | None:
    """Options listed as the allowed values: not examples ("such as 'A' or 'B'"), not one case's ("If ...")."""
    for found in pattern.finditer(text):
        before = text[max(0, found.start() - 30) : found.start()]
        sentence = text[: found.start()].rsplit(".", 1)[-1].strip()
        after = text[found.end() : found.end() + 120]
        if (
            not EXAMPLES.search(before)
            and not EXAMPLES_BEGUN.search(text[max(0, found.start() - 60) : found.start()])
            and not OPEN_SET.search(after)
            and not sentence.lower().startswith("if ")
            and not FORMAT.search(sentence + found.group(0))
        ):
            return found
    return None


def _bare_options(name: str, text: str) -> re.Match[str] | None:
    """Bare options, where they name a choice and no listed word says what a free text holds."""
    named = {word.lower() for word in name_words(name.rsplit(".", 1)[-1].replace("[]", ""))}
    for found in BARE_OPTIONS.finditer(text):
        label = found.group("label") or ""
        # "Language for titles/overviews/genre names": what the value applies to, not its options.
        before = text[max(0, found.start() - 80) : found.start()]
        if OPEN_LABEL.search(label) or AFTER_PREPOSITION.search(before) or FORMAT.search(before):
            continue
        listed = found.group(0)[len(label) :].lstrip(":：")
        listed = re.sub(r",\s*default:?\s*" + VALUE + r"\s*(?=[)\uff09]$)", "", listed)
        words = {word.lower() for word in re.findall(r"[^\W\d]+", re.sub(r"\s\([^()]*\)", "", listed))}
        labelled = set(label.lower().split())
        if (words | labelled) & NOT_VALUES:
            continue
        chosen = OPTIONS_LABEL.match(label) or (named | labelled) & CHOICE_WORDS
        if chosen and _options(re.compile(re.escape(found.group(0))), text):
            return found
    return None


def _options_in(
    pattern: re.Pattern[str], *texts: str, unless: Callable[[str], bool] = lambda _: False
) -> re.Match[str] | None:
    """The first of the texts' options by `_options`, leaving out those `unless` rejects."""
    for text in texts:
        if (found := _options(pattern, text)) and not unless(found.group(0)):
            return found
    return None


def _holds_free_text(listed: str) -> bool:
    """Unquoted words that say what an identifier or a free text holds ("name, number, or ID")."""
    return bool({word.lower() for word in re.findall(r"[^\W\d]+", listed)} & NOT_VALUES)


def _has_identifier(listed: str) -> bool:
    """Quoted numbers of four digits or more are examples of an identifier ('"12345" ou "MOVI..."')."""
    return bool(re.search(r"\d{4}", listed))


def _mentions(description: str, name: str) -> str:
    """The rest of each sentence of the description that names the parameter: "Type is 'pass' or 'block'."."""
    pattern = (
        rf"(?<![\w.-])['\"`]*{re.escape(name)}['\"`]*(?![\w-])\s*"
        r"(?:(?:\([^()]*\)\s*)?(?:is|are|as|may be|must be|can be|should be|takes|accepts|filters to|=|:)\s+"
        r"|\s*(?:\u70ba|\u4e3a|\u53ef\u70ba|\u53ef\u4e3a|\u53ef\u9009|\u53ef\u9078)\s*|(?=\())"
        r"([^.\n]*(?:\.(?!\s)[^.\n]*)*)"
    )
    return "\n".join(found.group(1) for found in re.finditer(pattern, description, re.IGNORECASE))


def _parameter_docs(description: str, params: dict[str, Any]) -> dict[str, str]:
    """What the description's own parameter list ("Args:", "- name: ...") says of each parameter.

    Servers built from docstrings often document parameters only there, which the model reads too.
    """
    docs: dict[str, str] = {}
    current, indent = "", 0
    for line in description.splitlines():
        found = PARAMETER_LINE.match(line)
        if found and found.group("name") in params:
            current, indent = found.group("name"), len(found.group("indent"))
            docs[current] = found.group("text")
        elif current and line.strip() and len(line) - len(line.lstrip()) > indent:
            docs[current] += "\n" + line.strip()
        else:
            current = ""
    # Or as keys in a line: "Args: date=YYYY-MM-DD, city=city name, system=drik|surya_siddhanta|vakya."
    keys = [
        key for key in re.finditer(r"(?<![\w.=-])(\w+)=(?![=\'\"`])", description) if key.group(1) in params
    ]
    if len({key.group(1) for key in keys}) > 1:
        for key, following in zip(keys, [*keys[1:], None], strict=True):
            end = following.start() if following else len(description)
            text = re.split(r"\.\s|[\n\u3002\uff1b]", description[key.end() : end], maxsplit=1)[0]
            docs.setdefault(key.group(1), text.rstrip(" ,;."))
    # Terse servers document a parameter mid-sentence: 'operation: "list" (list), "delete" (card).'
    for name in params.keys() - docs.keys():
        if inline := re.search(rf"(?<![\w.-]){re.escape(name)}: ([^.\n]*(?:\.(?!\s)[^.\n]*)*)", description):
            docs[name] = inline.group(1)
    return docs


def _text_fields(
    root: dict[str, Any], fields: dict[str, dict[str, Any]], path: str, depth: int
) -> list[tuple[str, dict[str, Any]]]:
    """Text fields by dotted path, nested objects and list items included: the model fills those too."""
    found = []
    for name, node in fields.items():
        where = f"{path}{name}"
        if "string" in accepted_types(root, node):
            found.append((where, node))
        if depth >= MAX_NESTING:
            continue
        for member in members(root, node):
            items = resolve(root, member["items"]) if isinstance(member.get("items"), dict) else None
            for inner, suffix in ((member, "."), (items, "[]." if items else "")):
                if inner is not None and isinstance(inner.get("properties"), dict):
                    nested = {
                        k: resolve(root, v) for k, v in inner["properties"].items() if isinstance(v, dict)
                    }
                    found += _text_fields(root, nested, where + suffix, depth + 1)
    return found


def _title(tool: Tool) -> tuple[Status, str]:
    title = tool.title or (tool.annotations.title if tool.annotations else None)
    return ("pass", title) if title else ("fail", "no title")


def _annotations(tool: Tool) -> tuple[Status, str]:
    hints = tool.annotations
    values = {
        "readOnlyHint": hints.read_only_hint if hints else None,
        "destructiveHint": hints.destructive_hint if hints else None,
        "idempotentHint": hints.idempotent_hint if hints else None,
        "openWorldHint": hints.open_world_hint if hints else None,
    }
    # The spec: destructive and idempotent hints are meaningful only when readOnlyHint is false.
    meaningful = ["readOnlyHint", "openWorldHint"] if values["readOnlyHint"] is True else list(values)
    unset = [key for key in meaningful if values[key] is None]
    if unset:
        return "fail", f"unset: {', '.join(unset)}"
    return "pass", ", ".join(f"{key}={str(values[key]).lower()}" for key in meaningful)


def _output_schema(tool: Tool, sentences: list[str]) -> tuple[Status, str]:
    if tool.output_schema:
        fields = list(properties(tool.output_schema))
        return "pass", f"outputSchema with {', '.join(fields) or 'no named fields'}"
    promise = next((s for s in sentences if STRUCTURED.search(s)), None)
    if promise:
        return "fail", f"promises structured results but has no outputSchema: {promise}"
    return "n/a", "results are described as text"


def _no_hijack(
    description: str, params: dict[str, dict[str, Any]], other_servers_tools: Collection[str]
) -> tuple[Status, str]:
    # In a parameter's own description, "Always use this to extract only needed fields" means the parameter.
    argument_texts = [
        PARAMETER_ITSELF.sub("use the parameter", str(node.get("description", "")))
        for node in params.values()
    ]
    sentences = [sentence for text in [description, *argument_texts] for sentence in split_sentences(text)]
    for sentence in sentences:
        for pattern, kind in HIJACK:
            if found := pattern.search(sentence):
                return "fail", f"{kind} {found.group(0)!r}: {sentence}"
        for word in re.findall(r"[A-Za-z0-9][\w-]*[_-][\w-]*[A-Za-z0-9]", sentence):
            if word in other_servers_tools:
                return "fail", f"names another server's tool {word}: {sentence}"
    return "pass", "no standing orders, secrecy or override orders, or references to other servers' tools"
