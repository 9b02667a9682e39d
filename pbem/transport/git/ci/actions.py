"""The GitHub Actions the generated CI workflow uses, pinned by full commit SHA (the one place).

A tag such as ``v7`` can be moved by whoever controls the action's repository;
a commit SHA cannot.  The workflow writes ``uses: OWNER/NAME@SHA # TAG`` so a
reader (and Dependabot) still sees the release.

How to update a pin (docs/git.md, "Updating the CI moderator"):

1. Find the newest release tag and the commit it points at, e.g. in a clone::

       git clone --bare https://github.com/actions/checkout && cd checkout.git
       git tag --sort=-v:refname | head -3          # v7.0.1
       git rev-parse 'v7.0.1^{commit}'              # 3d3c42e5...

   (``git ls-remote --tags https://github.com/actions/checkout`` shows the same;
   for an annotated tag use the line ending in ``^{}``).
2. Read the release notes for changed inputs (the workflow uses
   ``fetch-depth``, ``ref``, ``persist-credentials`` and ``python-version``).
3. Change the SHA and the tag below, then run ``pbem git init GAME_DIR --ci
   github --force`` for each game to rewrite its workflow, and commit.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class PinnedAction:
    repo: str      # owner/name
    sha: str       # the full commit the tag pointed at when pinned
    tag: str       # the release, for readers (written as a comment)

    def uses(self) -> str:
        """The value of a step's ``uses:`` with the tag as a YAML comment."""
        return f"{self.repo}@{self.sha} # {self.tag}"


CHECKOUT = PinnedAction("actions/checkout", "3d3c42e5aac5ba805825da76410c181273ba90b1", "v7.0.1")
SETUP_PYTHON = PinnedAction("actions/setup-python", "5fda3b95a4ea91299a34e894583c3862153e4b97", "v7.0.0")

PINNED_ACTIONS = (CHECKOUT, SETUP_PYTHON)
