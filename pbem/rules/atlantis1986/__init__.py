"""Escape from Atlantis (1986 edition), a ruleset of its own on the Survive core.

:class:`~pbem.rules.atlantis1986.game.Atlantis1986Rules` is the edition's layer on
:class:`~pbem.rules.survive.rules.SurviveRules` (it does not build on the 30th-anniversary
rules), one part per part of the summary, in one chain: ``view`` (texts for players),
``spinner`` (the Atlantean Swirler and the sea creatures), ``sea`` (dolphin rides, boats
meeting creatures), ``island`` (the rings, setting up the tribes, sinking, tile bottoms)
and ``game`` (the turn and the end).
"""
