"""Unit conversion on pint: one tool, `units_convert`.

A template for a tool that computes locally.
Copy servers/convert/ and servers/surface/ (and tests/servers/test_convert_contract.py) into your project.
To make your own: rename the server and its namespace, rewrite the tool's docstring (it is the
description the model reads) and its parameter descriptions, and update the contract test and
requests.jsonl to match. `make new-server NAME=...`
starts a fresh server with its tests instead (docs/templates.md).

Every unit is checked before pint evaluates it (see `parse_unit`): pint computes the numbers in a unit
expression as Python integers, so `m**9**9**8` alone would run for minutes.
"""

from __future__ import annotations

import math
import sys
import unicodedata
from functools import cache
from importlib.resources import files
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import BaseModel, Field

from servers.surface import LOCAL_READ_ONLY, Reply, ToolFailure, ToolServer, serve

if TYPE_CHECKING:
    import pint
    from pint.pint_eval import EvalTreeNode

MAX_UNIT_CHARS = 40  # also bounds a unit's factors (20) and parentheses
MAX_POWER = 9  # the largest power of any unit in an expression, |m**9|; real units stay below 5
MAX_CACHED = 20_000  # pint's cache entries for the units it has converted, ~0.6 KB each

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
    value: Annotated[float, Field(allow_inf_nan=False, description="The number to convert.")],
    from_unit: Annotated[
        str,
        Field(
            min_length=1,
            max_length=MAX_UNIT_CHARS,
            description="Unit of value, as a symbol or name: mi, kg, °C, mph, fl oz, km/h, m**2.",
        ),
    ],
    to_unit: Annotated[
        str, Field(min_length=1, max_length=MAX_UNIT_CHARS, description="Unit to convert to.")
    ],
) -> Reply[Conversion]:
    """Convert a quantity between units of length, mass, volume, area, speed, temperature, energy,
    pressure and more.
    Use it whenever a user needs an exact conversion instead of estimating one.
    Do not use it for currencies, time zones or dates.
    Returns the value and unit, e.g. "12 mi = 19.312128 km"."""
    source, target = parse_unit(from_unit, "from_unit"), parse_unit(to_unit, "to_unit")
    if source.dimensionality != target.dimensionality:
        raise ToolFailure(
            f"{from_unit} is {dimension(source)} and {to_unit} is {dimension(target)}, "
            "so one cannot be converted to the other.",
            f"Convert {from_unit} to {examples(source)}, or {to_unit} to {examples(target)}.",
        )
    try:
        converted = registry().Quantity(value, source).to(target).magnitude
    except ArithmeticError:  # an overflow on the way (Ym**9 to ym**9); inf below says so
        converted = math.inf
    if not math.isfinite(converted):
        raise ToolFailure(
            f"{value:g} {from_unit} in {to_unit} is too large to represent.", "Convert a smaller value."
        )
    # A nonzero value that comes out as zero (or a subnormal) has underflowed, unless the target is a
    # scale with its own zero (32 degF is 0 degC).
    if value and abs(converted) < sys.float_info.min and not offset_units(target):
        raise ToolFailure(
            f"{value:g} {from_unit} in {to_unit} is too small to represent.", "Convert a larger value."
        )
    # Binary conversion factors leave noise (98.6 degF -> 37.00000000000006 degC); 12 significant
    # digits is beyond any measurement's precision and keeps exact results such as 19.312128 intact.
    # On a scale with its own zero the noise is absolute, from the offset (32 degF -> 5.7e-14 degC),
    # so it is cut at 9 decimals: 12 significant digits of 273.15.
    result = float(f"{round(converted, 9) if offset_units(target) else converted:.12g}")
    forget_units_past_bound()
    return Reply(
        f"{value:.12g} {from_unit} = {result:.12g} {to_unit}", Conversion(value=result, unit=to_unit)
    )


# --- plumbing -----------------------------------------------------------------------------------

# Spellings people write that pint reads differently ("fl oz" would be femtolitre * ounce, "cu in"
# centi-atomic-mass * inch, "kmph" kilo-mph) or not at all (m2, ltr). Matched in lower case.
ALIASES = {
    "fl oz": "fluid_ounce",
    "fl. oz": "fluid_ounce",
    "floz": "fluid_ounce",
    "kmh": "km/h",
    "kmph": "km/h",  # pint: kilo-mph
    "kpl": "km/l",
    "cu in": "inch**3",
    "cu ft": "foot**3",
    "cu m": "m**3",
    "sqft": "foot**2",
    "sqm": "m**2",
    "m2": "m**2",
    "km2": "km**2",
    "cm2": "cm**2",
    "m3": "m**3",
    "cm3": "cm**3",
    "ltr": "l",
    "kgs": "kg",
    "℃": "degC",
    "℉": "degF",
}

# Units people write, in the order a suggestion offers them; pint's registry comes after these.
# fmt: off
COMMON_UNITS = [
    "m", "metre", "meter", "km", "kilometre", "kilometer", "cm", "centimetre", "centimeter", "mm", "millimetre", "millimeter", "µm", "nm",
    "mi", "mile", "miles", "ft", "foot", "feet", "in", "inch", "inches", "yd", "yard", "yards", "nmi", "nautical_mile", "light_year", "au", "angstrom",
    "kg", "kilogram", "g", "gram", "grams", "mg", "milligram", "µg", "t", "tonne", "lb", "lbs", "pound", "pounds", "oz", "ounce", "ounces", "stone", "ton", "grain", "carat",
    "l", "litre", "liter", "litres", "liters", "ml", "millilitre", "milliliter", "cl", "dl", "cc", "cup", "cups", "pint", "quart", "gallon", "gal",
    "fl oz", "fluid_ounce", "tbsp", "tablespoon", "tsp", "teaspoon", "barrel", "imperial_gallon", "imperial_pint",
    "hectare", "ha", "acre", "m**2", "km**2", "ft**2", "m**3", "m/s", "km/h", "kph", "mph", "knot", "kn", "ft/s",
    "degC", "degF", "celsius", "fahrenheit", "K", "kelvin", "degR", "rankine",
    "s", "second", "seconds", "ms", "min", "minute", "minutes", "h", "hour", "hours", "day", "days", "week", "weeks", "month", "months", "year", "years",
    "J", "joule", "kJ", "cal", "calorie", "kcal", "kWh", "Wh", "eV", "Btu", "therm",
    "Pa", "pascal", "kPa", "hPa", "MPa", "bar", "mbar", "psi", "atm", "atmosphere", "mmHg", "inHg", "torr",
    "W", "watt", "kW", "MW", "hp", "horsepower", "N", "newton", "kN", "lbf", "kgf",
    "Hz", "kHz", "MHz", "GHz", "rpm", "V", "volt", "A", "ampere", "ohm", "mol", "mole", "byte", "bit", "kB", "MB", "GB", "TB", "degree", "radian", "rad", "percent", "ppm",
]

# Names a person means as something this tool does not convert: the argument's text in lower case,
# spaces removed, then what it is and what to do instead.
FUEL = (
    "is a fuel economy, which this tool converts only written as a ratio.",
    "Write mi/gal or km/l instead; litres per 100 km is its inverse, 100 divided by km/l.",
)
CURRENCY = (
    "is a currency, and this tool has no exchange rates.",
    "Answer without this tool, or with a currency tool if you have one.",
)
UNSUPPORTED = {
    **dict.fromkeys(["mpg", "mpgus", "mpguk", "mpgimp", "l/100km", "litres/100km", "liters/100km"], FUEL),
    **dict.fromkeys([
        "usd", "eur", "gbp", "jpy", "cny", "rmb", "chf", "cad", "aud", "nzd", "hkd", "sgd", "sek", "nok", "dkk", "pln", "czk", "huf", "inr", "krw", "mxn", "brl", "ars",
        "zar", "rub", "try", "thb", "idr", "php", "aed", "sar", "ils", "egp", "ngn", "btc", "eth", "$", "€", "£", "¥", "₹", "₩", "₽",
        "dollar", "dollars", "euro", "euros", "yen", "yuan", "renminbi", "rupee", "rupees", "peso", "pesos", "franc", "francs",
        "krona", "kronor", "krone", "won", "ruble", "rubles", "bitcoin",
    ], CURRENCY),
}
# fmt: on


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

# Characters no unit is written with, which a model must not be shown back: controls (NUL), format
# characters (bidi overrides, zero-width spaces), surrogates, private use, unassigned, line separators.
INVISIBLE_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})


@cache
def registry() -> pint.UnitRegistry[Any]:
    # Imported and built on the first call, not at start-up: together ~0.2 s no host should wait for.
    import pint

    return pint.UnitRegistry()


def forget_units_past_bound() -> None:
    """pint caches what it learns of every distinct unit it converts, without bound (6,859 distinct
    units: 11 MB); past MAX_CACHED entries, start its caches over, which costs about 70 ms."""
    cache = registry()._cache
    if len(cache.dimensionality) + len(cache.conversion_factor) > MAX_CACHED:
        registry()._build_cache()


def parse_unit(text: str, argument: str) -> pint.Unit:
    """The unit `text` names, or a ToolFailure that says what is wrong and what to send instead.

    pint sees only an expression whose every number is a small power of a unit (or the 1 of 1/s), so
    its evaluation takes microseconds whatever the caller sends."""
    for position, char in enumerate(text, start=1):
        if unicodedata.category(char) in INVISIBLE_CATEGORIES:
            raise ToolFailure(
                f"{argument} has an invisible or control character (U+{ord(char):04X}) at position {position}.",
                "Send the unit as plain visible text, such as km/h.",
            )
    # A no-break or other Unicode space ("fl\u00a0oz") means what a plain one does.
    stripped = "".join(" " if unicodedata.category(char) == "Zs" else char for char in text).strip()
    if known := UNSUPPORTED.get(stripped.lower().replace(" ", "")):
        raise ToolFailure(f"{argument} {stripped!r} {known[0]}", known[1])
    spelled = ALIASES.get(stripped.lower(), stripped)
    too_large = ToolFailure(
        f"{argument} {stripped!r} is not a unit this tool converts.",
        f"A power must be a plain number from -{MAX_POWER} to {MAX_POWER} (m**2, s^-1), "
        "and any other number belongs in value.",
    )
    if not bounded(spelled):
        raise too_large
    unit = _parsed(spelled) or _parsed(spelled.lower())
    if unit is None:
        raise ToolFailure(f"{argument} {stripped!r} is not a unit I know.", suggestion(stripped))
    if any(abs(power) > MAX_POWER for power in unit._units.values()):  # m*m*m*... adds up past MAX_POWER
        raise too_large
    if (offset := offset_units(unit)) and dict(unit._units) != {offset[0]: 1}:
        symbol = registry().get_symbol(offset[0])
        raise ToolFailure(
            f"{argument} {stripped!r} multiplies, divides or raises {symbol}, a scale with its own zero.",
            f"Convert {symbol} alone, or use a difference such as delta_degC or K, as in K/s.",
        )
    return unit


def bounded(text: str) -> bool:
    """Whether pint may evaluate `text`: every power a plain number, each unit's power within
    MAX_POWER, and no other number than 1. Text pint cannot even tokenize passes: pint refuses it too."""
    from pint.pint_eval import build_eval_tree, tokenizer
    from pint.util import string_preprocessor

    for preprocess in registry().preprocessors:
        text = preprocess(text)
    try:
        tree = build_eval_tree(tokenizer(string_preprocessor(text)))
    except Exception:  # tokenize and pint's tree builder raise several types on garbage
        return True
    return _bounded(tree, 1.0)


def _bounded(node: EvalTreeNode, power: float) -> bool:
    import tokenize

    operator = node.operator.string if node.operator else None
    if node.right is not None:  # a binary operation; an implicit one ("kg m") has no operator token
        if operator == "**":
            exponent = _plain_number(node.right)
            return (
                exponent is not None
                and abs(power * exponent) <= MAX_POWER
                and _bounded(node.left, power * exponent)  # type: ignore[arg-type]
            )
        return operator in ("*", "/", None) and all(
            _bounded(side, power)  # type: ignore[arg-type]
            for side in (node.left, node.right)
        )
    if operator is not None:  # unary + or -, which only an exponent may carry
        return False
    token = node.left
    return bool(token.type != tokenize.NUMBER or _plain_number(node) == 1)  # type: ignore[union-attr]


def _plain_number(node: EvalTreeNode) -> float | None:
    """The value of a number literal, signed or not, or None for anything else."""
    import tokenize

    sign = 1.0
    if node.right is None and node.operator is not None and node.operator.string in "+-":
        sign = -1.0 if node.operator.string == "-" else 1.0
        node = node.left  # type: ignore[assignment]
    if node.right is not None or node.operator is not None or node.left.type != tokenize.NUMBER:  # type: ignore[union-attr]
        return None
    try:
        number = sign * float(node.left.string)  # type: ignore[union-attr]
    except ValueError:  # an imaginary literal such as 2j
        return None
    return number if math.isfinite(number) else None


def _parsed(text: str) -> pint.Unit | None:
    try:
        # as_delta=False keeps degC in degC*s as degC, so that offset_units can refuse it.
        unit: pint.Unit = registry().parse_units(text, as_delta=False)
        return unit
    except Exception:  # pint raises a zoo of types on garbage (tokenize, ZeroDivision, ...)
        return None


def offset_units(unit: pint.Unit) -> list[str]:
    """The units in `unit` that are scales with their own zero (degC, degF) or logarithmic (dB)."""
    definitions = registry()._units
    return [name for name in unit._units if not definitions[name].is_multiplicative]


def suggestion(text: str) -> str:
    close = closest(text, COMMON_UNITS)
    close += [name for name in closest(text, registry_units()) if name not in close]
    if close:
        return f"Did you mean {', '.join(close[:3])}?"
    return "Try a symbol or name such as km, lb, degC."


def closest(text: str, names: list[str]) -> list[str]:
    """Up to three of `names` within a typo or two of `text`, ignoring case, nearest first; ties keep
    `names`' order. Counting a swapped pair as one typo puts miles first for mlies."""
    typed = text.lower()
    allowed = 1 if len(typed) <= 4 else 2 if len(typed) <= 8 else 3
    scored = []
    for index, name in enumerate(names):
        if abs(len(name) - len(typed)) <= allowed:
            distance = typos(typed, name.lower())
            if distance <= allowed:
                scored.append((distance, index, name))
    return [name for _, _, name in sorted(scored)[:3]]


def typos(a: str, b: str) -> int:
    """Edits from a to b: a letter inserted, deleted, replaced, or two neighbours swapped."""
    before, previous = list(range(len(b) + 1)), list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        current = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] != b[j - 1]))
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                current[j] = min(current[j], before[j - 2] + 1)
        before, previous = previous, current
    return previous[-1]


@cache
def registry_units() -> list[str]:
    """Pint's units a suggestion may offer after COMMON_UNITS: those a caller can send back (pint lists
    R_∞, which it cannot parse), without physical constants (k, c, m_p), pint's internal names
    (US_liquid_gallon, a_u_time) or temperature differences (Δfahrenheit)."""
    ureg = registry()
    constants = _constant_names()
    names = []
    for name in ureg:
        if len(name) > MAX_UNIT_CHARS or name in constants or name in COMMON_UNITS or "_" in name:
            continue
        unit = _parsed(name)
        if unit is not None and not any(part.startswith("delta_") for part in unit._units):
            names.append(name)
    return names


def _constant_names() -> set[str]:
    """Every name and alias defined in pint's constants file (`speed_of_light = ... = c = c_0`)."""
    names = set()
    for line in files("pint").joinpath("constants_en.txt").read_text(encoding="utf-8").splitlines():
        name, *rest = (part.strip() for part in line.split("#")[0].split("="))
        if rest:
            names.update([name, *rest[1:]])
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
