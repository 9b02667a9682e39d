"""Every case of every conformance file (conformance/GAME.yaml): the engine gives the outcome the
rule sentence says; a failing case names its number and its sentence.  Every ambiguity has one
default and an option for each other reading, pinned by cases; the rulings page is up to date."""
from __future__ import annotations

import pytest
from conformance.cases import Case, CaseError, all_files, run
from conformance.render import doc_path, render

from pbem.core.registry import load_game

FILES = all_files()
CASES = [case for f in FILES for case in f.cases]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_case(case):
    run(case)


def test_a_failing_case_names_its_number_and_its_sentence():
    case = Case("space-swarm", 999, "PRODUCTION PHASE", "Gain a number of new Fleet counters", {
        "steps": [{"player": "red", "play": [{"develop": "none"}, {"produce": "A1"}]}],
        "after": {"position": {"stacks.red.A1": 4}}})
    with pytest.raises(CaseError, match=r'^space-swarm case 999 \(PRODUCTION PHASE: "Gain a number of new Fleet '
                                        r'counters"\): after: stacks.red.A1 is 5, the rule says 4$'):
        run(case)


@pytest.mark.parametrize("f", FILES, ids=[f.game for f in FILES])
def test_every_ambiguity_has_one_default_and_an_option_per_other_reading(f):
    specs = {s.name: s for s in load_game(f.game).option_specs()}
    by_number = {c.number: c for c in f.cases}
    numbers = [a["number"] for a in f.ambiguities]
    assert len(numbers) == len(set(numbers))
    for amb in f.ambiguities:
        readings = amb["readings"]
        assert len(readings) >= 2, f"ambiguity {amb['number']} has one reading"
        assert sum(bool(r.get("default")) for r in readings) == 1, f"ambiguity {amb['number']}: one default"
        for reading in readings:
            assert reading.get("cases"), f"ambiguity {amb['number']}: a reading no case pins"
            option = reading.get("option")
            for n in reading["cases"]:
                assert n in by_number, f"ambiguity {amb['number']} names case {n}, which does not exist"
                chosen = {k: str(v) for k, v in (by_number[n].data.get("options") or {}).items()}
                if option:
                    name, value = option.split("=", 1)
                    assert chosen.get(name) == value, f"case {n} pins `{option}` but does not set it"
            if reading.get("default"):
                assert not option
                continue
            name, value = option.split("=", 1)
            assert name in specs and value in specs[name].choices, f"ambiguity {amb['number']}: no option {option}"
            assert specs[name].default != value, f"ambiguity {amb['number']}: {option} is the default already"
    for case in f.cases:
        if "ambiguity" in case.data:
            assert case.data["ambiguity"] in numbers, f"case {case.number} names an ambiguity that does not exist"


@pytest.mark.parametrize("f", FILES, ids=[f.game for f in FILES])
def test_the_rulings_page_is_up_to_date(f):
    assert doc_path(f).read_text(encoding="utf-8") == render(f), "run `make conformance-docs`"
