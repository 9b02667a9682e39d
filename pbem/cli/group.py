"""The `pbem` command line: the top-level group, made of the command modules.

Each command module (one family of commands) lists what it adds in ``COMMANDS``; the group
(:class:`pbem.cli.boundary.PbemGroup`) is the one place where errors become one line.  The
modules import the layers below only inside their commands, so `pbem --help` stays fast."""
from __future__ import annotations

import click

from pbem import __version__
from pbem.cli import audit, bots, client, git, keys, mail, moderate, play, repairs, show
from pbem.cli.boundary import PbemGroup


@click.group(cls=PbemGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="pbem")
def main() -> None:
    """pbem: hidden-information board games by email or git, with signed moves,
    a seeded rules engine, a hash-chained log and age-encrypted secrets.

    \b
    Example (moderator):
      pbem new game1 --game atlantis --player red=alice.pub --player blue=bob.pub
      pbem submit game1 red-move.yaml        # red-move.yaml.sig beside it
      pbem status game1
    """


for module in (keys, moderate, audit, show, play, client, bots, repairs):
    for command in module.COMMANDS:
        main.add_command(command)
main.add_command(git.git)
main.add_command(mail.mail)

if __name__ == "__main__":  # pragma: no cover
    main()
