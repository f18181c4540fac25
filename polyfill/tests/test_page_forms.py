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
FORMS_JS = "\n".join((EXTENSION / name).read_text() for name in ("protocol.generated.js", "page/channel.js", "page/form_guard.js", "page/forms.js"))

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
window.addEventListener('tabmcp-page', (e) => posted.push(JSON.parse(e.detail)));
dispatchEvent(new CustomEvent('tabmcp-content', { detail: JSON.stringify({ type: 'forms.policy', enabled: true }) }));
await until(() => posted.some((m) => m.type === 'forms' && m.tools.length));
dispatchEvent(new CustomEvent('tabmcp-content', { detail: JSON.stringify({ type: 'form.call', callId: 'c1', tool: 'form_support', arguments: arg.args }) }));
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
        window.addEventListener('tabmcp-page', (e) => posted.push(JSON.parse(e.detail)));
        dispatchEvent(new CustomEvent('tabmcp-content', { detail: JSON.stringify({ type: 'form.call', callId: 'c2', tool: 'form_support', arguments: { name: 'x' } }) }));
        await until(() => posted.some((m) => m.type === 'result'));
        return posted;
    """), {"html": SUPPORT, "js": FORMS_JS})
    assert [m["type"] for m in got] == ["result"]
    assert got[0]["error"]["code"] == "TOOL_NOT_FOUND" and "off" in got[0]["error"]["message"]


# ---- secrets and payment: any language, any open shadow root or same-origin frame, hosted fields ----

SHADOWED = """
document.head.append(Object.assign(document.createElement('script'), { textContent: arg.js }));
document.body.innerHTML = arg.html;
// Shadow roots as components make them, after forms.js (it runs at document_start in the extension).
for (const host of document.querySelectorAll('[data-shadow]')) {
  host.attachShadow({ mode: host.dataset.shadow }).innerHTML = host.dataset.inner;
}
if (arg.define) {
  customElements.define('x-card-field', class extends HTMLElement { static formAssociated = true; });
}
return window[Symbol.for('tabmcp.pageForms')].describe();
"""


async def describe_shadowed(tab: Any, html: str, define: bool = False) -> dict[str, Any]:
    return await tab.js(script(SHADOWED), {"html": html, "js": FORMS_JS, "define": define})


def skipped_of(got: dict[str, Any]) -> dict[str, str]:
    return {s["form"]: s["reason"] for s in got["skipped"]}


async def test_card_and_password_fields_in_other_languages_or_just_card_are_never_offered(tab):
    html = """
    <form id=de><label>Kartennummer <input name=f1></label><button>Zahlen</button></form>
    <form id=fr><label for=x>Numéro de carte</label><input id=x name=f2><button>Payer</button></form>
    <form id=es><input name=f3 placeholder="Número de tarjeta"><button>Pagar</button></form>
    <form id=ja><input name=f4 aria-label="カード番号"><button>支払う</button></form>
    <form id=card><label>Card <input name=f5></label><button>Go</button></form>
    <form id=nolabel><span>Kreditkartennummer</span> <input name=f6><button>Weiter</button></form>
    <form id=pw_de><label>Passwort <input name=f7></label><button>Anmelden</button></form>
    <form id=pw_ja><label>パスワード <input name=f8></label><button>ログイン</button></form>
    <form id=masked><label>Code <input name=f9 style="-webkit-text-security: disc"></label><button>OK</button></form>
    <form id=shape><label>Nummer <input name=n1 placeholder="1234 1234 1234 1234"></label><button>OK</button></form>
    <form id=digits><label>Nummer <input name=n2 inputmode=numeric pattern="[0-9]{13,19}"></label><button>OK</button></form>
    <form id=expiry_de><label>Gültig <input name=n3 placeholder="MM/JJ"></label><button>OK</button></form>
    <form id=ok_de><label>Ihr Name <input name=name></label><label>Stadt <input name=city></label><button>Senden</button></form>
    <form id=ok_es><label>Palabra clave <input name=q></label><button>Buscar</button></form>
    """
    got = await describe(tab, html)
    skipped = skipped_of(got)
    for form in ("#de", "#fr", "#es", "#ja", "#card", "#nolabel", "#shape", "#digits", "#expiry_de"):
        assert skipped.get(form) == "it has a payment field", (form, skipped)
    for form in ("#pw_de", "#pw_ja"):
        assert skipped.get(form) == "it has a password, PIN or one-time code field", (form, skipped)
    assert skipped["#masked"].startswith("it has a masked field")
    assert "#ok_de" not in skipped and "#ok_es" not in skipped and len(got["tools"]) == 2


async def test_a_password_in_a_shadow_root_or_a_field_it_cannot_see_into_refuses_the_form(tab):
    html = """
    <form id=open_root><input name=user><x-pass data-shadow=open data-inner="<input type=password name=pass>"></x-pass><button>Sign in</button></form>
    <form id=open_label><input name=user2><x-pin data-shadow=open data-inner="<label>PIN <input name=pin2></label>"></x-pin><button>Go</button></form>
    <form id=closed_root><input name=user3><x-pass data-shadow=closed data-inner="<input type=password>"></x-pass><button>Sign in</button></form>
    <form id=fac><input name=user4><x-card-field name=card4></x-card-field><button>Go</button></form>
    <form id=same_origin_frame><input name=user5><iframe srcdoc="<input type=password name=p5>"></iframe><button>Go</button></form>
    <form id=fine><input name=topic><x-note data-shadow=open data-inner="<b>no fields here</b>"></x-note><button>Go</button></form>
    """
    got = await tab.js(script(SHADOWED.replace(
        "return window", "await until(() => document.querySelector('#same_origin_frame iframe').contentDocument?.querySelector('input'));\nreturn window")),
        {"html": html, "js": FORMS_JS, "define": True})
    skipped = skipped_of(got)
    assert skipped["#open_root"] == "it has a password field"
    assert skipped["#open_label"] == "it has a password, PIN or one-time code field"
    assert skipped["#closed_root"] == "it has a part whose inside the page keeps closed (a closed shadow root)"
    assert skipped["#fac"] == "it has a field whose inside cannot be seen (<x-card-field>)"
    assert skipped["#same_origin_frame"] == "it has a password field"
    assert [t["name"] for t in got["tools"]] == ["form_fine"]


async def test_a_checkout_with_a_hosted_card_field_of_another_site_is_never_offered(tab):
    # The hosted-field pattern (Stripe Elements and the like): the card number lives in a frame of
    # the payment provider's origin, where the page script cannot look.
    other = "http://127.0.0.1:9"
    html = f"""
    <section><h2>Checkout</h2>
      <form id=inside action=/pay method=post><label>Email <input name=email></label>
        <div id=card-element><iframe src="{other}/elements-inner-card" title="Secure card payment input frame"></iframe></div>
        <button>Pay now</button></form></section>
    <section><h2>Payment</h2><div class=row>
      <form id=beside action=/charge method=post><label>Name <input name=who></label><button>Place order</button></form>
      <div id=card-mount><iframe src="{other}/card" name=__privateStripeFrame5"></iframe></div></div></section>
    <section><h2>Newsletter</h2><form id=news><label>Email <input name=mail></label><button>Subscribe</button></form></section>
    <aside><iframe src="{other}/video" title="Our shop tour"></iframe></aside>
    <form id=sandboxed><input name=x><iframe sandbox srcdoc="<p>ad</p>"></iframe><button>Go</button></form>
    """
    got = await describe(tab, html)
    skipped = skipped_of(got)
    assert skipped["#inside"] == "it holds a frame of another site, whose fields cannot be checked (a hosted card field?)"
    assert skipped["#beside"] == "it takes a payment beside a frame of another site, whose fields cannot be checked (a hosted card field?)"
    assert skipped["#sandboxed"].startswith("it holds a frame of another site")
    assert [t["name"] for t in got["tools"]] == ["form_newsletter"]  # a video elsewhere on the page is no card field


async def test_a_form_that_sends_to_another_site_says_so(tab):
    html = """<h2>Feedback</h2><form id=f action="http://127.0.0.1:9/collect" method=post>
      <input name=comment><button>Send</button></form>
      <h2>Search</h2><form id=g action="/search"><input name=q><button formaction="https://collector.example/q">Go</button></form>
      <h2>Local</h2><form id=h action="/contact" method=post><input name=msg><button>Send</button></form>"""
    got = await describe(tab, html)
    described = {t["name"]: t["description"] for t in got["tools"]}
    assert described["form_feedback"].endswith("Sends POST to http://127.0.0.1:9/collect \u2014 another site.")
    assert described["form_search"].endswith("Sends GET to https://collector.example/q \u2014 another site.")
    assert described["form_local"].endswith("Sends POST to /contact.")


async def test_the_page_script_and_the_bridge_read_fields_alike(tab):
    from tabmcp.core.sensitive_fields import normalize, said

    samples = ["Kartennummer", "Numéro de carte", "Número de tarjeta", "カード番号", "Card", "cardNumber", "CVC",
               "Passwort", "パスワード", "비밀번호", "密码", "İstanbul", "Ünïcödé  — spaced", "Your name", "Palabra clave",
               "Gift card", "postcard", "e-mail", "ZIP/Postleitzahl", "κάρτα", "номер карты", "Şifre", "mfaCode"]
    got = await tab.js(script("""
        document.head.append(Object.assign(document.createElement('script'), { textContent: arg.js }));
        const api = window[Symbol.for('tabmcp.pageForms')];
        return arg.samples.map((t) => [api.normalize(t), api.classify(t)]);
    """), {"js": FORMS_JS, "samples": samples})
    kinds = {"a payment field": "payment", "a password, PIN or one-time code field": "secret", None: ""}
    assert got == [[normalize(t), kinds[said(t)]] for t in samples]


async def test_a_hosted_card_field_mounted_or_navigated_later_withdraws_the_form(tab):
    # Switch on, the checkout is offered; then the provider's script mounts its frame (a mutation),
    # or a frame inside the form is sent to another origin by script (only its load says so).
    got = await tab.js(script("""
        document.body.innerHTML = arg.html;
        document.head.append(Object.assign(document.createElement('script'), { textContent: arg.js }));
        const posted = [];
        window.addEventListener('tabmcp-page', (e) => posted.push(JSON.parse(e.detail)));
        const offered = () => (posted.filter((m) => m.type === 'forms').at(-1)?.tools || []).map((t) => t.name);
        dispatchEvent(new CustomEvent('tabmcp-content', { detail: JSON.stringify({ type: 'forms.policy', enabled: true }) }));
        await until(() => offered().length === 2);
        const before = offered();
        const frame = document.createElement('iframe');
        frame.src = 'http://127.0.0.1:9/elements-inner-card';
        document.getElementById('mount').append(frame);
        await until(() => !offered().includes('form_checkout'), 8000);
        const mounted = offered();
        document.querySelector('#later iframe').contentWindow.location.href = 'http://127.0.0.1:9/moved';
        await until(() => !offered().includes('form_later'), 8000);
        return { before, mounted, after: offered() };
    """), {"js": FORMS_JS, "html": """
        <section><h2>Checkout</h2><div><form id=checkout action=/pay method=post><input name=email>
          <button>Pay now</button></form><div id=mount></div></div></section>
        <section><h2>Later</h2><form id=later><input name=q><iframe srcdoc="<p>hi</p>"></iframe><button>Go</button></form></section>"""})
    assert sorted(got["before"]) == ["form_checkout", "form_later"]
    assert got["mounted"] == ["form_later"]
    assert got["after"] == []
