"""Escape from Atlantis (1986 edition), a ruleset of its own built on the 30th-anniversary rules.

:class:`~pbem.rules.atlantis1986.game.Atlantis1986Game` subclasses
:class:`~pbem.rules.atlantis.game.AtlantisGame` and overrides only the rule
steps that differ, one mixin per part of the summary: ``island`` (the rings,
setting up the tribes, sinking, tile bottoms), ``sea`` (dolphin rides, boats
meeting creatures), ``spinner`` (the Atlantean Swirler and the sea creatures)
and ``view`` (texts for players).
"""
