"""`cardems --help` tells a newcomer every option, what it does and its default."""

from __future__ import annotations

import argparse

import pytest

from cli.main import parser


def subcommands() -> dict[str, argparse.ArgumentParser]:
    found = next(a for a in parser()._actions if isinstance(a, argparse._SubParsersAction))
    return dict(found.choices)


@pytest.mark.parametrize("name", ["serve", "worker", "arena"])
def test_every_option_and_argument_has_help_and_a_name(name):
    command = subcommands()[name]
    for action in command._actions:
        assert action.help, f"{name}: {action.dest} has no help"
        if not action.option_strings:
            assert action.metavar, f"{name}: the argument {action.dest} shows no name"


def test_serve_help_shows_each_default():
    text = subcommands()["serve"].format_help()
    for shown in ("(default: 8000)", "(default: 127.0.0.1)", "(default: 20/minute;200/hour)",
                  "(default: 10.0)", "(default: 200)", "(default: sqlite:///"):
        assert shown in " ".join(text.split()), shown


@pytest.mark.parametrize("bad", ["0", "-3", "two", ""])
def test_the_arena_refuses_a_first_deal_that_is_no_deal_number(bad, capsys):
    with pytest.raises(SystemExit) as stopped:
        parser().parse_args(["arena", "expert", "heuristic", "--from", bad])
    assert stopped.value.code == 2
    assert "not a whole number from 1 up" in capsys.readouterr().err


def test_the_arena_starts_from_the_deal_asked_for():
    assert parser().parse_args(["arena", "expert", "heuristic", "--from", "601"]).first_deal == 601
