"""The words the rule-based transformer knows: data only, so it can grow without code.

Abbreviations are split by role because the same letters mean different things: ``crt``
is *create* as a verb (``crt_ord``) and *cart* as a noun (``add_crt``).
"""

from __future__ import annotations

from typing import Any

# fmt: off
VERB_ABBREVIATIONS: dict[str, str] = {
    "gt": "get", "fetch": "get", "ld": "load", "shw": "show", "vw": "view",
    "lst": "list", "ls": "list",
    "srch": "search", "fnd": "find", "qry": "query", "fltr": "filter", "srt": "sort",
    "crt": "create", "mk": "create", "new": "create", "ins": "insert", "gen": "generate",
    "upd": "update", "updt": "update", "edt": "edit", "mod": "modify", "chg": "change",
    "del": "delete", "dlt": "delete", "rm": "remove", "rmv": "remove", "clr": "clear",
    "cncl": "cancel", "snd": "send", "rcv": "receive", "recv": "receive",
    "lgn": "login", "lgt": "logout", "lgout": "logout", "reg": "register",
    "rst": "reset", "upld": "upload", "ul": "upload", "dwnld": "download", "dl": "download",
    "exp": "export", "imp": "import", "bk": "book", "chkout": "checkout", "chk": "check",
    "sub": "subscribe", "unsub": "unsubscribe", "ntfy": "notify", "nav": "navigate",
    "opn": "open", "cls": "close", "cpy": "copy", "mv": "move", "rnm": "rename",
    "trk": "track", "shp": "ship", "calc": "calculate", "conv": "convert", "val": "validate",
    "sched": "schedule", "sv": "save", "pst": "post", "rply": "reply",
}

NOUN_ABBREVIATIONS: dict[str, str] = {
    "adm": "admin", "usr": "user", "usrs": "users", "uid": "user_id", "prf": "profile", "prof": "profile",
    "acct": "account", "acc": "account", "pwd": "password", "pw": "password", "pass": "password",
    "eml": "email", "addr": "address", "cust": "customer", "emp": "employee", "grp": "group",
    "perm": "permission", "sess": "session", "tkn": "token",
    "ord": "order", "oid": "order_id", "crt": "cart", "pmt": "payment", "pymt": "payment",
    "inv": "inventory", "invc": "invoice", "txn": "transaction", "rfnd": "refund",
    "prod": "product", "pid": "product_id", "itm": "item", "qty": "quantity", "amt": "amount",
    "msg": "message", "msgs": "messages", "mid": "message_id", "txt": "text", "notif": "notification",
    "ntf": "notification", "cmt": "comment", "rvw": "review", "rtg": "rating",
    "doc": "document", "docs": "documents", "img": "image", "pic": "picture", "fl": "file",
    "dir": "directory", "fldr": "folder", "att": "attachment",
    "rpt": "report", "stat": "statistic", "csv": "csv",
    "evt": "event", "appt": "appointment", "cal": "calendar", "mtg": "meeting", "rsv": "reservation",
    "sett": "settings", "cfg": "config", "conf": "config", "pref": "preference", "prefs": "preferences",
    "lang": "language", "loc": "location", "num": "number", "cnt": "count", "desc": "description",
    "dt": "date", "tm": "time", "nm": "name", "q": "query", "lim": "limit", "pg": "page",
    "sz": "size", "fav": "favorite", "bkmk": "bookmark", "bkmrk": "bookmark", "lbl": "label",
}

# fmt: on

READ_VERBS = frozenset({"get", "show", "view", "load", "read", "open", "describe"})
LIST_VERBS = frozenset({"list"})
SEARCH_VERBS = frozenset({"search", "find", "query", "filter", "lookup"})
CREATE_VERBS = frozenset({"create", "add", "insert", "post", "generate", "make", "submit", "register"})
UPDATE_VERBS = frozenset({"update", "edit", "modify", "change", "set", "patch", "rename", "save"})
DELETE_VERBS = frozenset({"delete", "remove", "clear", "destroy", "cancel", "archive"})

# fmt: off
OTHER_VERBS = frozenset({
    "send", "receive", "login", "logout", "reset", "upload", "download", "export", "import",
    "book", "checkout", "check", "subscribe", "unsubscribe", "notify", "navigate", "close",
    "copy", "move", "track", "ship", "calculate", "convert", "validate", "schedule", "reply",
    "sort", "approve", "reject", "share", "print", "refresh", "reload", "scroll", "click",
    "play", "pause", "start", "stop", "follow", "unfollow", "like", "rate", "review", "pay",
})

# fmt: on

VERBS = READ_VERBS | LIST_VERBS | SEARCH_VERBS | CREATE_VERBS | UPDATE_VERBS | DELETE_VERBS | OTHER_VERBS

VERB_PHRASES: dict[str, str] = {
    "checkout": "Check out",
    "login": "Log in",
    "logout": "Log out",
}
"""How a verb reads at the start of a sentence, when not just capitalised."""

SINGLETON_NOUNS = frozenset(
    {
        "profile",
        "settings",
        "config",
        "preferences",
        "cart",
        "password",
        "account",
        "session",
        "inventory",
        "stats",
        "statistics",
        "dashboard",
        "location",
        "language",
    }
)
"""Things a signed-in page has one of: acting on them needs no ``id``."""

NOUN_CATEGORIES: dict[str, str] = {
    **dict.fromkeys(
        [
            "user",
            "users",
            "profile",
            "account",
            "password",
            "member",
            "role",
            "permission",
            "customer",
            "employee",
            "group",
            "friend",
            "follower",
            "session",
            "token",
        ],
        "account",
    ),
    **dict.fromkeys(
        [
            "order",
            "orders",
            "cart",
            "checkout",
            "payment",
            "invoice",
            "refund",
            "shipping",
            "coupon",
            "transaction",
        ],
        "orders",
    ),
    **dict.fromkeys(["product", "products", "item", "inventory", "stock", "price", "catalog"], "catalog"),
    **dict.fromkeys(
        [
            "message",
            "messages",
            "notification",
            "notifications",
            "comment",
            "chat",
            "mail",
            "inbox",
            "thread",
            "reply",
            "review",
        ],
        "messages",
    ),
    **dict.fromkeys(
        [
            "file",
            "document",
            "documents",
            "image",
            "picture",
            "photo",
            "video",
            "attachment",
            "folder",
            "directory",
        ],
        "files",
    ),
    **dict.fromkeys(
        [
            "report",
            "reports",
            "stats",
            "statistic",
            "statistics",
            "metric",
            "analytics",
            "chart",
            "dashboard",
            "log",
            "csv",
        ],
        "reports",
    ),
    **dict.fromkeys(
        ["event", "events", "appointment", "calendar", "booking", "meeting", "reservation"], "calendar"
    ),
    **dict.fromkeys(["settings", "config", "preference", "preferences", "theme", "language"], "settings"),
    **dict.fromkeys(["page", "tab", "link", "url"], "navigation"),
}

VERB_CATEGORIES: dict[str, str] = {
    **dict.fromkeys(["login", "logout", "register", "subscribe", "unsubscribe"], "account"),
    **dict.fromkeys(sorted(SEARCH_VERBS), "search"),
    **dict.fromkeys(["navigate", "scroll", "refresh", "reload", "click"], "navigation"),
    **dict.fromkeys(["upload", "download"], "files"),
    **dict.fromkeys(["export", "import"], "reports"),
    **dict.fromkeys(["checkout", "pay", "ship", "track"], "orders"),
    **dict.fromkeys(["book", "schedule"], "calendar"),
    **dict.fromkeys(["send", "reply", "notify"], "messages"),
}

CATEGORY_DESCRIPTIONS: dict[str, str] = {
    "account": "Sign-in, users, profiles and account management",
    "orders": "Orders, cart, checkout and payments",
    "catalog": "Products, items and inventory",
    "messages": "Messages, notifications and comments",
    "files": "Uploading, downloading and managing files and documents",
    "reports": "Reports, statistics and exports",
    "calendar": "Events, appointments and bookings",
    "settings": "Settings, configuration and preferences",
    "navigation": "Moving around the site",
    "search": "Searching the site",
}

_STRING: dict[str, Any] = {"type": "string"}

PROPERTY_HINTS: dict[str, dict[str, Any]] = {
    "email": {**_STRING, "format": "email", "description": "Email address."},
    "password": {**_STRING, "description": "Password."},
    "username": {**_STRING, "description": "User name."},
    "url": {**_STRING, "format": "uri", "description": "URL."},
    "id": {**_STRING, "description": "Identifier."},
    "name": {**_STRING, "description": "Name."},
    "query": {**_STRING, "description": "Text to search for."},
    "text": {**_STRING, "description": "Text content."},
    "date": {**_STRING, "format": "date", "description": "Date (YYYY-MM-DD)."},
}
"""Schemas for argument names mentioned in a description (``gets user by email``)."""

SPECIAL_SCHEMAS: dict[str, dict[str, Any]] = {
    "login": {
        "type": "object",
        "properties": {"username": PROPERTY_HINTS["username"], "password": PROPERTY_HINTS["password"]},
        "required": ["username", "password"],
    },
    "reset_password": {
        "type": "object",
        "properties": {"email": PROPERTY_HINTS["email"]},
        "required": ["email"],
    },
    "send_message": {
        "type": "object",
        "properties": {
            "to": {**_STRING, "description": "Recipient (user name or ID)."},
            "text": {**_STRING, "description": "Message text."},
        },
        "required": ["to", "text"],
    },
    "logout": {"type": "object", "properties": {}},
    "checkout": {"type": "object", "properties": {}},
}
"""Whole schemas for tools whose expanded name is common enough to know."""

UNCOUNTABLE = frozenset({"info", "data", "stats", "settings", "csv", "inventory", "config"})
"""Nouns that :func:`inflection.pluralize` would get wrong in a tool name."""

STOPWORDS = frozenset(
    {"a", "an", "the", "to", "from", "of", "for", "in", "on", "with", "and", "or", "my", "all", "by"}
)
"""Words that carry no meaning in a tool name or a short description."""

CONTAINERS = frozenset({"cart", "basket", "wishlist", "playlist", "favorites"})
"""Things items go into: ``add_crt`` adds *to* the cart, it does not create one."""
