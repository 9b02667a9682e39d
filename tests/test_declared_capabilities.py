"""A ruleset declares which of the core's rules it changes (a table entry, a class attribute, a
hook of its own); the core never asks whether a method was overridden (``type(self).x is
Core.x``) to pick a faster form of a rule.  This reads every module of pbem/ for such checks."""
from __future__ import annotations

import re
from pathlib import Path

import pbem

# `type(self).rule is Core.rule`, `type(x).y is not ...`, `kept.rule is core.rule` after
# `kept = type(self)`, `Cls.method.__func__ is ...`, `getattr(type(self), ...) is ...`
OVERRIDE_CHECKS = (
    re.compile(r"\btype\([^()]*\)\s*\.\s*\w+\s+is\b"),
    re.compile(r"\bis\s+(?:not\s+)?type\([^()]*\)\s*\.\s*\w+"),
    re.compile(r"=\s*type\(self\)\s*(?:#.*)?$"),
    re.compile(r"\.__func__\s+is\b|\bis\s+(?:not\s+)?[\w.]+\.__func__\b"),
    re.compile(r"getattr\(\s*type\("),
    re.compile(r"\bKeptRules\b"),
)


def override_checks(text: str) -> list[str]:
    """The lines of ``text`` that ask whether a method was overridden."""
    return [line.strip() for line in text.splitlines() if any(p.search(line) for p in OVERRIDE_CHECKS)]


def test_the_patterns_find_each_form_of_override_check() -> None:
    caught = [
        "        if type(self).ship_may_enter is MovementRules.ship_may_enter:",
        "    fast = type(rules).legal_move is not SurviveRules.legal_move",
        "        kept = type(self)",
        "        if self.legal_move.__func__ is MovementRules.legal_move:",
        "        same = getattr(type(self), name) is getattr(Core, name)",
        "        self.keeps = KeptRules()",
        "        if Core.vacant is type(self).vacant:",
    ]
    assert [override_checks(line) for line in caught] == [[line.strip()] for line in caught]
    innocent = [
        "        new = object.__new__(type(self))",
        '        raise ValueError(f"{type(exc).__name__} {exc}")',
        "        if self.deciders.get(STEP_CREATURE) != self.creature_choices:",
        "    core_scores = False",
    ]
    assert [override_checks(line) for line in innocent] == [[] for _ in innocent]


def test_no_module_of_pbem_asks_whether_a_method_was_overridden() -> None:
    root = Path(pbem.__file__).parent
    modules = sorted(root.rglob("*.py"))
    assert len(modules) > 100, f"pbem/ not found whole at {root}"
    found = {str(path.relative_to(root)): hits for path in modules
             if (hits := override_checks(path.read_text(encoding="utf-8")))}
    assert found == {}, "override checks left (declare the capability instead): " + repr(found)
