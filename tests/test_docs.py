"""The README documents the whole command line: every command and every long option.

The commands and options are read from the click group itself, so a command or option added
to citekit/cli.py without a word in README.md fails here (the idea of sqlite-utils'
tests/test_docs.py).
"""

from __future__ import annotations

import re
from pathlib import Path

import click
import pytest

from citekit.cli import cli

README = Path(__file__).resolve().parent.parent / "README.md"
# Options every click command gets for free; documenting them per command says nothing.
AUTOMATIC = frozenset({"--help"})


def _commands(group: click.Group, prefix: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...],
                                                                             click.Command]]:
    """(path, command) for every command under `group`, subgroups included, sorted."""
    found: list[tuple[tuple[str, ...], click.Command]] = []
    ctx = click.Context(group)
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        if command is None or command.hidden:
            continue
        path = (*prefix, name)
        found.append((path, command))
        if isinstance(command, click.Group):
            found.extend(_commands(command, path))
    return found


def _long_options(command: click.Command) -> list[str]:
    names: list[str] = []
    for param in command.params:
        if isinstance(param, click.Option) and not param.hidden:
            names.extend(o for o in (*param.opts, *param.secondary_opts) if o.startswith("--"))
    return sorted(set(names) - AUTOMATIC)


COMMANDS = _commands(cli)
OPTIONS = sorted({(path, option) for path, command in [((), cli), *COMMANDS]
                  for option in _long_options(command)})  # fmt: skip


@pytest.fixture(scope="module")
def readme() -> str:
    return README.read_text(encoding="utf-8")


def test_the_cli_has_commands_to_document():
    assert COMMANDS, "citekit.cli.cli has no commands"
    assert ("convert",) in [path for path, _ in COMMANDS]


@pytest.mark.parametrize("path", [p for p, _ in COMMANDS], ids=" ".join)
def test_command_is_in_readme(path: tuple[str, ...], readme: str):
    usage = " ".join(("citekit", *path))
    assert re.search(rf"(?<![\w-]){re.escape(usage)}(?![\w-])", readme), \
        f"README.md never shows `{usage}`"


@pytest.mark.parametrize(("path", "option"), OPTIONS,
                         ids=[" ".join((*p, o)) for p, o in OPTIONS])  # fmt: skip
def test_option_is_in_readme(path: tuple[str, ...], option: str, readme: str):
    assert re.search(rf"(?<![\w-]){re.escape(option)}(?![\w-])", readme), \
        f"README.md never mentions {option} (an option of `citekit {' '.join(path)}`)"
