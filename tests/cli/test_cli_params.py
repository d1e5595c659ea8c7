"""Plain command-line values skip Typer's pydantic adapters; anything else still goes through
Typer's own converter, so errors read exactly as before."""

from __future__ import annotations

from pathlib import Path

from typer.models import OptionInfo

from sagelaunch.cli_params import _NOT_PLAIN, _convert, _unwrap
from sagelaunch.output import OutputFormat


def test_plain_values_convert_as_typer_would():
    info = OptionInfo()
    assert _convert(str, info, "x", None) == "x"
    assert _convert(Path, info, "a/b.yaml", None) == Path("a/b.yaml")
    assert _convert(list[Path], info, ("a", "b"), None) == [Path("a"), Path("b")]
    assert _convert(_unwrap(list[str] | None), info, ("k=v",), None) == ["k=v"]
    assert _convert(OutputFormat, info, "json", None) is OutputFormat.json
    assert _convert(OutputFormat, info, OutputFormat.table, None) is OutputFormat.table
    assert _convert(bool, info, True, None) is True


def test_anything_else_is_left_to_typer():
    info = OptionInfo()
    assert _convert(OutputFormat, info, "JSON", None) is _NOT_PLAIN  # Typer says why
    assert _convert(int, info, "3", None) is _NOT_PLAIN  # numbers may carry bounds
    assert _convert(Path, OptionInfo(exists=True), "a", None) is _NOT_PLAIN
    assert _convert(str, OptionInfo(parser=str.upper), "a", None) is _NOT_PLAIN
    assert _convert(list[str], info, "not-a-list", None) is _NOT_PLAIN


def test_typer_still_reports_bad_values(cli):
    bad_choice = cli("validate", "launch_configs", "-o", "xml")
    message = " ".join(bad_choice.output.replace("│", " ").split())  # unwrapped from Rich's box
    assert bad_choice.exit_code == 2 and "'xml' is not one of 'table', 'json'" in message
    out_of_range = cli("recommend", "--params", "7B", "--instance-count", "0")
    assert out_of_range.exit_code == 2 and "--instance-count" in out_of_range.output
