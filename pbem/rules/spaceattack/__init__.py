"""Survive: Space Attack! on the Survive-family core (docs/games/space-attack.md)."""
