"""Base-game challenges #1-#4 and the 5-6 player mini-expansion with challenge #5, as options of the base game.

A mixin of :class:`~pbem.rules.atlantis.game.AtlantisGame`: it declares its
options in ``OPTIONS`` and overrides only the rule steps that differ.
"""
from __future__ import annotations

from pbem.game import OptionSpec


class ChallengeRules:
    OPTIONS: tuple[OptionSpec, ...] = ()
