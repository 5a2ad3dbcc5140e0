"""The fused kernels' numerics on the CPU: generated CUDA code run under Triton's interpreter at small shapes.

Reductions are checked against a float64 eager reference; transposed copies and casts must be bit-exact, both
against stock Inductor's code run the same way (the same fp32 arithmetic) and, for pure copies, against x.t().
"""

from __future__ import annotations

import pytest
import torch

from reduction_transpose_fusion_testing import families, interpret

ON = families.FUSE_EVERY_SITE
# (rows, cols, launch override): tiles that divide evenly, odd sizes with ragged tiles, and RSPLIT > 1 so the
# last-program finish sums partials from several programs (RSPLIT=5 does not divide the 4 row tiles evenly); one
# tile a program over 108 row tiles, capped by the 2% partials budget, gives RSPLIT 34 (fp32) or 17 (16-bit), so the
# chunked finish takes three or two steps of FINISH_CHUNK=16, the last one ragged; the register prefetch of the row
# loop with 9 row tiles over RSPLIT=4 (chunks of 3: the last program's is empty, and with N a multiple of R0_BLOCK the
# loads have no row mask)
SHAPES = [
    (256, 128, "XBLOCK=64,R0_BLOCK=64,RSPLIT=2"),
    (197, 100, "XBLOCK=64,R0_BLOCK=64,RSPLIT=3"),
    (250, 66, "XBLOCK=32,R0_BLOCK=64,RSPLIT=5"),
    (1713, 40, "XBLOCK=32,R0_BLOCK=16,TILES_PER_PROGRAM=1"),
    (144, 100, "XBLOCK=32,R0_BLOCK=16,RSPLIT=4,PREFETCH=1"),
]



def run(name, rows, cols, dtype, **options):
    case = families.CASES[name]
    inputs = case.inputs(rows, cols, dtype, seed=rows * cols)
    src = interpret.generate(case.fn, interpret.fake_inputs(*case.specs(rows, cols, dtype)), **options)
    return case, inputs, src, interpret.run_on_cpu(src, inputs)



@pytest.mark.parametrize("rows,cols,launch", SHAPES)
@pytest.mark.parametrize("dtype", families.DTYPES.values(), ids=families.DTYPES.keys())
@pytest.mark.parametrize("name", list(families.CASES))
def test_fused_matches_float64_and_stock(name, dtype, rows, cols, launch):
    case, inputs, src, fused = run(name, rows, cols, dtype, **ON, reduction_transpose_fusion_launch_config=launch)
    assert len(interpret.kernel_names(src)) == 1
    _, _, _, stock = run(name, rows, cols, dtype, reduction_transpose_fusion=False)
    reference = case.reference(inputs)
    for i, (out, st, ref) in enumerate(zip(fused, stock, reference)):
        assert out.shape == st.shape and out.dtype == st.dtype and out.stride() == st.stride(), i
        if i in case.transposed or i in case.exact:
            assert torch.equal(families.bits(out), families.bits(st)), f"output {i} differs from stock"
        else:
            assert not out.isnan().any(), f"output {i} has unwritten (NaN-poisoned) elements"
            assert families.rel_err(out, ref) <= families.TOLERANCE[out.dtype], (i, families.rel_err(out, ref))


@pytest.mark.parametrize("name", [n for n, c in families.CASES.items() if c.fn in (families.f1_t, families.f4_flatten)])
def test_transposed_copy_is_bit_exact(name):
    case, inputs, _, fused = run(name, 197, 100, torch.bfloat16, **ON,
                                 reduction_transpose_fusion_launch_config="RSPLIT=3")
    x = inputs[0].reshape(-1, inputs[0].shape[-1])
    assert torch.equal(fused[0], x.t().contiguous())


def test_odd_c_and_odd_n_default_launch_is_correct():
    """Odd C and N take one row tile a program: 33 row tiles of 64, capped at 21 by the 2% partials budget, so the
    persistent kernel's tile grows to 128 rows, 17 of which cover N (RSPLIT 17, not 21 with 4 programs without
    rows), and the flagged finish takes two steps of FINISH_CHUNK, the second one ragged (programs run in a shuffled
    order, each finisher after its peers).  (The last-program finish: the default for this small site is the separate
    finish.)"""
    case, inputs, src, fused = run("F1-t", 2111, 33, torch.bfloat16, **ON,
                                   reduction_transpose_fusion_launch_config="SEPARATE_FINISH=0")
    assert "'RSPLIT': 17," in src and "rsplit_ks" in src and "for r0_offset" not in src
    assert torch.equal(fused[0], inputs[0].t().contiguous())
    assert families.rel_err(fused[1], case.reference(inputs)[1]) <= families.TOLERANCE[fused[1].dtype]


@pytest.mark.parametrize("name,rows,cols,launch", [
    ("F2-gelu-backward", 197, 100, "RSPLIT=4"),  # a heavy producer: 8 elements a thread, one wave
    # two reductions, odd C and N: 16 elements a thread, two row tiles (the last-program finish: the separate
    # finish, this small site's default, does not prefetch)
    ("F3-layernorm-backward", 1211, 33, "SEPARATE_FINISH=0"),
])
def test_small_tiles_prefetch_by_default_and_match_stock(name, rows, cols, launch):
    """16-bit looped kernels of at most 16 elements a thread prefetch the next row tile (triton_heuristics.py); the
    last chunk of each is one ragged tile or ends in one, which the loop loads again as its own next."""
    case, inputs, src, fused = run(name, rows, cols, torch.bfloat16, **ON,
                                   reduction_transpose_fusion_launch_config=launch)
    assert "r0_offset_next" in src and "for r0_offset" in src
    _, _, _, stock = run(name, rows, cols, torch.bfloat16, reduction_transpose_fusion=False)
    assert torch.equal(families.bits(fused[0]), families.bits(stock[0]))
    for out, ref in zip(fused[1:], case.reference(inputs)[1:]):
        assert families.rel_err(out, ref) <= families.TOLERANCE[out.dtype]


def test_default_launch_heuristic_is_correct():
    case, inputs, src, fused = run("F3-layernorm-backward", 1000, 192, torch.float32, **ON)
    assert "'RSPLIT': 1," not in src  # the heuristic splits rows here, so the finish is exercised
    g, h = (t.double() for t in inputs)
    assert torch.equal(fused[0], inputs[0].t().contiguous())
    assert families.rel_err(fused[1], (g * h).sum(0)) <= 1e-5 and families.rel_err(fused[2], g.sum(0)) <= 1e-5


def test_interpreter_runs_each_finisher_after_the_programs_it_waits_for():
    """The harness's order for a two-level flagged finish (groups of 16 over RSPLIT 37, three column blocks): each
    group's last program after the 15 before it, each column block's finisher after the whole block, and every
    program exactly once."""
    import random

    rsplit, group = 37, 16
    order = [(s, j, 0) for s in range(rsplit) for j in range(3)]
    random.Random(0).shuffle(order)
    out = interpret._finishers_after_peers(order, rsplit, group)
    assert sorted(out) == sorted(order)
    at = {p: i for i, p in enumerate(out)}
    for s, j, _ in out:
        first = 0 if s == rsplit - 1 else s - group + 1 if s % group == group - 1 else s
        assert all(at[(t, j, 0)] < at[(s, j, 0)] for t in range(first, s))


def _gelu_backward_to_fp8(g, h):
    """The Float8Linear MLP's layer-1 backward: the GELU gradient, cast to fp8 (row-major and transposed), and the
    bias gradient."""
    d = torch.ops.aten.gelu_backward(g, h)
    q = (d.float() * 8.0).to(families.FP8)
    return q, q.t().contiguous(), d.sum(0)


def test_a_heavy_kernel_into_fp8_copies_prefetches_and_matches_stock():
    """16-bit loads, fp8 stores, a GELU backward between them: the default launch prefetches the next row tile
    (triton_heuristics.py), and the fp8 copies are bit-exact against stock's code, the sum within bf16 rounding."""
    specs = [((197, 100), torch.bfloat16)] * 2
    gen = torch.Generator().manual_seed(197)
    inputs = [torch.randn(s, generator=gen).to(d) for s, d in specs]
    src = interpret.generate(_gelu_backward_to_fp8, interpret.fake_inputs(*specs), **ON,
                             reduction_transpose_fusion_launch_config="RSPLIT=4")
    assert "r0_offset_next" in src and len(interpret.kernel_names(src)) == 1
    fused = interpret.run_on_cpu(src, inputs)
    stock = interpret.run_on_cpu(interpret.generate(_gelu_backward_to_fp8, interpret.fake_inputs(*specs),
                                                    reduction_transpose_fusion=False), inputs)
    for i in (0, 1):
        assert torch.equal(families.bits(fused[i]), families.bits(stock[i])), i
    ref = torch.ops.aten.gelu_backward(*(t.double() for t in inputs)).sum(0)
    assert families.rel_err(fused[2], ref) <= families.TOLERANCE[torch.bfloat16]
