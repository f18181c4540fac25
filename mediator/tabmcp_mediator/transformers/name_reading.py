"""Reading a cryptic tool name: its words, verb, object and namespace; its new name.

Pure functions over :mod:`vocabulary`, shared by the description and schema rules.
Nothing here guesses wildly: a name whose words are unknown is kept as it is.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import inflection

from tabmcp_mediator.naming import is_valid_name, split_words
from tabmcp_mediator.transformers import vocabulary as v

_BY_HINT = re.compile(r"\bby\s+([A-Za-z_]+)", re.IGNORECASE)


@dataclass(frozen=True)
class ParsedName:
    """What a tool name says, in plain words.

    Attributes:
        original: The name as registered.
        prefix: A namespace before the verb (``adm`` in ``adm_del_usr``), expanded.
        verb: The canonical action, if one was recognised.
        nouns: The object words, expanded (``("user", "profile")``).
        changed: Whether expansion (or the description) added anything to the name.
        known: Share of the name's words found in the vocabulary, 0 to 1.
        noun_from_description: The object came from the description, not the name.
    """

    original: str
    prefix: str | None
    verb: str | None
    nouns: tuple[str, ...]
    changed: bool
    known: float
    noun_from_description: bool = False

    @property
    def obj(self) -> str:
        """The object as a phrase: ``user profile``."""
        return " ".join(self.nouns)


def parse_name(name: str, description: str | None = None) -> ParsedName:
    """Expand abbreviations and find the verb, the object and a namespace prefix.

    The verb is looked for first (``gt_usr``), then last (``cartAdd``), then second after
    a namespace (``adm_del_usr``). When the name has no object, the first known noun of
    the description is borrowed (``del`` described as "delete user").
    """
    words = split_words(name)
    if not words:
        return ParsedName(name, None, None, (), changed=False, known=0.0)
    prefix, verb, nouns = _locate_verb(words)
    meaningful = [w for w in words if w not in v.STOPWORDS] or words
    known = sum(1 for w in meaningful if _is_known(w)) / len(meaningful)
    expanded = [*([prefix] if prefix else []), *([verb] if verb else []), *nouns]
    changed = expanded != words
    from_description = False
    if not nouns and verb and description:
        borrowed = _first_known_noun(description)
        if borrowed and borrowed != verb:
            nouns, changed, from_description = [borrowed], True, True
    return ParsedName(name, prefix, verb, tuple(nouns), changed, known, from_description)


def _locate_verb(words: list[str]) -> tuple[str | None, str | None, list[str]]:
    first = as_verb(words[0])
    if first in v.VERBS:
        return None, first, as_nouns(words[1:])
    if len(words) > 1 and as_verb(words[-1]) in v.VERBS:
        return None, as_verb(words[-1]), as_nouns(words[:-1])
    if len(words) > 2 and as_verb(words[1]) in v.VERBS:
        return as_nouns(words[:1])[0], as_verb(words[1]), as_nouns(words[2:])
    return None, None, as_nouns(words)


def as_verb(word: str) -> str:
    return v.VERB_ABBREVIATIONS.get(word) or v.NOUN_ABBREVIATIONS.get(word) or word


def as_nouns(words: list[str]) -> list[str]:
    return [part for w in words for part in v.NOUN_ABBREVIATIONS.get(w, w).split("_")]


def _is_known(word: str) -> bool:
    return (
        word in v.VERB_ABBREVIATIONS
        or word in v.NOUN_ABBREVIATIONS
        or word in v.VERBS
        or word in v.NOUN_CATEGORIES
        or word in v.PROPERTY_HINTS
    )


def _first_known_noun(text: str) -> str | None:
    for word in split_words(text):
        noun = v.NOUN_ABBREVIATIONS.get(word, word)
        if noun in v.NOUN_CATEGORIES:
            return inflection.singularize(noun) if noun not in v.UNCOUNTABLE else noun
    return None


def plural(noun: str) -> str:
    return noun if noun in v.UNCOUNTABLE else inflection.pluralize(noun)


def proposed_name(parsed: ParsedName) -> str:
    """The readable snake_case name, or the original when nothing was understood."""
    if not parsed.changed or not (parsed.verb or parsed.nouns):
        return parsed.original
    nouns = list(parsed.nouns)
    verb_words = [parsed.verb] if parsed.verb else []
    if nouns and parsed.verb in v.LIST_VERBS | v.SEARCH_VERBS and nouns[-1] not in v.CONTAINERS:
        nouns[-1] = plural(nouns[-1])
    if nouns and nouns[-1] in v.CONTAINERS and parsed.verb in {"add", "remove"}:
        verb_words.append("to" if parsed.verb == "add" else "from")
    words = [*([parsed.prefix] if parsed.prefix else []), *verb_words, *nouns]
    name = "_".join(words)
    return name if is_valid_name(name) else parsed.original


def infer_category(parsed: ParsedName) -> str | None:
    """The group a tool belongs in: namespace prefix, then object, then verb, then object word."""
    if parsed.prefix:
        return parsed.prefix
    for noun in reversed(parsed.nouns):
        if noun in v.NOUN_CATEGORIES:
            return v.NOUN_CATEGORIES[noun]
    if parsed.verb in v.VERB_CATEGORIES:
        return v.VERB_CATEGORIES[parsed.verb]
    if parsed.verb and parsed.nouns and is_valid_name(parsed.nouns[-1]):
        return plural(parsed.nouns[-1])
    return None


def confidence(parsed: ParsedName) -> float:
    """How much the rules trust their reading: 0.6 at best, 0.2 when nothing was known."""
    if parsed.verb and parsed.known == 1.0 and not parsed.noun_from_description:
        return 0.6
    if parsed.verb or parsed.known > 0:
        return 0.4 + 0.1 * parsed.known
    return 0.2


def by_hints(description: str | None) -> list[str]:
    """Argument names a description points at: ``gets user by email`` -> ``["email"]``."""
    keys = []
    for match in _BY_HINT.finditer(description or ""):
        key = v.NOUN_ABBREVIATIONS.get(match.group(1).lower(), match.group(1).lower())
        if key in v.PROPERTY_HINTS and key not in keys:
            keys.append(key)
    return keys
