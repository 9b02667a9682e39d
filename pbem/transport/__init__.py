"""Ways turns travel between the moderator and the players.

* e-mail: ``pbem mail send|fetch|run`` (:mod:`pbem.cli.mail`), built from
  :mod:`~pbem.transport.mail.config` (settings), :mod:`~pbem.transport.mail.compose`
  (digest and receipt messages), :mod:`~pbem.transport.mail.smtp` (sending),
  :mod:`~pbem.transport.mail.imap` (IMAP and Maildir inboxes),
  :mod:`~pbem.transport.mail.intake` (finding signed moves in a message),
  :mod:`~pbem.transport.mail.ledger` (exactly-once bookkeeping) and
  :mod:`~pbem.transport.mail.cycle` (fetch, submit, reply, send).
* git: ``pbem git init|sync|...`` (:mod:`pbem.cli.git`), whose docstring lists
  the modules it is built from.

Import the submodules directly; this package imports nothing.
"""
