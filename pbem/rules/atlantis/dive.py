"""Dolphins \& Dive Dice (challenge #6), as options of the base game.

A mixin of :class:`~pbem.rules.atlantis.game.AtlantisGame`: it declares its
options in ``OPTIONS`` and overrides only the rule steps that differ.
"""
from __future__ import annotations

from pbem.game import OptionSpec


class DiveRules:
    OPTIONS: tuple[OptionSpec, ...] = ()
