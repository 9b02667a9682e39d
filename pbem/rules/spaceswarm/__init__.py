"""Space Swarm (Warpspawn Games): a card-driven hex wargame for 2-6 players.

One module per part of the rule text (shared/rules/space-swarm.txt):
``hexmap`` (the board), ``mapgen`` (the map generator and hand-made maps),
``setup`` (set-up and the mulligan), ``bid`` (the Round Bid), ``development``,
``production``, ``movement``, ``attack``, ``research``, ``events`` (event cards,
technology used as events, reaction windows and standing orders), ``victory``,
``flow`` (the turn sequence), ``view`` (positions and views), ``picture`` (the
board picture and digest sections), ``describe`` (event lines) and ``bot``
(the greedy bot's preferences).  :class:`~pbem.rules.spaceswarm.game.SpaceSwarmGame`
wires them to :class:`pbem.game.Game`.
"""
