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


def _whole(text, where):
    """A whole parse, never helped by what was parsed before."""
    from pbem.store.log import ParsedLogs
    return ParsedLogs().entries(text, where)


def test_a_log_parsed_again_after_appends_gives_what_a_whole_parse_gives():
    from pbem.store.log import ParsedLogs
    logs = ParsedLogs()
    text = make_log(8)
    starts = [i for i in range(len(text)) if text.startswith("--- # entry ", i)]
    for end in starts[1:] + [len(text)]:             # the log as it grows, one entry at a time
        assert logs.entries(text[:end], "log.yaml") == _whole(text[:end], "log.yaml")
    assert logs.entries(text, "log.yaml") == _whole(text, "log.yaml")       # the same text again
    assert logs.entries(text[:starts[3]], "log.yaml") == _whole(text[:starts[3]], "log.yaml")   # shorter


def test_what_one_caller_changes_in_the_entries_the_next_never_sees():
    from pbem.store.log import ParsedLogs
    logs = ParsedLogs()
    text = make_log(4)
    first = logs.entries(text, "log.yaml")
    first[0]["kind"] = "changed"
    first[1]["events"][0]["list"].append(3)
    first.pop()
    again = logs.entries(text, "log.yaml")
    assert again == _whole(text, "log.yaml") and again[0]["kind"] == "genesis" and len(again) == 4
    assert again[1]["events"][0]["list"] == [1, 2]


def test_a_damaged_entry_is_refused_alike_whether_appended_or_read_whole():
    from pbem.store.log import LogError, ParsedLogs
    text = make_log(6)
    starts = [i for i in range(len(text)) if text.startswith("--- # entry ", i)]
    good, last = text[:starts[5]], text[starts[5]:]
    for damaged_last in (last.replace("kind: move", "kind: [move"),           # not YAML
                         last.replace("kind: move", "kind: move\nkind: move"),  # a key twice
                         "--- # entry 5\n- a list\n"):                       # not a mapping
        damaged = good + damaged_last
        logs = ParsedLogs()
        logs.entries(good, "log.yaml")
        with pytest.raises(LogError) as appended:
            logs.entries(damaged, "log.yaml")
        with pytest.raises(LogError) as whole:
            _whole(damaged, "log.yaml")
        assert str(appended.value) == str(whole.value) and "entry 5" in str(appended.value)
        assert logs.entries(good, "log.yaml") == _whole(good, "log.yaml")   # the refusal kept nothing
    # an earlier entry edited (the text no longer extends the one parsed): parsed whole, refused
    logs = ParsedLogs()
    logs.entries(good, "log.yaml")
    edited = text.replace("kind: genesis", "kind: [genesis", 1)
    with pytest.raises(LogError, match="entry 0"):
        logs.entries(edited, "log.yaml")
    # text glued to the last entry without a separator belongs to that entry, as in a whole parse
    glued = good + "junk: [\n"
    with pytest.raises(LogError, match="entry 4"):
        logs.entries(glued, "log.yaml")


def test_entries_json_cannot_give_back_equal_are_copied_instead():
    from pbem.store.log import ParsedLogs, render_entry, seal
    logs = ParsedLogs()
    text = render_entry(seal({"index": 0, "kind": "genesis"}))
    entries = logs.entries(text, "log.yaml")
    assert entries == _whole(text, "log.yaml")
    from pbem.store import log as log_module
    kept = log_module._keepable({"index": 0, "pair": (1, 2), 3: "three"})
    assert kept == {"index": 0, "pair": (1, 2), 3: "three"} and not isinstance(kept, str)
    rebuilt = log_module._rebuilt([kept, '{"index":1}'])
    assert rebuilt == [{"index": 0, "pair": (1, 2), 3: "three"}, {"index": 1}] and rebuilt[0] is not kept
