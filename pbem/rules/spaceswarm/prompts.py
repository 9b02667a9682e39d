"""The one-line prompt of each decision (``Decision.prompt``), shared by the engine and the
page's turn model (which fills in the same blanks: :mod:`pbem.rules.spaceswarm.turnmodel`)."""
from __future__ import annotations

from pbem.rules.spaceswarm.attributes import production
from pbem.rules.spaceswarm.bid import free_places
from pbem.rules.spaceswarm.events import event_phase_allows
from pbem.rules.spaceswarm.state import BID, RESEARCH, SwarmState

PROMPTS = {
    "develop": "Development Phase: place a Technology card {develop: C17} or {develop: none}",
    "discard": "over the hand limit (2 + Strategic): discard {discard: [C17]}",
    "produce": "Production Phase: {n} new fleet(s) on your stacks: {produce: C4} or {produce: {C4: 1, D5: 1}}",
    "move": "Move Phase: {move: C4, path: [D4, E5]} ... then {done: move}",
    "attack": "Attack Phase: {attack: all} (targets: {D4: green} where several enemies share a space)",
    "react": "play cards as events before {what}: {react: [C17]} or {react: none}",
    "slot": "Round Bid: pick your place in the turn order: {slot: N}, N one of {free}",
}
#: what the blanks are filled with
RESEARCH_DEVELOP = ("Development Phase", "Research Phase (then you draw)")
REACT_WHAT = {"bid": "the Round Bid", "battles": "the battles"}
#: added to the prompts of the phase where Technology is placed (unless event_phase=any)
NO_EVENTS = "; Event cards are played in the other phases"


def prompt(state: SwarmState, player: str, kind: str) -> str:
    text = PROMPTS[kind]
    if kind in ("develop", "discard") and not event_phase_allows(state):
        text += NO_EVENTS
    if kind == "develop" and state.phase == RESEARCH:
        return text.replace(*RESEARCH_DEVELOP)
    if kind == "produce":
        return text.replace("{n}", str(production(state, player)))
    if kind == "react":
        return text.replace("{what}", REACT_WHAT["bid"] if state.phase == BID else REACT_WHAT["battles"])
    if kind == "slot":
        return text.replace("{free}", ", ".join(map(str, free_places(state))))
    return text
