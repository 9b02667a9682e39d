"""A game on disk: the folder, the hash-chained log, move files, the table loaded from them, receipts."""
