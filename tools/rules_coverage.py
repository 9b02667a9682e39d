"""`make rules-coverage`: every sentence of the rule texts is cited by a conformance case or listed
as not applicable (with the reason); print each one that is neither, and exit 1 if there is one.

The rule texts are not part of the repository (they are the publishers'): give their folder with
``--rules DIR`` or ``PBEM_RULES_DIR`` (default: ``../shared/rules`` beside the checkout).
A *sentence* is what a reader would call one: markdown markers, list numbers and line wraps are
removed, a paragraph is split after ``.``, ``!`` or ``?``, and a line that ends without one (a table
row, a list line) is a sentence of its own.  Headings (``#`` lines, lines in capitals) are not
sentences.  A case cites a sentence when its ``rule:`` or one of its ``also:`` quotes contains the
sentence or is contained in it (after the same clean-up, case and spacing aside); a
``not_applicable:`` entry's ``rule:`` the same way.  Every quote must be found in its game's rule
texts: a quote found nowhere is reported too (a typo would otherwise cite nothing).
"""
from __future__ import annotations

import argparse
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
MARKERS = re.compile(r"\*\*|__|`")
LIST_PREFIX = re.compile(r"^\s*(?:[-*•]\s+|\d+[.)]\s+)")
SENTENCE_END = re.compile(r"(?<=[.!?])[\"”’)]*\s+(?=[\"“(]?[A-Z0-9])")


@dataclass(frozen=True)
class Sentence:
    file: str
    line: int
    text: str

    @property
    def key(self) -> str:
        return normal(self.text)


def normal(text: str) -> str:
    text = MARKERS.sub("", text)
    for a, b in (("“", '"'), ("”", '"'), ("’", "'"), ("‘", "'"), ("–", "-"), ("—", "-"), ("\t", " ")):
        text = text.replace(a, b)
    return re.sub(r"\s+", " ", text).strip().lower()


def heading(line: str) -> bool:
    bare = MARKERS.sub("", line).strip()
    return line.lstrip().startswith("#") or (bool(re.search(r"[A-Z]", bare)) and not re.search(r"[a-z]", bare))


def sentences(path: Path) -> list[Sentence]:
    """The sentences of one rule text, with the line each begins on."""
    out: list[Sentence] = []
    unit: list[tuple[int, str]] = []

    def flush() -> None:
        if not unit:
            return
        starts, text = [], ""
        for number, part in unit:              # where each line begins in the joined paragraph
            starts.append((len(text), number))
            text += part + " "
        at = 0
        for piece in SENTENCE_END.split(text):
            at = text.find(piece, at)
            line = max(n for offset, n in starts if offset <= max(at, 0))
            if re.search(r"[A-Za-z]", piece):
                out.append(Sentence(path.name, line, piece.strip()))
            at += len(piece)
        unit.clear()

    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        line = raw.strip()
        if not line or heading(line):
            flush()
            continue
        # a list line, or a line after one that ends without a sentence going on (no ',', ';', a
        # lower-case start), is a sentence of its own; a line ending in ':' introduces a list
        starts_item = bool(LIST_PREFIX.match(raw)) or bool(
            unit and (unit[-1][1].endswith(":") or (not re.search(r"[.!?,;]$", unit[-1][1])
                                                     and not line[0].islower())))
        if starts_item:
            flush()
        unit.append((number, LIST_PREFIX.sub("", line)))
    flush()
    return out


def quotes(conformance: dict) -> list[tuple[str, str]]:
    """(where, quote) for every citation in one conformance file."""
    found = []
    for case in conformance.get("cases", []):
        for quote in [case.get("rule", ""), *case.get("also", [])]:
            found.append((f"case {case.get('case')}", str(quote)))
    for n, item in enumerate(conformance.get("not_applicable", []), 1):
        found.append((f"not_applicable {n}", str(item.get("rule", ""))))
    for item in conformance.get("ambiguities", []):
        found.append((f"ambiguity {item.get('number')}", str(item.get("rule", ""))))
    return found


def covers(quote: str, sentence: str) -> bool:
    return bool(quote) and (quote in sentence or sentence in quote)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rules", type=Path, default=Path(os.environ.get("PBEM_RULES_DIR", ROOT.parent / "shared" / "rules")))
    parser.add_argument("--summary", action="store_true", help="only the counts per game")
    args = parser.parse_args(argv)
    if not args.rules.is_dir():
        print(f"rules-coverage: no rule texts at {args.rules}; give --rules DIR or PBEM_RULES_DIR", file=sys.stderr)
        return 2
    uncovered = 0
    for path in sorted((ROOT / "conformance").glob("*.yaml")):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        texts = [args.rules / name for name in data.get("rules", [])]
        missing = [t.name for t in texts if not t.is_file()]
        if missing:
            print(f"{path.name}: rule text {', '.join(missing)} not found in {args.rules}")
            uncovered += 1
            continue
        all_sentences = [s for t in texts for s in sentences(t)]
        keys = [s.key for s in all_sentences]
        cited = [(where, normal(q)) for where, q in quotes(data)]
        for where, quote in cited:
            if not any(covers(quote, k) for k in keys):
                print(f"{path.name}: {where} quotes a sentence found in none of {', '.join(data['rules'])}: "
                      f"\"{quote[:100]}\"")
                uncovered += 1
        left = [s for s in all_sentences if not any(covers(q, s.key) for _, q in cited)]
        uncovered += len(left)
        print(f"{path.name}: {len(all_sentences) - len(left)} of {len(all_sentences)} sentences cited or not applicable")
        if not args.summary:
            for s in left:
                print(f"  {s.file}:{s.line}: {s.text}")
    return 1 if uncovered else 0


if __name__ == "__main__":
    sys.exit(main())
