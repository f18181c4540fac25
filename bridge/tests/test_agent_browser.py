"""``tabmcp browser``'s command line (agent_browser.agent_browser_args): exactly these switches on
the person's kept profile, and none of the defaults made for throwaway test profiles. The browser
really receiving only these is e2e/test_agent_browser.py (chrome://version)."""

from __future__ import annotations

from pathlib import Path

from tabmcp.launch.agent_browser import agent_browser_args

PROFILE = Path("/home/p/.local/state/tabmcp/browser-profile")
EXT = Path("/venv/tabmcp/extension")


def test_chromium_gets_exactly_the_profile_the_pipe_webmcp_and_the_extension() -> None:
    assert agent_browser_args(PROFILE, extension=EXT, url="https://example.com/") == [
        f"--user-data-dir={PROFILE}", "--remote-debugging-pipe", "--no-first-run", "--no-default-browser-check",
        "--enable-features=WebMCP", f"--load-extension={EXT}", "https://example.com/"]


def test_branded_chrome_headless_and_root() -> None:
    assert agent_browser_args(PROFILE, extension=None, headless=True, as_root=True) == [
        f"--user-data-dir={PROFILE}", "--remote-debugging-pipe", "--no-first-run", "--no-default-browser-check",
        "--enable-features=WebMCP", "--headless", "--no-sandbox"]


def test_nothing_that_harms_a_kept_profile() -> None:
    for args in (agent_browser_args(PROFILE, extension=EXT), agent_browser_args(PROFILE, extension=None)):
        assert "--password-store=basic" not in args and "--use-mock-keychain" not in args
        assert not any(a.startswith("--disable-extensions") for a in args)  # the person's other extensions stay on
        assert not {"--disable-sync", "--enable-automation", "--no-sandbox",
                    "--disable-background-networking", "--disable-component-update"} & set(args)
