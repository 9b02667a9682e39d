"""The CI workflow pbem 0.1.0 wrote (no tests here): started by a push to GAME_DIR/incoming/**, running the
pushed commit's workflow file and ``.pbem/``, with the moderator key in a repository secret.  Kept as
``ci_legacy/github-push-template.yml`` (that version's template) for the control test of the simulated
GitHub and for the tests that `pbem git init` recognises and replaces it."""
from __future__ import annotations

import json
from pathlib import Path

from pbem.transport.git.ci.actions import CHECKOUT, SETUP_PYTHON
from pbem.transport.git.ci.lock import PYTHON_VERSION, RUNNER
from pbem.transport.git.setup import REQUIREMENTS

TEMPLATE = Path(__file__).parent / "ci_legacy" / "github-push-template.yml"


def legacy_workflow_text(game_rel: str, game_id: str, secret: str, branch: str = "main") -> str:
    """The workflow pbem 0.1.0's `pbem git init --ci github` wrote for a game (vendored pbem, no deadlines)."""
    install = ("      - name: Install pbem from this repository (.pbem/, every file pinned by its sha256)\n"
               "        run: |\n"
               f"          python -m pip install --require-hashes --no-deps --only-binary=:all: -r {REQUIREMENTS}\n"
               "          python -m pip check\n")
    values = {"@@GAME_DIR_TEXT@@": game_rel or "the repository root", "@@GAME_ID@@": game_id,
              "@@PBEM_VERSION@@": "0.1.0", "@@NAME@@": json.dumps(f"pbem moderator: {game_rel or game_id}"),
              "@@BRANCH@@": json.dumps(branch),
              "@@INCOMING_GLOB@@": json.dumps(f"{game_rel}/incoming/**" if game_rel else "incoming/**"),
              "@@SCHEDULE@@": "", "@@CONCURRENCY@@": json.dumps(f"pbem-{branch}-{game_rel or game_id}"),
              "@@GAME_DIR@@": json.dumps(game_rel or "."), "@@SPEC_ENV@@": "", "@@RUNNER@@": RUNNER,
              "@@CHECKOUT@@": CHECKOUT.uses(), "@@SETUP_PYTHON@@": SETUP_PYTHON.uses(),
              "@@PYTHON_VERSION@@": PYTHON_VERSION, "@@INSTALL_STEP@@": install, "@@SECRET@@": secret,
              "@@KEY_FILE@@": f"{game_rel}/moderator/moderator_ed25519" if game_rel else "moderator/moderator_ed25519",
              "@@SYNC_FLAGS@@": ""}
    text = TEMPLATE.read_text(encoding="utf-8")
    for token, value in values.items():
        text = text.replace(token, value)
    assert "@@" not in text
    return text
