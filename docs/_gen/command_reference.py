"""The command reference page, generated from the Typer app's click commands at build time."""

from __future__ import annotations

from typing import Any

from tables import cell, code

# Typer vendors its own click: the objects are used through their public methods, by duck typing.


def _group() -> Any:
    import typer

    from sagelaunch.app import app

    return typer.main.get_command(app)


def _option_row(param: Any) -> str:
    names = ", ".join(code(n) for n in [*param.opts, *param.secondary_opts])
    kind = "argument" if param.param_type_name == "argument" else "option"
    help_text = getattr(param, "help", None) or ""
    default = getattr(param.default, "value", param.default)
    default = None if callable(default) else default
    shown = code(str(default)) if default not in (None, False, (), "") else ""
    return f"| {cell(names)} | {kind} | {cell(shown)} | {cell(help_text)} |"


def _section(name: str, command: Any, ctx: Any, level: str = "##") -> list[str]:
    """One command's section; a group's (`capacity`) is followed by one per subcommand."""
    sub = command.context_class(command, info_name=name, parent=ctx)
    usage = " ".join(command.collect_usage_pieces(sub))
    lines = [f"{level} `{name}`", "", (command.help or "").strip(), "", "```text"]
    lines += [f"sagelaunch {name} {usage}".rstrip(), "```", ""]
    params = [p for p in command.params if not getattr(p, "hidden", False)]
    if params:
        lines += ["| name | kind | default | help |", "|---|---|---|---|"]
        lines += [_option_row(p) for p in params]
        lines.append("")
    for sub_name, subcommand in getattr(command, "commands", {}).items():
        if not subcommand.hidden:
            lines += _section(f"{name} {sub_name}", subcommand, ctx, "###")
    return lines


def markdown() -> str:
    group = _group()
    ctx = group.context_class(group, info_name="sagelaunch")
    lines: list[Any] = [
        "# Command reference",
        "",
        "Generated from the CLI itself when the site is built; `sagelaunch COMMAND --help` prints",
        "the same. [Commands at a glance](../guide/commands.md) has the one-line summary of each.",
        "",
    ]
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        if command is not None and not command.hidden:
            lines += _section(name, command, ctx)
    return "\n".join(lines)
