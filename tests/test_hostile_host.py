"""The hostile-input corpus through a host's routing (issue 24): every corpus move and every
message hostile as mail, in one host mailbox (a Maildir) beside a second game, then the valid
move behind them.  Routing reads a move's game line from raw bytes: nothing a stranger sent
may crash the cycle, send a message to anyone but a player, or hold up the valid move; a
second cycle finds nothing new."""
from __future__ import annotations

import os
import time
from email.utils import formatdate

from click.testing import CliRunner
from hostile_harness import all_entry_names, assert_clean_line
from hostile_mailbox import message
from mailservers import GM, PLAYERS, Router, address, start_smtp
from pipeline_helpers import new_game, signed_move

from pbem.cli.group import main as pbem_main
from pbem.pipeline.audit import audit
from pbem.store.table import Table


def test_the_hostile_corpus_through_a_host_is_answered_once_and_never_holds_up_a_valid_move(
        tmp_path, hostile_mailbox):
    folder = tmp_path / "host"
    maildir = tmp_path / "Maildir"
    folder.mkdir()
    # game one, and in the host's mailbox every corpus message to it (tests/hostile_mailbox.py)
    one, box = hostile_mailbox.copy_to(folder / "one", maildir)
    keys = hostile_mailbox.keys
    assert len(box) == hostile_mailbox.counts["messages"] > 2 * len(all_entry_names())
    smtp = start_smtp(Router({GM: box.add}), "none")
    try:
        settings = folder / "pbem-host.toml"
        settings.write_text(f'from = "Club <{GM}>"\n[smtp]\nhost = "127.0.0.1"\nport = {smtp.port}\n'
                            f'security = "none"\n[maildir]\npath = "{maildir}"\n')
        os.chmod(settings, 0o600)
        games = {"one": one, "two": new_game(folder / "two", "toy", keys, PLAYERS, seed=b"2" * 32)}
        for gd in games.values():
            (gd.moderator_dir / "mail.toml").write_text(
                "[players]\n" + "".join(f'{p} = "{address(p)}"\n' for p in PLAYERS))
        gd = games["one"]
        table = Table.load(gd)
        raw, sig = signed_move(table, "red", [{"draw": True}], keys["red"])
        valid = message(f"Red Player <{address('red')}>", "my real move", formatdate(time.time() + 3600))
        valid.set_content("here it is\n")
        valid.add_attachment(raw, "application", "x-yaml", filename="move.yaml")
        valid.add_attachment(sig.encode(), "application", "octet-stream", filename="move.yaml.sig")
        box.add(valid.as_bytes())
        two_log = games["two"].log_path.read_bytes()

        result = CliRunner().invoke(pbem_main, ["mail", "run", str(folder)])
        if result.exception is not None and not isinstance(result.exception, SystemExit):
            raise AssertionError(f"pbem mail run: {result.exception!r}") from result.exception
        assert result.exit_code == 0, result.output
        lines = result.output.splitlines()
        for line in lines:           # a game's line is that game's line with its folder's name in front
            assert_clean_line(line.removeprefix("one: ").removeprefix("two: "), "host cycle output")
        assert any(line.startswith("one: accepted: attachment move.yaml from Red Player") for line in lines), lines
        assert len(gd.entries()) == 2 and gd.entries()[1]["player"] == "red" and audit(gd).ok
        assert games["two"].log_path.read_bytes() == two_log
        assert not (gd.moderator_dir / "crashes").exists()
        assert not (folder / ".pbem-host" / "crashes").exists()
        receipts = [m for m in smtp.router.log if m.msg["X-PBEM-Receipt"]]
        assert receipts and {tuple(m.rcpt_tos) for m in receipts} == {(address("red"),)}
        again = CliRunner().invoke(pbem_main, ["mail", "run", str(folder)])
        assert again.exit_code == 0 and again.output == "", again.output
        assert len([m for m in smtp.router.log if m.msg["X-PBEM-Receipt"]]) == len(receipts)
    finally:
        smtp.stop()
