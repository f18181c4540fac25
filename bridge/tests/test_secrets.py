"""Secrets by name in the core (core/secrets.py), written as attacks: a name sent to a site it is not
bound to, a half placeholder, a changed definition, and a page that echoes the value back in every
encoding it can think of. No I/O: the vault is a plain object."""

from __future__ import annotations

import base64
import html
import json
import logging
import urllib.parse
from collections.abc import Iterable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tabmcp.core.secrets import Mask, Secrets, check_name, placeholder, placeholders_in, put_in
from tabmcp.errors import InvalidSecretName, SecretNotBound, SecretToolChanged, ToolValidationError

VALUE = "s3cr&t/pa ss+wörd\"<x>"
BANK = "https://bank.example"


class Vault:
    def __init__(self, values: dict[str, tuple[str, set[str]]]) -> None:
        self.values = values
        self.used_names: list[str] = []

    def sites(self, name: str) -> frozenset[str]:
        return frozenset(self.values[name][1]) if name in self.values else frozenset()

    def names_for(self, origin: str) -> list[str]:
        return sorted(n for n, (_, sites) in self.values.items() if origin in sites)

    def value(self, name: str) -> str | None:
        return self.values[name][0] if name in self.values else None

    def used(self, names: Iterable[str]) -> None:
        self.used_names.extend(names)

    def unbind(self, name: str, site: str) -> None:
        self.values[name][1].discard(site)

    def bound_origins(self) -> list[str]:
        return sorted({o for _, sites in self.values.values() for o in sites})


def vault() -> Vault:
    return Vault({"bank_login": (VALUE, {BANK}), "shop_pin": ("9876-5432", {"https://shop.example"})})


def test_a_placeholder_is_replaced_only_for_a_bound_origin_and_the_agents_arguments_stay_as_sent() -> None:
    v = vault()
    args = {"user": "ann", "password": "{{secret:bank_login}}", "extra": {"list": ["{{secret:bank_login}}", 3]}}
    sent, values = put_in(args, v, origin=BANK, tool="login", definition_changed=False)
    assert sent == {"user": "ann", "password": VALUE, "extra": {"list": [VALUE, 3]}}
    assert args["password"] == "{{secret:bank_login}}"  # what the activity log and the approval show
    assert values == {"bank_login": VALUE} and v.used_names == ["bank_login"]


@pytest.mark.parametrize("origin", ["https://evil.example", "http://bank.example", "https://bank.example:8443",
                                    "https://login.bank.example", ""])
def test_another_origin_gets_a_named_refusal_and_no_value(origin: str) -> None:
    v = vault()
    with pytest.raises(SecretNotBound) as refused:
        put_in({"password": "{{secret:bank_login}}"}, v, origin=origin, tool="login", definition_changed=False)
    assert VALUE not in str(refused.value.to_dict()) and v.used_names == []


def test_an_unknown_name_gets_the_same_answer_as_a_name_bound_elsewhere() -> None:
    with pytest.raises(SecretNotBound) as unknown:
        put_in({"p": "{{secret:nobody}}"}, vault(), origin=BANK, tool="login", definition_changed=False)
    with pytest.raises(SecretNotBound) as elsewhere:
        put_in({"p": "{{secret:shop_pin}}"}, vault(), origin=BANK, tool="login", definition_changed=False)
    assert unknown.value.code == elsewhere.value.code


def test_one_unbound_name_refuses_the_whole_call() -> None:
    v = vault()
    with pytest.raises(SecretNotBound):
        put_in({"a": "{{secret:bank_login}}", "b": "{{secret:shop_pin}}"}, v, origin=BANK, tool="t",
               definition_changed=False)
    assert v.used_names == []


def test_a_changed_definition_never_gets_a_secret() -> None:
    with pytest.raises(SecretToolChanged):
        put_in({"password": "{{secret:bank_login}}"}, vault(), origin=BANK, tool="login", definition_changed=True)


@pytest.mark.parametrize("text", ["x{{secret:bank_login}}", "{{secret:bank_login}} ", "{{secret:bank-login}}",
                                  "{{secret:}}", "{{secret:bank_login}}{{secret:bank_login}}", "{{secret:a"])
def test_a_string_holding_the_marker_among_other_text_is_refused(text: str) -> None:
    with pytest.raises(ToolValidationError):
        placeholders_in({"field": {"deep": [text]}})


def test_strings_without_the_marker_pass_untouched() -> None:
    args = {"q": "{{ secret }}", "n": 3, "s": "secret:bank_login", "b": None}
    assert placeholders_in(args) == {}
    assert put_in(args, vault(), origin=BANK, tool="t", definition_changed=False) == (args, {})


def test_names_are_identifiers() -> None:
    assert placeholder("bank_login") == "{{secret:bank_login}}"
    for bad in ("", "1a", "a-b", "a}}", "a" * 65):
        with pytest.raises(InvalidSecretName):
            check_name(bad)


def forms(value: str) -> list[str]:
    raw = value.encode()
    return [
        value,
        urllib.parse.quote(value, safe=""),
        urllib.parse.quote_plus(value),
        html.escape(value),
        json.dumps(value)[1:-1],
        json.dumps(value, ensure_ascii=False)[1:-1],
        base64.b64encode(raw).decode(),
        base64.urlsafe_b64encode(raw).decode(),
    ]


@pytest.mark.parametrize("form", range(8))
def test_the_value_is_masked_in_every_usual_encoding(form: int) -> None:
    echoed = forms(VALUE)[form]
    mask = Mask({"bank_login": VALUE})
    result = {"content": [{"type": "text", "text": f"welcome! you typed {echoed} right"}],
              "structuredContent": {"echo": echoed, echoed: 1}}
    masked = json.dumps(mask.apply(result))
    for f in forms(VALUE):
        assert f not in masked
    assert "{{secret:bank_login}}" in masked


@pytest.mark.parametrize("prefix", [b"", b"u", b"us", b"user:"])
def test_base64_of_the_value_inside_more_data_is_masked(prefix: bytes) -> None:
    encoded = base64.b64encode(prefix + VALUE.encode() + b"!trailer").decode()
    masked = Mask({"bank_login": VALUE}).text(f"Authorization: Basic {encoded}")
    # what is left of the value's own characters can be at most the two at each edge
    assert "{{secret:bank_login}}" in masked


def test_secrets_remember_put_in_values_for_every_later_answer() -> None:
    secrets = Secrets(vault())
    assert not secrets.mask
    sent = secrets.put_in({"p": "{{secret:bank_login}}"}, origin=BANK, tool="login", definition_changed=False)
    assert sent == {"p": VALUE}
    assert secrets.mask.apply({"later": f"observe saw {VALUE}"}) == {"later": "observe saw {{secret:bank_login}}"}
    assert secrets.names_for(BANK) == ["bank_login"] and secrets.names_for("https://evil.example") == []


def test_a_value_two_secrets_share_is_masked_by_the_name_used_last() -> None:
    shop = "https://shop.example"
    secrets = Secrets(Vault({"bank_login": (VALUE, {BANK}), "shop_login": (VALUE, {shop})}))
    secrets.put_in({"p": "{{secret:bank_login}}"}, origin=BANK, tool="login", definition_changed=False)
    secrets.put_in({"p": "{{secret:shop_login}}"}, origin=shop, tool="login", definition_changed=False)
    masked = secrets.mask.apply({"echo": f"you typed {VALUE}"})
    assert masked == {"echo": "you typed {{secret:shop_login}}"}  # never the bank's name: the reuse stays unsaid
    assert secrets.mask_for([shop]).apply(f"again {VALUE}") == "again {{secret:shop_login}}"


def test_no_vault_refuses_every_name() -> None:
    with pytest.raises(SecretNotBound):
        Secrets(None).put_in({"p": "{{secret:bank_login}}"}, origin=BANK, tool="t", definition_changed=False)


@settings(max_examples=200, deadline=None)
@given(value=st.text(min_size=4, max_size=40).filter(lambda v: "\n" not in v),
       before=st.text(max_size=20), after=st.text(max_size=20))
def test_no_usual_encoding_of_any_value_survives_the_mask(value: str, before: str, after: str) -> None:
    mask = Mask({"k": value})
    for form in forms(value):
        if len(form) >= 4:
            assert form not in mask.text(before + form + after)


class CountingVault(Vault):
    """A vault that counts the values read, and can be made unreadable (a locked keychain)."""

    def __init__(self, values: dict[str, tuple[str, set[str]]]) -> None:
        super().__init__(values)
        self.reads: list[str] = []
        self.broken = False

    def value(self, name: str) -> str | None:
        self.reads.append(name)
        if self.broken:
            raise OSError("the keychain is locked")
        return super().value(name)


def echoes(value: str) -> dict[str, object]:
    return {"content": [{"type": "text", "text": "kept from before: " + " ".join(forms(value))}],
            "structuredContent": {"echo": forms(value)}}


def test_a_bound_secret_never_put_in_this_run_is_masked_in_its_sites_answers() -> None:
    """A page that stored the value in an earlier run (or the person typed it) echoes it: masked."""
    v = CountingVault(vault().values)
    secrets = Secrets(v)
    masked = json.dumps(secrets.mask_for([BANK]).apply(echoes(VALUE)))
    for form in forms(VALUE):
        assert form not in masked
    assert "{{secret:bank_login}}" in masked
    # several pages at once (observe, analyze): every bound secret
    mixed = json.dumps(secrets.mask_for(None).apply({"a": VALUE, "b": "pin 9876-5432"}))
    assert VALUE not in mixed and "9876-5432" not in mixed and "{{secret:shop_pin}}" in mixed
    # read once per run, from memory afterwards
    for _ in range(3):
        secrets.mask_for([BANK]).apply(echoes(VALUE))
    assert sorted(v.reads) == ["bank_login", "shop_pin"]


def test_another_origins_answer_reads_nothing_and_is_untouched() -> None:
    v = CountingVault(vault().values)
    secrets = Secrets(v)
    answer = {"content": [{"type": "text", "text": "hunter2 & friends, base64 aHVudGVy, 9876"}]}
    mask = secrets.mask_for(["https://news.example"])
    assert mask.apply(answer) == answer and not mask
    assert v.reads == []  # an origin with no secret bound reads no value


def test_an_unreadable_store_masks_nothing_extra_and_logs_once(caplog: pytest.LogCaptureFixture) -> None:
    v = CountingVault(vault().values)
    v.broken = True
    secrets = Secrets(v)
    with caplog.at_level(logging.WARNING, logger="tabmcp.secrets"):
        for _ in range(3):
            answer = secrets.mask_for([BANK]).apply({"text": "ok"})
            assert answer == {"text": "ok"}
    warned = [r for r in caplog.records if "could not be read" in r.getMessage()]
    assert len(warned) == 1 and VALUE not in caplog.text
    assert v.reads == ["bank_login"]  # not asked again on every answer
    # a value put into a call is still masked (put_in read it itself)
    v.broken = False
    secrets.put_in({"p": "{{secret:bank_login}}"}, origin=BANK, tool="login", definition_changed=False)
    assert VALUE not in json.dumps(secrets.mask_for([BANK]).apply({"text": VALUE}))


def test_a_removed_or_unbound_secret_is_no_longer_fetched_nor_masked() -> None:
    v = CountingVault(vault().values)
    secrets = Secrets(v)
    assert VALUE not in secrets.mask_for([BANK]).text(VALUE)
    del v.values["bank_login"]  # tabmcp secrets remove, in another process
    secrets.refresh()  # the shared-state watch noticed
    v.reads.clear()
    assert secrets.mask_for([BANK]).text(VALUE) == VALUE and secrets.mask_for(None).text(VALUE) == VALUE
    assert "bank_login" not in v.reads
    # this bridge's own unbind (the popup) is followed at once
    secrets.unbind("shop_pin", "https://shop.example")
    assert secrets.mask_for(["https://shop.example"]).text("9876-5432") == "9876-5432"


def test_a_secret_bound_later_is_masked_after_the_refresh() -> None:
    v = CountingVault({})
    secrets = Secrets(v)
    assert secrets.mask_for([BANK]).text(VALUE) == VALUE
    v.values["bank_login"] = (VALUE, {BANK})  # tabmcp secrets set, in another process
    secrets.refresh()
    assert VALUE not in secrets.mask_for([BANK]).text(VALUE)


def test_sites_that_cannot_be_read_once_are_read_again_at_the_next_answer() -> None:
    """A locked database at the first answer: that answer goes with nothing extra masked, the next
    one reads the sites again (a passing lock does not leave the rest of the run unmasked)."""

    class LockedOnce(CountingVault):
        locked = True

        def bound_origins(self) -> list[str]:
            if self.locked:
                self.locked = False
                raise OSError("database is locked")
            return super().bound_origins()

    secrets = Secrets(LockedOnce(vault().values))
    assert secrets.mask_for([BANK]).text(VALUE) == VALUE
    assert secrets.mask_for([BANK]).text(VALUE) == "{{secret:bank_login}}"
