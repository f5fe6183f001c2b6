"""Which place a city argument means, or why it cannot be told.

The geocoding API matches only the name, so "Springfield, IL, USA" is searched as "Springfield"
and each qualifier after a comma is matched here against a result's region, district, country or
country code, as people write them: ISO 3166 codes (2 and 3 letters) and country names in the
common languages, ISO 3166-2 subdivisions by code or name ("MD", "NSW", "ON", "Bayern"), a short
list of informal names no standard holds ("UK", "UAE"), whatever the case, dots or accents.
Among what remains, a place that clearly dominates (ten times the population of the next) is used
and named; otherwise the model gets the candidates as exact strings to pass back.
"""

from __future__ import annotations

import functools
import gettext
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from servers.surface import ToolFailure
from servers.weather.openmeteo import GeoResult

DOMINANCE = 10  # Paris, France (2.1 M) over Paris, Texas (25 k); not Springfield MO over IL.
MAX_CANDIDATES = 5
MAX_LABEL_CHARS = 64  # five candidates and a 100-character city stay a short error

# Country names people write that ISO 3166 does not carry (checked against pycountry 26.2):
# each maps to its ISO 3166-1 alpha-2 code.
INFORMAL_COUNTRY_NAMES = {
    "uk": "GB",
    "great britain": "GB",
    "britain": "GB",
    "uae": "AE",
    "emirates": "AE",
    "america": "US",
    "holland": "NL",
    "russia": "RU",
    "turkey": "TR",
    "ivory coast": "CI",
    "vatican": "VA",
    "cape verde": "CV",
    "burma": "MM",
    "east timor": "TL",
    "macedonia": "MK",
    "swaziland": "SZ",
    "brunei": "BN",
    "palestine": "PS",
}

# Languages whose country names are understood (pycountry's translations): the languages Open-Meteo's
# geocoder is most asked in, and those of the most populous countries. Subdivision names have fewer
# translations worth the start-up time: their English names ("Bavaria") and a few exonyms.
# fmt: off
COUNTRY_LANGUAGES = (
    "de", "fr", "es", "it", "pt", "pt_BR", "nl", "da", "sv", "nb_NO", "fi", "pl", "cs", "sk", "hu", "ro",
    "bg", "el", "ru", "uk", "tr", "ar", "he", "fa", "hi", "ja", "ko", "zh_CN", "zh_TW", "id", "vi", "th",
)
# fmt: on
SUBDIVISION_LANGUAGES = ("en", "de", "fr", "es", "it", "pt", "nl", "ru")
PUNCTUATION = re.compile(r"[.'\u2019]")  # dots and apostrophes, straight or curly


@dataclass(frozen=True)
class Query:
    """A city argument split once: "Paris, Texas, US" -> name "Paris", qualifiers ("Texas", "US")."""

    city: str
    name: str
    qualifiers: tuple[str, ...]

    @classmethod
    def parse(cls, city: str) -> Query:
        name, *qualifiers = (part.strip() for part in city.split(","))
        return cls(city, " ".join(name.split()), tuple(qualifier for qualifier in qualifiers if qualifier))


@dataclass(frozen=True)
class ChosenPlace:
    place: GeoResult
    note: str | None  # says which place was used when others matched too


def choose(query: Query, results: list[GeoResult]) -> ChosenPlace:
    if not results:
        raise ToolFailure(
            f'No place named "{query.name}" was found.',
            "Check the spelling or try the nearest larger town; put any region or country after a comma, "
            'e.g. "Paris, Texas".',
        )
    ranked = sorted(results, key=population, reverse=True)
    matching = [place for place in ranked if all(matches(place, q) for q in query.qualifiers)]
    if not matching:
        # The qualifier may be right and the search incomplete: list what exists, claim nothing more.
        raise ToolFailure(
            f'Of the places Open-Meteo knows as "{query.name}", none matched "{", ".join(query.qualifiers)}".',
            f"Those places: {listing(ranked)}. Pass one of these exactly as city, or ask the user.",
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
        f'"{query.city}" matches {len(matching)} places and none is clearly meant.',
        f"Ask the user which one, or pass one of these exactly as city: {listing(matching)}.",
    )


def population(place: GeoResult) -> int:
    return place.population or 0


def matches(place: GeoResult, qualifier: str) -> bool:
    """The qualifier names the place's region, district or country, in any spelling we know."""
    wanted = normalized(qualifier)
    own = {
        normalized(field)
        for field in (place.admin1, place.admin2, place.country, place.country_code)
        if field
    }
    if wanted in own:
        return True  # most calls end here, before any ISO data is loaded
    country = (place.country_code or "").upper()
    if country in country_codes(wanted):
        return True
    regions = {normalized(field) for field in (place.admin1, place.admin2) if field}
    return any(code == country and names & regions for code, names in subdivisions(wanted))


def normalized(text: str) -> str:
    """ "U.S.A." -> "usa", "Île-de-France" -> "ile de france", "St. Gallen" -> "st gallen"."""
    letters = text.casefold()
    if not letters.isascii():
        letters = "".join(
            char for char in unicodedata.normalize("NFKD", letters) if not unicodedata.combining(char)
        )
    return " ".join(PUNCTUATION.sub("", letters).replace("-", " ").split())


def country_codes(wanted: str) -> frozenset[str]:
    return country_index().get(wanted, frozenset())


def subdivisions(wanted: str) -> frozenset[tuple[str, frozenset[str]]]:
    return subdivision_index().get(wanted, frozenset())


# --- the ISO index, built on first need: pycountry takes longer to load than the server to start --


@functools.cache
def country_index() -> dict[str, frozenset[str]]:
    """Every spelling of a country -> its ISO 3166-1 alpha-2 codes."""
    import pycountry

    index: dict[str, set[str]] = {}

    def add(spelling: str | None, code: str) -> None:
        if spelling:
            index.setdefault(normalized(spelling), set()).add(code)

    translations = [
        gettext.translation("iso3166-1", pycountry.LOCALES_DIR, languages=[lang], fallback=True)
        for lang in COUNTRY_LANGUAGES
    ]
    for country in pycountry.countries:
        names = [getattr(country, field, None) for field in ("name", "official_name", "common_name")]
        for spelling in [country.alpha_2, country.alpha_3, *names]:
            add(spelling, country.alpha_2)
        for translation in translations:
            for name in names:
                if name:
                    add(translation.gettext(name), country.alpha_2)
    for spelling, code in INFORMAL_COUNTRY_NAMES.items():
        add(spelling, code)
    return {key: frozenset(codes) for key, codes in index.items()}


@functools.cache
def subdivision_index() -> dict[str, frozenset[tuple[str, frozenset[str]]]]:
    """ "md", "maryland" -> {("US", {"maryland"})}; "bayern" -> {("DE", {"bayern", "bavaria", ...})}."""
    import pycountry

    translations = [
        gettext.translation("iso3166-2", pycountry.LOCALES_DIR, languages=[lang], fallback=True)
        for lang in SUBDIVISION_LANGUAGES
    ]
    index: dict[str, set[tuple[str, frozenset[str]]]] = {}
    for subdivision in pycountry.subdivisions:
        if subdivision.parent_code:  # a region's parts: Open-Meteo's admin1 and admin2 are the top levels
            continue
        name = subdivision.name.split(" [")[0]  # "Caerphilly [Caerffili GB-CAF]"
        names = frozenset(normalized(spelling) for spelling in spellings(name, translations))
        entry = (subdivision.country_code, names)
        for key in {*names, normalized(subdivision.code.split("-", 1)[1])}:
            index.setdefault(key, set()).add(entry)
    return {key: frozenset(entries) for key, entries in index.items()}


def spellings(name: str, translations: Iterable[gettext.NullTranslations]) -> set[str]:
    return {name, *(translation.gettext(name) for translation in translations)}


def iso_index_loaded() -> bool:
    return country_index.cache_info().currsize > 0 and subdivision_index.cache_info().currsize > 0


def load_iso_index() -> None:
    """Build both ISO indexes now: about a fifth of a second, better spent off the event loop."""
    country_index()
    subdivision_index()


# --- what the model reads ----------------------------------------------------------------------


def labels(places: list[GeoResult]) -> list[str]:
    """ "Name, Region, CC" for each place; with the district too where that alone repeats."""
    short = [comma_separated(place.name, place.admin1, place.country_code) for place in places]
    repeated = Counter(short)  # counted once: a count per place made this quadratic
    return [
        comma_separated(place.name, place.admin2, place.admin1, place.country_code)
        if repeated[label] > 1
        else label
        for place, label in zip(places, short, strict=True)
    ]


def listing(places: list[GeoResult]) -> str:
    return "; ".join(f'"{label}"' for label in labels(places[:MAX_CANDIDATES]))


def comma_separated(*parts: str | None) -> str:
    text = ", ".join(part for part in parts if part)
    return text if len(text) <= MAX_LABEL_CHARS else text[: MAX_LABEL_CHARS - 1] + "…"
