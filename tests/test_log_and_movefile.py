"""The log's hash chain and canonical bytes; strict move-file parsing."""
import pytest

from pbem.base.canonical import data_hash
from pbem.base.yamlio import YamlError, load_strict
from pbem.store.log import render_entry, seal, split_chunks, verify_chain
from pbem.store.movefile import MoveFile, MoveFileError, parse_move, render_move


def make_log(n=4):
    entries, prev = [], None
    for i in range(n):
        e = {"index": i, "kind": "genesis" if i == 0 else "move"}
        if prev:
            e["prev"] = prev
        e["events"] = [{"text": f"event {i}", "list": [1, 2]}]
        e = seal(e)
        prev = e["hash"]
        entries.append(e)
    return "".join(render_entry(e) for e in entries)


def test_intact_log_verifies():
    assert verify_chain(split_chunks(make_log())) == []


def test_hash_is_sha256_of_canonical_json_without_hash():
    e = seal({"index": 0, "kind": "genesis", "x": "é"})
    assert e["hash"] == data_hash({"index": 0, "kind": "genesis", "x": "é"})
    assert list(e)[-1] == "hash"


def test_any_single_byte_change_is_detected():
    text = make_log()
    for position in range(len(text)):
        ch = text[position]
        replacement = "x" if ch != "x" else "y"
        damaged = text[:position] + replacement + text[position + 1:]
        problems = verify_chain(split_chunks(damaged))
        assert problems, f"change at byte {position} ({ch!r}) was not detected"


def test_problem_names_the_entry():
    text = make_log()
    damaged = text.replace("event 2", "event 9")
    problems = verify_chain(split_chunks(damaged))
    assert any(p.startswith("entry 2") for p in problems)


def test_deleting_an_entry_breaks_the_chain():
    chunks = split_chunks(make_log())
    del chunks[2]
    assert verify_chain(chunks)


def move_bytes(**over):
    data = dict(format="pbem-move/1", game="g-1", player="red", after=3, after_hash="ab" * 32,
                actions=[{"move": "r7", "to": "G5"}])
    data.update(over)
    return render_move(MoveFile(data["game"], data["player"], data["after"], data["after_hash"],
                                data["actions"])).encode()


def test_move_file_round_trip():
    mv = parse_move(move_bytes())
    assert mv.player == "red" and mv.after == 3 and mv.actions == [{"move": "r7", "to": "G5"}]


def test_duplicate_keys_are_rejected_with_line():
    raw = move_bytes().decode() + "player: blue\n"
    with pytest.raises(YamlError, match=r"duplicate key 'player' at line \d+"):
        parse_move(raw.encode())


def test_syntax_error_names_line():
    with pytest.raises(YamlError, match="line 2"):
        load_strict("a: 1\nb: [1, 2\n", "move file")


@pytest.mark.parametrize("raw, message", [
    (b"- just a list\n", "must be a YAML mapping"),
    (b"format: pbem-move/9\n", "format"),
    (b"\xff\xfe", "not UTF-8"),
])
def test_bad_move_files_have_one_line_reasons(raw, message):
    with pytest.raises((MoveFileError, YamlError), match=message) as info:
        parse_move(raw)
    assert "\n" not in str(info.value)


def test_empty_actions_rejected():
    with pytest.raises(MoveFileError, match="empty"):
        parse_move(move_bytes(actions=[]))


def test_move_files_read_on_no_yes_as_text_and_numbers_in_decimal():
    """YAML 1.1 would read `on:` as True and 010 as 8; people mean the text and ten."""
    data = load_strict("{place: r7, on: G5, a: no, b: yes, c: off, d: 010, e: true, f: false}")
    assert data == {"place": "r7", "on": "G5", "a": "no", "b": "yes", "c": "off", "d": 10, "e": True, "f": False}
