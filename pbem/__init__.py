"""pbem: play hidden-information board games by email or git, with signed moves,
a seeded rules engine, a hash-chained YAML log and age-encrypted secrets."""

__version__ = "0.1.0"
