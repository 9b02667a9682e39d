"""The GitHub CI moderator: pinned actions, the pbem wheel and its hashed requirements, other workflows."""
