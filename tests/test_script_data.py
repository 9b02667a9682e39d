"""Data inside a page's <script> element goes through one function, pbem.views.render.scriptdata.script_json.

* What it writes: ASCII JSON with no ``<``, ``>``, ``&`` (so no ``</script``, no ``<!--``), that
  reads back as exactly the data given (Hypothesis, over text made of the dangerous pieces).
* Every template: inside a ``<script>`` element, the only ``{{ ... }}`` is ``{{ VALUE | script_json }}``
  and there is no other Jinja2 output (``{% include %}``, a macro call, ``{% filter %}``); the
  checker is shown to catch each other way.
* No Python module of pbem writes a ``<script`` element itself (the pages come from templates).
* Every page's Jinja2 environment has the filter, and the pages really use it (the replay's data).
The pages in a real browser: tests/test_script_data_browser.py.
"""
from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pbem.base.data import templates_dir
from pbem.views.render.digest import _env
from pbem.views.render.scriptdata import script_json

PBEM = Path(__file__).resolve().parent.parent / "pbem"
DANGER = ["<!--", "-->", "<script", "</script>", "</SCRIPT ", "<", ">", "&", "\u2028", "\u2029", "\\", '"', "/",
          "]]>", "\u00e9", "\U0001f600", "\x00", "\n"]
SCRIPT_BLOCK = re.compile(r"<script\b[^>]*>(.*?)</script\s*>", re.S | re.I)
OUTPUT = re.compile(r"{{(.*?)}}", re.S)
STATEMENT = re.compile(r"{%-?\s*(\w+)", re.S)
ALLOWED_OUTPUT = re.compile(r"^-?\s*[\w.\[\]\"']+\s*\|\s*script_(?:json|code)\s*-?$")   # data; pbem's own JS
#: statements that only decide whether a part shows, never write a value
QUIET_STATEMENTS = {"if", "elif", "else", "endif"}


def script_problems(template: str) -> list[str]:
    """What in ``template`` writes data into a <script> element other than with script_json."""
    problems = []
    lower = template.lower()
    if lower.count("<script") != len(SCRIPT_BLOCK.findall(template)):
        problems.append("a <script> element without its </script> in the same template")
    for block in SCRIPT_BLOCK.findall(template):
        problems += [f"{{{{{expr}}}}}" for expr in OUTPUT.findall(block) if not ALLOWED_OUTPUT.match(expr.strip())]
        problems += [f"{{% {word} %}}" for word in STATEMENT.findall(block) if word not in QUIET_STATEMENTS]
        if "{#" in block:
            problems.append("a Jinja2 comment (keep templates' notes outside scripts)")
    return problems


def test_the_checker_catches_every_other_way_into_a_script():
    good = '<script type="application/json" id="d">{{ data | script_json }}</script><script>var a = 1 < 2;</script>'
    assert script_problems(good) == []
    assert script_problems('<script>{% if x %}{{ click.data | script_json }}{% endif %}</script>') == []
    for bad in ['<script type="application/json">{{ data }}</script>',
                '<script type="application/json">{{ data | tojson }}</script>',
                '<script type="application/json">{{ data | safe }}</script>',
                '<script type="application/json">{{ data | script_json | safe }}</script>',
                '<script>var name = "{{ player }}";</script>',
                '<SCRIPT>{{ x }}</SCRIPT>',
                '<script>{% include "data.js" %}</script>',
                '<script>{{ part(x) }}</script>',
                '<script>{% filter upper %}x{% endfilter %}</script>',
                '<script>{% for x in xs %}1{% endfor %}</script>',
                '<script type="application/json">{{ data | script_json }}']:
        assert script_problems(bad), bad


@pytest.mark.parametrize("name", sorted(p.name for p in templates_dir().rglob("*.j2")))
def test_every_template_writes_script_data_only_with_script_json(name):
    text = next(templates_dir().rglob(name)).read_text(encoding="utf-8")
    assert script_problems(text) == [], name


def test_the_pages_templates_have_script_data_and_use_the_one_function():
    """Not vacuous: the two pages with a script are found, and each writes its data with the filter."""
    found = {p.name: SCRIPT_BLOCK.findall(p.read_text(encoding="utf-8")) for p in templates_dir().rglob("*.j2")}
    with_data = {name for name, blocks in found.items() if any("| script_json" in b for b in blocks)}
    assert with_data == {"click.html.j2", "replay.html.j2"}
    assert _env("html", str(templates_dir())).filters["script_json"] is script_json


def _strings_outside_docstrings(tree: ast.AST) -> list[str]:
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                  and node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
    return [node.value for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings]


def test_no_python_module_writes_a_script_element_itself():
    assert PBEM.is_dir()
    writers = [str(path.relative_to(PBEM)) for path in sorted(PBEM.rglob("*.py"))
               if any("<script" in s.lower() for s in _strings_outside_docstrings(ast.parse(path.read_text())))]
    assert writers == []
    assert any("<script" in s for s in _strings_outside_docstrings(ast.parse('x = f"<script>{y}</script>"')))


def test_the_dangerous_pieces_are_escaped_and_read_back_exactly():
    data = {"reason": "".join(DANGER), "list": DANGER, "nested": {"</script>": ["<!--<script>", 1, None, True]}}
    text = str(script_json(data))
    assert text.isascii()
    assert not set("<>&") & set(text)
    assert "\\u003c!--\\u003cscript\\u003e" in text and "\\u2028" in text and "\\u2029" in text
    assert json.loads(text) == data
    assert script_json(data) == script_json(json.loads(text))          # keys sorted: same data, same bytes


TEXT = st.lists(st.sampled_from(DANGER) | st.characters(), max_size=12).map("".join)


@given(st.recursive(st.none() | st.booleans() | st.integers() | TEXT,
                    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(TEXT, inner, max_size=4),
                    max_leaves=20))
def test_any_data_reads_back_exactly_and_never_has_markup_characters(data):
    text = str(script_json(data))
    assert text.isascii() and not set("<>&") & set(text)
    assert json.loads(text) == data


def test_pbem_s_own_scripts_go_in_checked_and_can_never_end_the_element():
    from pbem.views.render.scriptdata import script_code
    assert str(script_code("var a = 1 < 2 && b;")) == "var a = 1 < 2 && b;"
    for bad in ["x = '</script>';", "x = '</SCRIPT ';", "// <!-- old", "y = '<script src=x>';"]:
        with pytest.raises(ValueError, match="would break the page's script element"):
            script_code(bad)
    for path in sorted((templates_dir() / "turnmodel").glob("*.js")) + [templates_dir() / "click.js"]:
        script_code(path.read_text(encoding="utf-8"))          # every script pbem ships goes in
