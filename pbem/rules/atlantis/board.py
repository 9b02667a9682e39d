"""The Atlantis board is the Survive core's board (:mod:`pbem.rules.survive.board`); re-exported."""
from pbem.rules.survive.board import Board, axial_of, label_of, offset_of, offset_neighbours  # noqa: F401
