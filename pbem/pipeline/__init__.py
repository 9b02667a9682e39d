"""The commands' work: new, submit, check, audit, moderator entries, deadlines, repair, the demo."""
