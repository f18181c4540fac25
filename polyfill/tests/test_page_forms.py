# ruff: noqa: E501  (the test bodies are JavaScript and HTML, kept dense on purpose)
"""The extension's page forms (extension/page/forms.js): naming, schema and exclusion rules.

Run in real Chromium in both modes (polyfill alone, and over native WebMCP), with the polyfill
loaded as the extension loads it and forms.js after it. The schema comes from the polyfill's one
builder (``hook.forms.schema``), the same one declarative ``<form toolname>`` tools use.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from webmcp_testlib import script

EXTENSION = Path(__file__).resolve().parents[2] / "extension"
# As manifest.json injects it: the generated names (wire types, error codes, a copy of
# messages.js) first, then the page script.
FORMS_JS = (EXTENSION / "protocol.generated.js").read_text() + "\n" + (EXTENSION / "page" / "forms.js").read_text()

PAGE = """
<h1>Acme</h1>
<section><h2>Contact us</h2>
  <form id=contact action="/contact" method=post>
    <input type=hidden name=csrf value=t>
    <label for=n>Your name</label><input id=n name=name required>
    <label for=e>Email</label><input id=e name=email type=email required>
    <textarea name=message placeholder="How can we help?"></textarea>
    <input name=website style="display:none">
    <input type=file name=attachment>
    <button>Send message</button>
  </form></section>
<form id=login><h3>Sign in</h3><input name=user><input type=password name=pw><button>Sign in</button></form>
<form id=cc1><input name=n1 autocomplete="cc-name"><button>Pay</button></form>
<form id=cc2><label>Card number <input name=num></label><button>Pay</button></form>
<form id=cc3><input name=cardNumber><button>Pay</button></form>
<form id=cvv><input name=card_cvc placeholder="CVC"><button>Pay</button></form>
<form id=iban><label>IBAN <input name=acct></label><button>Transfer</button></form>
<form id=otp><input name=code autocomplete="one-time-code"><button>Verify</button></form>
<form id=file><input type=file name=cv required><input name=who><button>Apply</button></form>
<form id=declared toolname=declared_form tooldescription="The site's own tool"><input name=x><button>Go</button></form>
<form id=dialog method=dialog><input name=y><button>Close</button></form>
<form id=empty action=/logout><button>Log out</button></form>
<form id=unseen style="display:none"><input name=z><button>Hidden</button></form>
<form id=labelled aria-label="Newsletter signup"><input name=mail type=email><button>Subscribe</button></form>
<form id=legend><fieldset><legend>Shipping address</legend><input name=street></fieldset><button>Save</button></form>
<section><h2>Contact us</h2><form id=contact2><input name=subject><button>Send</button></form></section>
<form id=greek><h3>Επικοινωνία</h3><input name=q><button>Αναζήτηση</button></form>
<form id=named name="quickSearchForm"><input name=term><button>Go</button></form>
"""

DESCRIBE = """
document.body.innerHTML = arg.html;
const s = document.createElement('script'); s.textContent = arg.js; document.head.append(s);
return window[Symbol.for('tabmcp.pageForms')].describe();
"""


async def describe(tab: Any, html: str = PAGE) -> dict[str, Any]:
    return await tab.js(script(DESCRIBE), {"html": html, "js": FORMS_JS})


async def test_names_descriptions_and_what_is_left_out(tab):
    got = await describe(tab)
    tools = {t["name"]: t for t in got["tools"]}
    # Readable, stable (from what the form says, not its position) and unique (a repeat gets _2).
    assert list(tools) == ["form_contact_us", "form_newsletter_signup", "form_shipping_address", "form_contact_us_2",
                           "form_greek", "form_quick_search"]
    skipped = {s["form"]: s["reason"] for s in got["skipped"]}
    assert skipped == {
        "#login": "it has a password field",
        "#cc1": "it has a payment card field",
        "#cc2": "it has a payment field",
        "#cc3": "it has a payment field",
        "#cvv": "it has a payment field",
        "#iban": "it has a payment field",
        "#otp": "it has a password or one-time code field",
        "#file": "it requires a file",
        "#declared": "a WebMCP form: the site offers it itself",
        "#dialog": "a dialog form submits nothing",
        "#empty": "nothing to fill in",
        "#unseen": "not shown to the person",
    }
    contact = tools["form_contact_us"]
    assert contact["title"] == "Contact us"
    assert contact["description"] == (
        "The page's form \u201cContact us\u201d: fills it in and submits it (its button: \u201cSend message\u201d). "
        "Sends POST to /contact.")
    schema = contact["inputSchema"]
    # No hidden field, no file, no control a person cannot see (the spam trap); the rest as the
    # declarative builder makes them, with the placeholder as a fallback description.
    assert list(schema["properties"]) == ["name", "email", "message"]
    assert schema["required"] == ["name", "email"]
    assert schema["properties"]["name"] == {"type": "string", "description": "Your name"}
    assert schema["properties"]["email"]["pattern"].startswith("^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@")
    assert schema["properties"]["message"] == {"type": "string", "description": "How can we help?"}
    # A title without Latin letters names the tool from the button, else the form's name or id.
    assert tools["form_greek"]["title"] == "Επικοινωνία"
    assert tools["form_quick_search"]["title"] == "quick search"
    assert tools["form_shipping_address"]["description"].startswith("The page's form \u201cShipping address\u201d")


async def test_the_schema_is_the_declarative_builders(tab):
    html = """<form id=f><label for=a>Age</label><input id=a name=age type=number min=1 max=99 required>
      <select name=size><option value=s>Small</option><option value=l>Large</option></select>
      <input type=checkbox name=gift><input name=day type=date><button>Order</button></form>"""
    got = await describe(tab, html)
    same = await tab.js(script("return hook.forms.schema(document.getElementById('f'));"))
    ours = got["tools"][0]["inputSchema"]
    strip = lambda schema: {k: {f: v for f, v in p.items() if f != "description"} for k, p in schema["properties"].items()}  # noqa: E731
    assert strip(ours) == strip(same) and ours["required"] == same["required"] == ["age"]
    # The builder's descriptions are kept; page forms only add one where it has none (from the name here).
    assert ours["properties"]["age"]["description"] == same["properties"]["age"]["description"] == "Age"
    assert ours["properties"]["day"]["description"] == same["properties"]["day"]["description"]
    assert "description" not in same["properties"]["gift"] and ours["properties"]["gift"]["description"] == "gift"
    assert same["properties"]["size"]["enum"] == ["s", "l"] and same["properties"]["gift"] == {"type": "boolean"}


CALL = """
document.body.innerHTML = arg.html;
const s = document.createElement('script'); s.textContent = arg.js; document.head.append(s);
window.sent = [];
const form = document.getElementById('f');
if (arg.prevent) form.addEventListener('submit', (e) => { e.preventDefault(); window.sent.push(Object.fromEntries(new FormData(form))); setTimeout(() => { document.getElementById('out').textContent = 'Thanks ' + new FormData(form).get('name'); }, 50); });
const posted = [];
window.addEventListener('message', (e) => { if (e.data && e.data.__tabmcp === 'page') posted.push(e.data.msg); });
window.postMessage({ __tabmcp: 'content', msg: { type: 'forms.policy', enabled: true } }, '*');
await until(() => posted.some((m) => m.type === 'forms' && m.tools.length));
window.postMessage({ __tabmcp: 'content', msg: { type: 'form.call', callId: 'c1', tool: 'form_support', arguments: arg.args } }, '*');
await until(() => posted.some((m) => m.type === 'result'), 8000);
return { result: posted.find((m) => m.type === 'result'), sent: window.sent, forms: posted.find((m) => m.type === 'forms').tools.map((t) => t.name) };
"""

SUPPORT = """<h2>Support</h2><form id=f action="/blank.html" target=sink method=get>
  <input name=name required><input name=email type=email><button>Send</button></form>
  <p id=out role=status></p><iframe name=sink></iframe>"""


async def test_a_call_fills_submits_and_returns_what_the_page_shows(tab):
    got = await tab.js(script(CALL), {"html": SUPPORT, "js": FORMS_JS, "prevent": True,
                                      "args": {"name": "Ada", "email": "ada@example.com"}})
    assert got["forms"] == ["form_support"]
    assert got["sent"] == [{"name": "Ada", "email": "ada@example.com"}]
    result = got["result"]
    assert result["ok"] and result["callId"] == "c1"
    assert result["result"]["structuredContent"] == {"submitted": True, "handledByPage": True, "response": "Thanks Ada"}


async def test_a_submission_the_page_does_not_stop_is_reported_as_a_navigation(tab):
    got = await tab.js(script(CALL), {"html": SUPPORT, "js": FORMS_JS, "prevent": False, "args": {"name": "Ada"}})
    data = got["result"]["result"]["structuredContent"]
    assert data == {"submitted": True, "navigates": True, "action": "/blank.html", "method": "GET"}


async def test_values_the_form_refuses_come_back_as_a_named_error(tab):
    got = await tab.js(script(CALL), {"html": SUPPORT, "js": FORMS_JS, "prevent": True, "args": {"email": "ada@example.com"}})
    result = got["result"]
    assert not result["ok"] and result["error"]["code"] == "VALIDATION_ERROR" and "name:" in result["error"]["message"]
    assert got["sent"] == []


async def test_nothing_is_described_or_run_while_the_switch_is_off(tab):
    got = await tab.js(script("""
        document.body.innerHTML = arg.html;
        const s = document.createElement('script'); s.textContent = arg.js; document.head.append(s);
        const posted = [];
        window.addEventListener('message', (e) => { if (e.data && e.data.__tabmcp === 'page') posted.push(e.data.msg); });
        window.postMessage({ __tabmcp: 'content', msg: { type: 'form.call', callId: 'c2', tool: 'form_support', arguments: { name: 'x' } } }, '*');
        await until(() => posted.some((m) => m.type === 'result'));
        return posted;
    """), {"html": SUPPORT, "js": FORMS_JS})
    assert [m["type"] for m in got] == ["result"]
    assert got[0]["error"]["code"] == "TOOL_NOT_FOUND" and "off" in got[0]["error"]["message"]
