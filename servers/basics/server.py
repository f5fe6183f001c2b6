"""The minimal two-tool server, done well: `system_get_cpu_usage` and `math_add_numbers`.

Namespaces say the domain, so a model that sees these beside fifty other tools still reads them
right: `system_` for facts about this machine, `math_` for exact arithmetic.

`math_add_numbers` takes a list, not a pair: adding a column of ten figures is one call instead of
nine sequential ones, and every sequential call costs the model another full round trip.

To make your own server from this one: rename the namespaces, rewrite each docstring (it is the
description the model reads) and each parameter description, and update
tests/test_basics_contract.py and requests.jsonl to match. Take along servers/surface/ (the rules)
and servers/surface/transport.py (stdio and HTTP). `make new-server NAME=...` starts a fresh server with its
tests instead (docs/templates.md).
"""

from __future__ import annotations

from decimal import Decimal, Inexact, localcontext
from typing import Annotated

import anyio
import psutil
from pydantic import BaseModel, Field

from servers.surface import LOCAL_READ_ONLY, Reply, ToolServer, serve

mcp = ToolServer(
    "basics",
    namespaces=["system", "math"],
    instructions="This machine's CPU usage, and exact addition of long or many numbers.",
)


class CpuUsage(BaseModel):
    percent: float = Field(description="Share of all CPU time in use over the interval, 0 to 100.")
    per_core_percent: list[float] | None = Field(description="The same per core, when asked for.")
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
    """Measure how busy this computer's processors are: the percentage of CPU time in use across all
    cores over a short sample (100% means every core fully busy), the number of cores, and the load
    average (processes waiting to run over 1, 5 and 15 minutes; above the core count means a queue).
    Use it when the user asks how loaded or busy this machine is.
    Do not use it for memory, disk, network or per-process figures: it does not measure them.
    Returns e.g. "CPU 12.5% busy over 0.5 s on 8 cores; load average 0.52, 0.40, 0.33"."""
    # cpu_percent blocks for the whole interval; a worker thread keeps the server answering meanwhile.
    sample = await anyio.to_thread.run_sync(lambda: psutil.cpu_percent(interval_seconds, percpu=True))
    cores = len(sample)
    percent = round(sum(sample) / cores, 1)
    load = [round(figure, 2) for figure in psutil.getloadavg()]
    text = (
        f"CPU {percent}% busy over {interval_seconds:g} s on {cores} cores; "
        f"load average {', '.join(map(str, load))}"
    )
    if per_core:
        text += "\nper core: " + ", ".join(f"{figure}%" for figure in sample)
    usage = CpuUsage(
        percent=percent,
        per_core_percent=sample if per_core else None,
        cores=cores,
        load_average=load,
        interval_seconds=interval_seconds,
    )
    return Reply(text, usage)


class Sum(BaseModel):
    sum: str = Field(description="The exact sum as decimal text, so no digit is lost to floating point.")
    count: int = Field(description="How many numbers were added.")


DecimalText = Annotated[str, Field(max_length=100, pattern=r"^[+-]?\d+(\.\d+)?$")]
FiniteNumber = Annotated[float, Field(allow_inf_nan=False)]


@mcp.tool(title="Add numbers exactly", annotations=LOCAL_READ_ONLY)
def math_add_numbers(
    numbers: Annotated[
        list[int | FiniteNumber | DecimalText],
        Field(
            min_length=2,
            max_length=100,
            description="2 to 100 numbers to add. Write decimals with over 15 significant digits as "
            'strings, e.g. "12345678901234567890.25", so no digit is lost.',
        ),
    ],
) -> Reply[Sum]:
    """Add numbers exactly: integers of any size, and decimals without floating-point error
    (0.1 + 0.2 gives 0.3, not 0.30000000000000004).
    Use it for long numbers, long lists, or amounts where a slip in mental arithmetic matters.
    Do not use it for a trivial sum you can do reliably yourself, or for other operations.
    Returns the exact sum as decimal text, e.g. "0.3"."""
    with localcontext() as exact:
        # Unlimited precision, and a trap in case any addition would ever round.
        exact.prec, exact.Emax, exact.Emin = 999_999_999, 999_999_999, -999_999_999
        exact.traps[Inexact] = True
        total = sum((to_decimal(number) for number in numbers), Decimal(0))
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
