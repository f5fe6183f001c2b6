"""docs/tools.md: every published tool with its cost, and a check that fails when the page is stale."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from instruments import tooldocs
from instruments.tokens import definition_tokens


async def test_page_shows_each_tool_as_the_model_reads_it() -> None:
    page = await tooldocs.render()
    packages = tooldocs.packages()
    assert {"basics", "convert", "weather"} <= set(packages)
    for package in packages:
        instructions, tools = await tooldocs.published(package)
        assert f"- Instructions: {instructions}\n" in page
        for tool in tools:
            assert f"\n### {tool.name}\n" in page
            assert f"- Definition: {definition_tokens(tool)}\n" in page
            assert f"```text\n{tool.description}\n```" in page
            assert json.dumps(tool.input_schema, indent=2, ensure_ascii=False) in page


def test_check_fails_on_a_stale_page_and_passes_once_rewritten(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    page = tmp_path / "tools.md"
    page.write_text("# Tools\n\nan old description\n")
    monkeypatch.setattr(tooldocs, "PAGE", page)
    with pytest.raises(SystemExit) as stale:
        tooldocs.main(["--check"])
    assert stale.value.code == (
        "docs/tools.md differs from what the servers publish: run `make docs` and commit it."
    )
    assert "-an old description" in capsys.readouterr().err
    tooldocs.main([])
    tooldocs.main(["--check"])
