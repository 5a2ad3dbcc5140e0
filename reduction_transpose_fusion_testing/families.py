"""The pattern families F1–F6 (transposed copies beside leading-dim reductions), as functions plus input makers,
shared by tests and benchmarks.

Each :class:`Case` is ``fn(*inputs)`` with inputs made by :meth:`Case.inputs` for a ``[rows, cols]`` problem: the
transposed tensor is ``[rows, cols]`` (``[B, T, cols]`` with ``B * T == rows`` for F4) in ``dtype``.  Outputs are
tuples; ``transposed`` gives the positions of the transposed-copy outputs (bit-exact checks), the rest are
reductions, except ``exact`` positions (casts such as F5's ``q``), which are checked bit-exact too.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Callable

import torch

FP8 = torch.float8_e4m3fn
# ||out - ref|| / ||ref|| allowed for a reduction accumulated in fp32 and rounded to the output dtype (about half an
# ulp of that dtype; fp32 outputs get the fp32 accumulation error of a few thousand terms)
TOLERANCE = {torch.float32: 1e-5, torch.bfloat16: 8e-3, torch.float16: 1e-3}


# options that fuse every safe site: no size gate, no profitability rules (they would leave e.g. a wide fp8 cast to stock)
FUSE_EVERY_SITE = {"reduction_transpose_fusion": True, "reduction_transpose_fusion_min_bytes": 0,
                   "reduction_transpose_fusion_profitability": False}


def bits(t: torch.Tensor) -> torch.Tensor:
    """The bytes of ``t`` in logical order (any strides), for bit-exact comparisons."""
    return t.reshape(-1).view(torch.uint8)


def rel_err(out: torch.Tensor, ref: torch.Tensor) -> float:
    """||out - ref|| / ||ref||, in float64."""
    return ((out.double() - ref).norm() / ref.norm()).item()


def reference_error(out: torch.Tensor, ref: torch.Tensor) -> tuple[float, str]:
    """A reduction ``out`` against its float64 eager ``ref``, with ``ref`` first rounded to ``out.dtype`` (so an fp16
    sum past 65504 is Inf in both): ``(relative error over the finite values, "")``, or ``(inf, what differs)`` where
    the NaN positions or the ±Inf differ.  The error is the largest absolute value where ``ref``'s finite values are
    all zero."""
    ref = ref.to(out.dtype).double()
    out = out.double()
    if not torch.equal(out.isnan(), ref.isnan()):
        return math.inf, "NaN positions differ from eager"
    inf = ref.isinf()
    if not (torch.equal(out.isinf(), inf) and torch.equal(out[inf], ref[inf])):
        return math.inf, "Inf differs from eager"
    finite = ref.isfinite()
    if not finite.any():
        return 0.0, ""
    return (rel_err(out[finite], ref[finite]) if ref[finite].norm() else out[finite].abs().max().item()), ""


def assert_matches_reference(out: torch.Tensor, ref: torch.Tensor) -> None:
    """A reduction ``out`` against its float64 eager ``ref``: NaN where ``ref`` has NaN, the same ±Inf (``ref`` is
    first rounded to ``out.dtype``, so an fp16 sum past 65504 is Inf in both), finite values within
    :data:`TOLERANCE` (:func:`reference_error`).

    Raises:
        AssertionError: naming what differs.
    """
    err, differs = reference_error(out, ref)
    assert not differs, differs
    tol = TOLERANCE[out.dtype]
    assert err <= tol, f"relative error {err} > {tol}"


def f1_permute(x):
    return x.permute(1, 0).contiguous(), x.sum(0)


def f1_t(x):
    return x.t().contiguous(), x.sum(0)


def f1_transpose(x):
    return x.transpose(0, 1).contiguous(), x.sum(0)


def f1_keepdim(x):
    return x.t().contiguous(), x.sum(0, keepdim=True)


def f2_mul_add(a, b):
    y = a * b + 1
    return y.t().contiguous(), y.sum(0)


def f2_gelu_backward(grad, x):
    y = torch.ops.aten.gelu_backward(grad, x, approximate="tanh")
    return y.t().contiguous(), y.sum(0)


def f3_layernorm_backward(g, h):
    """LayerNorm backward's weight and bias gradients (h stands for x_hat) beside the transposed grad."""
    return g.t().contiguous(), (g * h).sum(0), g.sum(0)


def f3_amax(g):
    return g.t().contiguous(), g.abs().amax(0), g.sum(0)


def f4_flatten(x):
    return x.reshape(-1, x.shape[-1]).t().contiguous(), x.sum((0, 1))


def f5_fp8_cast_transpose_dbias(g, s):
    """TransformerEngine's cast_transpose_dbias: q = fp8(g * s), its transpose, and the bias gradient."""
    q = (g * s).to(FP8)
    return q, q.t().contiguous(), g.sum(0)


def f5_bf16_cast(g):
    return g.to(torch.bfloat16).t().contiguous(), g.sum(0)


def f5_rowwise(g):
    """torchao's rowwise recipe for the weight-gradient operand: per-column scales from a column amax, the scaled fp8
    cast transposed, and the bias gradient.  The amax feeds the cast, so one kernel holds both only as the column
    tile (all N rows in registers); any other would need a grid barrier (the pass leaves those sites to stock)."""
    amax = g.abs().amax(0, keepdim=True).float().clamp(min=1e-12)
    q = (g.float() * (448.0 / amax)).to(FP8)
    return q.t().contiguous(), g.sum(0)


def f6_centering(x):
    """A normalization backward's centering: the column mean feeds the transposed tensor (a second pass over x)."""
    mean = x.mean(0)
    return (x - mean).t().contiguous(), mean


def f4_flatten_4d(x):
    return x.reshape(-1, x.shape[-1]).t().contiguous(), x.sum((0, 1, 2))


@dataclasses.dataclass(frozen=True)
class Case:
    """One family variant."""

    name: str
    fn: Callable
    # "x": one [rows, cols] input; "xy": two; "x3": [2, rows // 2, cols]; "x4": [2, 2, rows // 4, cols];
    # "xs": [rows, cols] and a 0-d scale
    operands: str
    transposed: tuple[int, ...]
    exact: tuple[int, ...] = ()

    def shapes(self, rows: int, cols: int) -> list[tuple[int, ...]]:
        """Input shapes for a [rows, cols] problem."""
        return {
            "x": [(rows, cols)],
            "xy": [(rows, cols), (rows, cols)],
            "x3": [(2, rows // 2, cols)],
            "x4": [(2, 2, rows // 4, cols)],
            "xs": [(rows, cols), ()],
        }[self.operands]

    def row_dims(self) -> list[tuple[int, ...]]:
        """For each input, the dims whose size follows N (the rows): what ``mark_dynamic`` marks for a dynamic N.
        F4's ``[2, rows // 2, cols]`` has dim 1; a 0-d scale has none."""
        return {"x": [(0,)], "xy": [(0,), (0,)], "x3": [(1,)], "x4": [(2,)], "xs": [(0,), ()]}[self.operands]

    def specs(self, rows: int, cols: int, dtype: torch.dtype) -> list[tuple[tuple[int, ...], torch.dtype]]:
        """(shape, dtype) of each input; the scale of F5 is float32."""
        return [(s, dtype if s else torch.float32) for s in self.shapes(rows, cols)]

    def reference(self, inputs: list[torch.Tensor]) -> tuple[torch.Tensor, ...]:
        """The outputs computed by eager PyTorch from float64 copies of the inputs (0-d scales kept as they are)."""
        return self.fn(*[t.double() if t.dim() and t.is_floating_point() else t for t in inputs])

    def inputs(self, rows: int, cols: int, dtype: torch.dtype, device="cpu", seed: int = 0) -> list[torch.Tensor]:
        """Fresh random inputs (standard normal; the F5 scale is a random positive 0-d tensor)."""
        gen = torch.Generator(device="cpu").manual_seed(seed)
        out = []
        for shape, dt in self.specs(rows, cols, dtype):
            if shape:
                out.append(torch.randn(shape, generator=gen).to(dt).to(device))
            else:
                out.append((torch.rand((), generator=gen) * 4 + 0.5).to(device))
        return out


CASES = {
    c.name: c
    for c in (
        Case("F1-permute", f1_permute, "x", (0,)),
        Case("F1-t", f1_t, "x", (0,)),
        Case("F1-transpose", f1_transpose, "x", (0,)),
        Case("F1-keepdim", f1_keepdim, "x", (0,)),
        Case("F2-mul-add", f2_mul_add, "xy", (0,)),
        Case("F2-gelu-backward", f2_gelu_backward, "xy", (0,)),
        Case("F3-layernorm-backward", f3_layernorm_backward, "xy", (0,)),
        Case("F3-amax", f3_amax, "x", (0,)),
        Case("F4-flatten", f4_flatten, "x3", (0,)),
        Case("F5-fp8-cast-transpose-dbias", f5_fp8_cast_transpose_dbias, "xs", (1,), exact=(0,)),
        Case("F5-bf16-cast", f5_bf16_cast, "x", (0,)),
    )
}
# Families of the random-site check beyond CASES: a 4-D input (it fuses), and two whose copy needs a column reduction
# of x first, which the pass fuses only as the column tile (so the tests that expect one fused kernel per family at
# any size skip them)
EXTRA_CASES = {
    c.name: c
    for c in (
        Case("F4-flatten-4d", f4_flatten_4d, "x4", (0,)),
        Case("F5-rowwise", f5_rowwise, "x", (0,)),
        Case("F6-centering", f6_centering, "x", (0,)),
    )
}
ALL_CASES = CASES | EXTRA_CASES
DTYPES = {"fp32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}
