"""``tabmcp doctor``: every link from this installation to a tool call, checked, with the fix for each.

:func:`gather` does the I/O into one :class:`Facts`; :func:`diagnose` turns facts into :class:`Check`
rows with none, so its rules are tested on facts made by hand. A failed link skips the links after it.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import json
import os
import shlex
import sys
from dataclasses import asdict, dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

import httpx

from .. import __version__
from ..config import DEFAULT_PORT, bridge_target, default_config_path
from ..control_key import control_headers, port_listening, read_control_key
from ..model import ModelStatus, model_status
from ..packaging.assets import extension_dir, repo_root
from .clients import CLIENTS, EntryState, Launch, entry_state, starts_bridge, this_launch

__all__ = ["Check", "Facts", "Install", "Status", "diagnose", "gather", "install_of", "render"]

MIN_PYTHON = (3, 11)


class Status(StrEnum):
    OK = "ok"
    WARN = "warn"
    """Works, but not as well as it could (keyword-only search, the polyfill instead of native WebMCP)."""
    FAIL = "fail"
    SKIP = "skip"
    """Not checked: a link it needs failed, or there is nothing to check."""


@dataclass
class Check:
    name: str
    status: Status
    detail: str
    fix: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {k: (str(v) if isinstance(v, Status) else v) for k, v in asdict(self).items()}


@dataclass
class Install:
    """How this tabmcp was installed, so that a fix reinstalls from where it came."""

    kind: str = "pip"
    """``checkout`` (run from a clone: ``./dev setup`` stages), ``pipx``, ``uv`` (``uv tool``) or ``pip``."""
    root: str | None = None
    """The checkout (kind ``checkout``)."""
    source: str | None = None
    """The directory or wheel file it was installed from (PEP 610 ``direct_url.json``); None: an index."""
    recorded: list[str] = field(default_factory=list)
    """The model's and the extension's files the installed wheel listed (its RECORD): a part listed
    but gone is a damaged install (reinstalling the same source mends it); a part never listed came
    from a wheel built without it (only a complete wheel mends it)."""

    pip: bool = True
    """pip is installed in this environment (a ``uv venv`` or ``venv --without-pip`` has none)."""

    def tool(self) -> str:
        """The command that reinstalls tabmcp (only tabmcp: its dependencies are not what is broken)."""
        if self.kind == "pipx":
            return "pipx install --force"
        if self.kind == "uv":  # a uv tool environment has no pip
            return "uv tool install --reinstall"
        if not self.pip:  # a pip from elsewhere installs into this environment
            return f"pip --python {shlex.quote(sys.executable)} install --force-reinstall --no-deps"
        return f"{shlex.quote(sys.executable)} -m pip install --force-reinstall --no-deps"


def install_of() -> Install:
    """This installation's :class:`Install` (from the checkout it runs in, or its distribution's metadata)."""
    root = repo_root()
    if root is not None:
        return Install(kind="checkout", root=str(root))
    kind = ("pipx" if os.path.exists(os.path.join(sys.prefix, "pipx_metadata.json"))
            else "uv" if os.path.exists(os.path.join(sys.prefix, "uv-receipt.toml")) else "pip")
    try:
        dist = importlib.metadata.distribution("tabmcp")
    except importlib.metadata.PackageNotFoundError:
        return Install(kind=kind)
    source = None
    try:
        url = json.loads(dist.read_text("direct_url.json") or "null")
    except ValueError:
        url = None
    if isinstance(url, dict) and str(url.get("url", "")).startswith("file://"):
        source = str(url["url"])[len("file://"):]
    recorded = [str(f) for f in dist.files or () if "/_model/" in str(f) or str(f).startswith("tabmcp/_assets/")]
    return Install(kind=kind, source=source, recorded=recorded, pip=importlib.util.find_spec("pip") is not None)


def reinstall_fix(install: Install, part: str, what: str) -> str:
    """A fix that restores ``part`` (a path inside the package, ``tabmcp/...``) for this installation."""
    if install.kind == "checkout":
        return f"in {install.root}: ./dev setup (it stages {what})"
    damaged = any(r.startswith(part) for r in install.recorded)
    source = shlex.quote(install.source) if install.source else "tabmcp"  # printed to be pasted in a shell
    if install.source and os.path.isdir(install.source):
        return f"cd {source} && ./dev setup, then {install.tool()} {source}"
    if damaged:
        return f"reinstall: {install.tool()} {source}"
    built = "this wheel" if install.source else "the wheel installed"
    return (f"{built} was built without {what}: build a complete one in a tabmcp checkout (./dev setup, then "
            f"pip wheel --no-deps -w dist .; the build stops if it cannot stage it) and install it: "
            f"{install.tool()} dist/tabmcp-{__version__}-py3-none-any.whl")


@dataclass
class Facts:
    """What :func:`gather` found; every field plain data."""

    python: tuple[int, int, int] = (0, 0, 0)
    executable: str = ""
    version: str = __version__
    extension_dir: str = ""
    extension_manifest: bool = False
    extension_version: str | None = None
    polyfill_staged: bool = False
    config_path: str = ""
    config_error: str | None = None
    port: int = DEFAULT_PORT
    port_open: bool = False
    """Something accepts connections on the port."""
    health: dict[str, Any] | None = None
    """The public ``/health`` (None: no bridge answered)."""
    full_health: dict[str, Any] | None = None
    """The full ``/health`` (the control key's); None without a key or when it was refused."""
    control_key: bool = False
    pending_pairings: list[str] = field(default_factory=list)
    """Labels of browsers waiting to pair (their popup shows the code)."""
    model: ModelStatus | None = None
    clients: dict[str, tuple[str, str]] = field(default_factory=dict)
    """Client key → (:class:`EntryState` value, sentence)."""
    launch: str = ""
    starters: list[str] = field(default_factory=list)
    """Clients whose config starts this installation's ``tabmcp serve --stdio`` (they start the bridge)."""
    install: Install = field(default_factory=lambda: Install(kind="checkout", root="."))
    secrets_store: str = ""
    """Where secrets' values are kept (storage/secret_store.py: the OS keychain or the fallback file)."""
    secrets_error: str | None = None


def _get_health(port: int, headers: dict[str, str]) -> dict[str, Any] | None:
    try:
        response = httpx.get(f"http://127.0.0.1:{port}/health", headers=headers, timeout=5.0)
        data = response.json()
    except (httpx.HTTPError, ValueError):
        return None
    return data if response.status_code == 200 and isinstance(data, dict) and data.get("ok") else None


def _pending_pairings(port: int, headers: dict[str, str]) -> list[str]:
    try:
        data = httpx.get(f"http://127.0.0.1:{port}/control/pairings", headers=headers, timeout=5.0).json()
    except (httpx.HTTPError, ValueError):
        return []
    return [str(p.get("label") or "a browser") for p in (data.get("pending") or []) if isinstance(p, dict)]


def gather(*, config: str | None = None, port: int | None = None, home: Path | None = None,
           load_model: bool = True) -> Facts:
    """Look at every link (the running bridge on ``port``, else the config's)."""
    facts = Facts(python=tuple(sys.version_info[:3]), executable=sys.executable)  # type: ignore[arg-type]
    ext = extension_dir()
    facts.extension_dir = str(ext)
    manifest = ext / "manifest.json"
    facts.extension_manifest = manifest.exists()
    if facts.extension_manifest:
        try:
            facts.extension_version = str(json.loads(manifest.read_text(encoding="utf-8")).get("version"))
        except (OSError, ValueError):  # a damaged install: no version; the install check says so
            facts.extension_manifest = False
    facts.polyfill_staged = (ext / "webmcp-polyfill.js").exists()
    facts.config_path = str(Path(config) if config else default_config_path())
    target = bridge_target(port, config)
    facts.port = target.port
    facts.config_error = str(target.error) if target.error else None
    facts.port_open = port_listening(facts.port)
    if facts.port_open:
        key = read_control_key()
        facts.control_key = key is not None
        headers = control_headers(key) if key else {}
        # One /health: with the key the bridge answers in full (its version too); without it, or
        # refusing it, the public answer (no "extension"), which is all the bridge check needs.
        facts.health = _get_health(facts.port, headers)
        if facts.health is not None and "extension" in facts.health:
            facts.full_health = facts.health
            if not (facts.health.get("extension") or {}).get("connected"):
                facts.pending_pairings = _pending_pairings(facts.port, headers)
    facts.model = model_status(load=load_model)
    launch = this_launch(port=facts.port)
    facts.launch = launch.command or ""
    for client in CLIENTS.values():
        path = client.config_path(home=home)
        state, why = entry_state(client, launch, path=path, port=facts.port)
        facts.clients[client.key] = (str(state), why)
        if state == EntryState.CURRENT and starts_bridge(client, path):
            facts.starters.append(client.key)
    facts.install = install_of()
    _gather_secrets(facts, config)
    return facts


def _gather_secrets(facts: Facts, config: str | None) -> None:
    from ..config import load_config
    from ..errors import BridgeError
    from ..storage.database import default_db_path
    from ..storage.secret_store import choose_values

    try:
        settings = load_config(config).store
        facts.secrets_store = choose_values(settings.secrets, Path(settings.path or default_db_path())).label
    except BridgeError as exc:
        facts.secrets_error = str(exc)


def diagnose(facts: Facts) -> list[Check]:
    """The checks, in the order a tool call needs their links."""
    out: list[Check] = []
    py = ".".join(map(str, facts.python))
    if facts.python[:2] >= MIN_PYTHON:
        out.append(Check("python", Status.OK, f"Python {py} ({facts.executable})"))
    else:
        out.append(Check("python", Status.FAIL, f"Python {py} is older than 3.11",
                         "install tabmcp with Python 3.11 or newer (pipx install --python python3.12 tabmcp)"))

    if not facts.extension_manifest:
        out.append(Check("install", Status.FAIL, f"tabmcp {facts.version}: the extension is missing ({facts.extension_dir})",
                         reinstall_fix(facts.install, "tabmcp/_assets/extension/manifest.json", "the extension")))
    elif facts.extension_version != facts.version:
        out.append(Check("install", Status.FAIL,
                         f"tabmcp {facts.version} carries extension {facts.extension_version} (a broken install)",
                         reinstall_fix(facts.install, "tabmcp/_assets/extension/manifest.json", "the extension")))
    else:
        out.append(Check("install", Status.OK, f"tabmcp {facts.version}, extension {facts.extension_version} in "
                         f"{facts.extension_dir}" + ("" if facts.polyfill_staged else
                                                     " (polyfill staged when the browser first loads it)")))

    if facts.config_error:
        out.append(Check("config", Status.FAIL, facts.config_error,
                         f"fix {facts.config_path} (tabmcp config check shows what it reads), or move it away"))
    else:
        where = facts.config_path if Path(facts.config_path).exists() else f"{facts.config_path} (none: defaults)"
        out.append(Check("config", Status.OK, f"config {where}"))

    health, full = facts.health, facts.full_health
    if facts.port_open and health is None:
        out.append(Check("port", Status.FAIL, f"port {facts.port} is taken by a program that is not a tabmcp bridge",
                         "stop that program, or give tabmcp another port: [server] port = N in the config "
                         f"({facts.config_path}) and `tabmcp setup CLIENT --port N`"))
    else:
        out.append(Check("port", Status.OK, f"port {facts.port}: " + ("tabmcp's bridge" if health else "free")))

    if health is None and not facts.port_open and facts.starters:
        # The normal state between `tabmcp setup` and the client's first start: nothing to fix.
        labels = " and ".join(CLIENTS[k].label for k in facts.starters if k in CLIENTS)
        out.append(Check("bridge", Status.OK, f"not running yet: {labels} starts it (tabmcp serve --stdio) "
                         "when it connects"))
    elif health is None:
        out.append(Check("bridge", Status.FAIL, f"no bridge answers on 127.0.0.1:{facts.port}",
                         "start it: `tabmcp serve` (or let your MCP client start it: `tabmcp setup CLIENT`)"))
    elif health.get("bridge") != facts.version:
        out.append(Check("bridge", Status.FAIL, f"the bridge on port {facts.port} is tabmcp {health.get('bridge')}, "
                         f"this installation is {facts.version}", "restart the bridge (stop it; your client or "
                         "`tabmcp serve` starts this installation's)"))
    else:
        out.append(Check("bridge", Status.OK, f"bridge {health.get('bridge')} on 127.0.0.1:{facts.port}"))

    ext = (full or {}).get("extension") or {}
    if health is None:
        out.append(Check("extension", Status.SKIP, "the bridge is not running" +
                         (": start your client (or `tabmcp serve`), then run doctor again" if facts.starters else "")))
    elif full is None:
        why = ("no control key (is the bridge another user's?)" if not facts.control_key
               else "the bridge refused the control key")
        out.append(Check("extension", Status.FAIL if not facts.control_key else Status.WARN,
                         "cannot read the bridge's status: " + why, "run doctor as the user who runs the bridge"))
    elif not ext.get("connected") and facts.pending_pairings:
        out.append(Check("extension", Status.FAIL, f"{', '.join(facts.pending_pairings)} waits to pair",
                         "open the tabmcp popup in that browser and run `tabmcp pair CODE` with the code it shows"))
    elif not ext.get("connected"):
        out.append(Check("extension", Status.FAIL, "no browser extension is connected",
                         "load the extension (`tabmcp extension` prints where and how) and pair it "
                         "(`tabmcp pair CODE`), or start a browser that has it: `tabmcp browser`"))
    elif ext.get("version") != health.get("bridge"):
        out.append(Check("extension", Status.FAIL, f"the connected extension is {ext.get('version')}, the bridge "
                         f"{health.get('bridge')}", "load this installation's extension: `tabmcp extension` "
                         "prints its folder; in chrome://extensions remove the old one, Load unpacked the new one"))
    else:
        out.append(Check("extension", Status.OK, f"extension {ext.get('version')} connected"))

    if not ext.get("connected"):
        out.append(Check("webmcp", Status.SKIP, "no browser connected"))
    elif not full or not full.get("tabs"):
        out.append(Check("webmcp", Status.SKIP, "the connected browser has no tabs open"))
    elif full.get("nativeTabs"):
        out.append(Check("webmcp", Status.OK, f"native WebMCP in {full['nativeTabs']} of {full['tabs']} tab(s)"))
    else:
        out.append(Check("webmcp", Status.WARN, "the connected browser has no native WebMCP: the polyfill stands in",
                         "start Chromium/Chrome with --enable-features=WebMCP (or chrome://flags → WebMCP); "
                         "`tabmcp browser` does"))

    out.append(_loop_check(health, full))

    model = facts.model
    if model is None or not model.present:
        missing = "; ".join(model.missing) if model else "not checked"
        out.append(Check("model", Status.FAIL, f"search model missing ({missing}): search ranks by keywords only",
                         reinstall_fix(facts.install, "tabmcp/_model/", "the search model")))
    elif model.loadable is False:
        out.append(Check("model", Status.FAIL, f"search model {model.name} does not load: {model.error}",
                         "reinstall onnxruntime and tokenizers: pip install --force-reinstall onnxruntime tokenizers"))
    else:
        out.append(Check("model", Status.OK, f"search model {model.name}" +
                         (" (loads)" if model.loadable else "") + f"; {model.license}"))

    if facts.secrets_error:
        out.append(Check("secrets", Status.FAIL, facts.secrets_error,
                         'store.secrets = "auto" in the config uses the fallback file where no keychain is'))
    elif facts.secrets_store:
        out.append(Check("secrets", Status.OK, f"secrets' values in the {facts.secrets_store}"))

    configured = 0
    for key, (state, why) in facts.clients.items():
        label = CLIENTS[key].label
        if state == EntryState.CURRENT:
            configured += 1
            out.append(Check(f"client:{key}", Status.OK, f"{label}: {why}"))
        elif state in (EntryState.OTHER, EntryState.INVALID):
            out.append(Check(f"client:{key}", Status.FAIL, f"{label}: {why}",
                             f"tabmcp setup {key} (writes this installation's path; keeps a backup)"))
        else:
            out.append(Check(f"client:{key}", Status.SKIP, f"{label}: {why}"))
    if not configured:
        out.append(Check("clients", Status.WARN, "no MCP client is set up to use tabmcp",
                         f"tabmcp setup {' | '.join(CLIENTS)} (or tabmcp setup --print for another client)"))
    return out


def _loop_check(health: dict[str, Any] | None, full: dict[str, Any] | None) -> Check:
    """The bridge's event loop: a page whose work held it (every tab and agent waited) is named."""
    loop = (full or {}).get("loop")
    if health is None:
        return Check("loop", Status.SKIP, "the bridge is not running")
    if not isinstance(loop, dict):
        return Check("loop", Status.SKIP, "the bridge's status is not readable" if full is None
                     else "this bridge does not measure its event loop")
    stalls, threshold = int(loop.get("stalls") or 0), loop.get("thresholdMs", 100)
    if not stalls:
        return Check("loop", Status.OK, f"event loop: no stall over {threshold} ms")
    starved = int(loop.get("starved") or 0)
    waited = (f"; {starved} of them while the bridge waited for a CPU (a busy machine; the worst it worked "
              f"through: {loop.get('worstWorkMs', 0)} ms)" if starved else "")
    worst = loop.get("worst") or {}
    top = sorted((loop.get("byOrigin") or {}).items(), key=lambda kv: -kv[1])[:3]
    named = ", ".join(f"{origin} ({n})" for origin, n in top)
    pages = [origin for origin, _ in top if not origin.startswith("(")]  # "(the bridge)", "(the extension link)"
    return Check("loop", Status.WARN,
                 f"event loop stalled {stalls} time(s) over {threshold} ms (worst {loop.get('worstMs')} ms, "
                 f"for {worst.get('origin', '?')}); by origin: {named}{waited}",
                 f"close the tabs of {', '.join(pages)} (their pages made the bridge compute while every other tab "
                 "and agent waited); the bridge's log has each stall" if pages else
                 "no page's work accounts for them: a busy machine, or the process was suspended; the bridge's "
                 "log has each stall")


_MARK = {Status.OK: "ok  ", Status.WARN: "warn", Status.FAIL: "FAIL", Status.SKIP: "  - "}


def render(checks: list[Check]) -> str:
    lines = []
    for check in checks:
        lines.append(f"[{_MARK[check.status]}] {check.name:<22} {check.detail}")
        if check.fix and check.status in (Status.FAIL, Status.WARN):
            lines.append(f"{'':30}fix: {check.fix}")
    failed = sum(c.status == Status.FAIL for c in checks)
    lines.append(f"{failed} problem(s)" if failed else "everything checked works")
    return "\n".join(lines)


def exit_code(checks: list[Check]) -> int:
    return 1 if any(c.status == Status.FAIL for c in checks) else 0


def to_json(facts: Facts, checks: list[Check], launch: Launch | None = None) -> dict[str, Any]:
    model = facts.model.to_dict() if facts.model else None
    install = {k: v for k, v in asdict(facts.install).items() if k not in ("recorded", "pip")}
    return {"ok": exit_code(checks) == 0, "version": facts.version, "model": model, "install": install,
            "checks": [c.to_dict() for c in checks]}
