"""The audit's findings as plain data: every module fills these in, the report prints them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

Status = Literal["pass", "fail", "n/a", "inconclusive"]
"""n/a: the rule has nothing to look at; inconclusive: the reply cannot show it either way. Neither scores."""
ProbeReply = Literal[
    "error result", "success result", "protocol error", "no answer", "not run", "not applicable", "skipped"
]
EVIDENCE_CHARS = 240  # a 10 MB description must not become a 10 MB report


def cap(text: str, limit: int = EVIDENCE_CHARS) -> str:
    """`text` cut to `limit` characters, saying how much was left out."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text) - limit:,} more characters)"


@dataclass(frozen=True)
class Check:
    """One verdict with its evidence: the sentence that satisfied a rule, or what broke it."""

    id: str
    label: str
    status: Status
    evidence: str
    why: str
    """Why it matters to a model, shown once per check in the report's roll-up."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "evidence", cap(self.evidence))


@dataclass(frozen=True)
class TokenCost:
    """What one definition, or a set of them, costs on every request, in each provider's shape."""

    anthropic: int
    openai: int


@dataclass(frozen=True)
class ProbeResult:
    """One deliberately bad call and how the server answered it."""

    probe: str
    argument: str | None
    sent: str
    reply: ProbeReply
    text: str
    """What the model reads of the reply (capped); for a skipped probe, why it was not sent."""
    checks: list[Check]

    def __post_init__(self) -> None:
        object.__setattr__(self, "text", cap(self.text, 2000))


@dataclass
class ToolAudit:
    name: str
    cost: TokenCost
    checks: list[Check] = field(default_factory=list)
    probes: list[ProbeResult] = field(default_factory=list)


@dataclass(frozen=True)
class Score:
    """The per-server summary; `score.py` documents the formula."""

    value: float
    checklist_passed: int
    checklist_applicable: int
    probe_passed: int
    probe_applicable: int
    probed: bool
    """False with --no-probe, or when every call failed for one environmental reason."""


@dataclass
class ServerAudit:
    label: str
    target: str
    cost: TokenCost
    tools: list[ToolAudit]
    checks: list[Check]
    score: Score
    environment_failure: str = ""
    """Set when every call failed the same way (no browser, no network): said once, not scored."""
    stray_stdout: list[str] = field(default_factory=list)
    scratch_left: list[str] = field(default_factory=list)
    """What the server left in the temporary folder the audit gave it (then removed)."""
    home_left: list[str] = field(default_factory=list)
    """What the server wrote in the fresh home folder the audit gave it (then removed)."""


@dataclass(frozen=True)
class Cutoff:
    """One row of the call-or-not table: at this score, what a call-if-above rule gets wrong."""

    cutoff: float
    needed_calls_skipped: int
    needless_calls_made: int


@dataclass(frozen=True)
class Ranking:
    """How the selection proxy ranked the tools for one request."""

    text: str
    expected: str | None
    best: str | None
    best_score: float
    runner_up: str | None
    runner_up_score: float


@dataclass(frozen=True)
class Selection:
    requests_needing_a_tool: int
    requests_needing_none: int
    top1_correct: int
    near_ties: int
    cutoffs: list[Cutoff]
    choices: list[Ranking]


@dataclass
class Audit:
    """Everything one run found: each server, then what the model sees with all of them at once."""

    token_method: str
    servers: list[ServerAudit]
    combined_cost: TokenCost
    combined_checks: list[Check]
    selection: Selection | None = None
    notes: list[str] = field(default_factory=list)
