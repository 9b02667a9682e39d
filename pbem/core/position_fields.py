"""Checking the fields of a position file, for every game's position check.

Each helper checks one value read from the file and returns it with its type known, or
raises :class:`~pbem.core.records.PositionError` naming the field (``boats.B3.at``) and what is
wrong with it in one line, showing values from the file only as short escaped excerpts.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping, NoReturn, Sequence

from pbem.core.records import OPTION_REFUSALS, PositionError

if TYPE_CHECKING:
    from pbem.core.game import Game

__all__ = ["show", "type_name", "fail", "expect_mapping", "expect_keys", "expect_list", "expect_text",
           "expect_choice", "expect_int", "expect_flag", "expect_null", "expect_player_names",
           "expect_option_values"]


def show(value: Any) -> str:
    """A short, escaped excerpt of a value from the file, for an error line."""
    text = repr(value)
    return text if len(text) <= 40 else text[:36] + "...'"


def type_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true/false"
    return {dict: "a mapping", list: "a list", str: "text", int: "a number", float: "a number"}.get(
        type(value), type(value).__name__)


def fail(field: str, problem: str) -> NoReturn:
    raise PositionError(field, problem)


def expect_mapping(value: Any, field: str, what: str = "a mapping") -> dict[str, Any]:
    if not isinstance(value, dict):
        fail(field, f"must be {what}, not {type_name(value)}")
    for key in value:
        if not isinstance(key, str):
            fail(field, f"keys must be text, not {show(key)}")
    return value


def expect_keys(record: Mapping[str, Any], field: str, required: Sequence[str], optional: Sequence[str] = ()) -> None:
    """``record`` has every ``required`` key and nothing beyond ``required`` + ``optional``."""
    for key in record:
        if key not in required and key not in optional:
            fail(f"{field}.{key}" if field else key,
                 f"is not a key here (keys: {', '.join(sorted([*required, *optional]))})")
    for key in required:
        if key not in record:
            fail(f"{field}.{key}" if field else key, "is missing")


def expect_list(value: Any, field: str) -> list[Any]:
    if not isinstance(value, list):
        fail(field, f"must be a list, not {type_name(value)}")
    return value


def expect_text(value: Any, field: str) -> str:
    if not isinstance(value, str) or not value:
        fail(field, f"must be text, not {show(value) if isinstance(value, str) else type_name(value)}")
    return value


def expect_choice(value: Any, field: str, choices: Sequence[str], what: str = "") -> str:
    if not isinstance(value, str) or value not in choices:
        fail(field, f"{show(value)} is not {what or 'allowed'} ({'one of ' if len(choices) > 1 else ''}"
                    f"{', '.join(choices) if choices else 'none here'})")
    return value


def expect_int(value: Any, field: str, low: int, high: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < low or (high is not None and value > high):
        allowed = f"a whole number from {low} to {high}" if high is not None else f"a whole number, at least {low}"
        fail(field, f"{show(value)} is not {allowed}")
    return value


def expect_flag(value: Any, field: str) -> bool:
    if not isinstance(value, bool):
        fail(field, f"{show(value)} is not true or false")
    return value


def expect_null(value: Any, field: str, why: str) -> None:
    if value is not None:
        fail(field, f"must be null {why}, not {show(value)}")


def expect_player_names(value: Any, game: "Game[Any]", keys: Sequence[str]) -> list[str]:
    """``players``: a list of records with exactly ``keys`` (``name`` among them), each name once,
    as many players as ``game`` takes.  Returns the names in seat order."""
    records = expect_list(value, "players")
    names: list[str] = []
    for i, record in enumerate(records):
        record = expect_mapping(record, f"players[{i}]")
        expect_keys(record, f"players[{i}]", keys)
        name = expect_text(record["name"], f"players[{i}].name")
        if name in names:
            fail(f"players[{i}].name", f"{show(name)} is already a player: each player once")
        names.append(name)
    if not game.min_players <= len(names) <= game.max_players:
        fail("players", f"{game.title} takes {game.min_players}-{game.max_players} players, not {len(names)}")
    return names


def expect_option_values(value: Any, game: "Game[Any]", players: Sequence[str]) -> dict[str, str]:
    """``options``: each one an option of ``game`` with one of its values (a number in YAML is its
    text, e.g. ``decks: 2``); returns them with the defaults filled in, checked for ``players``."""
    given = expect_mapping(value, "options")
    specs = {s.name: s for s in game.option_specs()}
    options: dict[str, str] = {}
    for name, v in given.items():
        if name not in specs:
            fail(f"options.{name}", f"is not an option of {game.name} (options: {', '.join(sorted(specs))})")
        if isinstance(v, int) and not isinstance(v, bool):
            v = str(v)
        if specs[name].choices:
            options[name] = expect_choice(v, f"options.{name}", specs[name].choices, "a value of this option")
        else:
            options[name] = expect_text(v, f"options.{name}")
    full = game.full_options(options)
    try:
        game.check_options(full, players)
    except OPTION_REFUSALS as exc:
        fail("options", str(exc))
    return full
