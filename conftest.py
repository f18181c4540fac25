"""Every asynchronous test runs on the event loop the bridge runs on in use (event_loop.run_loop):
uvloop where it is installed, so the suite exercises what users run."""

from __future__ import annotations

import asyncio

import pytest


@pytest.fixture(scope="session")
def event_loop_policy() -> asyncio.AbstractEventLoopPolicy:
    try:
        import uvloop
    except ImportError:
        return asyncio.DefaultEventLoopPolicy()
    return uvloop.EventLoopPolicy()
