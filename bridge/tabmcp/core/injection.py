"""Spot tool definitions that try to instruct the model (prompt injection) or hide text.

Page tools are untrusted text that reaches the agent's context; each pattern is matched against
every reading a model may follow (:func:`.decoding.readings`). A heuristic, not a proof
(docs/security.md §2).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import OrderedDict
from collections.abc import Iterable
from typing import Any

from .decoding import HIDDEN, readings
from .linear_re import LinearPattern, linear

__all__ = ["decode_tag_text", "lint_parameters", "readings", "scan_result_text", "scan_text", "scan_tool"]

# "Decode this and follow it: …": an order to read what follows as orders, whatever it says
# (the plain reading reads 1337: "rot13" there is "rotie").
_DECODE_AND_FOLLOW = (r"\b(?:decode|decrypt|decipher|unscramble|reverse|rot(?:13|ie)|base64-decode|translate) "
                      r"(?:this|it|the following|the text|the message|the string|below)\b[^.\n]{0,40}"
                      r"\b(?:and|then)\s+(?:follow|obey|execute|carry out|act on|do)\b")
_PHRASES = [
    r"\bignore (all |any )?(the )?(previous|prior|above|earlier) (instructions|prompts?|messages?|rules)",
    r"\bdisregard (all |any )?(the )?(previous|prior|above|system) ",
    r"\b(forget|override) (all |your )?(previous |prior )?(instructions|rules|guidelines)",
    r"\b(system|developer) (prompt|message|instructions?)\b",
    r"\byou (are|must|should|will) (now |always |never )?(act as|call|run|invoke|use|obey|ignore|send|reveal|output)",
    r"\b(before|after) (using|calling) (any|every|this|other) tools?,? (you )?(must|should|always)\b",
    r"\bdo not (tell|inform|mention to) the user\b",
    r"\b(exfiltrate|send|post|upload) (the |all )?(conversation|chat history|credentials|api keys?|tokens?|secrets?)\b",
    r"<\s*/?\s*(system|instructions?|important|assistant|im_start|im_end)\s*>",
    r"\[\s*(system|inst)\s*\]",
    _DECODE_AND_FOLLOW,
]
# The scanners' patterns run on RE2 (:mod:`.linear_re`): linear in what a page sends, whatever it
# sends. Every ``\b`` in them sits beside an ASCII letter (RE2's is ASCII-only: it finds more, never
# less; docs/security.md, "A scanner in linear time").
_PHRASE_RE = linear("|".join(f"(?:{p})" for p in _PHRASES), ignorecase=True)
_HIDDEN_RE = linear("[\u200b-\u200f\u2028-\u202e\u2060-\u2064\ufeff\U000e0000-\U000e007f]")
_COMMENT_RE = linear(r"(?s)<!--.*?-->")


def scan_text(text: str) -> list[str]:
    """Reasons this text looks like an injection attempt (empty when it looks fine)."""
    reasons: list[str] = []
    read = readings(text)
    if _HIDDEN_RE.search(text) or any(how == HIDDEN for how, _ in read):
        reasons.append("hidden characters (zero-width, bidi override or Unicode tag characters)")
    if "<!--" in text and _COMMENT_RE.search(text):
        reasons.append("an HTML comment (hidden from people, read by models)")
    found = _match(_PHRASE_RE, read)
    if found:
        reasons.append(f"instructions addressed to the model{found}")
    return reasons


def _match(pattern: LinearPattern, read: list[tuple[str, str]]) -> str:
    """": 'the match'" (with how it was decoded) where ``pattern`` matches one of a text's readings
    (:func:`.decoding.readings`, the plain one first), else ""."""
    for how, reading in read:
        match = pattern.search(reading)
        if match:
            quoted = reading[match.start() : match.end()].strip()
            return f"{'' if how == 'plain' else f' (read {how})'}: {quoted!r}"
    return ""


# -- results: page data that tries to give the agent orders ------------------------------------
#
# Results may tell a human "you must sign in", so only text addressed to an AI agent counts
# (tuned on bench/data/trust_hostile.jsonl's "tuning" split; bench/trust.py measures the rest).

# its own word's end: "a.i." ends in a dot, so a \b after it read "an a.i. reading this" as no agent
_AGENT = (r"(?:(?:ai|llm|language model|assistant|agent|model|chatbot|bot|claude|gpt|chatgpt|copilot|gemini)s?\b"
          r"|a\.i\.(?:s\b)?)")
_AI = r"(?:ai|llm|language model|chatbot|bot|crawler|claude|gpt|chatgpt|copilot|gemini|ai (?:agent|assistant|model))s?"
_ACT = (r"(?:call|run|invoke|execute|send|forward|email|post|share|reveal|ignore|delete|click|approve|confirm|provide|"
        r"include|output|transfer|buy|purchase|disable|enable|grant)")
_RESULT_PHRASES = [
    r"\bignore (?:all |any )?(?:of )?(?:the |your )?(?:previous|prior|above|earlier|preceding|original) "
    r"(?:instructions|prompts?|messages?|rules|directions|guidance|context)",
    r"\bdisregard (?:all |any )?(?:of )?(?:the |your )?(?:previous|prior|above|earlier|system|original) "
    r"(?:instructions|prompts?|messages?|rules|directions|guidance)",
    r"\b(?:forget|override|bypass) (?:all |any )?(?:of )?(?:your |the )?(?:previous |prior |safety |original )?"
    r"(?:instructions|rules|guidelines|guardrails|restrictions)",
    r"\b(?:system|developer) prompt\b",
    r"\b(?:new|next|hidden|secret|real|actual|additional) (?:system )?(?:instructions?|directives?|objective|task|goal)s?"
    r" ?(?:for you)?:",
    r"\byour (?:real|true|actual|new|only) (?:goal|task|objective|purpose|instructions?|mission) (?:is|are)\b",
    r"\b(?:agent|assistant|ai|model|llm) instructions\b",
    rf"\b(?:attention|note|message|instructions?|notice|dear)[ ,:]+(?:to |for )?(?:the |all |any )?{_AGENT}"
    r"[^.\n]{0,30}[:,]",
    rf"\b(?:if|when) you are an? {_AGENT}",
    r"\b(?:you are|you're) (?:now )?(?:an? )?(?:ai|language model|assistant|agent|llm)\b.{0,40}\b(?:must|should|will|need to)\b",
    rf"\b{_AGENT} (?:reading|processing|summari[sz]ing) (?:this|the)\b",
    rf"\b{_AI} (?:should|must|need to|are required to|have to|are instructed to) (?:now |immediately |always |also )?{_ACT}",
    r"(?:^|[.!?]\s+|\n\s*)(?:ai|claude|gpt|chatgpt|copilot|gemini|llm|chatbot)\s*[,:]\s",
    r"\b(?:important|urgent|critical|mandatory)\W{0,3}(?:system|security|admin|administrator|assistant) "
    r"(?:notice|instructions?|message|update|alert|override|directive)\b",
    r"\b(?:system|admin|administrator) (?:override|directive|command)\b",
    r"\byou (?:must|should|need to|have to|are required to|are instructed to) (?:now |immediately |first |also |then )?"
    r"(?:call|invoke|run|use|execute|trigger) (?:the )?`?[a-z0-9]+(?:[_.][a-z0-9]+)+`?",
    r"\b(?:call|invoke|execute|trigger) (?:the )?`?[a-z0-9]+(?:_[a-z0-9]+)+`? (?:tool|function|action)\b",
    r"\b(?:call|invoke|execute|run) `?[a-z0-9]+(?:_[a-z0-9]+)+`? (?:now|immediately|right away)\b",
    r"\bin your (?:next )?(?:tool|function) call\b",
    r"\b(?:do not|don't|never) (?:tell|inform|notify|alert|warn|mention (?:this |it )?to|ask) "
    r"the (?:user|human|person|operator)\b",
    r"\bwithout (?:telling|informing|asking|notifying|alerting) the (?:user|human|person|operator)\b",
    r"\bthe user (?:has )?(?:already )?(?:wants|asked|authori[sz]ed|instructed|requested|approved|consented)"
    r" (?:you|the assistant|the agent|that you)\b",
    r"\b(?:before|instead of) (?:responding|replying|answering|summari[sz]ing)(?: to the user)?,? "
    r"(?:you )?(?:must|should|first|need)",
    r"\bexfiltrate\b",
    # "leak" alone is everyday console text ("…indicates a memory leak in your application"): an object is needed
    r"\bleak (?:all |any |the |their |your |this |these )?(?:user'?s'? |private |secret |personal )?"
    r"(?:data|credentials|passwords?|tokens?|secrets?|keys|private keys?|api keys?|conversation|chat history|"
    r"history|emails?|messages?|information|details|files?)\b",
    r"\b(?:send|forward|email|upload|post|transfer|share) (?:all |the |any )?(?:of )?(?:the )?(?:user'?s'? |their |your )?"
    r"(?:conversation|chat history|credentials|passwords?|api keys?|access tokens?|session tokens?|secrets?|private keys?)"
    r"\b.{0,60}\b(?:to|with)\b",
    r"<\|?\s*/?\s*(?:system|im_start|im_end|instructions?|assistant|endoftext)\s*\|?>",
    r"\[/?\s*(?:system|inst)\s*\]",
    r"(?:^|\n)\s*#{1,4} ?(?:system|instructions?)\b",
    r"(?:^|\n)\s*(?:system|assistant)\s*:\s",
    _DECODE_AND_FOLLOW,
]
_RESULT_RE = linear("|".join(f"(?:{p})" for p in _RESULT_PHRASES), ignorecase=True)
_TAG_RE = re.compile("[\U000e0000-\U000e007f]+")


def decode_tag_text(text: str) -> str:
    """The ASCII hidden in Unicode tag characters (U+E0020–E007E map to ASCII), runs joined by spaces."""
    return " ".join(
        "".join(chr(ord(c) - 0xE0000) for c in run if 0xE0020 <= ord(c) <= 0xE007E) for run in _TAG_RE.findall(text)
    ).strip()


def _orders_in_comments(comments: list[str]) -> bool:
    """Do the comments give orders? Read as written (``rot13`` there is not 1337's ``rotie``), then
    their words apart from the delimiters, each comment a line of its own, past every disguise the
    rest of the text is read (``<!--i.g.n.o.r.e`` is a split word to a model; ``<!--system:`` opens
    an utterance as a line does)."""
    if not comments:
        return False
    if _RESULT_RE.search(" ".join(comments)):
        return True
    return bool(_match(_RESULT_RE, readings("\n".join(comment[4:-3] for comment in comments))))


def scan_result_text(text: str) -> list[str]:
    """Reasons a piece of a tool *result* looks like orders to the agent (empty when it looks like data).

    Text hidden in Unicode tag characters is decoded and reported whatever it says: people never
    see it, models read it.
    """
    reasons: list[str] = []
    read = readings(text)
    # tag characters are past ASCII; an encoded run may still hide some (its reading says so)
    hidden = ("" if text.isascii() else decode_tag_text(text)) or next(
        (reading for how, reading in read if how == HIDDEN), "")
    if hidden:
        reasons.append(f"text hidden in Unicode tag characters: {hidden[:80]!r}")
    if "<!--" in text and _orders_in_comments(_COMMENT_RE.findall(text)):
        reasons.append("instructions inside an HTML comment")
    found = _match(_RESULT_RE, read)
    if found:
        reasons.append(f"text addressed to the agent{found}")
    return reasons


# -- over-parameterization: schemas that ask for personal data the tool has no use for ----------

# Each kind: words in a property's name or description that ask for it, and words in the tool's
# own text that would justify asking (a pharmacy tool may ask about pregnancy).
_PERSONAL: dict[str, tuple[str, str]] = {
    "age or birth date": (
        r"\b(?:age|dob|birth ?date|date of birth|birthday|year of birth|birth ?year)\b",
        r"\b(?:age|birth|birthday|dob|born|senior|minor|adult|insurance|identity|kyc|verify|verification|"
        r"passport|licen[cs]e|patient|medical|health|alcohol|wine|beer|tobacco|ticket|fare|census|signup|"
        r"sign up|register|profile)",
    ),
    "pregnancy": (
        r"\b(?:pregnan\w*|trimester|fertility|ivf)\b",
        r"\b(?:pregnan|prenatal|maternity|obstetric|midwife|fertility|pharmac|medic|health|clinic|doctor|patient|prescri)",
    ),
    "health or medical condition": (
        r"\b(?:health|medical|diagnos\w*|disease|illness|conditions?|medications?|disabilit\w*|allerg\w*|symptoms?|"
        r"blood ?type|mental|hiv|diabet\w*)\b",
        r"\b(?:health|medic|clinic|doctor|patient|pharmac|prescri|symptom|allerg|diet|food|meal|recipe|restaurant|insurance|"
        r"fitness|wellness|appointment|hospital|accessib|travel|flight|menu)",
    ),
    "precise location": (
        r"\b(?:location|latitude|longitude|lat|lng|lon|geo ?location|gps|coordinates|home address|current address|"
        r"where (?:you|the user) (?:live|are))\b",
        r"\b(?:locat|map|maps|near|nearby|weather|forecast|deliver|shipping|ship|address|store finder|directions|route|"
        r"travel|ride|taxi|geo|place|places|venue|restaurant|city|country|region|zip|postal|time ?zone|distance|track|"
        r"emulat|simulat|mock)",
    ),
    "skin tone, ethnicity or race": (
        r"\b(?:skin ?(?:tone|colou?r|type)|ethnicity|ethnic|race|racial)\b",
        r"\b(?:skin|cosmetic|makeup|foundation|derma|emoji|avatar|census|demograph|sunscreen|beauty)",
    ),
    "religion, politics or sexuality": (
        r"\b(?:religio\w*|faith|political|party affiliation|sexual\w*|sexual orientation|gender identity)\b",
        r"\b(?:religio|church|faith|politic|elect|vote|census|survey|dating|demograph)",
    ),
    "income or finances": (
        r"\b(?:income|salary|net worth|credit score|bank balance|debts?|wealth)\b",
        r"\b(?:loan|mortgage|credit|bank|financ|tax|salary|payroll|budget|invest|insurance|rent|lease|hr\b|employ)",
    ),
    "previous purchases or browsing history": (
        r"\b(?:previous|past|prior|recent) (?:purchases|orders|searches)|purchase history|order history|"
        r"browsing history|search history|visited (?:sites|pages)\b",
        r"\b(?:order|purchase|history|return|refund|reorder|account|loyalty|receipt|invoice)",
    ),
    "contacts or social graph": (
        r"\b(?:contacts|address book|friends list|phone book|followers)\b",
        r"\b(?:contact|invite|share|social|friend|message|call|sms|email|crm|people|follow)",
    ),
    "identity documents": (
        r"\b(?:ssn|social security|passport(?: number)?|national id|id number|driver'?s? licen[cs]e)\b",
        r"\b(?:identity|kyc|verify|verification|passport|visa|travel|flight|licen[cs]e|tax|payroll|employ|bank|loan|rent|lease|insurance)",
    ),
}
_PERSONAL_RE = {kind: (re.compile(ask, re.IGNORECASE), re.compile(why, re.IGNORECASE))
                for kind, (ask, why) in _PERSONAL.items()}


def _properties(schema: Any, depth: int = 0) -> Iterable[tuple[str, str, dict[str, Any]]]:
    """(name, description, schema) of every property in a JSON Schema, nested ones too."""
    if depth > 6 or not isinstance(schema, dict):
        return
    props = schema.get("properties")
    if isinstance(props, dict):
        for name, sub in props.items():
            sub = sub if isinstance(sub, dict) else {}
            desc = sub.get("description", "")
            yield str(name), desc if isinstance(desc, str) else "", sub
            yield from _properties(sub, depth + 1)
    for key in ("items", "additionalProperties"):
        yield from _properties(schema.get(key), depth + 1)
    for key in ("anyOf", "oneOf", "allOf"):
        for sub in schema.get(key) or []:
            yield from _properties(sub, depth + 1)


def _words(name: str) -> str:
    """``dateOfBirth`` / ``date_of_birth`` → ``date of birth`` (so word patterns match names)."""
    return re.sub(r"(?<=[a-z])(?=[A-Z])|[_\-.]+", " ", name).lower()


# Words that name a personal attribute only when the parameter is about the person ("location"
# of a file, project "health", filter "conditions", "race" conditions are not).
_WEAK_WORDS = {"location", "health", "condition", "conditions", "race", "faith", "debt", "debts", "wealth",
               "contacts", "followers", "lat", "lon", "lng", "coordinates", "mental"}
_ABOUT_PERSON_RE = re.compile(r"\b(?:you|your|yours|user'?s?|the user|person'?s?|customer'?s?|shopper'?s?|"
                              r"buyer'?s?|visitor'?s?|patient'?s?)\b", re.IGNORECASE)


_TECHNICAL_RE = re.compile(r"\b(?:file|line|path|url|uri|element|code|page|selector|project|initiative|repo\w*|"
                           r"script|column|row|node|server|cluster|region|bucket|build|pipeline|issue|ticket)s?\b",
                           re.IGNORECASE)


def lint_parameters(name: str, title: str | None, description: str, input_schema: dict[str, Any]) -> list[str]:
    """Reasons the schema asks for personal attributes its tool's own text gives no use for.

    The WebMCP draft calls this over-parameterization: profiling the person through the agent.
    Ambiguous names (``location``) do not count when the site offers the choices or the text is about code.
    """
    purpose = " ".join(filter(None, [_words(name), title, description]))
    reasons: list[str] = []
    for prop, desc, sub in _properties(input_schema):
        about_person = bool(desc and len(desc) < 300 and _ABOUT_PERSON_RE.search(desc))
        # the site offers the choices, or the text says it is about files, code or the page
        not_personal = "enum" in sub or "const" in sub or bool(_TECHNICAL_RE.search(desc))
        for kind, (ask, why) in _PERSONAL_RE.items():
            hit = ask.search(_words(prop))
            if hit and hit.group(0).lower() in _WEAK_WORDS and not_personal and not about_person:
                hit = None
            if not hit and about_person:
                hit = ask.search(desc)
                if hit and hit.group(0).lower() in _WEAK_WORDS:
                    hit = None
            if hit:
                if not why.search(purpose):
                    reasons.append(f"over-parameterization: parameter {prop!r} asks for {kind}, "
                                   "which the tool's description gives no reason for")
                break
    return list(dict.fromkeys(reasons))


def _strings(value: Any) -> Iterable[str]:
    """Every string in a JSON value (keys too), at any depth: an order nested 7 or 70 levels down
    in an input schema still reaches the agent. Iterative, so no depth breaks it."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            yield item
        elif isinstance(item, dict):
            for key, sub in item.items():
                if isinstance(key, str):
                    yield key
                stack.append(sub)
        elif isinstance(item, list):
            stack.extend(item)


def scan_tool(name: str, title: str | None, description: str, input_schema: dict[str, Any]) -> list[str]:
    """Reasons a tool definition looks like an injection attempt (in its text or its schema's text).

    Memoized by content: pages re-send every tool with each snapshot, and the scan is most of a snapshot's cost.
    """
    try:
        content = json.dumps([name, title, description, input_schema], sort_keys=True, separators=(",", ":"))
    except (TypeError, ValueError, RecursionError):
        return _scan_tool(name, title, description, input_schema)
    key = hashlib.blake2b(content.encode("utf-8", "surrogatepass"), digest_size=16).digest()
    hit = _SCANNED.get(key)
    if hit is None:
        hit = tuple(_scan_tool(name, title, description, input_schema))
        _SCANNED[key] = hit
        if len(_SCANNED) > _SCANNED_MAX:
            _SCANNED.popitem(last=False)
    else:
        _SCANNED.move_to_end(key)
    return list(hit)


_SCANNED: OrderedDict[bytes, tuple[str, ...]] = OrderedDict()
"""Scan outcomes by a digest of the definition (not the definition: 16 bytes a key), newest last."""
_SCANNED_MAX = 8192


def _scan_tool(name: str, title: str | None, description: str, input_schema: dict[str, Any]) -> list[str]:
    reasons = scan_text(" ".join(filter(None, [title, description])))
    reasons += [f"in the input schema: {reason}" for reason in scan_text("\n".join(_strings(input_schema)))]
    reasons += lint_parameters(name, title, description, input_schema)
    return list(dict.fromkeys(reasons))
