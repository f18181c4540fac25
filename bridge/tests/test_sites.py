"""Reachable sites in the core: the permission, the closed sites' stand-ins, stale, forget."""

from __future__ import annotations

from tabmcp.core.disclosure import ClientView, Disclosure
from tabmcp.core.reachable_sites import Sites, site_category_name
from tabmcp.core.registry import Registry
from tabmcp.core.scoping import OriginRule, PolicyCheck, PolicySettings
from tabmcp.core.search.sync import IndexSync
from tabmcp.core.tools import RESERVED_NAMES
from tabmcp.core.trust.pins import Pins
from tabmcp.protocol import TabSnapshot
from tabmcp.storage.build import search_stores
from tabmcp.storage.database import UsageStore
from tabmcp.storage.sites import SiteStore
from tabmcp.storage.trust import TrustStore

from .helpers import tab, tool

FERRY = "https://ferry.test"
FERRY_TOOLS = [
    tool("book_ferry", "Book a ferry crossing for a date.",
         inputSchema={"type": "object", "properties": {"date": {"type": "string"}}}),
    tool("list_crossings", "List the ferry crossings of a day.", annotations={"readOnlyHint": True}),
]


def snap(tab_id: int, url: str, tools: list) -> TabSnapshot:
    return TabSnapshot.model_validate(tab(tab_id, url=url, tools=tools))


def make(policy: PolicySettings | None = None, path: str = ":memory:"):
    policy = policy or PolicySettings()
    registry = Registry(reserved_names=RESERVED_NAMES)
    usage = UsageStore(path)
    sites = Sites(policy, Pins(TrustStore(path)), SiteStore(path), usage=usage)
    return registry, sites, usage


def refresh(registry: Registry, sites: Sites) -> None:
    registry.set_closed_sites(sites.refresh(registry))


def test_off_by_default_a_closed_site_is_gone():
    registry, sites, _ = make()
    registry.apply(snap(1, f"{FERRY}/book", FERRY_TOOLS))
    refresh(registry, sites)
    registry.remove(1)
    refresh(registry, sites)
    assert not sites.reachable(FERRY)
    assert registry.resolve("book_ferry") is None
    assert sites.pins.records() == []  # nothing of a site the person did not allow is recorded here


def test_config_reachable_site_stays_findable_when_closed():
    policy = PolicySettings(origins=[OriginRule(match=FERRY, reachable=True)])
    registry, sites, _ = make(policy)
    registry.apply(snap(1, f"{FERRY}/book?x=1", FERRY_TOOLS))
    refresh(registry, sites)
    assert registry.resolve("book_ferry").tab.is_open
    registry.remove(1)
    refresh(registry, sites)
    entry = registry.resolve("book_ferry")
    assert entry is not None and not entry.tab.is_open
    assert entry.tab.tab_id < 0
    assert entry.tab.closed_site.url_of("book_ferry") == f"{FERRY}/book?x=1"
    assert entry.tab.source_meta() == {"origin": FERRY, "url": f"{FERRY}/book?x=1", "open": False}
    assert entry.tool.input_schema["properties"]["date"]["type"] == "string"
    assert entry.tool.read_only is False
    assert registry.resolve("list_crossings").tool.read_only is True
    assert registry.counts()["tools"] == 0 and registry.closed_site_counts()["closedSiteTools"] == 2


def test_profiles_and_search_see_closed_site():
    policy = PolicySettings(allow_writes=True, origins=[OriginRule(match=FERRY, reachable=True)])
    registry, sites, _ = make(policy)
    registry.apply(snap(1, f"{FERRY}/", FERRY_TOOLS))
    registry.apply(snap(2, "https://other.test/", [tool("other_a"), tool("other_b")]))
    refresh(registry, sites)
    registry.remove(1)
    refresh(registry, sites)
    disclosure = Disclosure(registry, policy_check=PolicyCheck(policy))
    passthrough = [t["name"] for t in disclosure.listing(ClientView(), profile="passthrough")]
    assert {"book_ferry", "list_crossings", "other_a", "other_b"} <= set(passthrough)
    categories = disclosure.listing(ClientView(), profile="categories")
    ferry = [t for t in categories if FERRY in t["description"]]
    assert [t["name"] for t in ferry] == [site_category_name(FERRY)]  # one collapsed entry
    described, missing = disclosure.describe(["book_ferry"])
    assert not missing and described[0]["_meta"]["tabmcp/source"]["open"] is False
    overview = disclosure.introspect().data
    [site] = [src for src in overview["sources"] if src["origin"] == FERRY]
    assert site["tabId"] is None and site["open"] is False and overview["counts"]["frames"] == 0
    assert "not open: a call opens it" in disclosure.context_markdown(source=FERRY)
    index = IndexSync(registry, semantic=False, stores=search_stores(":memory:")).index
    hits = index.search("book a ferry", limit=3)
    assert hits[0].key == "book_ferry"


def test_reopening_gives_the_plain_name_back_to_the_open_tab():
    policy = PolicySettings(origins=[OriginRule(match=FERRY, reachable=True)])
    registry, sites, _ = make(policy)
    registry.apply(snap(1, f"{FERRY}/", FERRY_TOOLS))
    refresh(registry, sites)
    registry.remove(1)
    refresh(registry, sites)
    registry.apply(snap(7, f"{FERRY}/", FERRY_TOOLS))
    refresh(registry, sites)
    entry = registry.resolve("book_ferry")
    assert entry.tab.is_open and entry.tab.tab_id == 7
    assert registry.closed_sites == {}


def test_person_permission_persists_and_forget_removes_everything(tmp_path):
    db = str(tmp_path / "t.db")
    registry, sites, usage = make(path=db)
    assert sites.allow(f"{FERRY}/some/page")
    assert sites.reachable(FERRY) and sites.allowed_by(FERRY) == "person"
    registry.apply(snap(1, f"{FERRY}/", FERRY_TOOLS))
    refresh(registry, sites)
    usage.record(FERRY, "book_ferry")
    usage.flush()
    registry.remove(1)
    refresh(registry, sites)
    assert registry.resolve("book_ferry") is not None
    # a new bridge run on the same file remembers the permission and the tools
    registry2, sites2, usage2 = make(path=db)
    refresh(registry2, sites2)
    assert registry2.resolve("book_ferry") is not None
    [info] = sites2.list(registry2)
    assert info.origin == FERRY and info.allowed_by == "person" and not info.open
    assert {t.name for t in info.tools} == {"book_ferry", "list_crossings"}
    assert sites2.forget(FERRY)
    refresh(registry2, sites2)
    assert registry2.resolve("book_ferry") is None
    assert not sites2.reachable(FERRY)
    assert usage2.top(5) == []
    assert sites2.list(registry2) == []


def test_not_an_http_origin_cannot_be_allowed():
    _, sites, _ = make()
    assert not sites.allow("chrome-extension://abc")
    assert not sites.allow("file:///etc/passwd")
    assert not sites.reachable("chrome://settings")


def test_disabled_origin_wins_over_permission():
    policy = PolicySettings(origins=[OriginRule(match="https://*.test", enabled=False),
                                     OriginRule(match=FERRY, reachable=True)])
    _, sites, _ = make(policy)
    assert not sites.reachable(FERRY)


def test_stale_tool_is_not_offered_until_seen_again():
    policy = PolicySettings(origins=[OriginRule(match=FERRY, reachable=True)])
    registry, sites, _ = make(policy)
    registry.apply(snap(1, f"{FERRY}/", FERRY_TOOLS))
    refresh(registry, sites)
    registry.remove(1)
    sites.mark_stale(FERRY, "book_ferry")
    refresh(registry, sites)
    assert registry.resolve("book_ferry") is None and registry.resolve("list_crossings") is not None
    [info] = sites.list(registry)
    assert {t.name: t.stale for t in info.tools} == {"book_ferry": True, "list_crossings": False}
    registry.apply(snap(2, f"{FERRY}/", FERRY_TOOLS))
    refresh(registry, sites)
    registry.remove(2)
    refresh(registry, sites)
    assert registry.resolve("book_ferry") is not None


def test_cli_lists_allows_and_forgets_and_a_running_bridge_follows(tmp_path, capsys):
    import json

    from tabmcp.cli import main as cli

    db = tmp_path / "t.db"
    config = tmp_path / "config.toml"
    config.write_text(f'[store]\npath = "{db}"\n')
    registry, sites, _ = make(path=str(db))  # the running bridge's objects
    assert cli(["sites", "allow", FERRY, "--config", str(config)]) == 0
    refresh(registry, sites)
    assert sites.reachable(FERRY)
    registry.apply(snap(1, f"{FERRY}/book", FERRY_TOOLS))
    refresh(registry, sites)
    registry.remove(1)
    refresh(registry, sites)
    capsys.readouterr()
    assert cli(["sites", "--json", "--config", str(config)]) == 0
    [listed] = json.loads(capsys.readouterr().out)
    assert listed["origin"] == FERRY and listed["allowedBy"] == "person"
    assert sorted(t["name"] for t in listed["tools"]) == ["book_ferry", "list_crossings"]
    assert cli(["sites", "--config", str(config)]) == 0
    assert "book_ferry" in capsys.readouterr().out
    assert cli(["sites", "forget", FERRY, "--config", str(config)]) == 0
    refresh(registry, sites)  # the bridge's next tab change
    assert registry.resolve("book_ferry") is None and not sites.reachable(FERRY)
    assert cli(["sites", "forget", FERRY, "--config", str(config)]) == 1


def test_a_site_is_many_pages_an_open_page_leaves_the_others_tools_offered():
    policy = PolicySettings(origins=[OriginRule(match=FERRY, reachable=True)])
    registry, sites, _ = make(policy)
    registry.apply(snap(1, f"{FERRY}/book.html", FERRY_TOOLS))
    registry.apply(snap(2, f"{FERRY}/timetable.html?day=mon", [tool("timetable", "The crossings of a week.")]))
    refresh(registry, sites)
    registry.remove(1)
    registry.remove(2)
    refresh(registry, sites)
    # the timetable page opens again: the booking page's tools stay offered, closed, and open their page
    registry.apply(snap(3, f"{FERRY}/timetable.html", [tool("timetable", "The crossings of a week.")]))
    refresh(registry, sites)
    assert registry.resolve("timetable").tab.tab_id == 3
    book = registry.resolve("book_ferry")
    assert book is not None and not book.tab.is_open
    assert book.tab.closed_site.url_of("book_ferry") == f"{FERRY}/book.html"
    assert "timetable" not in book.tab.tools  # the open page's tool is not offered twice
    [info] = sites.list(registry)
    assert {url: [t.name for t in tools] for url, tools in info.pages().items()} == {
        f"{FERRY}/timetable.html": ["timetable"],
        f"{FERRY}/book.html": ["book_ferry", "list_crossings"],
    }
    assert info.to_dict()["pages"][0] == {"url": f"{FERRY}/timetable.html", "tools": ["timetable"]}
