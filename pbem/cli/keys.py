"""`pbem keygen`, `sign`, `seal`, `decrypt`: keys, signatures and sealed orders."""
from __future__ import annotations

import sys
from pathlib import Path

import click

from pbem.base.errors import PbemError
from pbem.cli.common import GAME_DIR


@click.command()
@click.option("--out", "out", required=True, type=click.Path(path_type=Path), help="private key path; NAME.pub is written too")
@click.option("--comment", default="", help="comment for the public key")
def keygen(out: Path, comment: str) -> None:
    """Create an ed25519 SSH key pair (OpenSSH format, usable by ssh-keygen and age).

    \b
    Example:  pbem keygen --out keys/alice
    """
    from pbem.crypto.keys import generate_keypair
    pub = generate_keypair(out, comment or out.name)
    click.echo(f"wrote {out} (private, keep it) and {out}.pub (send this to the moderator)")
    click.echo(pub)


@click.command()
@click.argument("file", type=click.Path(path_type=Path))
@click.option("--key", required=True, type=click.Path(path_type=Path), help="your ed25519 private key")
def sign(file: Path, key: Path) -> None:
    """Sign a move file: writes FILE.sig, exactly what
    `ssh-keygen -Y sign -n pbem-move -f KEY FILE` writes.

    \b
    Example:  pbem sign move.yaml --key ~/.ssh/id_ed25519
    """
    from pbem.base.fsutil import write_atomic
    from pbem.crypto import keys, sshsig
    signature = sshsig.sign(keys.load_private_key(key), file.read_bytes(), sshsig.MOVE_NAMESPACE)
    write_atomic(file.with_name(file.name + ".sig"), signature)
    click.echo(f"wrote {file}.sig")


@click.command()
@GAME_DIR
@click.argument("action")
def seal(game_dir: Path, action: str) -> None:
    """Seal an action so that only the moderator can read it until the game ends
    (for orders that would give away what you hold, such as standing orders).
    Prints a line to paste under `actions:` in your move file.

    \b
    Example:  pbem seal game1 '{standing: {shark_defense: never}}'
    """
    from pbem.base import yamlio
    from pbem.core.sealed import seal_action
    from pbem.store.gamedir import GameDir
    parsed = yamlio.load_strict(action, "the action")
    if not isinstance(parsed, dict) or not parsed:
        raise PbemError("the action must be a YAML mapping, e.g. '{standing: {shark_defense: never}}'")
    moderator_key = GameDir(game_dir).entries()[0]["moderator"]["key"]
    sealed = seal_action(parsed, moderator_key)
    click.echo("  - " + yamlio.dump_flow(sealed))


@click.command()
@click.argument("file", type=click.Path(path_type=Path))
@click.option("--key", required=True, type=click.Path(path_type=Path), help="your ed25519 private key")
def decrypt(file: Path, key: Path) -> None:
    """Decrypt your secrets (same as `age -d -i KEY FILE`, and `| gunzip` for the HTML page).

    `red.age` is your own digest as text; `red.html.gz.age` the same as an HTML
    page with your private board (save it and open it in a browser).

    \b
    Example:  pbem decrypt game1/secrets/red.age --key ~/.ssh/id_ed25519
              pbem decrypt game1/secrets/red.html.gz.age --key ~/.ssh/id_ed25519 > red.html
    """
    from pbem.crypto.agecrypt import decrypt as age_decrypt
    from pbem.views.outputs import opened_bytes
    sys.stdout.write(opened_bytes(age_decrypt(file.read_bytes(), key)).decode("utf-8"))


#: the commands this module adds to `pbem`
COMMANDS = [keygen, sign, seal, decrypt]
