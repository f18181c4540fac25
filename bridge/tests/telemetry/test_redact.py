"""Defence-in-depth redaction: headers, bodies, URLs, free text, card numbers, passwords."""

from __future__ import annotations

import json
from typing import Any

import pytest
from tabmcp.core.telemetry import BufferKind, RedactionSettings
from tabmcp.core.telemetry.errors import InvalidTelemetryArguments
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


# -- issue 30 item 11: the shapes that reached observe unredacted -------------------------------

PEM = (
    "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun\n"
    "VTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK\n-----END RSA PRIVATE KEY-----"
)
SLACK_HOOK = "https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX"
S3_URL = (
    "https://bucket.s3.amazonaws.com/report.pdf?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Date=20260101T000000Z"
    "&X-Amz-Signature=0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0"
)
GCS_URL = "https://storage.googleapis.com/b/o?X-Goog-Date=20260101&X-Goog-Signature=a1b2c3d4e5f60718293a4b5c6d7e8f90"
SAS_URL = "https://acct.blob.core.windows.net/c/f.txt?sv=2022-11-02&se=2026-01-01&sp=r&sig=Zm9vYmFyYmF6cXV4JTJGJTNE"


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("login passcode=981276 ok", "981276"),
        ("pw=hunter2 sent", "hunter2"),
        ('{"mfa_code": "493817"', "493817"),  # truncated JSON: the text rule still applies
        ("mfa-code: 493817", "493817"),
        ("Ocp-Apim-Subscription-Key: 3f2a9c1d8e7b4a60b5c4d3e2f1a09b8c", "3f2a9c1d8e7b4a60b5c4d3e2f1a09b8c"),
        ("X-Amz-Signature: 0f1e2d3c4b5a6978", "0f1e2d3c4b5a6978"),
        (f"GET {S3_URL} 200", "0f1e2d3c4b5a69788796a5b4c3d2e1f0"),
        (f"GET {GCS_URL} 200", "a1b2c3d4e5f60718293a4b5c6d7e8f90"),
        (f"upload to {SAS_URL}", "Zm9vYmFyYmF6cXV4JTJGJTNE"),
        (f"key loaded: {PEM} done", "MIIEpAIBAAKCAQEAu1SU1"),
        ("-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC (log cut here", "MIIEvQIBADANBgkqhkiG9w0"),
        ('"-----BEGIN OPENSSH PRIVATE KEY-----\\nb3BlbnNzaC1rZXktdjEAAAAA\\n-----END OPENSSH PRIVATE KEY-----"',
         "b3BlbnNzaC1rZXktdjEAAAAA"),
        ("webhook secret whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"),
        (f"posting to {SLACK_HOOK}", "XXXXXXXXXXXXXXXXXXXXXXXX"),
        ("https://discord.com/api/webhooks/123456789012345678/AbCdEfGhIjKlMnOpQrStUvWxYz012345", "AbCdEfGhIjKlMnOp"),
        ("card 4111\u00a01111\u00a01111\u00a01111 charged", "1111\u00a01111"),
        ("card 4111\u202f1111\u202f1111\u202f1111 charged", "1111\u202f1111"),
        ("card 4111\u20091111\u20091111\u20091111 charged", "1111\u20091111"),
        ("card 4111\u200b1111\u200b1111\u200b1111 charged", "1111\u200b1111"),
        ("card 5500\u20070000-0000\u00a00004", "0000-0000"),
    ],
)
def test_issue_30_secret_shapes_in_free_text(redactor: Redactor, text: str, secret: str) -> None:
    out = redactor.text(text)
    assert secret not in out and R in out, out
    assert redactor.text(out) == out  # idempotent


@pytest.mark.parametrize(
    "text",
    [
        "pin the tab to keep it",
        "spinner=3 loading",
        "email signature saved",
        "a pwa install prompt",
        "zipcode=12345&monkey=1",
        "order 4111\u00a01111\u00a01111\u00a01112 (fails Luhn)",
        "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA\n-----END PUBLIC KEY-----",
        "https://example.test/search?q=sig&page=2",
    ],
)
def test_issue_30_lookalikes_are_left_alone(redactor: Redactor, text: str) -> None:
    assert redactor.text(text) == text


def test_issue_30_secret_keys_in_json_forms_urls_and_headers(redactor: Redactor) -> None:
    body = json.dumps({"passcode": "981276", "mfa_code": "493817", "pw": "hunter2", "pin": "1234",
                       "totp": "123456", "securityCode": "737", "user": "ada", "spin": 3})
    assert json.loads(redactor.body(body, "application/json") or "") == {
        "passcode": R, "mfa_code": R, "pw": R, "pin": R, "totp": R, "securityCode": R, "user": "ada", "spin": 3,
    }
    assert redactor.body("user=ada&pw=hunter2&mfaCode=493817", "application/x-www-form-urlencoded") == (
        f"user=ada&pw={R}&mfaCode={R}"
    )
    for url, secret in ((S3_URL, "0f1e2d3c"), (GCS_URL, "a1b2c3d4"), (SAS_URL, "Zm9vYmFy")):
        out = redactor.url(url)
        assert secret not in out and R in out, out
    assert "X-Amz-Date=20260101T000000Z" in redactor.url(S3_URL)  # the rest of the URL stays readable
    headers = redactor.headers({"Ocp-Apim-Subscription-Key": "3f2a9c", "X-Goog-Signature": "a1b2",
                                "X-Amz-Signature": "0f1e", "Accept": "*/*"})
    assert headers == {"Ocp-Apim-Subscription-Key": R, "X-Goog-Signature": R, "X-Amz-Signature": R, "Accept": "*/*"}


def test_every_default_pattern_is_behind_the_pages_gate() -> None:
    """The page skips the default patterns on text its gate does not match: every shape above must match it."""
    import re

    from tabmcp.core.telemetry.settings import DEFAULT_PATTERN_GATE

    gate = re.compile(DEFAULT_PATTERN_GATE)
    shapes = [
        "passcode=1", "pw=1", "mfa_code: 1", "Ocp-Apim-Subscription-Key: 1", "X-Amz-Signature: 1",
        S3_URL, GCS_URL, SAS_URL, PEM, "whsec_MfKQ9r8GKYqrTwjUPD8I", SLACK_HOOK,
        "https://discord.com/api/webhooks/1/abc",
    ]
    for shape in shapes:
        assert gate.search(shape), shape


def test_an_action_value_is_dropped_by_the_page_s_own_field_rule() -> None:
    """The bridge re-runs the page's secret-field steps on what an action carries (sensitive_field):
    a Luhn-valid run of 13 to 19 digits goes whatever its first digits, as in the page."""
    store = make_store()
    store.ingest(batch([action(1, "input", value="1234 5678\u20601234 5670", label="Member no", css="#m"),
                        action(2, "input", value="1234 5678 1234 5671", label="Member no", css="#m")]))
    values = [e.event.value for e in store.buffers.entries(BufferKind.ACTIONS)]
    assert values == [R, "1234 5678 1234 5671"]


def test_a_long_run_of_digits_as_a_json_key_is_no_array_index(redactor: Redactor) -> None:
    """int() refuses a string of over 4,300 digits: such a key must not take the body's batch down."""
    key = "9" * 5000
    out = json.loads(redactor.body(json.dumps({key: 1, "password": "x"})) or "")
    assert out == {key: 1, "password": "[REDACTED]"}


def test_an_audit_nested_past_the_depth_rule_is_refused_by_name(redactor: Redactor) -> None:
    deep: Any = "x"
    for _ in range(70):
        deep = [deep]
    with pytest.raises(InvalidTelemetryArguments):
        redactor.audit({"violations": [], "x": deep})
