"""Defence-in-depth redaction: headers, bodies, URLs, free text, card numbers, passwords."""

from __future__ import annotations

import json

import pytest
from tabmcp.core.telemetry import BufferKind, RedactionSettings
from tabmcp.core.telemetry.redact import Redactor, luhn_valid

from .factory import ORIGIN, action, batch, console, error, make_store, nav, request, ws

R = "[REDACTED]"
JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"


@pytest.fixture
def redactor() -> Redactor:
    return Redactor()


def test_secret_headers_lose_their_values(redactor: Redactor) -> None:
    out = redactor.headers(
        {
            "Authorization": "Bearer abc.def.ghi",
            "Cookie": "session=s3cr3t",
            "Set-Cookie": "id=1; HttpOnly",
            "X-Api-Key": "k-123",
            "X-CSRF-Token": "t",
            "Proxy-Authorization": "Basic Zm9vOmJhcg==",
            "Content-Type": "application/json",
            "Accept": "*/*",
        }
    )
    assert out == {
        "Authorization": R,
        "Cookie": R,
        "Set-Cookie": R,
        "X-Api-Key": R,
        "X-CSRF-Token": R,
        "Proxy-Authorization": R,
        "Content-Type": "application/json",
        "Accept": "*/*",
    }


def test_urls_lose_secret_query_params_and_passwords(redactor: Redactor) -> None:
    url = "https://user:hunter2@api.test/v1/items?page=2&access_token=abc123&api_key=zzz&q=shoes&sig=ff"
    out = redactor.url(url)
    assert "hunter2" not in out and "abc123" not in out and "zzz" not in out and "sig=ff" not in out
    assert (
        "page=2" in out and "q=shoes" in out and out.startswith("https://user:[REDACTED]@api.test/v1/items?")
    )
    # OAuth implicit flow puts the token in the fragment.
    assert redactor.url("https://app.test/cb#access_token=s3cr3t&state=1") == (
        "https://app.test/cb#access_token=[REDACTED]&state=1"
    )
    # Hash routes keep their path; only their query is touched.
    assert redactor.url("https://app.test/#/people?token=abc") == "https://app.test/#/people?token=[REDACTED]"
    assert redactor.url("https://app.test/#/people/42") == "https://app.test/#/people/42"


def test_json_bodies_keep_shape_and_lose_secret_fields(redactor: Redactor) -> None:
    body = json.dumps(
        {
            "user": {"email": "a@b.test", "password": "hunter2", "newPassword": "x", "apiKey": "k"},
            "card": {"cardNumber": "4111111111111111", "cvv": "123", "note": "paid with 5500 0000 0000 0004"},
            "items": [{"id": 4111111111111111, "qty": 2}],
            "token": None,
        }
    )
    out = json.loads(redactor.body(body, "application/json") or "")
    assert out["user"] == {"email": "a@b.test", "password": R, "newPassword": R, "apiKey": R}
    assert out["card"] == {"cardNumber": R, "cvv": R, "note": f"paid with {R}"}
    assert out["items"] == [{"id": R, "qty": 2}]  # a Luhn-valid card-shaped number, even as a JSON number
    assert out["token"] is None


def test_bodies_without_secrets_keep_their_formatting(redactor: Redactor) -> None:
    body = '{\n  "id": 42,\n  "name": "Ada"\n}'
    assert redactor.body(body, "application/json") == body


def test_form_and_text_bodies(redactor: Redactor) -> None:
    assert redactor.body("user=ada&password=hunter2&remember=1", "application/x-www-form-urlencoded") == (
        f"user=ada&password={R}&remember=1"
    )
    text = f"login ok, Authorization: Bearer {JWT} password=hunter2 key sk-ant-api03-abcdefghijklmnopqrstuv"
    out = redactor.body(text) or ""
    assert JWT not in out and "hunter2" not in out and "sk-ant" not in out
    assert out.startswith("login ok")
    truncated = '{"password": "hunter2", "items": [1, 2'  # not parseable: patterns still apply
    assert "hunter2" not in (redactor.body(truncated, "application/json") or "")


@pytest.mark.parametrize(
    ("text", "redacted"),
    [
        ("Visa 4111 1111 1111 1111 paid", True),
        ("Amex 3782-822463-10005", True),
        ("Mastercard 5500000000000004", True),
        ("order 4111111111111112 (fails Luhn)", False),
        ("snowflake id 1234567890123456789", False),  # Luhn may pass, no card prefix
        ("phone 0044 20 7946 0958", False),
        ("AWS AKIAIOSFODNN7EXAMPLE", True),
        ("github ghp_abcdefghijklmnopqrstuvwxyz0123456789AB", True),
        ("slack xoxb-1234567890-abcdefghij", True),
        ("stripe sk_live_abcdefghijklmnop", True),
        ("google AIzaSyA-abcdefghijklmnopqrstuvwxyz01234", True),
        (f"jwt {JWT}", True),
        ('{"password": "hunter2"}', True),
        ("nothing to see here: page 3 of 10", False),
    ],
)
def test_free_text_patterns(redactor: Redactor, text: str, redacted: bool) -> None:
    out = redactor.text(text)
    assert (R in out) is redacted, out


def test_luhn() -> None:
    assert luhn_valid("4111111111111111") and luhn_valid("378282246310005")
    assert not luhn_valid("4111111111111112")


def test_redaction_is_idempotent(redactor: Redactor) -> None:
    text = f"password=hunter2 Bearer {JWT} 4111 1111 1111 1111"
    once = redactor.text(text)
    assert redactor.text(once) == once
    url = "https://x.test/?token=abc&a=1"
    assert redactor.url(redactor.url(url)) == redactor.url(url)


def test_ingest_redacts_every_event_kind() -> None:
    store = make_store()
    store.ingest(
        batch(
            [
                nav(0, url=f"{ORIGIN}/reset?token=abc123"),
                console(1, f"auth header Bearer {JWT}", source=f"{ORIGIN}/app.js?sig=zz"),
                error(2, "card 4111111111111111 declined", stack="at pay (app.js:1)\npassword=hunter2"),
                request(
                    3,
                    "/api/login?api_key=zzz",
                    method="POST",
                    request_headers={
                        "Authorization": "Basic Zm9vOmJhcg==",
                        "Content-Type": "application/json",
                    },
                    request_body={"email": "a@b.test", "password": "hunter2"},
                    response_body={"token": "t0ken", "user": {"id": 1}},
                    response_headers={"set-cookie": "sid=abc", "content-type": "application/json"},
                ),
                ws(4, "c1", "message", direction="out", data='{"type":"auth","token":"t0ken"}'),
                action(5, "input", value="hunter2", label="Password", css="#pw"),
                action(6, "input", value="4111 1111 1111 1111", label="Pay with", css="#pay"),
                action(7, "input", value="ada", label="Name", css="#name"),
            ],
            url=f"{ORIGIN}/reset?token=abc123",
        )
    )
    dump = json.dumps(store.export_snapshot())
    for secret in (
        "abc123",
        JWT,
        "4111111111111111",
        "hunter2",
        "zzz",
        "Zm9vOmJhcg",
        "t0ken",
        "sid=abc",
        "sig=zz",
    ):
        assert secret not in dump, secret
    assert store.tab(1).url == f"{ORIGIN}/reset?token={R}"  # type: ignore[union-attr]
    values = [e.event.value for e in store.buffers.entries(BufferKind.ACTIONS)]
    assert values == [R, R, "ada"]


def test_redaction_rules_are_configurable() -> None:
    custom = Redactor(
        RedactionSettings(keys=["ssn"], exact_keys=[], patterns=[r"\bEMP-\d{6}\b"], card_numbers=False)
    )
    assert custom.text("employee EMP-123456 card 4111111111111111") == f"employee {R} card 4111111111111111"
    assert json.loads(custom.body('{"ssn": "1", "password": "p"}') or "") == {"ssn": R, "password": "p"}
    with pytest.raises(ValueError, match="regular expression"):
        RedactionSettings(patterns=["(unclosed"])
