"""The selection proxy and the set-level checks: TF-IDF by hand, request files, near-duplicates, collisions."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from mcp_types import Tool

from instruments.audit.selection import Request, RequestFileError, check_tools_exist, read_requests, select
from instruments.audit.setchecks import name_collisions, near_duplicates, tool_count
from instruments.audit.tfidf import TfIdf, words

REPO = Path(__file__).resolve().parents[3]


def tool(name: str, description: str) -> Tool:
    return Tool(name=name, description=description, input_schema={"type": "object"})


FORECAST = tool("weather_get_forecast", "Daily weather forecast: rain, snow, temperature and wind.")
CONVERT = tool("units_convert", "Convert a quantity between units of length, mass and temperature.")
DAILY = tool("weather_get_daily", "Daily weather forecast: rain, snow, temperature and wind, per day.")


def test_words_drop_function_words_figures_and_single_letters() -> None:
    assert words("What's the forecast for 12 km in Oslo?") == ["forecast", "km", "oslo"]


def test_tfidf_matches_the_documented_formula() -> None:
    proxy = TfIdf(["rain snow", "rain wind"])
    # rain is in both documents: idf = ln(3/3) + 1 = 1; snow in one: ln(3/2) + 1.
    snow = math.log(3 / 2) + 1
    assert proxy.idf == pytest.approx({"rain": 1.0, "snow": snow, "wind": snow})
    expected = 1.0 / math.sqrt(1 + snow**2)  # the query "rain" against the unit vector of "rain snow"
    assert proxy.scores("rain") == pytest.approx([expected, expected])
    assert proxy.scores("hail") == [0.0, 0.0]


def test_selection_reports_accuracy_near_ties_and_the_threshold_table() -> None:
    requests = [
        Request("Will there be rain or snow tomorrow?", "weather_get_forecast"),
        Request("How many km is 12 miles, a length?", "units_convert"),
        Request("Write a poem", None),
        Request("Convert this temperature to a poem", None),
    ]
    result = select([FORECAST, CONVERT], requests)
    assert (result.requests_needing_a_tool, result.requests_needing_none) == (2, 2)
    assert result.top1_correct == 2
    assert result.near_ties == 0
    lowest, highest = result.cutoffs[0], result.cutoffs[-1]
    assert (lowest.needed_calls_skipped, lowest.needless_calls_made) == (0, 1)
    assert highest.needed_calls_skipped >= lowest.needed_calls_skipped
    assert highest.needless_calls_made <= lowest.needless_calls_made


def test_two_tools_that_read_alike_make_near_ties() -> None:
    result = select([FORECAST, DAILY], [Request("Will rain or snow come tomorrow?", "weather_get_forecast")])
    assert result.near_ties == 1


def test_near_duplicates_are_named_with_their_cosine() -> None:
    found = near_duplicates([("weather", FORECAST), ("weather", DAILY), ("convert", CONVERT)])
    assert found.status == "fail"
    assert found.evidence.startswith("cosine ≥ 0.5: weather_get_forecast and weather_get_daily (0.")
    distinct = near_duplicates([("weather", FORECAST), ("convert", CONVERT)])
    assert distinct.status == "pass"
    assert "closest pair weather_get_forecast and units_convert" in distinct.evidence


def test_a_name_offered_by_two_servers_collides() -> None:
    clash = name_collisions([("a", [CONVERT]), ("b", [tool("Units_Convert", "Other.")])])
    assert clash.status == "fail"
    assert clash.evidence == "units_convert (a, b)"
    assert name_collisions([("a", [CONVERT]), ("b", [FORECAST])]).status == "pass"
    assert name_collisions([("a", [CONVERT])]).status == "n/a"


def test_more_than_twenty_tools_fails_the_count() -> None:
    assert tool_count(20).status == "pass"
    assert tool_count(21).status == "fail"


def test_a_bad_request_line_is_named_by_number(tmp_path: Path) -> None:
    path = tmp_path / "requests.jsonl"
    path.write_text('{"text": "fine", "tool": null}\n\n{"text": 3}\n')
    with pytest.raises(RequestFileError, match=r"line 3: expected"):
        read_requests(path)


def test_a_request_for_a_tool_no_server_offers_is_refused() -> None:
    with pytest.raises(RequestFileError, match="weather_get_forecast, which no audited server offers"):
        check_tools_exist([Request("rain?", "weather_get_forecast")], [CONVERT])


@pytest.mark.parametrize(
    ("server", "tools"),
    [
        ("convert", {"units_convert"}),
        ("basics", {"system_get_cpu_usage", "math_add_numbers"}),
        ("weather", {"weather_get_forecast"}),
    ],
)
def test_each_shipped_request_file_covers_its_tools_and_requests_needing_none(
    server: str, tools: set[str]
) -> None:
    requests = read_requests(REPO / "servers" / server / "requests.jsonl")
    assert 10 <= len(requests) <= 20
    assert {r.tool for r in requests} == {*tools, None}
