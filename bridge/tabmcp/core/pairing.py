"""Pairing: which extension connections may act as the extension (docs/security.md §1).

A ``hello`` is admitted only with a pairing the person confirmed (``tabmcp pair CODE``) or the
pre-shared ``server.extension_token``; anything else may only ask for a code, which goes to that
connection alone, so a local program can neither see another's code nor type it. No I/O here.
"""

from __future__ import annotations

import enum
import hashlib
import hmac
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from ..errors import PairingBusy, PairingCodeWrong, PairingLocked
from ..protocol import Hello

__all__ = [
    "CODE_TTL_S",
    "LAUNCHER_PREFIX",
    "MAX_PENDING_CODES",
    "MAX_WRONG_CODES",
    "Admission",
    "Pairing",
    "PairingCodes",
    "PairingStore",
    "Pairings",
    "PendingCode",
    "Verdict",
    "format_code",
    "hash_secret",
    "launcher_pairing",
    "secret_matches",
]

CODE_TTL_S = 300.0
"""A pairing code is valid this long after the extension asked for it."""
MAX_WRONG_CODES = 5
"""This many wrong codes in a row void every pending code (the popup asks for a new one)."""
MAX_PENDING_CODES = 16
"""At most this many connections wait for the person at once; more are told to try later."""
CODE_DIGITS = 6
LAUNCHER_PREFIX = "launch-"
"""Pairing ids of this form are a launcher's: their secret is derived from the control key."""


def _launcher_secret(control_key: str, pairing_id: str) -> str:
    return hmac.new(control_key.encode(), f"tabmcp launcher pairing {pairing_id}".encode(), hashlib.sha256).hexdigest()


def launcher_pairing(control_key: str) -> dict[str, str]:
    """A pairing a launcher writes into the browser it starts: its secret is an HMAC of a fresh id under
    the control key, so every bridge of this user admits it with no row stored, and it gives nothing
    the control key does not already give."""
    pairing_id = LAUNCHER_PREFIX + secrets.token_hex(6)
    return {"id": pairing_id, "secret": _launcher_secret(control_key, pairing_id)}


def hash_secret(secret: str) -> str:
    """What the bridge keeps of a pairing secret (the secret itself lives only in the extension)."""
    return hashlib.sha256(secret.encode("utf-8", "surrogatepass")).hexdigest()


def secret_matches(secret: str, secret_hash: str) -> bool:
    """Whether ``secret`` is the one ``secret_hash`` was made from, in time that does not depend
    on where they differ (:func:`secrets.compare_digest`)."""
    return secrets.compare_digest(hash_secret(secret), secret_hash)


def format_code(code: str) -> str:
    """``123456`` → ``123-456``, as the popup shows it and the person types it."""
    return f"{code[:3]}-{code[3:]}"


@dataclass
class Pairing:
    """One paired extension install, as the bridge keeps it."""

    id: str
    secret_hash: str
    label: str
    created: float
    last_seen: float | None = None
    ephemeral: bool = False
    """Made by a launcher (``tabmcp demo``, tests) for a browser profile it throws away: kept in
    memory for this bridge run only."""

    def to_dict(self) -> dict[str, object]:
        return {"id": self.id, "label": self.label, "created": self.created, "lastSeen": self.last_seen,
                "ephemeral": self.ephemeral}


class PairingStore(Protocol):
    """Where pairings persist (``tabmcp.storage.database.SqlitePairings``)."""

    def get(self, pairing_id: str) -> Pairing | None: ...
    def add(self, pairing: Pairing) -> None: ...
    def remove(self, pairing_id: str) -> bool: ...
    def all(self) -> list[Pairing]: ...
    def touch(self, pairing_id: str, when: float) -> None: ...


class Verdict(enum.Enum):
    ADMITTED = "admitted"
    UNPAIRED = "unpaired"
    """No credential: the ceremony only."""
    UNKNOWN = "unknown"
    """A pairing this bridge does not hold (forgotten, another bridge's, or forged): the ceremony only."""
    WRONG_TOKEN = "wrong_token"
    """A ``token`` that is not ``server.extension_token``: refused and closed (as before pairing)."""


@dataclass(frozen=True)
class Admission:
    verdict: Verdict
    pairing_id: str | None = None
    """The pairing that admitted the link (None: the pre-shared token did)."""

    @property
    def admitted(self) -> bool:
        return self.verdict is Verdict.ADMITTED


@dataclass
class PendingCode:
    code: str
    """Six digits, no dash."""
    owner: object
    """The connection that asked (the session's peer): the only one told the code."""
    label: str
    expires: float

    def to_dict(self, now: float) -> dict[str, object]:
        """For ``tabmcp pair --list``: never the code (the person reads it in the popup)."""
        return {"label": self.label, "expiresInS": round(max(0.0, self.expires - now))}


class PairingCodes:
    """Codes waiting for the person: one per asking connection, each expiring, few wrong tries.

    Args:
        clock: monotonic seconds.
        ttl_s: how long a code is valid.
        max_wrong: wrong codes in a row that void every pending code.
        max_pending: connections that may wait at once.
    """

    def __init__(
        self,
        *,
        clock: Callable[[], float] = time.monotonic,
        ttl_s: float = CODE_TTL_S,
        max_wrong: int = MAX_WRONG_CODES,
        max_pending: int = MAX_PENDING_CODES,
    ) -> None:
        self.clock = clock
        self.ttl_s = ttl_s
        self.max_wrong = max_wrong
        self.max_pending = max_pending
        self._pending: list[PendingCode] = []
        self.wrong = 0
        """Wrong codes typed since the last right one."""

    def pending(self) -> list[PendingCode]:
        self._prune()
        return list(self._pending)

    def _prune(self) -> None:
        now = self.clock()
        self._pending = [p for p in self._pending if p.expires > now]

    def issue(self, owner: object, label: str = "") -> PendingCode:
        """A new code for ``owner`` (its previous one, if any, is void).

        Raises:
            PairingBusy: ``max_pending`` other connections are already waiting.
        """
        self.withdraw(owner)
        self._prune()
        if len(self._pending) >= self.max_pending:
            raise PairingBusy(f"{len(self._pending)} pairing requests are already waiting; try again in a few minutes")
        taken = {p.code for p in self._pending}
        while True:
            code = f"{secrets.randbelow(10**CODE_DIGITS):0{CODE_DIGITS}d}"
            if code not in taken:
                break
        pending = PendingCode(code=code, owner=owner, label=label[:200], expires=self.clock() + self.ttl_s)
        self._pending.append(pending)
        return pending

    def withdraw(self, owner: object) -> None:
        """``owner`` went away or asked again: its code is void."""
        self._pending = [p for p in self._pending if p.owner is not owner]

    def redeem(self, typed: str) -> PendingCode:
        """The pending request whose code the person typed (dashes and spaces ignored), removed.

        Raises:
            PairingCodeWrong: no pending, unexpired code matches.
            PairingLocked: the ``max_wrong``-th wrong code in a row voided every pending code (``voided``).
        """
        self._prune()
        digits = "".join(c for c in typed if c.isdigit())
        match = None
        for pending in self._pending:  # no early exit: the time taken does not tell which code is close
            if secrets.compare_digest(pending.code.encode(), digits.encode()):
                match = pending
        if match is None:
            self.wrong += 1
            if self.wrong >= self.max_wrong:
                voided = [p.owner for p in self._pending]
                self._pending = []
                self.wrong = 0
                exc = PairingLocked(f"{self.max_wrong} wrong codes in a row: every pending code is void; "
                                    "open the extension's popup for a new one")
                exc.voided = voided  # type: ignore[attr-defined]
                raise exc
            raise PairingCodeWrong(f"no pairing request has code {typed!r} (or it expired); "
                                   f"check the code in the extension's popup ({self.max_wrong - self.wrong} tries left)")
        self.wrong = 0
        self._pending.remove(match)
        return match


class Pairings:
    """Who may be the extension: stored pairings, launchers' ephemeral ones, the pre-shared token,
    and the codes of the ceremony.

    Args:
        store: where pairings persist.
        token: ``server.extension_token`` (a ``hello`` carrying it is admitted).
        control_key: admits launchers' pairings (:func:`launcher_pairing`); None: none are.
        wall: epoch seconds, for ``created`` / ``last_seen``.
    """

    def __init__(
        self,
        store: PairingStore,
        *,
        token: str | None = None,
        control_key: str | None = None,
        clock: Callable[[], float] = time.monotonic,
        wall: Callable[[], float] = time.time,
    ) -> None:
        self.store = store
        self.token = token or None
        self.control_key = control_key or None
        self.codes = PairingCodes(clock=clock)
        self.wall = wall
        self._ephemeral: dict[str, Pairing] = {}

    def admit(self, hello: Hello) -> Admission:
        """Whether this ``hello`` may make its connection the extension link."""
        if self.token and hello.token:
            if secrets.compare_digest(hello.token.encode("utf-8", "surrogatepass"), self.token.encode()):
                return Admission(Verdict.ADMITTED)
            return Admission(Verdict.WRONG_TOKEN)
        credential = hello.pairing
        if credential is None:
            return Admission(Verdict.UNPAIRED)
        if credential.id.startswith(LAUNCHER_PREFIX):
            if self.control_key and secrets.compare_digest(
                credential.secret.encode("utf-8", "surrogatepass"),
                _launcher_secret(self.control_key, credential.id).encode(),
            ):
                return Admission(Verdict.ADMITTED, credential.id)
            return Admission(Verdict.UNKNOWN)
        pairing = self.get(credential.id)
        if pairing is None or not secret_matches(credential.secret, pairing.secret_hash):
            return Admission(Verdict.UNKNOWN)
        now = self.wall()
        pairing.last_seen = now
        if not pairing.ephemeral:
            self.store.touch(pairing.id, now)
        return Admission(Verdict.ADMITTED, pairing.id)

    def get(self, pairing_id: str) -> Pairing | None:
        return self._ephemeral.get(pairing_id) or self.store.get(pairing_id)

    def create(self, label: str, *, ephemeral: bool = False) -> tuple[Pairing, str]:
        """A new pairing and its secret (shown once: only its hash is kept)."""
        secret = secrets.token_urlsafe(32)
        pairing = Pairing(id=secrets.token_hex(6), secret_hash=hash_secret(secret), label=label[:200] or "extension",
                          created=self.wall(), ephemeral=ephemeral)
        if ephemeral:
            self._ephemeral[pairing.id] = pairing
        else:
            self.store.add(pairing)
        return pairing, secret

    def confirm(self, typed: str) -> tuple[object, Pairing, str]:
        """The person typed a code: the connection that asked for it, its new pairing and secret.

        Raises:
            PairingCodeWrong, PairingLocked: see :meth:`PairingCodes.redeem`.
        """
        pending = self.codes.redeem(typed)
        pairing, secret = self.create(pending.label)
        return pending.owner, pairing, secret

    def forget(self, pairing_id: str) -> bool:
        """Remove a pairing; whether there was one."""
        return self._ephemeral.pop(pairing_id, None) is not None or self.store.remove(pairing_id)

    def all(self) -> list[Pairing]:
        return [*self.store.all(), *self._ephemeral.values()]


class TokenOnly:
    """Admission with no pairing store: the pre-shared token if set, else everyone (unit tests of
    the session that are not about admission)."""

    def __init__(self, token: str | None) -> None:
        self.token = token or None

    def admit(self, hello: Hello) -> Admission:
        if self.token is None:
            return Admission(Verdict.ADMITTED)
        if secrets.compare_digest((hello.token or "").encode("utf-8", "surrogatepass"), self.token.encode()):
            return Admission(Verdict.ADMITTED)
        return Admission(Verdict.WRONG_TOKEN)
