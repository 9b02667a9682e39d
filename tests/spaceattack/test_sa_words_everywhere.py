"""Every message a Space Attack game produces speaks the rule book: no Atlantis words (explorer,
swimmer, boat, island, sea creature...) and no broken article ("an Crew token"), in event lines,
prompts, refusals, option texts, section titles, secrets keys and move templates, over many
random games (the words come from the game's vocabulary: no message is rewritten)."""
from __future__ import annotations

import json
import re
from typing import Any, Iterator, Mapping

import pytest

from pbem.core.registry import load_game
from pbem.core.rng import Rng
from pbem.game import IllegalAction

ATLANTIS_WORDS = re.compile(r"\b(explorers?|swimm\w*|swim|swum|boats?|islands?|sea creatures?|sea spaces?|"
                            r"safe isles?|terrain|whirlpools?|volcano|serpents?|sharks?|whales?)\b", re.I)
# "an" before a consonant sound, "a" before a vowel (allowing "a one", "a unit", "an hour")
BROKEN_ARTICLE = re.compile(r"\b(an\s+(?!hour|honest)[b-df-hj-np-tv-z]\w*|a\s+(?!one|uni|use|eu)[aeiou]\w*)\b", re.I)


def problems(text: str) -> list[str]:
    return [m.group(0) for m in ATLANTIS_WORDS.finditer(text)] + [m.group(0) for m in BROKEN_ARTICLE.finditer(text)]


def keys_of(value: Any) -> Iterator[str]:
    if isinstance(value, Mapping):
        for k, v in value.items():
            yield str(k)
            yield from keys_of(v)
    elif isinstance(value, list):
        for v in value:
            yield from keys_of(v)


def wrong(action: Mapping[str, Any], labels: list[str], handles: list[str], rng: Rng) -> dict[str, Any]:
    """A near miss of a legal action: one field changed to another space or piece."""
    out = dict(action)
    if rng.randbelow(4, "extra") == 0:         # a flag where it does not belong, or a piece's move
        out.update(({"drift": True}, {"move": handles[0], "to": labels[0]},
                    {"place": handles[-1], "on": labels[-1]})[rng.randbelow(3, "which")])
        return out
    key = sorted(out)[rng.randbelow(len(out), "key")]
    value = out[key]
    if isinstance(value, str) and value in labels:
        out[key] = labels[rng.randbelow(len(labels), "label")]
    else:
        out[key] = handles[rng.randbelow(len(handles), "handle")]
    return out


OPTION_SETS = [{}, {"overpopulated": "yes"}, {"end": "to-the-last"}, {"reactions": "ask"},
               {"memory": "open", "blue_tiles": "any"}, {"evolve_attack": "fighters-only", "enclosed": "station"}]


@pytest.mark.parametrize("game_no", range(12))
def test_a_random_space_attack_game_never_speaks_atlantis(game_no: int) -> None:
    game = load_game("space-attack")
    found: dict[str, set[str]] = {}
    refusals: set[str] = set()

    def read(where: str, text: str) -> None:
        for p in problems(text):
            found.setdefault(p.lower(), set()).add(f"{where}: {text[:160]}")

    for spec in game.option_specs():
        read("option", spec.help)
    n = 2 + game_no % 5
    players = ["red", "blue", "green", "yellow", "orange", "white"][:n]
    rng = Rng(b"sa-words-%d" % game_no, "game")
    state = game.setup(players, OPTION_SETS[game_no % len(OPTION_SETS)], rng)
    for step in range(400):
        decisions = game.pending(state)
        if not decisions:
            break
        decision = decisions[0]
        read("prompt", decision.prompt)
        view = game.view(state, decision.player)
        if step % 7 == 0:
            for section in game.sections(view):
                read("section", section.title)
                read("section", " ".join(section.columns))
            read("template", game.move_template(view, decision.player))
            read("summary", "\n".join(game.summary(view)))
            for key in keys_of(game.secrets(state, decision.player)):
                read("secrets key", key.replace("_", " "))
        legal = game.legal_actions(state, decision.player)
        if not legal:
            break
        if step % 2 == 0:
            labels = list(game.rules(state).board.labels)
            handles = sorted({*state.explorers, *state.boats, *state.creatures})
            for _ in range(4):
                try:
                    attempt = wrong(legal[rng.randbelow(len(legal), "pick")], labels, handles, rng)
                    game.apply(game.copy_state(state), decision.player, attempt, rng)
                except IllegalAction as exc:
                    read("refusal", str(exc))
                    refusals.add(str(exc))
        action = legal[rng.randbelow(len(legal), "action")]
        for ev in game.apply(state, decision.player, action, rng):
            read("event", game.describe_event(ev.public))
            for private in ev.private.values():
                read("private event", game.describe_event(private))
    assert len(refusals) >= 20, f"too few refusals read to judge them: {sorted(refusals)}"
    assert not found, "Atlantis words in Space Attack:\n" + json.dumps(
        {k: sorted(v)[:3] for k, v in sorted(found.items())}, indent=1)
