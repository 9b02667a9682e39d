"""docs/games/GAME-conformance.md from conformance/GAME.yaml: the rulings players read (every
ambiguity with its readings, the default and the option for each other reading) and the index of
cases by rule section.  `make conformance-docs` writes them; tests/test_conformance.py checks that
they are up to date."""
from __future__ import annotations

import sys
from pathlib import Path

from conformance.cases import ConformanceFile, all_files

DOCS = Path(__file__).resolve().parents[2] / "docs" / "games"


def doc_path(f: ConformanceFile) -> Path:
    return DOCS / f"{f.game}-conformance.md"


def render(f: ConformanceFile) -> str:
    lines = [f"# {f.game}: conformance cases and rulings", "",
             f"Generated from [`conformance/{f.path.name}`](../../conformance/{f.path.name}) by "
             "`make conformance-docs`; `make test` runs every case (conformance/README.md has the format).",
             f"Rule text{'s' if len(f.rules) > 1 else ''}: {', '.join(f.rules)}.", "", "## Rulings", ""]
    if not f.ambiguities:
        lines += ["No sentence of the text is read more than one way so far.", ""]
    for amb in f.ambiguities:
        lines += [f"### {amb['number']}. \"{amb['rule']}\"", "", str(amb.get("question", "")).strip(), ""]
        for reading in amb["readings"]:
            how = "**default**" if reading.get("default") else f"`--option {reading['option']}`"
            cases = ", ".join(str(c) for c in reading.get("cases", []))
            lines.append(f"- {how}: {reading['reading']} (cases {cases})")
        lines.append("")
    lines += ["## Cases", "", "| case | section | rule |", "| --- | --- | --- |"]
    for case in sorted(f.cases, key=lambda c: c.number):
        rule = case.rule.replace("|", "\\|")
        lines.append(f"| {case.number} | {case.section} | {rule} |")
    return "\n".join(lines) + "\n"


def main() -> int:
    for f in all_files():
        doc_path(f).write_text(render(f), encoding="utf-8")
        print(f"wrote {doc_path(f)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
