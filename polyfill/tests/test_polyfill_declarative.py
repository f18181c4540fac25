# ruff: noqa: E501  (the test bodies are JavaScript, kept dense on purpose)
"""Declarative tools: ``<form toolname tooldescription [toolautosubmit]>``.

The same scripts run natively (Chromium 156 with ``--enable-features=WebMCP``, no polyfill) and with
the polyfill alone; where the two agree the test requires identical results.
"""

from __future__ import annotations

import asyncio
import copy
import json
from typing import Any

from webmcp_testlib import script

FERRY_FORM = """
<form id=f toolname="book_ferry" tooldescription="Book a ferry crossing" toolautosubmit action="/blank.html" target=sink>
  <label for=who>Your name</label><input id=who name=who required>
  <input name=email type=email toolparamdescription="Where we send the tickets">
  <input name=seats type=number min=1 max=9>
  <input name=day type=date required>
  <input name=cabin type=checkbox>
  <label><input name=deck type=radio value=upper>Upper deck</label>
  <label><input name=deck type=radio value=lower>Lower deck</label>
  <select name=port><option value=ath>Athens</option><option value=her>Heraklion</option></select>
  <select name=extras multiple><option value=meal>Meal</option><option value=wifi>Wi-Fi</option></select>
  <textarea name=notes></textarea>
  <input type=hidden name=token value=secret>
  <button id=go>Book</button>
</form>
<iframe name=sink></iframe>
"""

# Adds FERRY_FORM and waits for its tool (native registers forms on its own, the polyfill through
# its MutationObserver).
ADD_FORM = """
const holder = document.createElement('div');
holder.innerHTML = arg.html;
document.body.append(holder);
const form = holder.querySelector('form');
const waitTool = async (name) => { for (;;) { const t = await find(name); if (t) return t; await new Promise((r) => mc.addEventListener('toolchange', r, { once: true })); } };
"""


async def both(open_page: Any, body: str, arg: Any) -> tuple[Any, Any]:
    native = await open_page("native")
    ours = await open_page("polyfill")
    await ours.load_polyfill()
    return tuple(await asyncio.gather(native.js(script(ADD_FORM + body), arg), ours.js(script(ADD_FORM + body), arg)))  # type: ignore[return-value]


def _without(schema: dict[str, Any], drop: dict[str, list[str]]) -> dict[str, Any]:
    out = copy.deepcopy(schema)
    for prop, keys in drop.items():
        for key in keys:
            out["properties"][prop].pop(key, None)
    return out


async def test_schema_from_the_controls_matches_native(open_page: Any) -> None:
    native, ours = await both(open_page, """
        const t = await waitTool('book_ferry');
        return { name: t.name, description: t.description, title: t.title, schema: t.inputSchema, annotations: t.annotations ?? null };
    """, {"html": FERRY_FORM})
    assert native["description"] == "Book a ferry crossing"
    props = native["schema"]["properties"]
    assert set(props) == {"who", "email", "seats", "day", "cabin", "deck", "port", "extras", "notes"}  # no hidden
    assert native["schema"]["required"] == ["who", "day"]
    assert props["deck"]["enum"] == ["upper", "lower"] and props["extras"]["type"] == "array"
    # Where the polyfill goes further (documented in docs/polyfill.md): an email pattern.
    assert ours["schema"]["properties"]["email"]["pattern"].startswith("^[a-zA-Z0-9.!#$%&")
    assert _without(ours["schema"], {"email": ["pattern"]}) == native["schema"]
    assert {k: v for k, v in ours.items() if k != "schema"} == {k: v for k, v in native.items() if k != "schema"}


async def test_a_call_fills_submits_and_gets_the_respond_with_value(open_page: Any) -> None:
    body = """
        const log = [];
        for (const el of form.querySelectorAll('input, select, textarea')) {
          el.addEventListener('input', () => log.push('input:' + el.name));
          el.addEventListener('change', () => log.push('change:' + el.name));
        }
        window.addEventListener('toolactivated', (e) => log.push('window:toolactivated:' + e.toolName));
        mc.addEventListener('toolactivated', (e) => log.push('mc:toolactivated:' + e.toolName + ':' + form.elements.who.value));
        form.addEventListener('submit', (e) => {
          log.push('submit:' + e.agentInvoked + ':' + (e.submitter && e.submitter.id));
          e.preventDefault();
          if (e.agentInvoked) e.respondWith(Promise.resolve('Booked ' + new FormData(form).get('who') + ' on ' + new FormData(form).get('day')));
        });
        const t = await waitTool('book_ferry');
        const result = await mc.executeTool(t, { who: 'Ada', day: '2026-12-01', seats: 2, cabin: true, deck: 'lower', port: 'her', extras: ['wifi'] });
        const values = Object.fromEntries(['who', 'day', 'seats', 'port', 'notes'].map((n) => [n, form.elements[n].value]));
        values.cabin = form.elements.cabin.checked;
        values.deck = form.querySelector('[name=deck]:checked').value;
        values.extras = Array.from(form.elements.extras.selectedOptions, (o) => o.value);
        let personSubmit = null;
        form.addEventListener('submit', (e) => { personSubmit = e.agentInvoked; e.preventDefault(); }, { once: true });
        form.requestSubmit();
        return { result, values, log, personSubmit };
    """
    native, ours = await both(open_page, body, {"html": FERRY_FORM})
    assert native["result"] == "Booked Ada on 2026-12-01"
    assert native["values"] == {"who": "Ada", "day": "2026-12-01", "seats": "2", "port": "her", "notes": "",
                                "cabin": True, "deck": "lower", "extras": ["wifi"]}
    assert "submit:true:go" in native["log"]
    assert native["personSubmit"] is False
    # Chromium 156 does not fire toolactivated at the window; the draft (and the polyfill) does.
    assert [x for x in ours["log"] if not x.startswith("window:")] == native["log"]
    assert "window:toolactivated:book_ferry" in ours["log"]
    assert {k: v for k, v in ours.items() if k != "log"} == {k: v for k, v in native.items() if k != "log"}


async def test_form_tool_follows_the_dom(open_page: Any) -> None:
    tab = await open_page("polyfill", "/poly.html")
    out = await tab.js(script(ADD_FORM + """
        const changes = [];
        mc.addEventListener('toolchange', () => changes.push('toolchange'));
        await waitTool('book_ferry');
        const task = () => new Promise((r) => setTimeout(r, 0));
        await task();
        changes.length = 0;
        // Unrelated changes: no work, no toolchange.
        const p = document.createElement('p'); p.textContent = 'hello'; document.body.append(p);
        form.elements.who.value = 'typed';           // a value is not the definition
        document.body.setAttribute('data-x', '1');
        await task();
        const afterUnrelated = changes.slice();
        // A new control changes the schema.
        form.insertAdjacentHTML('beforeend', '<input name=pets type=number min=0>');
        await until(() => changes.length >= 2);
        const withPets = (await find('book_ferry')).inputSchema.properties.pets;
        form.setAttribute('tooldescription', 'Book a crossing');
        await until(() => changes.length >= 4);
        const description = (await find('book_ferry')).description;
        form.remove();
        await until(() => changes.length >= 5);
        return { afterUnrelated, withPets, description, left: await names(), snapshot: (await hook.snapshot()).tools.map((t) => t.name) };
    """), {"html": FERRY_FORM})
    assert out["afterUnrelated"] == []
    assert out["withPets"] == {"type": "number", "minimum": 0, "multipleOf": 1}
    assert out["description"] == "Book a crossing"
    assert out["left"] == [] and out["snapshot"] == []


async def test_without_autosubmit_the_person_submits_or_cancels(open_page: Any) -> None:
    tab = await open_page("polyfill", "/poly.html")
    html = FERRY_FORM.replace(" toolautosubmit", "")
    out = await tab.js(script(ADD_FORM + """
        const log = [];
        window.addEventListener('toolcancel', (e) => log.push('toolcancel:' + e.toolName));
        form.addEventListener('submit', (e) => {
          log.push('submit:' + e.agentInvoked);
          if (e.agentInvoked) { e.preventDefault(); e.respondWith(Promise.resolve({ booked: form.elements.who.value })); }
        });
        const t = await waitTool('book_ferry');
        const first = mc.executeTool(t, { who: 'Ada', day: '2026-12-01' });
        await until(() => form.elements.who.value === 'Ada');
        const active = { form: form.matches(':tool-form-active'), attr: form.hasAttribute('data-tool-form-active'),
                         button: document.getElementById('go').matches(':tool-submit-active'),
                         query: document.querySelectorAll(':tool-form-active').length };
        form.requestSubmit(document.getElementById('go'));   // the person presses Book
        const result = await first;
        const after = form.matches(':tool-form-active');
        // Second call: the person resets the form instead.
        const second = mc.executeTool(t, { who: 'Bob', day: '2026-12-02' });
        await until(() => form.elements.who.value === 'Bob');
        form.reset();
        const cancelled = await attempt(() => second);
        await until(() => log.includes('toolcancel:book_ferry'));
        // Through the extension's hook: a named error.
        const third = hook.call('book_ferry', { who: 'Cy', day: '2026-12-03' });
        await until(() => form.elements.who.value === 'Cy');
        form.reset();
        const hookOut = await third;
        // A form removed while a call waits for the person: the call fails, it does not hang.
        const fourth = mc.executeTool(t, { who: 'Dee', day: '2026-12-04' });
        await until(() => form.elements.who.value === 'Dee');
        form.remove();
        const removed = await attempt(() => fourth);
        return { active, result, after, cancelled, log, hook: hookOut, removed };
    """), {"html": html})
    assert out["active"] == {"form": True, "attr": True, "button": True, "query": 1}
    assert out["result"] == '{"booked":"Ada"}'
    assert out["after"] is False
    assert out["cancelled"] == ["DOMException", "UnknownError", "Tool execution cancelled by a form reset"]
    assert out["log"][:2] == ["submit:true", "toolcancel:book_ferry"]
    assert out["hook"]["ok"] is False and out["hook"]["error"]["code"] == "USER_CANCELLED", json.dumps(out["hook"])
    assert out["removed"][:2] == ["DOMException", "UnknownError"]


async def test_hook_relays_a_form_tool_with_its_respond_with_value(open_page: Any) -> None:
    """What the extension sees: the form tool in the snapshot, and a call returning respondWith's value."""
    tab = await open_page("polyfill", "/poly.html")
    out = await tab.js(script(ADD_FORM + """
        form.addEventListener('submit', (e) => { e.preventDefault(); e.respondWith(Promise.resolve({ ticket: 'T-1', who: form.elements.who.value })); });
        await waitTool('book_ferry');
        const snap = (await hook.snapshot()).tools.find((t) => t.name === 'book_ferry');
        return { required: snap.inputSchema.required, call: await hook.call('book_ferry', { who: 'Ada', day: '2026-12-01' }),
                 invalid: await hook.call('book_ferry', { who: 'Ada' }) };
    """), {"html": FERRY_FORM})
    assert out["required"] == ["who", "day"]
    assert out["call"] == {"ok": True, "result": {"content": [{"type": "text", "text": '{"ticket":"T-1","who":"Ada"}'}],
                                                  "structuredContent": {"ticket": "T-1", "who": "Ada"}}}
    assert out["invalid"]["error"]["code"] == "INVALID_ARGUMENTS"


async def test_the_person_submits_or_resets_like_native(open_page: Any) -> None:
    """Without toolautosubmit: the call waits for the person; their submission answers it
    (agentInvoked, respondWith), their reset fails it with Chromium's error. Both modes alike,
    except toolcancel, which the polyfill also fires (the draft's event; Chromium 156 fires none)."""
    html = """<form toolname="ask" tooldescription="Ask the desk something" action="/blank.html">
      <input name=q required><button id=go>Send</button></form>"""
    native, ours = await both(open_page, """
        const log = [];
        mc.addEventListener('toolcancel', () => log.push('toolcancel'));
        form.addEventListener('submit', (e) => {
          log.push('submit:' + e.agentInvoked);
          e.preventDefault();
          if (e.agentInvoked) e.respondWith(Promise.resolve('answer ' + form.q.value));
        });
        const t = await waitTool('ask');
        const first = mc.executeTool(t, { q: 'one' });
        await until(() => form.q.value === 'one');
        document.getElementById('go').click();  // the person sends it
        const r1 = await first;
        const second = mc.executeTool(t, { q: 'two' });
        await until(() => form.q.value === 'two');
        form.reset();                           // the person gives up
        const r2 = await attempt(() => second);
        return { r1, r2, submits: log.filter((x) => x.startsWith('submit')), cancels: log.filter((x) => x === 'toolcancel').length };
    """, {"html": html})
    assert native["r1"] == "answer one" and native["submits"] == ["submit:true"]
    assert native["r2"] == ["DOMException", "UnknownError", "Tool execution cancelled by a form reset"]
    assert {k: v for k, v in ours.items() if k != "cancels"} == {k: v for k, v in native.items() if k != "cancels"}
    assert native["cancels"] == 0 and ours["cancels"] == 1
