"""Random-case campaign (hypothesis): fused code against stock Inductor and float64, on the CPU.

Each example draws a producer graph (plain x, x*y+1, x*b with a broadcast row b[C], x.abs(), a cast to
bf16/fp16/fp8 whose result is transposed (with or without the cast itself as an output), a 3-D input flattened to
2-D, LayerNorm backward's two reductions, the amax of abs beside a second reduction), a reduction over the leading
dims (sum / amax / amin / mean, keepdim or not), an input dtype (fp32 / bf16 / fp16), a shape [rows, cols] with
rows in [1, 300] and cols in [1, 160], and optionally a launch override (XBLOCK, R0_BLOCK in 16..128, RSPLIT 1..6).

It generates the fused code (every safe site fused: no size gate, no profitability rules) and stock Inductor's code
on the fake H200, runs both under Triton's interpreter on the same fresh standard-normal inputs, and checks:

* compilation raises nothing;
* the outputs have stock's shapes, dtypes and strides, and none holds NaN (buffers are NaN-poisoned, so a NaN is
  an element no kernel wrote);
* transposed copies and casts are bit-exact with stock's; reductions are within ``families.TOLERANCE`` of a
  float64 eager reference, unless bit-exact with stock's (an unfused tiny problem may round its producer to the
  input dtype before reducing, as stock does: stock's numerics are the floor);
* the decision log: a module whose single Triton kernel does both the transposed copy and a reduction was logged
  ``fused ...``; any other outcome was logged ``skip ...`` with a reason (a [1, C] or [N, 1] problem may have no
  reduction kernel at all: that too must be logged).

Budget: ``RTF_CAMPAIGN_EXAMPLES`` examples (default 150, 0.2-3 s each: about 2 minutes on 2 cores), derandomized
and without an example database, so CI runs the same cases every time; plus the explicit ``@example``s.  Set the
variable higher for a longer local campaign.  ``--hypothesis-show-statistics`` shows how many cases fused.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import re
from collections.abc import Callable

import torch
from hypothesis import HealthCheck, event, example, given, note, settings
from hypothesis import strategies as st

from reduction_transpose_fusion.codegen.triton import FINISH_KERNEL_LINE
from reduction_transpose_fusion_testing.logs import decision_log
from reduction_transpose_fusion_testing import families, interpret

EXAMPLES = int(os.environ.get("RTF_CAMPAIGN_EXAMPLES", "150"))
ON = families.FUSE_EVERY_SITE
OFF = {"reduction_transpose_fusion": False}


# ---- producer graphs: fn(reduce, cast_dtype, *inputs) -> outputs; `exact` outputs are bit-exact, the rest reduced ----


@dataclasses.dataclass(frozen=True)
class Producer:
    # "x": x [rows, cols]; "xy": two of them; "xb": x and a row b [cols]; "x3": x [B, rows // B, cols]
    operands: str
    fn: Callable
    exact: tuple[int, ...] = (0,)


def _transposed_and_reduced(y, reduce):
    return y.t().contiguous(), reduce(y)


PRODUCERS = {
    "plain": Producer("x", lambda reduce, cast, x: _transposed_and_reduced(x, reduce)),
    "mul_add": Producer("xy", lambda reduce, cast, x, y: _transposed_and_reduced(x * y + 1, reduce)),
    "row_broadcast": Producer("xb", lambda reduce, cast, x, b: _transposed_and_reduced(x * b, reduce)),
    "abs": Producer("x", lambda reduce, cast, x: _transposed_and_reduced(x.abs(), reduce)),
    "cast": Producer("x", lambda reduce, cast, x: (x.to(cast).t().contiguous(), reduce(x))),
    "cast_with_q": Producer("x", lambda reduce, cast, x: (x.to(cast), x.to(cast).t().contiguous(), reduce(x)),
                            exact=(0, 1)),
    "flatten_3d": Producer("x3", lambda reduce, cast, x: (x.reshape(-1, x.shape[-1]).t().contiguous(), reduce(x))),
    "layernorm_backward": Producer("xy", lambda reduce, cast, g, h: (g.t().contiguous(), reduce(g * h), reduce(g))),
    "amax_abs": Producer("x", lambda reduce, cast, x: (x.t().contiguous(), x.abs().amax(0), reduce(x))),
}


def leading_dim_reduction(op: str, keepdim: bool, t: torch.Tensor) -> torch.Tensor:
    """``t`` reduced by ``torch.<op>`` over every dim but the last."""
    return getattr(torch, op)(t, dim=tuple(range(t.dim() - 1)), keepdim=keepdim)


def input_shapes(operands: str, rows: int, cols: int, batch: int) -> list[tuple[int, ...]]:
    batch = batch if rows % batch == 0 else 1
    return {
        "x": [(rows, cols)],
        "xy": [(rows, cols), (rows, cols)],
        "xb": [(rows, cols), (cols,)],
        "x3": [(batch, rows // batch, cols)],
    }[operands]


def random_inputs(shapes, dtype: torch.dtype, seed: int) -> list[torch.Tensor]:
    """Standard normal in ``dtype``, with no exact zeros (so every relative error is defined)."""
    gen = torch.Generator().manual_seed(seed)
    out = []
    for shape in shapes:
        t = torch.randn(shape, generator=gen).to(dtype)
        out.append(torch.where(t == 0, torch.ones((), dtype=dtype), t))
    return out


# ---- the decision log and the kernels of a module ----


REDUCTION_OPS = re.compile(r"aten\.(sum|amax|amin|mean)\b")


def one_kernel_copies_and_reduces(module_source: str) -> bool:
    """True if the module has exactly one Triton kernel, a reduction kernel that writes the transposed copy too (and,
    with the separate finish, that kernel's finish kernel)."""
    kernels = {name: source for name, source in interpret.kernel_sources(module_source).items()
               if FINISH_KERNEL_LINE not in source}
    if len(kernels) != 1:
        return False
    (name, source), = kernels.items()
    header = re.search(rf"Original ATen: \[(.*)\]\n(?:#.*\n)*{name} = async_compile", module_source)
    aten_ops = header.group(1) if header else ""
    return ("r0_numel" in source and "aten.clone" in aten_ops and REDUCTION_OPS.search(aten_ops) is not None)


# ---- strategies, one per dimension ----

producers = st.sampled_from(sorted(PRODUCERS))
reductions = st.sampled_from(["sum", "amax", "amin", "mean"])
keepdims = st.booleans()
dtypes = st.sampled_from(list(families.DTYPES.values()))
cast_dtypes = st.sampled_from([torch.bfloat16, torch.float16, families.FP8])
rows_st = st.integers(1, 300)
cols_st = st.integers(1, 160)
batches = st.sampled_from([1, 2, 3])  # the leading dim of the 3-D input (1 unless it divides rows)
tile = st.sampled_from([16, 32, 64, 128])
launches = st.none() | st.builds(lambda x, r, s: f"XBLOCK={x},R0_BLOCK={r},RSPLIT={s}", tile, tile,
                                 st.integers(1, 6))
seeds = st.integers(0, 2**31 - 1)


@settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow])
# N == unroll_reductions_threshold (8): Inductor still emits a reduction kernel (it unrolls only N < 8)
@example(producer="plain", reduction="sum", keepdim=False, dtype=torch.float32, cast=torch.bfloat16, rows=8, cols=64,
         batch=1, launch=None, seed=0)
@given(producer=producers, reduction=reductions, keepdim=keepdims, dtype=dtypes, cast=cast_dtypes, rows=rows_st,
       cols=cols_st, batch=batches, launch=launches, seed=seeds)
def test_random_case_matches_stock_and_float64_and_is_logged(producer, reduction, keepdim, dtype, cast, rows, cols,
                                                             batch, launch: str | None, seed):
    case = PRODUCERS[producer]
    fn = functools.partial(case.fn, functools.partial(leading_dim_reduction, reduction, keepdim), cast)
    shapes = input_shapes(case.operands, rows, cols, batch)
    fakes = interpret.fake_inputs(*[(s, dtype) for s in shapes])

    options = ON | ({"reduction_transpose_fusion_launch_config": launch} if launch else {})
    with decision_log() as records:
        fused_src = interpret.generate(fn, fakes, **options)
    stock_src = interpret.generate(fn, fakes, **OFF)
    note(f"kernels: fused {interpret.kernel_names(fused_src)}, stock {interpret.kernel_names(stock_src)}")
    note("log:\n" + "\n".join(records))
    # the log first: it needs no kernel run, so a failing case shrinks fast
    fused_one_kernel = one_kernel_copies_and_reduces(fused_src)
    event(f"{producer}: {'fused' if fused_one_kernel else 'not fused'}")  # shown by --hypothesis-show-statistics
    if fused_one_kernel:
        assert any(r.startswith("fused ") for r in records), "one fused kernel, but no 'fused ' record"
    else:
        assert any(r.startswith("skip ") for r in records), "not fused, but no 'skip <why>' record"

    inputs = random_inputs(shapes, dtype, seed)
    fused = interpret.run_on_cpu(fused_src, inputs)
    stock = interpret.run_on_cpu(stock_src, inputs)
    reference = fn(*[t.double() for t in inputs])

    assert len(fused) == len(stock) == len(reference)
    for i, (out, st_out, ref) in enumerate(zip(fused, stock, reference)):
        assert (out.shape, out.dtype, out.stride()) == (st_out.shape, st_out.dtype, st_out.stride()), i
        assert not out.float().isnan().any(), f"output {i} has unwritten (NaN-poisoned) elements"
        if i in case.exact:
            assert torch.equal(families.bits(out), families.bits(st_out)), f"output {i} differs from stock"
        elif not torch.equal(families.bits(out), families.bits(st_out)):  # stock's own numerics are the floor
            err = families.rel_err(out, ref)
            assert err <= families.TOLERANCE[out.dtype], f"output {i}: relative error {err} vs float64"
