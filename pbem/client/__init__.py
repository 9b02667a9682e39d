"""The player's own program (``pbem play``): the games a player takes part in, fetched and checked
against the moderator's key, their secrets opened with their key, and a page on 127.0.0.1 whose
choices come live from the same rules engine the moderator runs; Send signs the move and hands it
to the game's transport.

A layer of its own between the transports (which it uses to fetch and send) and the command line.
``config`` (which games, which key), ``fetch`` (bring in and check what is new), ``session`` (the
player's turn on their own view), ``send`` (sign and hand over), ``server`` (the local page).
"""
