"""tabmcp-mediator: improve badly described tools before an agent sees them.

Standalone: it never imports the bridge (``tabmcp``). The bridge loads it through its
tool-middleware hook when the ``[mediator]`` config section is enabled::

    from tabmcp_mediator import MediatorConfig, ToolContext, build_mediator, map_arguments

    mediator = build_mediator(MediatorConfig(provider="anthropic", model="claude-haiku-4-5"))
    result = await mediator.process(raw_tools, ToolContext(source="example.com"))
    # result.tools, result.categories; on a call: map_arguments(result.tool(name), args)
"""

from tabmcp_mediator.arguments import map_arguments
from tabmcp_mediator.cache import EnhancementCache
from tabmcp_mediator.config import MediatorConfig
from tabmcp_mediator.errors import (
    ArgumentMappingError,
    CacheError,
    ConfigError,
    InvalidLLMResponse,
    InvalidToolError,
    MediatorError,
    OverrideLoadError,
    ProviderError,
    ProviderTimeout,
)
from tabmcp_mediator.factory import build_client, build_mediator
from tabmcp_mediator.llm.anthropic_client import AnthropicClient
from tabmcp_mediator.llm.client import LLMClient
from tabmcp_mediator.llm.openai_client import OpenAICompatibleClient
from tabmcp_mediator.mediator import ToolMediator
from tabmcp_mediator.models import (
    Category,
    EnhancedTool,
    EnhancementResult,
    FilterCriteria,
    RawTool,
    ToolContext,
)
from tabmcp_mediator.overrides import ToolOverride, fetch_overrides, load_overrides_file
from tabmcp_mediator.protocol import ToolTransformer
from tabmcp_mediator.transformers.cached import CachedTransformer
from tabmcp_mediator.transformers.llm import LLMTransformer
from tabmcp_mediator.transformers.overrides import OverrideTransformer
from tabmcp_mediator.transformers.rules import RuleBasedTransformer

__version__ = "0.1.0"

__all__ = [
    "AnthropicClient",
    "ArgumentMappingError",
    "CacheError",
    "CachedTransformer",
    "Category",
    "ConfigError",
    "EnhancedTool",
    "EnhancementCache",
    "EnhancementResult",
    "FilterCriteria",
    "InvalidLLMResponse",
    "InvalidToolError",
    "LLMClient",
    "LLMTransformer",
    "MediatorConfig",
    "MediatorError",
    "OpenAICompatibleClient",
    "OverrideLoadError",
    "OverrideTransformer",
    "ProviderError",
    "ProviderTimeout",
    "RawTool",
    "RuleBasedTransformer",
    "ToolContext",
    "ToolMediator",
    "ToolOverride",
    "ToolTransformer",
    "build_client",
    "build_mediator",
    "fetch_overrides",
    "load_overrides_file",
    "map_arguments",
]
