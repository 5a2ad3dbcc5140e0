"""fx_passes/realize_scaled_values.py: a computed tensor cast with a scale from its own reduction is computed once
and stored in float32, and no bit changes.

The workload is the first layer's backward of a tensorwise Float8 MLP as torchao 0.18 writes it: the GELU gradient
``g1 = gelu_backward(g_h, h)`` (bf16), its bias gradient, its amax, and its fp8 copies (e5m2) row-major and
transposed, scaled by ``57344 / amax``.
"""

from __future__ import annotations

import re

import pytest
import torch
from torch._inductor import config as inductor_config
from torch._inductor.decomposition import select_decomp_table
from torch._subclasses.fake_tensor import FakeTensorMode
from torch.fx.experimental.proxy_tensor import make_fx

from reduction_transpose_fusion.fx_passes import realize_scaled_values
from reduction_transpose_fusion_testing import families, interpret
from reduction_transpose_fusion_testing.output_code import kernel_sources, kernels_reading

E5M2 = torch.float8_e5m2
E5M2_MAX = 57344.0
SWITCH = "reduction_transpose_fusion_realize_scaled_values"


def _tensorwise_scale(t: torch.Tensor) -> torch.Tensor:
    return (E5M2_MAX / t.abs().max().to(torch.float64).clamp(min=1e-12)).to(torch.float32)


def _cast(t: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
    return (t.float() * scale).clamp(-E5M2_MAX, E5M2_MAX).to(E5M2)


def gelu_gradient_casts(g_h: torch.Tensor, h: torch.Tensor):
    """``g1 = gelu_backward(g_h, h)`` and what the layer's backward takes of it: the fp8 copy, its transposed copy,
    the bias gradient and the scale."""
    g1 = torch.ops.aten.gelu_backward(g_h, h)
    scale = _tensorwise_scale(g1)
    q = _cast(g1, scale)
    return q, q.t().contiguous(), g1.sum(0), scale


def _generate(fn, shape, dtype=torch.bfloat16, **options):
    specs = ((shape, dtype), (shape, dtype))
    return interpret.generate(fn, interpret.fake_inputs(*specs), reduction_transpose_fusion=True, **options)


def _kernels_with_erf(src) -> list[str]:
    return [name for name, body in kernel_sources(src).items() if "erf" in body.split("@triton.jit", 1)[-1]]


def test_the_gelu_gradient_is_computed_once_and_stored_in_float32(decisions):
    """At the Float8 MLP's 16384x4096: one kernel reads ``g_h`` and ``h`` and computes the erf, and stores ``g1`` in
    float32; the amax and the casts load it.  With the switch off (the default) two kernels or more compute it."""
    shape = (16384, 4096)
    stored = _generate(gelu_gradient_casts, shape, **{SWITCH: True})
    inlined = _generate(gelu_gradient_casts, shape)
    assert len(_kernels_with_erf(inlined)) >= 2, kernel_sources(inlined).keys()
    (computes,) = _kernels_with_erf(stored)
    assert kernels_reading(stored, "arg0_1") == kernels_reading(stored, "arg1_1") == [computes]
    # the one float32 buffer of g1's size, written by that kernel
    assert len(re.findall(r"empty_strided_cuda\(\(16384, 4096\), \(4096, 1\), torch\.float32\)", stored)) == 1
    assert [r for r in decisions if r.startswith("realize ")], decisions


@pytest.mark.slow
@pytest.mark.parametrize("rows,cols", [(96, 160), (33, 100)])
def test_the_stored_gelu_gradient_keeps_every_bit(monkeypatch, decisions, rows, cols):
    """Interpreted at small shapes, with the size threshold lowered so the pass acts: the fp8 copies and the scale
    equal stock's bit for bit (stock casts from the unrounded float32 value too), the bias gradient is within bf16
    rounding of the float64 reference."""
    monkeypatch.setattr(realize_scaled_values, "MIN_RECOMPUTE_OPS", 0)
    gen = torch.Generator().manual_seed(torch.seed() % 2**31)
    g_h = (torch.randn(rows, cols, generator=gen) * 3).to(torch.bfloat16)
    h = (torch.randn(rows, cols, generator=gen) * 2).to(torch.bfloat16)
    stored_src = _generate(gelu_gradient_casts, (rows, cols), **{SWITCH: True})
    assert len([r for r in decisions if r.startswith("realize ")]) == 1, decisions
    assert len(_kernels_with_erf(stored_src)) == 1
    stock_src = interpret.generate(gelu_gradient_casts, interpret.fake_inputs(((rows, cols), torch.bfloat16),
                                                                           ((rows, cols), torch.bfloat16)),
                                   reduction_transpose_fusion=False)
    stored = interpret.run_on_cpu(stored_src, [g_h, h])
    stock = interpret.run_on_cpu(stock_src, [g_h, h])
    for i in (0, 1, 3):  # the fp8 copies and the scale
        assert torch.equal(families.bits(stored[i]), families.bits(stock[i])), f"output {i} differs from stock"
    g1 = torch.ops.aten.gelu_backward(g_h.double(), h.double())
    families.assert_matches_reference(stored[2], g1.sum(0))


def _graph(fn, *shapes_dtypes, device="cuda") -> torch.fx.Graph:
    """``fn``'s graph with Inductor's decompositions, as the post-grad passes see it (``gelu_backward`` is its
    float32 ops)."""
    with FakeTensorMode():
        inputs = [torch.empty(s, dtype=d, device=device) for s, d in shapes_dtypes]
    return make_fx(fn, decomposition_table=select_decomp_table(), tracing_mode="fake")(*inputs).graph


def _realized(fn, shape, dtype=torch.bfloat16, device="cuda") -> list[torch.fx.Node]:
    inputs = [(shape, dtype)] * fn.__code__.co_argcount
    return realize_scaled_values.realize_scaled_values(_graph(fn, *inputs, device=device))


def test_the_float32_value_before_the_bf16_conversion_is_the_one_realized():
    (node,) = _realized(gelu_gradient_casts, (16384, 4096))
    assert node.meta["val"].dtype == torch.float32
    ((convert, _),) = node.users.items()
    assert convert.target is torch.ops.prims.convert_element_type.default and convert.args[1] == torch.bfloat16


def _no_cast_after_the_reduction(g_h, h):
    g1 = torch.ops.aten.gelu_backward(g_h, h)
    return g1.t().contiguous(), g1.sum(0), g1.abs().amax(0)


def _short_chain(a, b):
    g = (a.float() * b.float()).to(torch.bfloat16)
    q = _cast(g, _tensorwise_scale(g))
    return q, q.t().contiguous()


def _added_to_before_its_cast(g_h, h):
    g1 = torch.ops.aten.gelu_backward(g_h, h)
    return _cast(g1 + 1.0, _tensorwise_scale(g1))


def _squared_then_added_to(g_h, h):
    """The chain's last op is a ``pow`` of 2, which Inductor emits as a product."""
    g = (torch.ops.aten.gelu_backward(g_h.float(), h.float()) ** 2).to(torch.bfloat16)
    return _cast(g + 1.0, _tensorwise_scale(g))


def _five_inputs(a, b, c, d, e):
    """A chain that loads 5 buffers, more than Inductor's ``realize_reads_threshold``: stock stores its bf16 value."""
    g = (torch.ops.aten.gelu_backward(a.float(), b.float()) * c.float() + d.float() * e.float()).to(a.dtype)
    q = _cast(g, _tensorwise_scale(g))
    return q, q.t().contiguous(), g.sum(0)


def _row_scaled(g_h, h):
    """A row's amax: Inductor emits it and the cast that reads the same row as one kernel."""
    g1 = torch.ops.aten.gelu_backward(g_h, h)
    amax = g1.abs().amax(1, keepdim=True).to(torch.float64).clamp(min=1e-12)
    return (g1.float() * (E5M2_MAX / amax).to(torch.float32)).to(E5M2)


def _column_scaled(g_h, h):
    """A column's amax, as torchao's rowwise recipe scales the transposed copy: two kernels."""
    g1 = torch.ops.aten.gelu_backward(g_h, h)
    amax = g1.abs().amax(0, keepdim=True).to(torch.float64).clamp(min=1e-12)
    return (g1.float() * (E5M2_MAX / amax).to(torch.float32)).to(E5M2).t().contiguous(), g1.sum(0)


def test_a_column_scaled_value_is_realized():
    assert len(_realized(_column_scaled, (16384, 4096))) == 1


@pytest.mark.parametrize("fn,options,stores", [
    (gelu_gradient_casts, {}, False),
    (_five_inputs, {}, True),
    (gelu_gradient_casts, {"realize_opcount_threshold": 20}, True),  # Inductor counts 21-24 ops in the chain
])
def test_the_pass_knows_where_stock_stores_the_value_itself(fn, options, stores):
    """Where stock's own rule stores the bf16 value (Inductor's output holds a bf16 buffer of its size), storing
    the float32 one would change the bits of its casts: the pass's estimate of that rule agrees, and leaves it."""
    shape = (16384, 4096)
    specs = [(shape, torch.bfloat16)] * fn.__code__.co_argcount
    src = interpret.generate(fn, interpret.fake_inputs(*specs), reduction_transpose_fusion=False, **options)
    assert ("empty_strided_cuda((16384, 4096), (4096, 1), torch.bfloat16)" in src) == stores
    with inductor_config.patch(options):
        assert (_realized(fn, shape) == []) == stores


@pytest.mark.parametrize("fn,shape,dtype,device,why", [
    (_no_cast_after_the_reduction, (16384, 4096), torch.bfloat16, "cuda",
     "no op reads both g1 and a reduction of it: one kernel can take them all"),
    (_short_chain, (16384, 4096), torch.bfloat16, "cuda", "a chain of 3 ops"),
    (_added_to_before_its_cast, (16384, 4096), torch.bfloat16, "cuda",
     "inlined, the addition could contract with the chain's last product into an FMA: the copy's bits would change"),
    (_squared_then_added_to, (16384, 4096), torch.bfloat16, "cuda", "the same, the last product a pow of 2"),
    (_row_scaled, (16384, 4096), torch.bfloat16, "cuda", "a row's amax and its cast are one kernel"),
    (gelu_gradient_casts, (16384, 4096), torch.float32, "cuda", "a float32 graph: no bf16 value computed in float32"),
    (gelu_gradient_casts, (512, 512), torch.bfloat16, "cuda", "too little recomputed"),
    (gelu_gradient_casts, (16384, 4096), torch.bfloat16, "cpu", "not on the GPU"),
])
def test_values_that_stay_inlined(fn, shape, dtype, device, why):
    assert _realized(fn, shape, dtype, device) == [], why
