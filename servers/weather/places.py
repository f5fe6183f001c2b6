"""Which place a city argument means, or why it cannot be told.

The geocoding API matches only the name, so "Springfield, Illinois, US" is searched as "Springfield"
and the qualifiers after the commas are matched here against each result's region and country.
Among what remains, a place that clearly dominates (ten times the population of the next) is used
and named; otherwise the model gets the candidates as exact strings to pass back.
"""

from __future__ import annotations

from dataclasses import dataclass

from servers.surface import ToolFailure
from servers.weather.openmeteo import GeoResult

DOMINANCE = 10  # Paris, France (2.1 M) over Paris, Texas (25 k); not Springfield MO over IL.
MAX_CANDIDATES = 5


@dataclass(frozen=True)
class ChosenPlace:
    place: GeoResult
    note: str | None  # says which place was used when others matched too


def split_query(city: str) -> tuple[str, list[str]]:
    """ "Paris, Texas, US" -> ("Paris", ["Texas", "US"])."""
    name, *qualifiers = (part.strip() for part in city.split(","))
    return name, [qualifier for qualifier in qualifiers if qualifier]


def choose(city: str, results: list[GeoResult]) -> ChosenPlace:
    name, qualifiers = split_query(city)
    if not results:
        raise ToolFailure(
            f'No place named "{name}" was found.',
            "Check the spelling or try the nearest larger town; put any region or country after a comma, "
            'e.g. "Paris, Texas".',
        )
    ranked = sorted(results, key=population, reverse=True)
    matching = [place for place in ranked if all(matches(place, qualifier) for qualifier in qualifiers)]
    if not matching:
        raise ToolFailure(
            f'No place named "{name}" is in {", ".join(qualifiers)}.',
            f"Places with that name: {listing(ranked)}. Pass one of these exactly as city.",
        )
    if len(matching) == 1:
        return ChosenPlace(matching[0], None)
    top, runner_up = matching[:2]
    names = labels(matching)
    if len(set(names)) == 1:  # no city string could tell them apart, so asking back would loop
        return ChosenPlace(top, f"Used the largest of {len(matching)} places called {names[0]}.")
    if population(top) > 0 and population(top) >= DOMINANCE * population(runner_up):
        note = (
            f"Used {names[0]}, the largest of {len(matching)} places that match; "
            f'for another, pass e.g. "{names[1]}" as city.'
        )
        return ChosenPlace(top, note)
    raise ToolFailure(
        f'"{city}" matches {len(matching)} places and none is clearly meant.',
        f"Ask the user which one, or pass one of these exactly as city: {listing(matching)}.",
    )


def population(place: GeoResult) -> int:
    return place.population or 0


def matches(place: GeoResult, qualifier: str) -> bool:
    wanted = qualifier.casefold()
    fields = (place.admin1, place.admin2, place.country, place.country_code)
    return any(field is not None and field.casefold() == wanted for field in fields)


def labels(places: list[GeoResult]) -> list[str]:
    """ "Name, Region, CC" for each place; with the district too where that alone repeats."""
    short = [comma_separated(place.name, place.admin1, place.country_code) for place in places]
    return [
        comma_separated(place.name, place.admin2, place.admin1, place.country_code)
        if short.count(label) > 1
        else label
        for place, label in zip(places, short, strict=True)
    ]


def listing(places: list[GeoResult]) -> str:
    return "; ".join(f'"{label}"' for label in labels(places)[:MAX_CANDIDATES])


def comma_separated(*parts: str | None) -> str:
    return ", ".join(part for part in parts if part)
