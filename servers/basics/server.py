"""The minimal two-tool server, done well: `system_get_cpu_usage` and `math_add_numbers`.

Namespaces say the domain, so a model that sees these beside fifty other tools still reads them
right: `system_` for facts about this machine, `math_` for exact arithmetic.

`math_add_numbers` takes a list, not a pair: adding a column of ten figures is one call instead of
nine sequential ones, and every sequential call costs the model another full round trip.

To make your own server from this one: rename the namespaces, rewrite each docstring (it is the
description the model reads) and each parameter description, and update
tests/servers/test_basics_contract.py and requests.jsonl to match. Take along servers/surface/ (the rules)
and servers/surface/transport.py (stdio and HTTP). `make new-server NAME=...` starts a fresh server with its
tests instead (docs/templates.md).
"""

from __future__ import annotations

from decimal import Decimal, Inexact, localcontext
from typing import Annotated

import anyio
import psutil
from pydantic import BaseModel, Field

from servers.surface import LOCAL_READ_ONLY, Reply, ToolFailure, ToolServer, Trim, TrimmableReply, serve

mcp = ToolServer(
    "basics",
    namespaces=["system", "math"],
    instructions="This machine's CPU usage, and exact addition of long or many numbers.",
)


class CpuUsage(BaseModel):
    percent: float = Field(description="Share of all CPU time in use over the interval, 0 to 100.")
    per_core_percent: list[float] | None = Field(
        description="The same per core in core order, when asked for; cut short, as the text then says, "
        "when the result would be too long."
    )
    cores: int = Field(description="Number of logical cores.")
    load_average: list[float] = Field(description="Runnable processes averaged over 1, 5 and 15 minutes.")
    interval_seconds: float = Field(description="How long the sample lasted.")


@mcp.tool(title="CPU usage", annotations=LOCAL_READ_ONLY)
async def system_get_cpu_usage(
    interval_seconds: Annotated[
        float, Field(ge=0.1, le=3.0, description="How long to sample, in seconds; longer is steadier.")
    ] = 0.5,
    per_core: Annotated[bool, Field(description="Also report each core's percentage.")] = False,
) -> Reply[CpuUsage]:
    """Measure how busy this computer's processors are: the share of CPU time in use across all cores
    over a short sample, the core count, and the load average (processes waiting to run over 1, 5 and
    15 minutes; above the core count means a queue).
    Use it when the user asks how loaded or busy this machine is.
    Do not use it for memory, disk, network or per-process figures."""
    # cpu_percent blocks for the whole interval; a worker thread keeps the server answering meanwhile.
    sample = await anyio.to_thread.run_sync(lambda: psutil.cpu_percent(interval_seconds, percpu=True))
    cores = len(sample)
    percent = round(sum(sample) / cores, 1)
    load = [round(figure, 2) for figure in psutil.getloadavg()]
    summary = (
        f"CPU {percent}% busy over {interval_seconds:g} s on {cores} cores; "
        f"load average {', '.join(map(str, load))}"
    )

    def first_cores(shown: int) -> Reply[CpuUsage]:
        figures = sample[:shown] if per_core else None
        text = summary + (
            "\nper core: " + ", ".join(f"{figure}%" for figure in sample[:shown]) if per_core else ""
        )
        usage = CpuUsage(
            percent=percent,
            per_core_percent=figures,
            cores=cores,
            load_average=load,
            interval_seconds=interval_seconds,
        )
        return Reply(text, usage)

    # On a machine with hundreds of cores the per-core list can outgrow the result's bound.
    whole = first_cores(cores)
    return TrimmableReply(
        whole.text,
        whole.data,
        Trim(cores, "per-core figures", first_cores, "the totals above cover every core"),
    )


class Sum(BaseModel):
    sum: str = Field(description="The exact sum as decimal text, so no digit is lost to floating point.")
    count: int = Field(description="How many numbers were added.")


# Up to 100 numbers of MAX_DIGITS digits sum to at most 2 * MAX_DIGITS + 4 characters, so a sum
# always fits the smallest result bound (200 characters) whole: there is never a sum to cut.
MAX_DIGITS = 80
# [0-9], not \d: JSON Schema's \d is ASCII only, Python's also takes Arabic-Indic and fullwidth digits.
DecimalText = Annotated[str, Field(max_length=MAX_DIGITS, pattern=r"^[+-]?[0-9]+(\.[0-9]+)?$")]
FiniteNumber = Annotated[float, Field(allow_inf_nan=False)]


@mcp.tool(
    title="Add numbers exactly",
    annotations=LOCAL_READ_ONLY,
    formats={"numbers": 'a decimal number written as text, such as "12.50"'},
)
def math_add_numbers(
    numbers: Annotated[
        list[int | FiniteNumber | DecimalText],
        Field(
            min_length=2,
            max_length=100,
            description="Write a decimal with over 15 significant digits as text, e.g. "
            '"12345678901234567890.25", so no digit is lost.',
        ),
    ],
) -> Reply[Sum]:
    """Add numbers exactly: integers and decimals of up to 80 digits, without floating-point error
    (0.1 + 0.2 gives 0.3).
    Use it for long numbers, long lists, or amounts where an arithmetic slip matters.
    Do not use it for a trivial sum you can do reliably yourself, or other operations.
    Returns the sum as decimal text."""
    decimals = [to_decimal(number) for number in numbers]
    for index, value in enumerate(decimals):
        digits = len(decimal_text(value.copy_abs()).replace(".", ""))
        if digits > MAX_DIGITS:
            raise ToolFailure(
                f"numbers[{index}] has {digits} digits written out; each number may have at most {MAX_DIGITS}.",
                "Round it and call again, or answer without this tool if every digit matters.",
            )
    with localcontext() as exact:
        # Enough precision for any such sum, and a trap in case any addition would ever round.
        exact.prec, exact.Emax, exact.Emin = 999_999_999, 999_999_999, -999_999_999
        exact.traps[Inexact] = True
        total = sum(decimals, Decimal(0))
        text = decimal_text(total)
    return Reply(text, Sum(sum=text, count=len(numbers)))


# --- plumbing -----------------------------------------------------------------------------------


def to_decimal(number: int | float | str) -> Decimal:
    # repr gives a float's shortest round-trip spelling: 0.1 stays 0.1, not 0.1000000000000000055...
    return Decimal(repr(number)) if isinstance(number, float) else Decimal(number)


def decimal_text(value: Decimal) -> str:
    """Plain positional notation without trailing zeros: 1E+3 -> "1000", 0.30 -> "0.3"."""
    text = f"{value:f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def main() -> None:
    serve(mcp)


if __name__ == "__main__":
    main()
