"""The Survive-family core: what Atlantis (30th anniversary), the 1986 edition and Space Attack share.

See docs/architecture.md ("The Survive-family core") and :mod:`pbem.rules.survive.base`.
"""
