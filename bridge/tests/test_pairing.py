"""The pairing rules (core/pairing.py) and the session's admission, with no socket: codes expire,
wrong codes are few, secrets compare in constant time, an unpaired link gets nothing but the
ceremony and displaces nobody."""

from __future__ import annotations

import json
from typing import Any

import pytest
import tabmcp.core.pairing as pairing_module
from tabmcp.core.extension_links import ExtensionLinks, HandshakeDone, LinkState, MessageReceived, Peer
from tabmcp.core.pairing import (
    CODE_TTL_S,
    MAX_WRONG_CODES,
    PairingCodes,
    Pairings,
    Verdict,
    hash_secret,
    secret_matches,
)
from tabmcp.errors import ErrorCode, PairingBusy, PairingCodeWrong, PairingLocked
from tabmcp.protocol import PROTOCOL_VERSION, Hello, PairCode, PairDone, PairingCredential, PairRequired, Welcome
from tabmcp.storage.database import SqlitePairings


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def hello(**extra: Any) -> str:
    return json.dumps({"type": "hello", "protocol": PROTOCOL_VERSION, **extra})


# -- codes -------------------------------------------------------------------------------------


def test_a_code_expires():
    clock = Clock()
    codes = PairingCodes(clock=clock)
    owner = object()
    pending = codes.issue(owner)
    clock.now += CODE_TTL_S + 1
    with pytest.raises(PairingCodeWrong):
        codes.redeem(pending.code)


def test_a_code_is_redeemed_once_and_dashes_do_not_matter():
    codes = PairingCodes(clock=Clock())
    owner = object()
    pending = codes.issue(owner)
    assert len(pending.code) == 6 and pending.code.isdigit()
    assert codes.redeem(f"{pending.code[:3]}-{pending.code[3:]}").owner is owner
    with pytest.raises(PairingCodeWrong):
        codes.redeem(pending.code)


def test_wrong_codes_are_few_then_every_pending_code_is_void():
    codes = PairingCodes(clock=Clock())
    owner = object()
    pending = codes.issue(owner)
    wrong = "000000" if pending.code != "000000" else "111111"
    for _ in range(MAX_WRONG_CODES - 1):
        with pytest.raises(PairingCodeWrong):
            codes.redeem(wrong)
    with pytest.raises(PairingLocked) as locked:
        codes.redeem(wrong)
    assert locked.value.voided == [owner]  # type: ignore[attr-defined]
    with pytest.raises(PairingCodeWrong):  # the right code no longer works: the popup asks for a new one
        codes.redeem(pending.code)


def test_a_right_code_starts_the_count_of_wrong_ones_again():
    codes = PairingCodes(clock=Clock())
    first = codes.issue(object())
    for _ in range(MAX_WRONG_CODES - 1):
        with pytest.raises(PairingCodeWrong):
            codes.redeem("abc")
    codes.redeem(first.code)
    second = codes.issue(object())
    for _ in range(MAX_WRONG_CODES - 1):
        with pytest.raises(PairingCodeWrong):
            codes.redeem("abc")
    codes.redeem(second.code)


def test_asking_again_voids_the_previous_code_and_waiting_is_bounded():
    codes = PairingCodes(clock=Clock(), max_pending=2)
    owner = object()
    old = codes.issue(owner)
    new = codes.issue(owner)
    assert ([p.code for p in codes.pending()] == [new.code] and old.code != new.code) or len(codes.pending()) == 1
    codes.issue(object())
    with pytest.raises(PairingBusy):
        codes.issue(object())


def test_codes_and_secrets_compare_in_constant_time(monkeypatch):
    calls: list[tuple[bytes | str, bytes | str]] = []
    real = pairing_module.secrets.compare_digest

    def spy(a: Any, b: Any) -> bool:
        calls.append((a, b))
        return real(a, b)

    monkeypatch.setattr(pairing_module.secrets, "compare_digest", spy)
    assert secret_matches("s3cret", hash_secret("s3cret")) and not secret_matches("s3creT", hash_secret("s3cret"))
    assert len(calls) == 2
    calls.clear()
    codes = PairingCodes(clock=Clock())
    first = codes.issue(object())
    codes.issue(object())
    codes.issue(object())
    codes.redeem(first.code)  # the first one matches, and every other is still compared (no early exit)
    assert len(calls) == 3


# -- admission ---------------------------------------------------------------------------------


class MemoryStore:
    def __init__(self) -> None:
        self.rows: dict[str, Any] = {}

    def get(self, pairing_id: str) -> Any:
        return self.rows.get(pairing_id)

    def add(self, pairing: Any) -> None:
        self.rows[pairing.id] = pairing

    def remove(self, pairing_id: str) -> bool:
        return self.rows.pop(pairing_id, None) is not None

    def all(self) -> list[Any]:
        return list(self.rows.values())

    def touch(self, pairing_id: str, when: float) -> None:
        self.rows[pairing_id].last_seen = when


def as_hello(**extra: Any) -> Hello:
    return Hello.model_validate({"type": "hello", "protocol": PROTOCOL_VERSION, **extra})


def test_admission_wants_the_pairing_secret_or_the_token():
    pairings = Pairings(MemoryStore(), token="pre-shared")
    pairing, secret = pairings.create("Chrome 140")
    assert pairings.admit(as_hello()).verdict is Verdict.UNPAIRED
    assert pairings.admit(as_hello(pairing={"id": pairing.id, "secret": secret + "x"})).verdict is Verdict.UNKNOWN
    assert pairings.admit(as_hello(pairing={"id": "nope", "secret": secret})).verdict is Verdict.UNKNOWN
    admitted = pairings.admit(as_hello(pairing={"id": pairing.id, "secret": secret}))
    assert admitted.admitted and admitted.pairing_id == pairing.id
    assert pairings.admit(as_hello(token="pre-shared")).admitted
    assert pairings.admit(as_hello(token="guess")).verdict is Verdict.WRONG_TOKEN
    assert pairings.forget(pairing.id)
    assert pairings.admit(as_hello(pairing={"id": pairing.id, "secret": secret})).verdict is Verdict.UNKNOWN


def test_the_store_keeps_a_hash_not_the_secret_and_survives_a_restart(tmp_path):
    db = tmp_path / "tabmcp.db"
    pairing, secret = Pairings(SqlitePairings(db)).create("Chrome 140")
    assert secret not in db.read_bytes().decode("latin-1")
    again = Pairings(SqlitePairings(db))  # the next bridge run
    assert again.admit(as_hello(pairing={"id": pairing.id, "secret": secret})).admitted
    assert again.all()[0].last_seen is not None


# -- the session -------------------------------------------------------------------------------


def paired_session() -> tuple[ExtensionLinks, Pairings, Peer, dict[str, str]]:
    pairings = Pairings(MemoryStore())
    session = ExtensionLinks(session_id="s", bridge_version="t", pairing=pairings)
    real = Peer("real")
    record, secret = pairings.create("real")
    credential = {"id": record.id, "secret": secret}
    assert session.receive(real, hello(pairing=credential)) == [HandshakeDone(real)]
    session.data_to_send()
    return session, pairings, real, credential


def sent_to(session: ExtensionLinks, peer: Peer) -> list[Any]:
    return [s.message for s in session.data_to_send() if getattr(s, "peer", None) is peer and hasattr(s, "message")]


@pytest.mark.parametrize("credential", [None, {"id": "forged", "secret": "guess"}], ids=["no secret", "wrong secret"])
def test_an_unpaired_link_gets_only_the_ceremony_and_displaces_nobody(credential):
    session, _, real, _ = paired_session()
    hostile = Peer("hostile")
    assert session.receive(hostile, hello(**({"pairing": credential} if credential else {}))) == []
    assert hostile.state is LinkState.PAIRING and session.current is real and real.state is LinkState.READY
    (required,) = sent_to(session, hostile)
    assert isinstance(required, PairRequired) and required.reason == ("unknown" if credential else "unpaired")
    for frame in [
        {"type": "tabs.sync", "tabs": [{"tabId": 1, "url": "https://bank.example/", "tools": []}]},
        {"type": "control.set", "requestId": "r", "action": "writes", "enabled": True},
        {"type": "site.permission", "origin": "https://evil.example", "reachable": True},
        {"type": "forms.set", "origin": "https://evil.example", "enabled": True},
        {"type": "panel.query", "requestId": "r"},
        {"type": "approval.result", "approvalId": "a", "approved": True},
    ]:
        events = session.receive(hostile, json.dumps(frame))
        assert not any(isinstance(e, MessageReceived) for e in events), frame["type"]
        (error,) = sent_to(session, hostile)
        assert error.code == ErrorCode.NOT_PAIRED, frame["type"]
    assert session.current is real and session.ready


def test_the_ceremony_pairs_the_link_that_asked_and_only_it():
    session, _pairings, real, _ = paired_session()
    asking, other = Peer("asking"), Peer("other")
    for peer in (asking, other):
        session.receive(peer, hello())
        session.receive(peer, json.dumps({"type": "pair.request"}))
    codes = {}
    for send in session.data_to_send():
        if isinstance(send.message, PairCode):  # type: ignore[union-attr]
            codes[send.peer] = send.message.code  # type: ignore[union-attr]
    assert set(codes) == {asking, other} and codes[asking] != codes[other]
    pairing = session.confirm_pairing(codes[asking])
    (done,) = sent_to(session, asking)
    assert isinstance(done, PairDone) and done.pairing_id == pairing.id
    assert session.current is real  # paired is not yet connected: it says hello with its secret
    events = session.receive(asking, hello(pairing={"id": done.pairing_id, "secret": done.secret}))
    # another pairing is another browser: linked beside the first, which keeps its link
    assert events == [HandshakeDone(asking)] and session.current is asking
    assert list(session.links.values()) == [real, asking] and real.state is LinkState.READY
    assert isinstance(sent_to(session, asking)[0], Welcome)


def test_forgetting_a_pairing_closes_its_link():
    session, _, real, credential = paired_session()
    existed, _events = session.forget_pairing(credential["id"])
    assert existed and real.state is LinkState.CLOSED and not session.ready
    again = Peer("again")
    session.receive(again, hello(pairing=credential))
    assert again.state is LinkState.PAIRING


def test_pairing_credential_lengths_are_bounded():
    with pytest.raises(ValueError):
        PairingCredential(id="x" * 65, secret="s")


def test_a_launcher_pairing_needs_the_control_key():
    from tabmcp.core.pairing import launcher_pairing

    pairings = Pairings(MemoryStore(), control_key="the-key")
    made = launcher_pairing("the-key")
    assert pairings.admit(as_hello(pairing=made)).admitted
    assert pairings.admit(as_hello(pairing=launcher_pairing("another-key"))).verdict is Verdict.UNKNOWN
    assert Pairings(MemoryStore()).admit(as_hello(pairing=made)).verdict is Verdict.UNKNOWN  # no key: none admitted
