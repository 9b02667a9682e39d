"""E-mail: settings, messages, SMTP, IMAP and Maildir inboxes, intake, the ledger, the cycle."""
