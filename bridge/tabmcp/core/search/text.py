"""Text normalisation for the tool search: identifier splitting, stop words, light stemming.

Names and descriptions go through one pipeline so a query word meets the same token in any field.
The stemmer is deliberately conservative (``user`` and ``use`` stay apart).
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

__all__ = [
    "STOPWORDS",
    "is_identifier",
    "name_words",
    "normalize_name",
    "query_words",
    "split_words",
    "stem",
    "tokenize",
    "tokenize_name",
]

_CAMEL_RE = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_WORD_RE = re.compile(r"[^\W_]+")
_TAB_PREFIX_RE = re.compile(r"^t\d+[.]")
_IDENTIFIER_RE = re.compile(r"^[A-Za-z0-9_.:/-]+$")

# Function words that never name a tool's purpose. Tool verbs and particles (get, list, set,
# show, find, make, new, all, open, close, add, back, up, down, on, off, out) are kept:
# "scroll down", "sign out" and "turn off" are tasks.
STOPWORDS: frozenset[str] = frozenset(
    [
        "a",
        "about",
        "above",
        "after",
        "again",
        "against",
        "am",
        "an",
        "and",
        "any",
        "are",
        "aren",
        "as",
        "at",
        "be",
        "because",
        "been",
        "before",
        "being",
        "below",
        "between",
        "both",
        "but",
        "by",
        "can",
        "cannot",
        "could",
        "couldn",
        "did",
        "didn",
        "do",
        "does",
        "doesn",
        "doing",
        "don",
        "during",
        "each",
        "few",
        "for",
        "from",
        "further",
        "had",
        "hadn",
        "has",
        "hasn",
        "have",
        "haven",
        "having",
        "he",
        "her",
        "here",
        "hers",
        "herself",
        "him",
        "himself",
        "his",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "isn",
        "it",
        "its",
        "itself",
        "just",
        "let",
        "me",
        "might",
        "more",
        "most",
        "must",
        "mustn",
        "my",
        "myself",
        "no",
        "nor",
        "not",
        "now",
        "of",
        "once",
        "only",
        "or",
        "other",
        "ought",
        "our",
        "ours",
        "ourselves",
        "over",
        "own",
        "same",
        "shall",
        "shan",
        "she",
        "should",
        "shouldn",
        "so",
        "some",
        "such",
        "than",
        "that",
        "the",
        "their",
        "theirs",
        "them",
        "themselves",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "through",
        "to",
        "too",
        "under",
        "until",
        "very",
        "was",
        "wasn",
        "we",
        "were",
        "weren",
        "what",
        "when",
        "where",
        "which",
        "while",
        "who",
        "whom",
        "why",
        "will",
        "with",
        "won",
        "would",
        "wouldn",
        "you",
        "your",
        "yours",
        "yourself",
        "yourselves",
        "s",
        "t",
        "d",
        "ll",
        "m",
        "re",
        "ve",
        "y",
        "also",
        "please",
        "could",
        "would",
        "want",
        "wants",
        "wanted",
        "need",
        "needs",
        "like",
        "hi",
        "hello",
        "hey",
        "thanks",
        "thank",
        "tell",
        "give",
        "know",
        "maybe",
        "sure",
        "really",
        "something",
        "anything",
        "everything",
        "somebody",
        "someone",
        "e",
        "g",
        "eg",
        "ie",
        "etc",
        "via",
        "using",
        "use",
        "used",
        "uses",
    ]
)

_VOWELS = frozenset("aeiou")


def _has_vowel(s: str) -> bool:
    return any(c in _VOWELS for c in s)


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """Light English stemmer for lower-case words (plural and verb-inflection folding).

    >>> [stem(w) for w in ("creating", "created", "creates", "create")]
    ['creat', 'creat', 'creat', 'creat']
    >>> [stem(w) for w in ("repositories", "repository", "branches", "status", "alerts")]
    ['repositori', 'repositori', 'branch', 'status', 'alert']
    """
    w = word
    if len(w) <= 3 or not w.isalpha():
        return w
    # plurals and third person
    if w.endswith("sses"):
        w = w[:-2]
    elif w.endswith("ies") and len(w) > 4:
        w = w[:-3] + "i"
    elif w.endswith(("xes", "ches", "shes", "zes")) or (w.endswith("uses") and len(w) > 5):
        w = w[:-2]
    elif w.endswith("s") and not w.endswith(("ss", "us", "is")):
        w = w[:-1]
    # -ing / -ed
    for suffix in ("ing", "ed"):
        if w.endswith(suffix) and not w.endswith("eed"):
            base = w[: -len(suffix)]
            if len(base) >= 3 and _has_vowel(base):
                w = base
                if len(w) >= 3 and w[-1] == w[-2] and w[-1] not in "lsz" and w[-1] not in _VOWELS:
                    w = w[:-1]  # running → run, stopped → stop (but: calling → call)
            break
    # final -e and -y (so create/creat-ing and copy/copi-es meet)
    if len(w) > 3 and w.endswith("e"):
        w = w[:-1]
    elif len(w) > 3 and w.endswith("y") and w[-2] not in _VOWELS:
        w = w[:-1] + "i"
    return w


def _fold(text: str) -> str:
    if text.isascii():
        return text
    return unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii") or text


def split_words(text: str) -> list[str]:
    """Lower-cased words of ``text`` with identifiers split (no stop words removed, no stemming)."""
    text = _CAMEL_RE.sub(" ", _fold(text))
    return [w.lower() for w in _WORD_RE.findall(text)]


def tokenize(text: str) -> list[str]:
    """Index/query tokens of free text: split, lower-cased, stop words dropped, stemmed."""
    return [stem(w) for w in split_words(text) if w not in STOPWORDS]


def tokenize_name(name: str) -> list[str]:
    """Tokens of a tool or category name (``t42.users.create`` → ``['user', 'creat']``).

    Like :func:`tokenize`, but the bridge's ``t<tabId>.`` prefix is dropped and no stop
    words are removed (a name's every word was chosen).
    """
    return [stem(w) for w in split_words(_TAB_PREFIX_RE.sub("", name))]


def query_words(text: str, *, name_like: bool) -> list[tuple[str, str]]:
    """(word, token) pairs of a query: as :func:`tokenize_name` for a name-like query, as
    :func:`tokenize` for prose, with each token's unstemmed word (for typo correction)."""
    if name_like:
        return [(w, stem(w)) for w in name_words(text)]
    return [(w, stem(w)) for w in split_words(text) if w not in STOPWORDS]


def name_words(name: str) -> list[str]:
    """Unstemmed lower-case words of a name, tab prefix dropped (for fuzzy name matching)."""
    return split_words(_TAB_PREFIX_RE.sub("", name))


def normalize_name(name: str) -> str:
    """``'t42.createUser'`` → ``'create user'``: the form fuzzy name matching compares."""
    return " ".join(name_words(name))


def is_identifier(query: str) -> bool:
    """Does the query look like a (half-remembered) tool name rather than prose?"""
    q = query.strip()
    return 2 < len(q) <= 128 and bool(_IDENTIFIER_RE.match(q)) and not q.isdigit()
