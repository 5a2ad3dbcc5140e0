"""fx_passes/realize_scales.py: a broadcast scale is computed once, not once an element, and no bit changes.

The workload is a rowwise fp8 cast as torchao 0.18 writes it (``Float8LinearConfig.from_recipe_name("rowwise")``):
a power-of-two scale per row for the row-major copy and per column for the transposed copy, each derived in float64
from an amax, and the GEMM-output rescale by the two scales' reciprocals.
"""

from __future__ import annotations

import re

import pytest
import torch
from torch._subclasses.fake_tensor import FakeTensorMode
from torch.fx.experimental.proxy_tensor import make_fx

from reduction_transpose_fusion.fx_passes import realize_scales
from reduction_transpose_fusion_testing import families, interpret

FP8 = torch.float8_e4m3fn
FP8_MAX = 448.0


def _pow2_scale(amax: torch.Tensor) -> torch.Tensor:
    """torchao's rowwise scale: ``exp2(floor(log2(448 / max(amax, 1e-12))))`` computed in float64, then float32."""
    scale = (FP8_MAX / amax.to(torch.float64).clamp(min=1e-12)).to(torch.float32)
    return torch.exp2(torch.floor(torch.log2(scale)))


def rowwise_casts(x: torch.Tensor, out: torch.Tensor):
    """The row-major fp8 copy of ``x [N, C]`` scaled per row, its transposed copy scaled per column, and the rescale
    of a GEMM output ``out [N, C]`` by both scales' reciprocals.  The scales are powers of two, so every product is
    exact in float32 and each output equals its float64 reference's bit for bit."""
    row_scale = _pow2_scale(x.abs().amax(1, keepdim=True))
    col_scale = _pow2_scale(x.abs().amax(0, keepdim=True))
    q = (x.float() * row_scale).clamp(-FP8_MAX, FP8_MAX).to(FP8)
    qt = (x.float() * col_scale).clamp(-FP8_MAX, FP8_MAX).to(FP8).t().contiguous()
    rescaled = (out.float() * (row_scale.reciprocal() * col_scale.reciprocal())).to(out.dtype)
    return q, qt, rescaled


def _fp8_kernels(src: str) -> dict[str, str]:
    """{kernel name: body} of the kernels that store an fp8 value or rescale the GEMM output (``in_out_ptr``)."""
    bodies = re.findall(r"^def (triton_\w+)\(.*?\n(.*?)''', device_str", src, re.S | re.M)
    return {name: body for name, body in bodies if "float8e4nv" in body or "in_out_ptr0" in name + body}


def _per_element_arithmetic(body: str) -> int:
    """float64 values and log2 calls in the loop of a kernel (all of a pointwise kernel): what each element of the
    loop computes for its scale."""
    loop = body.split("for r0_offset")[-1]
    return loop.count("tl.float64") + loop.count("libdevice.log2")


def test_each_cast_loads_its_scale_instead_of_recomputing_it():
    specs = (((4096, 4096), torch.bfloat16), ((4096, 4096), torch.bfloat16))
    fused = interpret.generate(rowwise_casts, interpret.fake_inputs(*specs), reduction_transpose_fusion=True)
    stock = interpret.generate(rowwise_casts, interpret.fake_inputs(*specs), reduction_transpose_fusion=False)
    stock_work = {name: _per_element_arithmetic(body) for name, body in _fp8_kernels(stock).items()}
    assert sum(stock_work.values()) > 0, f"stock's casts compute no scale an element: {stock_work}"
    fused_work = {name: _per_element_arithmetic(body) for name, body in _fp8_kernels(fused).items()}
    assert fused_work and not any(fused_work.values()), fused_work
    # realizing the scales adds no kernel: each joins the kernel that computes its amax
    assert len(interpret.kernel_names(fused)) <= len(interpret.kernel_names(stock))


def test_the_switch_leaves_stocks_inlining():
    specs = (((4096, 4096), torch.bfloat16), ((4096, 4096), torch.bfloat16))
    off = interpret.generate(rowwise_casts, interpret.fake_inputs(*specs), reduction_transpose_fusion=True,
                             reduction_transpose_fusion_realize_scales=False)
    assert sum(_per_element_arithmetic(b) for b in _fp8_kernels(off).values()) > 0


@pytest.mark.slow
@pytest.mark.parametrize("rows,cols", [(96, 160), (33, 100)])
def test_realized_scales_keep_every_bit(monkeypatch, decisions, rows, cols):
    """Interpreted at small shapes, with the size thresholds lowered so the pass acts: every output equals stock's
    and the float64 reference's bit for bit."""
    monkeypatch.setattr(realize_scales, "MIN_RECOMPUTE_OPS", 0)
    monkeypatch.setattr(realize_scales, "BROADCAST_MIN_RATIO", 8)
    gen = torch.Generator().manual_seed(torch.seed() % 2**31)
    x = (torch.randn(rows, cols, generator=gen) * torch.rand(rows, 1, generator=gen) * 30).to(torch.bfloat16)
    out = torch.randn(rows, cols, generator=gen).to(torch.bfloat16)
    specs = (((rows, cols), torch.bfloat16), ((rows, cols), torch.bfloat16))
    fused_src = interpret.generate(rowwise_casts, interpret.fake_inputs(*specs), reduction_transpose_fusion=True)
    realized = [r for r in decisions if r.startswith("realize ")]
    assert len(realized) == 2, realized  # the row scale and the column scale
    stock_src = interpret.generate(rowwise_casts, interpret.fake_inputs(*specs), reduction_transpose_fusion=False)
    fused = interpret.run_on_cpu(fused_src, [x, out])
    stock = interpret.run_on_cpu(stock_src, [x, out])
    reference = rowwise_casts(x.double(), out.double())
    for i, (a, b, ref) in enumerate(zip(fused, stock, reference)):
        assert a.shape == b.shape == ref.shape and a.dtype == b.dtype, i
        assert torch.equal(families.bits(a), families.bits(b)), f"output {i} differs from stock"
        assert torch.equal(families.bits(a), families.bits(ref.to(a.dtype))), f"output {i} differs from float64"


def _graph(fn, *shapes_dtypes, device="cuda") -> torch.fx.Graph:
    """``fn``'s aten graph, traced on fake tensors of ``device`` (the fake H200's "cuda" by default)."""
    with FakeTensorMode():
        inputs = [torch.empty(s, dtype=d, device=device) for s, d in shapes_dtypes]
    return make_fx(fn, tracing_mode="fake")(*inputs).graph


def _realized(fn, *shapes_dtypes) -> list[str]:
    return [n.name for n in realize_scales.realize_broadcast_values(_graph(fn, *shapes_dtypes))]


def test_a_row_scale_read_by_a_large_cast_is_realized():
    names = _realized(lambda x: (x * _pow2_scale(x.abs().amax(1, keepdim=True))).to(FP8), ((8192, 4096), torch.float32))
    assert names == ["exp2"], names


@pytest.mark.parametrize("fn,shape,why", [
    (lambda x: (x * _pow2_scale(x.abs().amax())).to(FP8), (8192, 4096), "a scalar is computed once a program"),
    (lambda x: (x * _pow2_scale(x.abs().amax(1, keepdim=True))).to(FP8), (8192, 32), "the reader is < 64x larger"),
    (lambda x: (x * _pow2_scale(x.abs().amax(1, keepdim=True))).to(FP8), (512, 512), "too little recomputed"),
    (lambda x: (x * (1.0 / x.abs().amax(1, keepdim=True))).to(FP8), (8192, 4096), "a chain of 1 op"),
    (lambda x: x * (x.abs().amax(1, keepdim=True).bfloat16() * 3 + 1).exp(), (8192, 4096), "a bf16 value: realizing "
     "it would round what Inductor keeps in float32"),
])
def test_values_that_stay_inlined(fn, shape, why):
    dtype = torch.bfloat16 if "bf16" in why else torch.float32
    assert _realized(fn, (shape, dtype)) == [], why


@pytest.mark.parametrize("dynamic", [(0,), (0, 1)], ids=["N", "N-and-C"])
def test_a_dynamic_batch_realizes_through_size_hints(dynamic, decisions):
    specs = (((4096, 4096), torch.bfloat16), ((4096, 4096), torch.bfloat16))
    interpret.generate(rowwise_casts, interpret.fake_inputs(*specs, dynamic=dynamic), reduction_transpose_fusion=True)
    realized = [r for r in decisions if r.startswith("realize ")]
    assert len(realized) == 2, realized  # the row scale and the column scale, sized by their hints


def _sin_scale(x, w):
    return x * torch.exp(torch.sin(w) * 2 + 1)


def _mul_last(x):
    return x + (torch.sqrt(x.abs().amax(0, keepdim=True).clamp(min=1e-12)) + 1.0) * 0.3


def _mul_last_as_factor(x):
    return x * ((torch.sqrt(x.abs().amax(0, keepdim=True).clamp(min=1e-12)) + 1.0) * 0.3)


def test_a_float32_value_from_an_input_stays_inlined():
    """A float32 value computed from a graph input alone has no reduction kernel to join: realized, it would take a
    launch of its own, which a memory-bound reader does not win back."""
    assert _realized(_sin_scale, ((8192, 4096), torch.float32), ((1, 4096), torch.float32)) == []
    assert _realized(_sin_scale, ((65536, 4096), torch.float32), ((1, 4096), torch.float32)) == []


def _saved_amax_rescale(out: torch.Tensor, row_amax: torch.Tensor, col_amax: torch.Tensor) -> torch.Tensor:
    """The weight-gradient rescale of a rowwise fp8 linear's backward: ``out [N, C]`` times the reciprocals of a
    row scale and of a column scale, both derived from amaxes the forward saved (graph inputs here), the column
    scale computed as a ``[C, 1]`` column and transposed, as the backward graph has it."""
    return (out.float() * (_pow2_scale(row_amax).reciprocal() * _pow2_scale(col_amax).reciprocal().t())).to(out.dtype)


def test_a_float64_scale_from_a_saved_amax_is_realized():
    """The rowwise scale, derived in float64 from an amax that is a graph input (the backward's saved amax), is
    realized in a kernel of its own."""
    names = _realized(_saved_amax_rescale, ((8192, 4096), torch.bfloat16), ((8192, 1), torch.bfloat16),
                      ((4096, 1), torch.bfloat16))
    assert len(names) == 2 and all(n.startswith("reciprocal") for n in names), names


def _transposed_mid_chain(out: torch.Tensor, col_amax: torch.Tensor) -> torch.Tensor:
    """A column scale whose chain is transposed halfway, ``[C, 1]`` to ``[1, C]``, before its log2."""
    scale = (FP8_MAX / col_amax.to(torch.float64).clamp(min=1e-12)).to(torch.float32).t()
    return (out.float() * torch.exp2(torch.floor(torch.log2(scale))).reciprocal()).to(out.dtype)


def _sliced_mid_chain(out: torch.Tensor, col_amax: torch.Tensor) -> torch.Tensor:
    """The same chain from an amax twice as long, sliced to its first half halfway: a view of another size."""
    scale = (FP8_MAX / col_amax.to(torch.float64).clamp(min=1e-12)).to(torch.float32)[:, : out.shape[1]]
    return (out.float() * torch.exp2(torch.floor(torch.log2(scale))).reciprocal()).to(out.dtype)


def test_the_chain_walk_passes_a_transpose_but_not_a_view_of_another_size():
    """Behind a transpose of its own size the chain goes on to its float64 ops and the saved amax (realized);
    behind a slice it ends at the slice, where only float32 ops are left (inlined)."""
    transposed = _realized(_transposed_mid_chain, ((8192, 4096), torch.bfloat16), ((4096, 1), torch.bfloat16))
    assert len(transposed) == 1 and transposed[0].startswith("reciprocal"), transposed
    assert _realized(_sliced_mid_chain, ((8192, 4096), torch.bfloat16), ((1, 8192), torch.bfloat16)) == []


def _size_divided(x: torch.Tensor, n: int) -> torch.Tensor:
    """A float64 chain whose only graph input is a size, ``n`` (a SymInt placeholder when traced symbolically)."""
    scale = (torch.arange(x.shape[1], dtype=torch.float64) / n + 1).to(torch.float32)
    return x * torch.exp2(torch.floor(torch.log2(scale)))


def test_a_size_is_no_stored_input():
    """A dynamic size is a placeholder too; a chain fed by it and a constant does not start from a stored value."""
    graph = make_fx(_size_divided, tracing_mode="symbolic")(torch.empty(64, 32), 7).graph
    assert any(n.op == "placeholder" and not isinstance(n.meta.get("val"), torch.Tensor) for n in graph.nodes)
    (exp2,) = [n for n in graph.nodes if n.target is torch.ops.aten.exp2.default]
    chain = realize_scales._chain(exp2, 32)
    assert chain.float64 and chain.ops >= 3 and not chain.from_input and not chain.from_reduction, chain


@pytest.mark.slow
def test_scales_from_saved_amaxes_keep_every_bit(monkeypatch, decisions):
    """Interpreted at a small shape with the thresholds lowered: the rescale equals stock's and the float64
    reference's bit for bit, the two scales realized."""
    monkeypatch.setattr(realize_scales, "MIN_RECOMPUTE_OPS", 0)
    monkeypatch.setattr(realize_scales, "BROADCAST_MIN_RATIO", 8)
    gen = torch.Generator().manual_seed(torch.seed() % 2**31)
    rows, cols = 96, 160
    out = (torch.randn(rows, cols, generator=gen) * 50).to(torch.bfloat16)
    row_amax = (torch.rand(rows, 1, generator=gen) * 300).to(torch.bfloat16)
    col_amax = (torch.rand(cols, 1, generator=gen) * 300).to(torch.bfloat16)
    specs = (((rows, cols), torch.bfloat16), ((rows, 1), torch.bfloat16), ((cols, 1), torch.bfloat16))
    fused_src = interpret.generate(_saved_amax_rescale, interpret.fake_inputs(*specs), reduction_transpose_fusion=True)
    assert len([r for r in decisions if r.startswith("realize ")]) == 2, decisions
    stock_src = interpret.generate(_saved_amax_rescale, interpret.fake_inputs(*specs), reduction_transpose_fusion=False)
    (fused,) = interpret.run_on_cpu(fused_src, [out, row_amax, col_amax])
    (stock,) = interpret.run_on_cpu(stock_src, [out, row_amax, col_amax])
    # float64 throughout: the scales are powers of two, so float32 and float64 give the same product
    row_scale = torch.exp2(torch.floor(torch.log2(FP8_MAX / row_amax.double().clamp(min=1e-12))))
    col_scale = torch.exp2(torch.floor(torch.log2(FP8_MAX / col_amax.double().clamp(min=1e-12))))
    reference = (out.double() / (row_scale * col_scale.t())).to(fused.dtype)
    assert torch.equal(families.bits(fused), families.bits(stock))
    assert torch.equal(families.bits(fused), families.bits(reference))


def test_cpu_values_stay_inlined():
    fn = lambda x: (x * _pow2_scale(x.abs().amax(1, keepdim=True))).to(FP8)  # noqa: E731
    graph = _graph(fn, ((8192, 4096), torch.float32), device="cpu")
    assert realize_scales.realize_broadcast_values(graph) == []


def test_a_product_read_by_an_addition_stays_inlined():
    """Inlined, ``x + s`` with ``s = m * k`` may compile to one FMA; stored, ``s`` is rounded first: other bits.
    The same product read as a factor is realized."""
    assert _realized(_mul_last, ((8192, 4096), torch.float32)) == []
    assert _realized(_mul_last_as_factor, ((8192, 4096), torch.float32)) == ["mul"]
