"""The game engine: the game interface and its records, seeded randomness, applying actions, the registry."""
