"""What a process remembers of the texts it read and the signatures it checked
(bounded caches of pure functions: pbem.base.yamlio, pbem.crypto.sshsig) gives what reading and
checking afresh give: equal data as new objects, the same refusals and answers."""
from __future__ import annotations

import hashlib

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from pbem.base import yamlio
from pbem.crypto.keys import public_key_of
from pbem.crypto.sshsig import MOVE_NAMESPACE, SignatureError, sign, verify

MOVE = ("format: pbem-move/1\ngame: g\nplayer: red\nafter: 3\nafter_hash: abcdef012345\n"
        "actions:\n  - {move: r7, to: G5}\n")


def test_a_text_read_again_gives_equal_data_as_new_objects():
    first = yamlio.load_strict(MOVE, "move file")
    first["actions"][0]["to"] = "changed"
    first["extra"] = 1
    again = yamlio.load_strict(MOVE, "move file")
    assert again == {"format": "pbem-move/1", "game": "g", "player": "red", "after": 3,
                     "after_hash": "abcdef012345", "actions": [{"move": "r7", "to": "G5"}]}
    assert yamlio.load_strict(MOVE, "move file", pure=True) == again


def test_the_two_schemas_are_remembered_apart():
    text = "a: yes\nhours: 48.0\n"
    assert yamlio.load_strict(text) == {"a": "yes", "hours": "48.0"}
    assert yamlio.load_log_entry(text) == {"a": True, "hours": 48.0}
    assert yamlio.load_strict(text) == {"a": "yes", "hours": "48.0"}


@pytest.mark.parametrize("text", ["a: 1\na: 2\n", "a: &x 1\nb: *x\n", "a: !!python/none x\n", "[1, 2"])
def test_a_refused_text_is_refused_each_time_with_the_callers_words(text):
    messages = []
    for what in ("move file", "position", "move file"):
        with pytest.raises(yamlio.YamlError) as refused:
            yamlio.load_strict(text, what)
        messages.append(str(refused.value))
    assert messages[0] == messages[2] and "move file" in messages[0] and "position" in messages[1]


def test_data_json_would_not_give_back_equal_is_read_each_time_as_new_objects():
    text = "hours: .inf\nlist: [1, 1.0, true]\n"          # YAML 1.1 reads an infinite float, which JSON has not
    first = yamlio.load_log_entry(text)
    assert first == {"hours": float("inf"), "list": [1, 1.0, True]}
    assert [type(v) for v in first["list"]] == [int, float, bool]
    first["list"].append("changed")
    assert yamlio.load_log_entry(text) == {"hours": float("inf"), "list": [1, 1.0, True]}


def test_a_signature_checked_again_gets_the_same_answer():
    key = Ed25519PrivateKey.from_private_bytes(hashlib.sha256(b"remembered").digest())
    other = Ed25519PrivateKey.from_private_bytes(hashlib.sha256(b"someone else").digest())
    message = MOVE.encode()
    signature = sign(key, message, MOVE_NAMESPACE)
    for _ in range(2):
        assert verify(message, signature, [public_key_of(key)], MOVE_NAMESPACE) == public_key_of(key)
        with pytest.raises(SignatureError):
            verify(message + b"#", signature, [public_key_of(key)], MOVE_NAMESPACE)
        with pytest.raises(SignatureError):
            verify(message, signature, [public_key_of(other)], MOVE_NAMESPACE)
