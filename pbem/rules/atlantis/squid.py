"""The Giant Squid mini-expansion and its variants 1 and 2, as options of the base game.

A mixin of :class:`~pbem.rules.atlantis.game.AtlantisGame`: it declares its
options in ``OPTIONS`` and overrides only the rule steps that differ.
"""
from __future__ import annotations

from pbem.game import OptionSpec


class SquidRules:
    OPTIONS: tuple[OptionSpec, ...] = ()
