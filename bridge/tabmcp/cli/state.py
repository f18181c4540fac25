"""Commands on what the bridge keeps (its SQLite file and the keychain), with or without a running bridge:
``trust``, ``sites``, ``activity``, ``controls``, ``secrets``, ``config check``."""

from __future__ import annotations

import argparse
import json
import sys

from ..config import load_config
from ..errors import SecretError
from .common import eprint

# -- trust -------------------------------------------------------------------------------


def trust(args: argparse.Namespace) -> int:
    """Show or clear the lockdown, show or accept changed tool definitions (the bridge's SQLite file)."""
    from ..core.trust.guard import TrustGuard
    from ..storage.build import db_path
    from ..storage.trust import TrustStore

    config = load_config(args.config)
    guard = TrustGuard(config.trust, TrustStore(db_path(config.store.path)))
    lockdown, pins = guard.lockdown, guard.pins
    if args.trust_command == "clear":
        print(f"cleared {lockdown.clear()} flag(s): writes no longer need approval because of them")
        return 0
    if args.trust_command == "accept":
        if not pins.accept(args.origin, args.tool):
            eprint(f"tabmcp: no changed definition of {args.tool} on {args.origin}")
            return 1
        print(f"accepted the new definition of {args.tool} on {args.origin}")
        return 0
    flags = lockdown.active()
    changed = pins.records(changed_only=True)
    if args.json:
        print(json.dumps({
            "lockdown": [f.__dict__ for f in flags],
            "changed": [{"origin": r.origin, "tool": r.name, "changedAt": r.changed_at, "documentUrl": r.document_url,
                         "diff": r.diff} for r in changed],
        }, indent=2, default=list))
        return 0
    if flags:
        print(f"LOCKDOWN: {len(flags)} flagged result(s); write tools need approval (clear: tabmcp trust clear)")
        for f in flags:
            print(f"  {f.tool} on {f.origin}: {'; '.join(f.reasons)}")
    else:
        print("no lockdown")
    if changed:
        print(f"{len(changed)} changed tool definition(s) (accept: tabmcp trust accept ORIGIN TOOL):")
        for r in changed:
            print(f"  {r.name} on {r.origin} (registered by {r.document_url or '?'})")
            print("    " + r.diff.replace("\n", "\n    "))
    else:
        print("no changed tool definitions")
    return 0


# -- sites -------------------------------------------------------------------------------


def sites(args: argparse.Namespace) -> int:
    """List reachable sites and their stored tools by page; allow or forget one (the bridge's SQLite
    file; a running bridge follows within a second: server/shared_state.py)."""
    import datetime

    from ..core.reachable_sites import Sites
    from ..core.trust.pins import Pins
    from ..storage.database import UsageStore, default_db_path
    from ..storage.sites import SiteStore
    from ..storage.trust import TrustStore

    config = load_config(args.config)
    path = config.store.path or default_db_path()
    usage = UsageStore(path)
    sites = Sites(config.policy, Pins(TrustStore(path)), SiteStore(path), usage=usage)
    try:
        if args.sites_command == "forget":
            if not sites.forget(args.origin):
                eprint(f"tabmcp: nothing stored for {args.origin}")
                return 1
            print(f"forgot {args.origin}: its stored tool definitions, usage and permission")
            return 0
        if args.sites_command == "allow":
            if not sites.allow(args.origin) and not sites.reachable(args.origin):
                eprint(f"tabmcp: {args.origin} is not an http(s) origin, or the config disables it")
                return 1
            print(f"agents may open {args.origin}")
            return 0
        listed = sites.list()
        if args.json:
            print(json.dumps([s.to_dict() for s in listed], indent=2, ensure_ascii=False))
            return 0
        if not listed:
            print("no reachable sites (allow one in the popup, or [[policy.origins]] reachable = true)")
            return 0
        for site in listed:
            seen = datetime.datetime.fromtimestamp(site.last_seen).isoformat(" ", "seconds") if site.last_seen else "never"
            state = "reachable" if site.reachable else "not reachable"
            pages = site.pages()
            print(f"{site.origin}  {state} ({site.allowed_by or '-'}), {len(site.tools)} tools on "
                  f"{len(pages)} page{'s' * (len(pages) != 1)}, last seen {seen}")
            for url, tools in pages.items():
                print(f"  {url}")
                for t in tools:
                    print(f"    {t.name}{'  (stale: its page no longer offers it)' if t.stale else ''}")
    finally:
        usage.close()
    return 0


# -- activity ----------------------------------------------------------------------------


def activity(args: argparse.Namespace) -> int:
    """What agents did in the tabs, newest first (the activity log in the bridge's SQLite file)."""
    import datetime

    from ..storage.build import activity_log

    config = load_config(args.config)
    log = activity_log(config.store.path, max_rows=config.store.activity_rows)
    try:
        entries = log.latest(args.limit, origin=args.origin, tab_id=args.tab)
    finally:
        log.close()
    if args.json:
        print(json.dumps([e.to_dict() for e in entries], indent=2, ensure_ascii=False))
        return 0
    for e in entries:
        when = datetime.datetime.fromtimestamp(e.at).strftime("%Y-%m-%d %H:%M:%S")
        tab = f"tab {e.tab_id}" if e.tab_id is not None else "no tab"
        print(f"{when}  {e.client or '?'}  {e.tool}  {e.origin or '?'} ({tab})  {e.outcome}  {e.duration_ms:.0f} ms")
        if e.arguments:
            print(f"    args:   {e.arguments}")
        if e.result:
            print(f"    result: {e.result}")
    if not entries:
        print("no activity")
    return 0


# -- controls ----------------------------------------------------------------------------


def controls(args: argparse.Namespace) -> int:
    """Show or set the person's switches (pause, writes, origins off) in the bridge's SQLite file;
    a running bridge picks a change up within a second."""
    from ..core.switches import InvalidOrigin
    from ..storage.build import person_controls

    config = load_config(args.config)
    controls = person_controls(config.store.path)
    try:
        what = args.controls_command
        if what in ("pause", "resume"):
            controls.set_paused(what == "pause")
        elif what == "writes":
            controls.set_writes({"on": True, "off": False, "config": None}[args.value])
        elif what == "origin":
            try:
                controls.set_origin(args.origin, args.value == "on")
            except InvalidOrigin as exc:
                eprint(f"tabmcp: {exc}")
                return 2
        state = controls.state()
    finally:
        controls.close()
    if args.json:
        print(json.dumps(state.to_dict(), indent=2))
        return 0
    print("agents: PAUSED (calls answer PAUSED; resume: tabmcp controls resume)" if state.paused else "agents: running")
    writes = {True: "on (your switch)", False: "off (your switch)", None: f"as the config says ({config.policy.allow_writes})"}
    print(f"writes: {writes[state.writes]}")
    print("origins switched off: " + (", ".join(state.origins_off) or "none"))
    return 0


# -- secrets -----------------------------------------------------------------------------


def _read_value(name: str) -> str:
    """The value from a prompt that does not echo (a terminal), else from stdin: never from argv,
    where other users' ``ps`` and the shell's history would see it."""
    if sys.stdin.isatty():
        import getpass

        first = getpass.getpass(f"value of {name}: ")
        if getpass.getpass(f"value of {name} (again): ") != first:
            raise SecretError("the two values differ; nothing was kept")
        return first
    return sys.stdin.readline()


def secrets(args: argparse.Namespace) -> int:
    """Keep, list, remove and import secrets bound to sites (storage/secret_store.py; docs/security.md)."""
    import datetime

    from ..storage.secret_store import SecretStore

    config = load_config(args.config)
    store = SecretStore(config.store.path, kind=config.store.secrets)
    try:
        what = args.secrets_command
        if what == "set":
            info = store.set(args.name, _read_value(args.name), args.site)
            print(f"kept {info.name} in the {store.values.label}, for {', '.join(info.sites)}")
            print(f"agents pass it as {{{{secret:{info.name}}}}}")
            return 0
        if what == "remove":
            store.remove(args.name)
            print(f"removed {args.name}")
            return 0
        if what == "unbind":
            store.unbind(args.name, args.site)
            print(f"{args.name} is no longer put into {args.site}'s tools")
            return 0
        if what == "import":
            from dotenv import dotenv_values

            pairs = dotenv_values(args.file)
            kept = 0
            for name, value in pairs.items():
                if value is None:
                    eprint(f"tabmcp: {name} has no value in {args.file}; skipped")
                    continue
                store.set(name, value, args.site)
                kept += 1
            print(f"kept {kept} secret(s) from {args.file} in the {store.values.label}, for {', '.join(args.site)}")
            return 0
        listed = store.all()
        if args.json:
            print(json.dumps({"store": store.values.label, "secrets": [i.to_dict() for i in listed]}, indent=2))
            return 0
        for info in listed:
            used = (datetime.datetime.fromtimestamp(info.last_used).isoformat(" ", "seconds")
                    if info.last_used else "never")
            print(f"{info.name}  {', '.join(info.sites)}  last used {used}")
        print(f"{len(listed)} secret(s); values in the {store.values.label}", file=sys.stderr)
        return 0
    finally:
        store.close()


# -- config ------------------------------------------------------------------------------


def config_check(args: argparse.Namespace) -> int:
    config = load_config(args.config)
    config.check_binding()
    print(json.dumps(config.model_dump(mode="json"), indent=2))
    eprint("config OK")
    return 0
