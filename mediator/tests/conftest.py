from __future__ import annotations

import ssl
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import trustme
from mediator_testkit import FakeProvider, load_fixture, start_provider
from tabmcp_mediator import RawTool, ToolContext


@pytest.fixture
def cryptic_tools() -> list[dict[str, Any]]:
    """The ~30 cryptic tools the bridge's demo page will also register."""
    return load_fixture("cryptic_tools.json")


@pytest.fixture
def shop_answer() -> dict[str, Any]:
    """A recorded good LLM answer about six of the cryptic tools."""
    return load_fixture("llm_answer_shop.json")


@pytest.fixture
def raw_tools(cryptic_tools: list[dict[str, Any]]) -> list[RawTool]:
    return [RawTool.model_validate(t) for t in cryptic_tools]


@pytest.fixture
def tool_context() -> ToolContext:
    return ToolContext(source="example.com")


@pytest.fixture
def provider() -> Iterator[FakeProvider]:
    """A local LLM provider speaking the Anthropic and OpenAI HTTP APIs."""
    fake = start_provider(FakeProvider())
    yield fake
    assert fake.server is not None
    fake.server.shutdown()
    fake.server.server_close()


@pytest.fixture(scope="session")
def tls_ca() -> trustme.CA:
    """A throwaway CA generated at test time; nothing touches the network."""
    return trustme.CA()


@pytest.fixture(scope="session")
def server_tls(tls_ca: trustme.CA) -> ssl.SSLContext:
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    tls_ca.issue_cert("127.0.0.1", "localhost").configure_cert(ctx)
    return ctx


@pytest.fixture
def ca_file(tls_ca: trustme.CA, tmp_path: Path) -> str:
    path = tmp_path / "ca.pem"
    tls_ca.cert_pem.write_to_path(str(path))
    return str(path)
