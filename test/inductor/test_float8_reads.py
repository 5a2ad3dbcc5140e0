"""How many generated Triton kernels read the output gradient ``g`` in a torchao 0.18 ``Float8Linear`` backward, on
the fake H200 (CPU only), with the flag off (stock) and on.

The backward of ``y = Float8Linear(x)`` (bf16, 4096 tokens, 4096 -> 4096) reads ``g`` for its fp8 scale, its fp8
cast (the grad-input GEMM's operand), the transposed fp8 cast (the weight-gradient GEMM's operand) and, with bias,
the bias gradient ``g.sum(0)``.  The graph compiled is the training step's joint graph, ``y`` and
``autograd.grad(y, (x, w, b), g)``, traced through torchao's own backward with fake CPU tensors (on fake CUDA
tensors the autograd engine asks the CUDA runtime for a context the fake H200 does not have) and retargeted to the
fake CUDA device, ``g`` a graph input.  Inductor names it after the traced placeholder;
:func:`~reduction_transpose_fusion_testing.output_code.kernels_reading` finds the kernels that load it in the output
module.

Counts found with torch 2.11.0 (kernels loading ``g``, stock -> fused):

* tensorwise, bias: 3 -> 2.  Stock: the first of the scale's two ``abs().max()`` kernels, the fp8 cast with its
  transposed copy, and the first of the bias gradient's two ``sum(0)`` kernels; fused, the last two are one kernel.
* tensorwise, no bias: 2 -> 2 (no column reduction of ``g``: nothing to fuse).
* rowwise, bias or not: 2 -> 2.  Stock already reads ``g`` twice: its first kernel computes the column ``amax`` (with
  bias, the ``sum(0)`` beside it), the second the row ``amax`` and the casts.  The column ``amax`` scales the
  transposed cast of the same tensor, a second pass over ``g`` after a grid-wide reduction, so the package leaves
  the site to stock (``skip_reason``).  The same two kernels read ``g`` fused; the second one loads the column
  scales (``fx_passes/realize_scales.py``) where stock's derives them in float64 for every element.
"""

from __future__ import annotations

import functools
import re

import pytest
import torch

torchao_float8 = pytest.importorskip("torchao.float8")

from torch._inductor import config as inductor_config  # noqa: E402
from torch._inductor.compile_fx import compile_fx  # noqa: E402
from torch._inductor.utils import get_code  # noqa: E402

from reduction_transpose_fusion_testing import float8_graphs  # noqa: E402
from reduction_transpose_fusion_testing.output_code import kernels_reading  # noqa: E402

TOKENS, DIM = 4096, 4096  # bf16 g: 32 MiB, over the default gate (reduction_transpose_fusion_min_bytes)
RECIPES = ["tensorwise", "rowwise"]
# the user's switch alone (default gate and profitability rules)
STOCK = dict(reduction_transpose_fusion=False, fx_graph_cache=False)  # compiled each time, not served from the cache
FUSED = dict(STOCK, reduction_transpose_fusion=True)
CASES = [pytest.param(recipe, bias, id=f"{recipe}-{'bias' if bias else 'no-bias'}")
         for recipe in RECIPES for bias in (True, False)]


def _step_graph(recipe: str, bias: bool):
    """The joint graph of one training step of a Float8Linear, for the fake CUDA device, and its inputs
    ``x, w, [b,] g`` (fake CUDA tensors).  Returns ``(graph module, inputs, name of g's placeholder)``."""
    with torch.device("meta"):
        linear = torch.nn.Linear(DIM, DIM, bias=bias, dtype=torch.bfloat16)
    config = torchao_float8.Float8LinearConfig.from_recipe_name(recipe)
    model = torchao_float8.convert_to_float8_training(torch.nn.Sequential(linear), config=config)[0]
    assert type(model).__name__ == "Float8Linear"
    return float8_graphs.joint_graph(model, (TOKENS, DIM), (TOKENS, DIM))


@pytest.fixture(scope="module", autouse=True)
def _inductor_min_max_restored():
    """``convert_to_float8_training`` rewrites Inductor's Triton ``minimum``/``maximum`` codegen for the whole process
    (torchao 0.18's ``float8._inductor_patch``, a workaround for a Triton fp8 store bug); the tests after this file
    compare Inductor's code with stock's from a clean process, so the rewrite is undone here."""
    from torch._inductor.codegen.triton import TritonOverrides

    saved = {name: TritonOverrides.__dict__[name] for name in ("minimum", "maximum")}
    yield
    for name, method in saved.items():
        setattr(TritonOverrides, name, method)
    patch = __import__("torchao.float8._inductor_patch", fromlist=["_PATCHED"])
    patch._PATCHED = False  # a later convert_to_float8_training applies it again


@functools.cache
def _kernels_reading_g(recipe: str, bias: bool, fused: bool) -> tuple[str, ...]:
    gm, inputs, g = _step_graph(recipe, bias)
    with inductor_config.patch(FUSED if fused else STOCK):
        code = get_code(lambda: compile_fx(gm, list(inputs)))
    (module,) = [c for c in (code if isinstance(code, (list, tuple)) else [code]) if c]  # get_code pads with ''
    assert re.search(rf"\b{g}\b[^\n]* = args$", module, re.M), f"{g} is not an input of the output module"
    return tuple(kernels_reading(module, g))


def _counts(recipe: str, bias: bool) -> tuple[tuple[str, ...], tuple[str, ...], str]:
    stock, fused = _kernels_reading_g(recipe, bias, False), _kernels_reading_g(recipe, bias, True)
    message = (f"{recipe}, bias {bias}: g is loaded by {len(stock)} kernels stock {list(stock)} and by "
               f"{len(fused)} fused {list(fused)}")
    print(message)
    return stock, fused, message


@pytest.mark.slow
@pytest.mark.parametrize("recipe,bias", CASES)
def test_the_flag_never_loads_g_in_more_kernels_than_stock(recipe, bias, record_property):
    stock, fused, message = _counts(recipe, bias)
    record_property("g_loads_stock", len(stock))
    record_property("g_loads_fused", len(fused))
    assert stock, f"no kernel loads g in stock's code: the count would prove nothing ({message})"
    assert len(fused) <= len(stock), message


@pytest.mark.slow
@pytest.mark.parametrize("bias", [True, False], ids=["bias", "no-bias"])
def test_tensorwise_fused_loads_g_in_at_most_two_kernels(bias):
    _, fused, message = _counts("tensorwise", bias)
    assert len(fused) <= 2, message


@pytest.mark.slow
def test_tensorwise_bias_gradient_shares_the_cast_kernels_read_of_g():
    """Stock reads g a third time for the bias gradient; fused, the cast-transpose kernel computes it."""
    stock, fused, message = _counts("tensorwise", True)
    assert len(fused) < len(stock), message


@pytest.mark.slow
@pytest.mark.parametrize("bias", [True, False], ids=["bias", "no-bias"])
def test_rowwise_fused_loads_g_in_at_most_two_kernels(bias):
    """Rowwise is left to stock (its column amax scales the transposed cast of g), and stock reads g twice."""
    stock, fused, message = _counts("rowwise", bias)
    assert [_ORDINAL.sub("", k) for k in fused] == [_ORDINAL.sub("", k) for k in stock], message
    assert len(fused) <= 2, message


_ORDINAL = re.compile(r"_\d+$")  # Inductor's kernel ordinal


@pytest.mark.slow
def test_rowwise_casts_of_g_load_their_scales():
    """The kernel that writes g's fp8 copies computes no float64 in its cast loop fused; stock's does (its column
    scale, ``exp2(floor(log2(448 / amax.double())))``, an element)."""
    def cast_loop(fused: bool) -> str:
        gm, inputs, _ = _step_graph("rowwise", True)
        with inductor_config.patch(FUSED if fused else STOCK):
            code = get_code(lambda: compile_fx(gm, list(inputs)))
        (module,) = [c for c in (code if isinstance(code, (list, tuple)) else [code]) if c]
        body = module[module.index(f"def {_kernels_reading_g('rowwise', True, fused)[-1]}("):]
        return body[:body.index("device_str=")].split("for r0_offset")[-1]

    assert "tl.float64" in cast_loop(False), "stock's cast loop computes no float64: the test proves nothing"
    assert "tl.float64" not in cast_loop(True)
