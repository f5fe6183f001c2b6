"""Unit conversion on pint: one tool, `units_convert`.

A template for a tool that computes locally. To make your own: rename the server and its namespace,
rewrite the tool's docstring (it is the description the model reads) and its parameter descriptions,
and update tests/test_convert_contract.py and requests.jsonl to match. Take along servers/surface/
(the rules every tool here follows) and servers/surface/transport.py (stdio and HTTP). `make new-server
NAME=...` starts a fresh server with its tests instead (docs/templates.md).
"""

from __future__ import annotations

import math
from difflib import get_close_matches
from functools import cache
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import BaseModel, Field

from servers.surface import LOCAL_READ_ONLY, Reply, ToolFailure, ToolServer, serve

if TYPE_CHECKING:
    import pint

MAX_UNIT_CHARS = 40  # the longest unit either argument takes, and so the longest we may suggest

mcp = ToolServer(
    "convert",
    namespaces=["units"],
    instructions="Exact unit conversions: length, mass, volume, speed, temperature and more.",
)


class Conversion(BaseModel):
    value: float = Field(description="The converted value.")
    unit: str = Field(description="The unit of value, as the caller spelled it.")


@mcp.tool(title="Convert units", annotations=LOCAL_READ_ONLY)
def units_convert(
    value: Annotated[float, Field(allow_inf_nan=False, description="The number to convert, e.g. 12.")],
    from_unit: Annotated[
        str,
        Field(
            min_length=1,
            max_length=MAX_UNIT_CHARS,
            description="Unit of value, as a symbol or name: mi, km, kg, lb, degF, °C, km/h, mph, cup, fl oz.",
        ),
    ],
    to_unit: Annotated[
        str,
        Field(
            min_length=1, max_length=MAX_UNIT_CHARS, description="Unit to convert to, written like from_unit."
        ),
    ],
) -> Reply[Conversion]:
    """Convert a quantity between units of length, mass, volume, area, speed, temperature, time, energy,
    pressure or power, e.g. 12 mi to km, 98.6 degF to degC, 1 cup to ml, km/h to m/s.
    Use it whenever a user needs an exact conversion instead of estimating one.
    Do not use it for currencies, time zones or dates: it has no exchange rates or clocks.
    Returns the converted value and unit, e.g. "12 mi = 19.312128 km"."""
    source, target = parse_unit(from_unit, "from_unit"), parse_unit(to_unit, "to_unit")
    if source.dimensionality != target.dimensionality:
        raise ToolFailure(
            f"{from_unit} is {dimension(source)} and {to_unit} is {dimension(target)}, "
            "so one cannot be converted to the other.",
            f"Convert {from_unit} to {examples(source)}, or {to_unit} to {examples(target)}.",
        )
    try:
        converted = registry().Quantity(value, source).to(target).magnitude
    except ArithmeticError:  # an overflow on the way (km**1000 to mi**1000); inf below says so
        converted = math.inf
    if not math.isfinite(converted):
        raise ToolFailure(
            f"{value:g} {from_unit} in {to_unit} is too large to represent.", "Convert a smaller value."
        )
    # Binary conversion factors leave noise (98.6 degF -> 37.00000000000006 degC); 12 significant
    # digits is beyond any measurement's precision and keeps exact results such as 19.312128 intact.
    result = float(f"{converted:.12g}")
    return Reply(
        f"{value:.12g} {from_unit} = {result:.12g} {to_unit}", Conversion(value=result, unit=to_unit)
    )


# --- plumbing -----------------------------------------------------------------------------------

# Spellings people write that pint reads differently ("fl oz" would be femtolitre * ounce).
ALIASES = {"fl oz": "fluid_ounce", "fl. oz": "fluid_ounce", "floz": "fluid_ounce", "kmh": "km/h"}

# Plain names for the dimensions people convert, with units a caller could convert to instead.
DIMENSIONS = {
    "m": ("a length", "m, km, mi, ft"),
    "kg": ("a mass", "kg, g, lb, oz"),
    "l": ("a volume", "l, ml, cup, fl oz, gal"),
    "m**2": ("an area", "m**2, km**2, acre, hectare"),
    "m/s": ("a speed", "m/s, km/h, mph, knot"),
    "K": ("a temperature", "degC, degF, K"),
    "s": ("a time", "s, min, h, day"),
    "J": ("an energy", "J, kJ, kcal, kWh"),
    "Pa": ("a pressure", "Pa, kPa, bar, psi"),
    "W": ("a power", "W, kW, hp"),
    "N": ("a force", "N, kN, lbf"),
}


@cache
def registry() -> pint.UnitRegistry[Any]:
    # Imported and built on the first call, not at start-up: together ~0.2 s no host should wait for.
    import pint

    return pint.UnitRegistry()


def parse_unit(text: str, argument: str) -> pint.Unit:
    ureg = registry()
    spelled = ALIASES.get(text.strip().lower(), text.strip())
    for candidate in (spelled, spelled.lower()):
        try:
            unit: pint.Unit = ureg.parse_units(candidate)
            return unit
        except Exception:  # pint raises a zoo of types on garbage (tokenize, ZeroDivision, ...)
            continue
    close = get_close_matches(text.strip(), suggestable_units(), n=3, cutoff=0.6)
    suggestion = (
        f"Did you mean {', '.join(close)}?" if close else "Try a symbol or name such as km, lb, degC."
    )
    raise ToolFailure(f"{argument} {text[:40]!r} is not a unit I know.", suggestion)


@cache
def suggestable_units() -> list[str]:
    """Names a suggestion may offer: our aliases and every unit pint lists that a caller can send and
    pint's own parser reads back (it lists R_∞, which it cannot). Not dir(registry): that also holds
    its methods."""
    ureg = registry()
    names = list(ALIASES)
    for name in ureg:
        if len(name) > MAX_UNIT_CHARS:
            continue
        try:
            ureg.parse_units(name)
        except Exception:  # the same zoo as in parse_unit
            continue
        names.append(name)
    return names


def dimension(unit: pint.Unit) -> str:
    return next((name for name, _ in _known(unit)), f"a quantity of dimension {unit.dimensionality}")


def examples(unit: pint.Unit) -> str:
    return next((f"{name} such as {units}" for name, units in _known(unit)), "a unit of the same dimension")


def _known(unit: pint.Unit) -> list[tuple[str, str]]:
    ureg = registry()
    return [info for ref, info in DIMENSIONS.items() if ureg.get_dimensionality(ref) == unit.dimensionality]


def main() -> None:
    serve(mcp)


if __name__ == "__main__":
    main()
