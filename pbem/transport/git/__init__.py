"""A shared git repository: the git command line, incoming moves, the moderator's sync, set-up."""
