"""Ways turns travel between the moderator and the players.

* e-mail: ``pbem mail send|fetch|run`` (:mod:`pbem.transport.mail_cli`), built from
  :mod:`~pbem.transport.mail_config` (settings), :mod:`~pbem.transport.mail_compose`
  (digest and receipt messages), :mod:`~pbem.transport.mail_smtp` (sending),
  :mod:`~pbem.transport.mail_imap` (IMAP and Maildir inboxes),
  :mod:`~pbem.transport.mail_intake` (finding signed moves in a message),
  :mod:`~pbem.transport.mail_ledger` (exactly-once bookkeeping) and
  :mod:`~pbem.transport.mail_cycle` (fetch, submit, reply, send).
* git: ``pbem git init|sync|...`` (:mod:`pbem.transport.git_cli`), whose docstring lists
  the modules it is built from.

Import the submodules directly; this package imports nothing.
"""
