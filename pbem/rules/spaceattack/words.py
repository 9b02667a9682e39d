"""What Space Attack says: its records in positions and views, its log lines, prompts, summary,
move template and the greedy bot's hints, all in the rule book's words (station tiles, crew,
drifters, escape pods, fighters, Jump Points and stargates, Queens, Spawns and Warriors).

The core's own messages (refusals, position errors) are made from the game's vocabulary
(:mod:`pbem.rules.spaceattack.vocabulary`): nothing rewrites them.
"""
from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

from pbem.core.choices import Chain, Pairs

from pbem.game import BoardPicture, BoardPlaces, NeedsSecret, Piece, Section, best_scored
from pbem.rules.survive.state import ISLAND, ISLE, LOST, OVER, SETUP_PLACE, STEP_BOARDERS, STEP_CREATURE, STEP_DEFENSE
from pbem.rules.survive.state import STEP_MOVE, STEP_REMOVE, Tile, sort_handles
from pbem.rules.survive.movement import MoveChoices
from pbem.rules.survive.view import SETUP_PHASES
from pbem.rules.spaceattack import picture as drawing
from pbem.rules.spaceattack.state import SpaceAttackState, Steal
from pbem.rules.spaceattack.tiles import TilePlays
from pbem.rules.spaceattack.turn import STEP_BLUE, STEP_DEPLOY, STEP_STEAL, TurnRules, deployment

def back_words(back: str) -> str:
    """A tile back as a reader writes it: ``core_breach`` -> ``core breach``."""
    return back.replace("_", " ")


HOW = {"walk": "walks", "board": "boards", "transfer": "changes ship", "isle": "reaches a Jump Point",
       "swim": "drifts", "jump": "jumps into open space", "tile": "by a tile"}

SAVE, BOARD, STAY, CAPTURE = 100.0, 3.0, -0.5, 2.0


class Words(TurnRules):
    # --- positions and views: Space Attack's records ----------------------------------------------
    def extra_view(self, state: SpaceAttackState) -> dict[str, Any]:
        steal = state.steal
        return {**super().extra_view(state),
                "captured": {p: list(state.captured.get(p, [])) for p in state.players},
                "flown": list(state.flown),
                "steal": None if steal is None else {"creatures": list(steal.creatures), "capturer": steal.capturer,
                                                     "queue": list(steal.queue)},
                "resume": state.resume, "blue_played": state.blue_played, "extra": state.extra}

    def read_extra(self, state: SpaceAttackState, pos: Mapping[str, Any]) -> None:
        super().read_extra(state, pos)
        captured = pos.get("captured") or {}
        state.captured = {p: sort_handles(captured.get(p) or []) for p in state.players}
        state.flown = list(pos.get("flown") or [])
        steal = pos.get("steal")
        state.steal = None if steal is None else Steal(list(steal["creatures"]), str(steal["capturer"]),
                                                       list(steal["queue"]))
        state.resume = str(pos.get("resume") or "")
        state.blue_played = int(pos.get("blue_played") or 0)
        state.extra = int(pos.get("extra") or 0)

    def cell_colours(self) -> dict[str, str]:
        return dict(drawing.KIND_COLOURS)

    def picture(self, view: Mapping[str, Any]) -> BoardPicture:
        return drawing.picture(self, view)

    def picture_piece(self, view: Mapping[str, Any], handle: str) -> Piece | None:
        return drawing.piece(self, view, handle)

    def picture_places(self, view: Mapping[str, Any]) -> BoardPlaces:
        return drawing.places(self, view)

    def sections(self, view: Mapping[str, Any]) -> list[Section]:
        return drawing.sections(self, view)

    # --- the log, line by line ---------------------------------------------------------------
    EVENT_LINES: dict[str, str] = {
        "place": "{player} places crew {explorer} on {at}",
        "boat": "{player} places escape pod {boat} at {at}",
        "turn": "turn {turn}: {player}",
        "skip": "{player} skips step {step}: {reason}",
        "deploy": "{player} releases captured {kind} {creature} at {to}",
        "deploy-done": "{player} keeps their other captured creatures",
        "no-play": "{player} plays no blue tile",
        "play": "{player} plays {tile} ({back})",
        "move": "{player} moves crew {explorer} {from} -> {to} ({how})",
        "sail": "{player} moves ship {boat} {from} -> {to}",
        "fly": "{player} flies fighter {ship} {from} -> {to}",
        "fire": "{player} fires the laser turret on {turret} ({from}) at {at}",
        "capture": "{player} captures {creatures} at {at} ({how})",
        "steal": "{player} plays {tile} ({back}) and steals {creatures} from {from}",
        "no-steal": "{player} does not steal",
        "swap": "{player} exchanges crew {crew} ({places})",
        "evolve": "{player} evolves {kind} {creature} at {at} into {new_kind} {into}",
        "done": "{player} ends movement after {used} point(s)",
        "remove": "{player} removes {terrain} tile {tile} at {at}{fell}",
        "reveal": "{tile} is revealed: {back}",
        "to-hand": "{player} takes {tile} into hand{secret}",
        "appear": "{piece} comes into play at {at}",
        "board": "{explorers} board ship {boat}",
        "supply-empty": "no {kind} left in the supply: nothing is placed",
        "lost": "crew {explorers} lost at {at} ({cause})",
        "ship-lost": "ship {boat} lost at {at} ({cause}){swim}",
        "creatures-lost": "{creatures} destroyed at {at} ({cause})",
        "roll": "{player} rolls {face}",
        "no-creature": "no {kind} on the board: nothing happens",
        "creature": "{player} moves {kind} {creature} {from} -> {to}",
        "defend": "{player} plays {tile} ({back}): {creature} attacking {at} is sent to {to}",
        "no-defense": "{player} does not defend",
        "attack": "{creature} attacks at {at}, threatening {threatened}",
        "standing": "{player} updates standing orders{orders}",
        "core-breach": "{tile} at {at} is the Core Breach: it acts as a black hole",
        "game-over": "game over ({reason}): scores {scores}; winners {winners}",
    }

    def describe(self, ev: Mapping[str, Any]) -> str:
        kind = ev.get("event")
        lines = self.event_lines()
        if kind not in lines:
            return ", ".join(f"{k}={v}" for k, v in ev.items())
        fields = {k: (", ".join(str(x) for x in v) if isinstance(v, list) else v) for k, v in ev.items()}
        fields.setdefault("player", "")
        for key in ("cause", "reason"):               # logged in the core's words, read in Space Attack's
            if isinstance(fields.get(key), str):
                fields[key] = self.shown(fields[key])
        drifting = f"; {fields['swimmers']} now drifting" if ev.get("swimmers") else ""
        fields["fell"] = fields["swim"] = drifting
        if isinstance(ev.get("back"), str):
            fields["back"] = back_words(ev["back"])
        fields["secret"] = f" ({fields['back']})" if ev.get("back") else ""
        fields["orders"] = f": {ev['orders']}" if ev.get("orders") else ""
        if isinstance(ev.get("terrain"), str):
            fields["terrain"] = drawing.kind_words(ev["terrain"])
        if kind == "move":
            fields["how"] = HOW.get(str(ev.get("how")), ev.get("how"))
        if kind == "creature" and ev.get("creature") is None:
            return f"{ev.get('player')} does not move a {ev.get('kind')}"
        if kind == "creature" and ev.get("how") == "tile":
            return "{player} teleports {kind} {creature} {from} -> {to} (tile)".format(**fields)
        if kind in ("sail", "fly") and ev.get("how") == "tile":
            return (lines[str(kind)] + " (tile)").format(**fields)
        try:
            line = lines[str(kind)].format(**fields)
        except KeyError:
            return ", ".join(f"{k}={v}" for k, v in ev.items())
        if kind == "game-over" and ev.get("tiebreak"):
            parts = "; ".join(f"{name} {numbers}" for name, numbers in ev["tiebreak"].items())
            line += f" (tie broken by: {parts})"
        return line

    # --- prompts --------------------------------------------------------------------------------
    def model_prompts(self, state: SpaceAttackState) -> dict[str, str]:
        """The page's words for each decision (crew tokens, escape pods and fighters, station tiles)."""
        return {
            **super().model_prompts(state),
            "setup-place": "place one of your crew tokens on an empty station tile",
            "setup-boat": "place an escape pod on an open space next to the station",
            STEP_DEPLOY: "step 1: release a captured creature onto an empty space, or none",
            STEP_MOVE: ("step 2: move your crew, escape pods and fighters, fire a laser turret or play a red tile, "
                        "or end the movement step"),
            STEP_REMOVE: "step 3: remove a station tile",
            STEP_BLUE: "step 4: play a blue tile, or none",
            STEP_CREATURE: "step 4: move a creature the die shows, or none",
            STEP_BOARDERS: "choose the crew who board the escape pod",
            STEP_DEFENSE: "a creature attacks: play a defence tile, or none",
            STEP_STEAL: "steal the creatures just captured with one of your tiles, or none",
        }

    def game_prompt(self, state: SpaceAttackState, kind: str) -> str:
        if kind == "setup-place":
            return "place a crew token on an empty station tile: {place: r7, on: G5}"
        if kind == "setup-boat":
            return ("place an escape pod on an open space next to the station, with no Queen and no other pod: "
                    "{pod: P1, at: F2}")
        if kind == STEP_DEPLOY:
            return "step 1: release a captured creature onto an empty space ({deploy: Q6, to: F4}) or {deploy: none}"
        if kind == STEP_MOVE:
            left = self.movement_points(state) - state.turn.moves
            return (f"step 2: {left} movement point(s) left: {{move: r7, to: G5}}, {{move: P3, to: F4}}, "
                    "{move: X2, to: F9} (fighter), {fire: T37, at: F9} (turret), a red tile {play: T12, ...}, "
                    "or {done: move}")
        if kind == STEP_REMOVE:
            spots = [self.label(state.tiles[h].cell) for h in self.removable_tiles(state)]
            return f"step 3: remove a station tile, one of {', '.join(spots)}: {{remove: {spots[0]}}}"
        if kind == STEP_BOARDERS:
            b = state.open_boarding()
            n = self.capacity(state, b.boat)
            return (f"choose {n} of the crew at {self.label(b.cell)} to board {b.boat}: "
                    f"{{board: [{', '.join(sort_handles(state.swimmers(b.cell))[:n])}]}}")
        if kind == STEP_BLUE:
            return (f"step 4: the die shows {state.turn.die}: play a blue tile ({{play: T12, ...}}), "
                    "or {play: none}, or go on with your creature order")
        if kind == STEP_CREATURE:
            return f"step 4: the die shows {state.turn.die}: {{creature: HANDLE, to: SPACE}} or {{creature: none}}"
        if kind == STEP_DEFENSE:
            r = state.open_reaction()
            return (f"{r.creature} attacks at {self.label(r.cell)}: play a defence tile {{defend: TILE, to: SPACE}} "
                    "or {defend: none}")
        if kind == STEP_STEAL:
            s = state.open_steal()
            return (f"{s.capturer} captured {', '.join(s.creatures)}: steal them with {{steal: TILE}} "
                    "or {steal: none}")
        return ""

    def why_not_removable(self, state: SpaceAttackState, tile: Tile) -> str:
        left = {t.terrain for t in state.tiles.values() if t.where == ISLAND}
        first = next(t for t in self.terrains if t in left)
        if tile.terrain != first:
            return (f"{self.label(tile.cell)} is a {drawing.kind_words(tile.terrain)} tile: all "
                    f"{drawing.kind_words(first)} tiles go first (Cargo Bay, Habitat, Bridge, then Reactor)")
        return f"{self.label(tile.cell)} is not next to an open space"

    # --- the summary --------------------------------------------------------------------------------
    def tiles_left(self, state: SpaceAttackState) -> str:
        left = {t: 0 for t in self.terrains}
        for t in state.tiles.values():
            if t.where == ISLAND:
                left[t.terrain] += 1
        return ", ".join(f"{drawing.kind_words(k)} {v}" for k, v in left.items())

    def summary_lines(self, view: Mapping[str, Any]) -> list[str]:
        state = self.read_view(view)
        lines = [self.variants_line(state) + f" Station: {self.sa.station['title']} (side {self.sa.side})."]
        if state.phase == OVER:
            lines.append("Game over.")
        elif state.phase in SETUP_PHASES:
            unplaced = sum(1 for e in state.explorers.values() if e.where == "reserve")
            pods = sum(1 for b in state.boats.values() if b.where == "reserve")
            placing = "crew" if state.phase == SETUP_PLACE else "escape pods"
            lines.append(f"Set-up (placing {placing}): {self.decider(state)} to place; "
                         f"{unplaced} crew and {pods} escape pods still to place.")
        else:
            step = state.turn.step
            extra = f", {state.turn.moves}/{self.movement_points(state)} points used" if step == STEP_MOVE else ""
            extra += f", die: {state.turn.die}" if step in (STEP_BLUE, STEP_CREATURE, STEP_DEFENSE) else ""
            lines.append(f"Turn {state.turn.number}: {state.turn.player} (step {step}{extra}); "
                         f"waiting for {self.decider(state)}.")
        lines.append(f"Station tiles left: {self.tiles_left(state)}; laser turrets: "
                     f"{', '.join(self.turrets(state)) or 'none'}.")
        crew = []
        for p in state.players:
            for colour in state.colours[p]:
                saved = sum(1 for e in state.explorers.values() if e.colour == colour and e.where == ISLE)
                lost = sum(1 for e in state.explorers.values() if e.colour == colour and e.where == LOST)
                crew.append(f"{colour} ({p}) {saved} saved, {lost} lost")
        lines.append("Crew: " + "; ".join(crew) + ".")
        captured = [f"{p} {', '.join(state.captured[p])}" for p in state.players if state.captured.get(p)]
        if captured:
            lines.append("Captured creatures: " + "; ".join(captured) + ".")
        hands = [f"{p} {len(self.hand(state, p))}" for p in state.players if self.hand(state, p)]
        if hands:
            lines.append("Tiles in hand: " + ", ".join(hands) + ".")
        return lines

    # --- the move template ----------------------------------------------------------------------------
    def standing_hint(self) -> list[str]:
        orders = ", ".join(f"{k}: auto" for k in self.standing_keys())
        return ["# any time, your standing orders for yellow tiles, SEALED so that nobody can read your hand",
                f"# from them: pbem seal GAME '{{standing: {{{orders}}}}}' and paste the line it prints here"]

    def template(self, view: Mapping[str, Any], player: str) -> str:
        state = self.read_view(view)
        who = self.decider(state)
        if state.phase == OVER:
            return "actions: []   # the game is over\n"
        if who != player:
            return "\n".join([f"actions: []   # waiting for {who} ({self.current_step(state)})",
                              *self.standing_hint()]) + "\n"
        step = self.current_step(state)
        lines = ["actions:"]

        def legal() -> list[dict[str, Any]]:
            try:
                return self.legal_actions(state, player)
            except NeedsSecret:
                return []

        def hint(items: list[str], n: int = 12) -> str:
            return ", ".join(items[:n]) + (", ..." if len(items) > n else "")

        if step == "setup-place":
            acts = legal()
            mine = sort_handles({a["place"] for a in acts})
            spots = sorted({a["on"] for a in acts}, key=lambda s: self.board.index[s])
            lines.append(f"  - {{place: {mine[0] if mine else 'r1'}, on: {spots[0] if spots else 'G5'}}}"
                         f"   # yours: {hint(mine)}; free tiles: {hint(spots)}")
        elif step == "setup-boat":
            acts = legal()
            pods = sort_handles({a["pod"] for a in acts})
            spots = sorted({a["at"] for a in acts}, key=lambda s: self.board.index[s])
            lines.append(f"  - {{pod: {pods[0] if pods else 'P1'}, at: {spots[0] if spots else 'F2'}}}"
                         f"   # open spaces next to the station: {hint(spots)}")
        elif step == STEP_BOARDERS:
            b = state.open_boarding()
            crew = sort_handles(state.swimmers(b.cell))
            n = self.capacity(state, b.boat)
            lines.append(f"  - {{board: [{', '.join(crew[:n])}]}}   # choose {n} of {', '.join(crew)}")
        elif step == STEP_DEFENSE:
            r = state.open_reaction()
            lines.append(f"  - {{defend: none}}   # or {{defend: TILE, to: SPACE}} to send {r.creature} away "
                         f"from {self.label(r.cell)}")
        elif step == STEP_STEAL:
            lines.append("  - {steal: none}   # or {steal: TILE} to take the captured creatures")
        else:
            steps = [STEP_DEPLOY, STEP_MOVE, STEP_REMOVE, STEP_BLUE, STEP_CREATURE]
            for s in steps[steps.index(step):]:
                lines.extend(self.template_step(state, player, s, s == step, legal))
        lines.extend(self.standing_hint())
        return "\n".join(lines) + "\n"

    def template_step(self, state: SpaceAttackState, player: str, step: str, now: bool,
                      legal: Callable[[], list[dict[str, Any]]]) -> list[str]:
        if step == STEP_DEPLOY:
            if not state.captured.get(player):
                return []
            return [f"  # step 1: release captured creatures ({', '.join(state.captured[player])}) onto empty "
                    "spaces, e.g. {deploy: Q6, to: F4}", "  - {deploy: none}"]
        if step == STEP_MOVE:
            left = self.movement_points(state) - state.turn.moves
            return [f"  # step 2: {left} movement point(s), one per action: {{move: r7, to: G5}} (crew),",
                    "  #   {move: P3, to: F4} (escape pod), {move: X2, to: F9} (fighter: a straight line),",
                    "  #   {fire: T37, at: F9} (the laser turret on your crew's Reactor tile);",
                    "  #   red tiles from an earlier turn at any point, e.g. {play: T12, crew: [r1, b3]}",
                    "  - {done: move}"]
        if step == STEP_REMOVE:
            spots = [self.label(state.tiles[h].cell) for h in self.removable_tiles(state)]
            return [f"  # step 3: removable now: {', '.join(spots)}", f"  - {{remove: {spots[0] if spots else 'G5'}}}"]
        if step == STEP_BLUE:
            if now:
                return [f"  # step 4: the die shows {state.turn.die}: a blue tile, e.g. "
                        "{play: T12, creature: S2, into: warrior}, or none", "  - {play: none}"]
            return ["  # step 4: after the roll you may play a blue tile; a creature order below means none"]
        if now and state.turn.die:
            options = [f"{a['creature']}->{a['to']}" for a in legal() if a.get("creature") != "none"]
            return [f"  # step 4: the die shows {state.turn.die}; e.g. {', '.join(options[:8])}",
                    "  - {creature: none}"]
        faces = list(dict.fromkeys(self.creature_die_faces()))
        return ["  # step 4: an order for each die face, e.g. spawn: {creature: S1, to: F4}",
                "  - creature:", *[f"      {face}: none" for face in faces]]

    # --- hints for the greedy bot (positions only, never hidden values) --------------------------------
    core_scores = False         # fighters' captures and deployments score their own way

    def bot_preference(self, state: SpaceAttackState, player: str, action: Mapping[str, Any]) -> float:
        if "fire" in action:
            return CAPTURE
        if "move" in action and "to" in action and self.is_fighter(str(action["move"])):
            cell = self.board.index.get(str(action["to"]))
            boat = state.boats[str(action["move"])]
            if cell is not None and boat.passengers and state.creatures_in(cell):
                return CAPTURE
        if action.get("deploy") not in (None, "none"):
            return 1.0
        return super().bot_preference(state, player, action)

    def bot_preferences(self, state: SpaceAttackState, player: str, actions: Sequence[Mapping[str, Any]]) -> list[float]:
        """:meth:`bot_preference` of each action; the movement step's moves scored from each
        piece's steps (the core's :meth:`move_scores`, a crewed fighter's flight onto creatures
        :data:`CAPTURE`) without making them."""
        kind = type(actions)     # (the exact classes first: a failed isinstance of an ABC costs a call)
        if kind is not list:       # (a list is none of these lazy sequences: not asked of it)
            if kind is TilePlays:
                return [0.0] * len(actions)         # tiles played from the hand: no move, shot or deployment
            if kind is MoveChoices:
                return self.flight_scores(state, player, actions)    # type: ignore[arg-type]
            if kind is Pairs and actions.make is deployment:         # type: ignore[attr-defined]
                return [1.0] * len(actions)         # deployments of captured creatures (bot_preference: 1)
            if kind is Pairs and self.never_scored(actions.make):    # type: ignore[attr-defined]
                return [0.0] * len(actions)         # placements, step 4's orders: no move, shot or deployment
            if isinstance(actions, Chain):
                return [s for part in actions.parts for s in self.bot_preferences(state, player, part)]
        scored = self.scored_keys          # (an action without one of these keys scores 0: pods, tiles, removals)
        return [self.bot_preference(state, player, a) if not scored.isdisjoint(a) else 0.0 for a in actions]

    def bot_favourites(self, state: SpaceAttackState, player: str, actions: Sequence[Mapping[str, Any]]) -> Sequence[int]:
        """Every action where :meth:`bot_preference` scores none of them (the set-up, step 4's orders,
        the tile removal, the blue tiles: every score 0, found without making a list of them),
        else the best scored."""
        if self.scores_none(actions):
            return range(len(actions))
        if type(actions) is Chain:
            return best_scored(self.chain_scores(state, player, actions))
        return best_scored(self.bot_preferences(state, player, actions))

    def chain_scores(self, state: SpaceAttackState, player: str, actions: Chain) -> list[float]:
        """The scores (:meth:`bot_preferences`) of the chain's parts in order, up to where the rest
        score none (:meth:`scores_none`: the hand tiles' plays after the moves and shots) while
        one scored already is above 0: :func:`best_scored` of the shorter list is the same (the
        0s it leaves out are not within 1e-9 of the best), and the tiles' plays are not scored."""
        scores: list[float] = []
        parts = actions.parts
        for k, part in enumerate(parts):
            if scores and max(scores) > 1e-9 and all(self.scores_none(rest) for rest in parts[k:]):
                break
            scores += self.bot_preferences(state, player, part)
        return scores

    def lazy_scores_none(self, actions: Sequence[Mapping[str, Any]]) -> bool | None:
        """:meth:`scores_none` of a lazy sequence: the hand tiles' plays score none (the core's
        other lazy sequences as the core says)."""
        if type(actions) is TilePlays:
            return True
        return super().lazy_scores_none(actions)

    def listed_scores_none(self, actions: Sequence[Mapping[str, Any]]) -> bool:
        """:meth:`scores_none` of actions listed: none has a key :meth:`bot_preference` scores
        (:attr:`scored_keys`)."""
        scored = self.scored_keys
        return all(scored.isdisjoint(a) for a in actions)

    #: the keys of the actions :meth:`bot_preference` scores (a shot, a move, a deployment, ``{done: move}``)
    scored_keys = frozenset({"fire", "move", "deploy", "done"})

    def flight_scores(self, state: SpaceAttackState, player: str, moves: MoveChoices) -> list[float]:
        """:meth:`bot_preference` of the movement step's moves: the core's scores, with
        :data:`CAPTURE` for a crewed fighter's flight that ends on creatures."""
        scores = self.move_scores(state, player, moves)
        steps_of, pieces, fighters, boats = moves.steps_of, moves.pieces, self.fighter_handles, state.boats
        if not any(pieces[i] in fighters and boats[pieces[i]].passengers for i in range(moves.explorers, len(pieces))):
            return scores                 # (no crewed fighter: no capture to score)
        creatures_at, counts = state.creatures_at, moves.counts()     # (the counts move_scores found)
        k = 1 + sum(counts[:moves.explorers])
        for i in range(moves.explorers, len(pieces)):
            if pieces[i] in fighters and boats[pieces[i]].passengers:
                for j, cell in enumerate(steps_of(i)):
                    if cell in creatures_at:         # (the index holds only the spaces with creatures)
                        scores[k + j] = CAPTURE
            k += counts[i]
        return scores

