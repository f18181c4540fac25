"""One-sentence descriptions from a parsed name, honest about what the site said."""

from __future__ import annotations

import inflection

from tabmcp_mediator.naming import split_words
from tabmcp_mediator.transformers import vocabulary as v
from tabmcp_mediator.transformers.name_reading import ParsedName, by_hints, plural

_SUBSTANTIVE_WORDS = 5


def describe(parsed: ParsedName, raw_description: str | None) -> str:
    """A one-sentence description from the verb and object.

    A real description (five words or more) is kept as the author wrote it; a short one
    that says more than the name (``gets user by email``) is quoted after ours.
    """
    raw = (raw_description or "").strip()
    if len(raw.split()) >= _SUBSTANTIVE_WORDS:
        return raw
    sentence = _sentence(parsed)
    keys = by_hints(raw)
    if keys:
        sentence += f" Looks it up by {' and '.join(keys)}."
    if raw and _adds_information(raw, parsed):
        sentence += f' The site describes it as "{raw}".'
    return sentence


def _sentence(parsed: ParsedName) -> str:
    verb, obj = parsed.verb, parsed.obj
    head = parsed.nouns[-1] if parsed.nouns else ""
    if verb is None:
        if obj and parsed.known > 0:
            return f"Works with the {obj} (no action could be read from the name)."
        return f"Tool {parsed.original!r}: its name could not be interpreted."
    phrase = v.VERB_PHRASES.get(verb, verb.capitalize())
    if not obj:
        if verb in v.SEARCH_VERBS:
            return f"{phrase} the site by a text query."
        if verb in v.LIST_VERBS:
            return "List the items the page offers."
        if verb in v.CREATE_VERBS | v.UPDATE_VERBS | v.DELETE_VERBS | v.READ_VERBS:
            return f"{phrase} an item; the name does not say what kind."
        return f"{phrase}."
    if verb in v.SEARCH_VERBS:
        return f"{phrase} {_plural_phrase(parsed)} by a text query."
    if verb in v.LIST_VERBS:
        return f"List the items in the {obj}." if head in v.CONTAINERS else f"List {_plural_phrase(parsed)}."
    if head in v.CONTAINERS and verb in {"add", "remove"}:
        return f"{phrase} an item {'to' if verb == 'add' else 'from'} the {obj}."
    if verb in v.CREATE_VERBS:
        return f"{phrase} a new {obj}." if verb != "generate" else f"Generate {_article(head)} {obj}."
    if verb in v.READ_VERBS | v.UPDATE_VERBS | v.DELETE_VERBS:
        suffix = " This cannot be undone." if verb in {"delete", "destroy"} else ""
        return f"{phrase} the {obj}.{suffix}"
    return f"{phrase} {_article(head)} {obj}."


def _plural_phrase(parsed: ParsedName) -> str:
    return " ".join([*parsed.nouns[:-1], plural(parsed.nouns[-1])])


def _adds_information(raw: str, parsed: ParsedName) -> bool:
    covered = {parsed.verb, parsed.prefix, *parsed.nouns, *split_words(parsed.original)}
    for word in split_words(raw):
        if word in v.STOPWORDS or word in v.VERBS:
            continue
        word = v.VERB_ABBREVIATIONS.get(word) or v.NOUN_ABBREVIATIONS.get(word) or word
        if word not in covered and inflection.singularize(word) not in covered:
            return True
    return False


def _article(noun: str) -> str:
    if noun in v.SINGLETON_NOUNS or noun in v.CONTAINERS:
        return "the"
    return "an" if noun[:1] in "aeio" else "a"
