"""On a real GPU (run on the H200; skipped elsewhere): every family and dtype, at a real size and at odd sizes.

Checks: one kernel (two with the separate finish); reductions against float64 eager; transposed copies and casts
bit-equal to stock torch.compile's; the same bits on every rerun (the last-program finish sums partials in a fixed
order).
"""

from __future__ import annotations

import copy

import pytest
import torch

from reduction_transpose_fusion_testing import families
from reduction_transpose_fusion_testing.edge_cases import (reads_its_own_sum, row_amax_and_transposed_cast,
                                                           to_fp8_saturated, values_past_fp8)

pytestmark = pytest.mark.gpu

FUSED = families.FUSE_EVERY_SITE
STOCK = {"reduction_transpose_fusion": False}
# every variant at N and C not multiples of 16 (ragged tiles both ways; odd N: the plain copies take one row tile a
# program); one variant of each family at a real ViT-B/16 size made odd (+1 row, -1 column; F4 needs an even N):
# two row tiles a program (one for F4's copy; F5's fp8 cast keeps one wave), ~200 programs a column block and the
# chunked finish, whose max combine F3-amax takes
ODD = [(name, 197, 1000) for name in families.CASES]
REAL = [(name, 25218 if name.startswith("F4") else 25217, 3071)
        for name in ("F1-t", "F2-mul-add", "F3-layernorm-backward", "F3-amax", "F4-flatten",
                     "F5-fp8-cast-transpose-dbias")]
# many column blocks (one wave would split the rows in two or fewer): one row tile a program, the persistent kernel
# with flagged partials and the launch-order finisher, on the wide path (30522) and off it (14336); in 16-bit the
# second and a copy moving 375 MiB with ragged tiles both ways take the 128-wide persistent tile (f32 stays X64)
WIDE = [("F1-t", 4096, 30522), ("F2-mul-add", 8192, 14336), ("F1-t", 16400, 6000)]
# an fp8 cast of a large tensor: one row tile a program from f32 (101 MB, ragged tiles both ways), one wave from 16-bit
LARGE_FP8 = [("F5-fp8-cast-transpose-dbias", 8200, 3080)]
# the wide fp32 -> fp8 cast, which a static N launches on the row-tile grid (the wide tile, then the plain X64 one
# where the fp8 rows are 16-byte aligned), each with an N that leaves the last row tile ragged; from 16-bit, one wave
WIDE_FP8 = [("F5-fp8-cast-transpose-dbias", 4098, 30522), ("F5-fp8-cast-transpose-dbias", 2050, 32000)]
# tall tensors: odd C and N with tens of thousands of programs a column block (the two-level finish; the finish must
# not build an [XBLOCK, RSPLIT] mask, which Triton refuses past 2**20 elements), and a tall, narrow one that the
# narrow-C rule gives 48 looped row tiles a program (more than 4096 row tiles; one wave ran it at 0.086x of stock)
TALL = [("F1-t", 2100001, 33), ("F3-layernorm-backward", 4200001, 33), ("F1-t", 12582912, 2)]
# the held-out suite's rules: a narrow C whose one wave would launch fewer programs than SMs (two or four looped row
# tiles a program, an fp8 cast's one), and the wide one-tile kernel on 4 warps (X128 for 16-bit, X64 for f32)
NARROW = [("F1-t", 1000000, 8), ("F5-fp8-cast-transpose-dbias", 300000, 16)]
WIDE_ALIGNED = [("F2-mul-add", 4096, 18944), ("F1-t", 64, 262144)]
# the cast of f32 to fp8 on one wave of 2 programs an SM (5 looped row tiles a program; 22 programs a column block, the
# last row tile ragged); from 16-bit, one wave of 3
FP8_ONE_WAVE = [("F5-fp8-cast-transpose-dbias", 3152, 3072), ("F5-fp8-cast-transpose-dbias", 3152, 768)]
# looped one-wave kernels that move 120 MiB or more, whose input loads drop Inductor's evict_first hint (LayerNorm
# backward: 201-403 MiB; the 16-bit fp8 cast: 257 MiB), with ragged tiles both ways
NO_EVICT_FIRST = [("F3-layernorm-backward", 8200, 4100), ("F5-fp8-cast-transpose-dbias", 16400, 4104)]
# f32 rows of an odd N (C 16-byte aligned) under a producer or two reductions: one row tile a program, the persistent
# kernel (ODD_ROWS_F32_TILES_PER_PROGRAM), ragged tiles both ways; 16-bit keeps one wave
ODD_ROWS_F32 = [("F2-mul-add", 8191, 1000), ("F3-layernorm-backward", 4097, 3080)]
SHAPES = (ODD + REAL + WIDE + LARGE_FP8 + WIDE_FP8 + TALL + NARROW + WIDE_ALIGNED + FP8_ONE_WAVE + NO_EVICT_FIRST
          + ODD_ROWS_F32)


def compile_and_run(fn, inputs, options):
    torch._dynamo.reset()
    from torch._inductor import metrics

    metrics.reset()
    compiled = torch.compile(fn, dynamic=False, options=options)
    out = compiled(*inputs)
    return compiled, out, metrics.generated_kernel_count


@pytest.mark.parametrize("dtype", families.DTYPES.values(), ids=families.DTYPES.keys())
@pytest.mark.parametrize("name,rows,cols", SHAPES, ids=[f"{n}-{r}x{c}" for n, r, c in SHAPES])
def test_family_on_gpu(name, dtype, rows, cols, decisions):
    case = families.CASES[name]
    inputs = case.inputs(rows, cols, dtype, device="cuda", seed=rows + cols)
    # stock first: compile_and_run resets Dynamo, after which a compiled function compiles again at its next call,
    # and a compile that times another launch candidate fastest may give other bits (README); the reruns below
    # check one compiled graph
    _, stock, _ = compile_and_run(case.fn, inputs, STOCK)
    fused_fn, fused, kernels = compile_and_run(case.fn, inputs, FUSED)
    assert kernels == 1 + any("separate finish (a second kernel" in d for d in decisions)  # the finish's own kernel
    reference = case.reference(inputs)
    for i, (out, st, ref) in enumerate(zip(fused, stock, reference)):
        if i in case.transposed or i in case.exact:
            assert torch.equal(families.bits(out), families.bits(st)), f"output {i} differs from stock"
        else:
            err = families.rel_err(out, ref)
            assert err <= families.TOLERANCE[out.dtype], (i, err)
    for _ in range(10):
        again = fused_fn(*inputs)
        for i, (a, b) in enumerate(zip(again, fused)):
            assert torch.equal(families.bits(a), families.bits(b)), f"output {i} changed on a rerun"
    from torch._inductor import metrics

    assert metrics.generated_kernel_count == kernels, "a rerun compiled again"


@pytest.mark.usefixtures("unseen_reader")
@pytest.mark.parametrize("rows,cols", [(25216, 3072), (197, 1000), (256, 20000)])
def test_grid_barrier_finish_on_gpu(rows, cols, decisions):
    """The fallback for a reduction read inside a later loop: Inductor's barrier finish on a co-resident grid.
    [256, 20000] has more column blocks than SMs: RSPLIT 1, no barrier, an ordinary launch (a cooperative one of
    that grid would be refused).  The pass leaves a reader it sees to stock, so this one is hidden from it
    (``unseen_reader``), as one Inductor fuses where the FX walk cannot see would be."""
    x = torch.randn(rows, cols, device="cuda")
    # the rules' launch, which this tests (a timed candidate, Inductor's own launch say, has no barrier): the expert
    # override of the last-program finish, under which no candidate is ranked or timed
    _, fused, kernels = compile_and_run(reads_its_own_sum, [x],
                                        {**FUSED, "reduction_transpose_fusion_launch_config": "SEPARATE_FINISH=0"})
    assert any(r.startswith("fused ") for r in decisions), "the site did not fuse"
    _, stock, _ = compile_and_run(reads_its_own_sum, [x], STOCK)
    ref = reads_its_own_sum(x.double())
    assert torch.equal(fused[0], stock[0])
    for out, r in zip(fused[1:], ref[1:]):
        assert families.rel_err(out, r) <= families.TOLERANCE[torch.float32]


# the separate finish: every family at ragged sizes, a chunked finish ([RSPLIT, C] partials, RSPLIT > 64) and
# several reductions (LayerNorm backward, amax + sum)
SEPARATE = [(name, 3001, 77, "SEPARATE_FINISH=1") for name in families.CASES] + [
    ("F1-t", 20000, 16, "SEPARATE_FINISH=1,RSPLIT=80"),
    ("F3-layernorm-backward", 9000, 130, "SEPARATE_FINISH=1,RSPLIT=96")]


@pytest.mark.parametrize("dtype", families.DTYPES.values(), ids=families.DTYPES.keys())
@pytest.mark.parametrize("name,rows,cols,launch", SEPARATE, ids=[f"{n}-{r}x{c}-{l}" for n, r, c, l in SEPARATE])
def test_separate_finish_on_gpu(name, rows, cols, launch, dtype):
    """The separate finish: two kernels (the fused one, then its finish), reductions against float64 eager, the
    copies bit-equal to stock's, the same bits on every rerun and under CUDA graphs (no semaphores: nothing to
    fill)."""
    case = families.CASES[name]
    inputs = case.inputs(rows, cols, dtype, device="cuda", seed=rows * cols)
    _, stock, _ = compile_and_run(case.fn, inputs, STOCK)
    options = FUSED | {"reduction_transpose_fusion_launch_config": launch}
    fused_fn, fused, kernels = compile_and_run(case.fn, inputs, options)
    assert kernels == 2
    for i, (out, st, ref) in enumerate(zip(fused, stock, case.reference(inputs))):
        if i in case.transposed or i in case.exact:
            assert torch.equal(families.bits(out), families.bits(st)), f"output {i} differs from stock"
        else:
            assert families.rel_err(out, ref) <= families.TOLERANCE[out.dtype], i
    assert_reruns_give_the_same_bits(case.fn, inputs, options, fused)


def assert_reruns_give_the_same_bits(fn, inputs, options, fused) -> None:
    """``fn`` compiled again with ``options`` under CUDA graphs gives ``fused``'s bits on every one of four runs."""
    torch._dynamo.reset()
    graphed = torch.compile(fn, dynamic=False, options=options | torch._inductor.list_mode_options("reduce-overhead"))
    for _ in range(4):
        again = [t.clone() for t in graphed(*inputs)]
        for i, (a, b) in enumerate(zip(again, fused)):
            assert torch.equal(families.bits(a), families.bits(b)), f"output {i} changed on a rerun"


# (family, N, C) that take the column tile in every dtype: all N rows fit one program's registers (the GELU
# backward's tile gives each thread fewer elements, so fewer rows); F5-rowwise and F6-centering read a reduction's
# result in a full-size op, which the tile computes in the same pass
COLUMN_TILES = [("F1-t", 700, 96), ("F2-gelu-backward", 200, 77), ("F3-layernorm-backward", 1000, 40),
                ("F4-flatten-4d", 512, 130), ("F5-fp8-cast-transpose-dbias", 513, 130), ("F5-rowwise", 300, 200),
                ("F6-centering", 1000, 33), ("F6-centering", 3000, 40), ("F1-t", 5000, 50)]  # the last two: XBLOCK 4, 2


@pytest.mark.parametrize("dtype", families.DTYPES.values(), ids=families.DTYPES.keys())
@pytest.mark.parametrize("name,rows,cols", COLUMN_TILES, ids=[f"{n}-{r}x{c}" for n, r, c in COLUMN_TILES])
def test_column_tile_on_gpu(name, rows, cols, dtype):
    """The column tile (Inductor's persistent reduction, unsplit): one kernel, reductions against float64 eager,
    the copies bit-equal to stock's (a centered copy, computed from its own column mean, against float64: stock's
    split sums in another order), the same bits on every rerun and under CUDA graphs."""
    case = families.ALL_CASES[name]
    inputs = case.inputs(rows, cols, dtype, device="cuda", seed=rows * cols)
    _, stock, _ = compile_and_run(case.fn, inputs, STOCK)
    options = FUSED | {"reduction_transpose_fusion_launch_config": "COLUMN_TILE=1"}
    _, fused, kernels = compile_and_run(case.fn, inputs, options)
    assert kernels == 1
    for i, (out, st, ref) in enumerate(zip(fused, stock, case.reference(inputs))):
        if (i in case.transposed or i in case.exact) and name != "F6-centering":
            assert torch.equal(families.bits(out), families.bits(st)), f"output {i} differs from stock"
        else:
            families.assert_matches_reference(out, ref)
    assert_reruns_give_the_same_bits(case.fn, inputs, options, fused)


def sum_and_argmax(x):
    return x.t().contiguous(), x.sum(0), x.argmax(0)


@pytest.mark.parametrize("launch", ["", "RSPLIT=3"])
@pytest.mark.parametrize("dtype", families.DTYPES.values(), ids=families.DTYPES.keys())
def test_argmax_beside_the_sum_on_gpu(dtype, launch):
    """Inductor fuses an argmax into the marked sum's kernel; its 16-bit value partials (33 x RSPLIT x 2 bytes) used
    to leave the int32 index partials misaligned in the workspace.  Triton's interpreter compares bf16 by its bits,
    so only a GPU checks the argmax itself."""
    x = torch.randn(1001, 33, device="cuda").to(dtype)
    _, fused, kernels = compile_and_run(sum_and_argmax, [x], FUSED | {"reduction_transpose_fusion_launch_config": launch})
    assert kernels == 1
    assert torch.equal(fused[0], x.t().contiguous())
    assert families.rel_err(fused[1], x.double().sum(0)) <= families.TOLERANCE[dtype]
    assert torch.equal(fused[2], x.argmax(0))


def test_graph_timing_resolves_a_small_kernel():
    """A kernel of a few µs times as a few µs by CUDA-graph replay (one launch between CUDA events reads its launch
    overhead too, about 10 µs on the H200), and a large one by its bytes: within 2x of reading and writing it at
    4.8 TB/s."""
    from reduction_transpose_fusion.runtime.benchmarking import graph_ms

    small = torch.randn(1024, device="cuda")
    assert 0 < graph_ms(lambda args: args[0].mul_(1.0), [small], small.device) < 0.008
    large = torch.randn(64 << 20, device="cuda")  # 256 MiB: past the L2 whatever the input sets
    ms = graph_ms(lambda args: args[0].mul_(1.0), [large], large.device)
    sol_ms = 2 * large.nbytes / 4.8e9
    assert sol_ms < ms < 2 * sol_ms


def test_launch_candidates_are_timed_by_graph_replay():
    """The candidates of a small site are timed by CUDA-graph replay, not Inductor's benchmarker (no fallback is
    logged), and their times are the few µs such a kernel takes."""
    import re

    from reduction_transpose_fusion_testing.logs import decision_log

    case = families.CASES["F1-t"]
    inputs = case.inputs(2048, 256, torch.bfloat16, device="cuda", seed=3)
    with decision_log() as decisions:
        compile_and_run(case.fn, inputs, FUSED)
    log = " | ".join(decisions)
    assert "CUDA-graph timing failed" not in log
    timed = re.search(r"launch candidates timed at compile: (.*?); emitted", log)
    assert timed, log[-2000:]
    times = [float(us) for us in re.findall(r" ([\d.]+) us", timed.group(1))]
    assert times and min(times) < 8.0, timed.group(1)


# float8_e4m3 keeps 3 mantissa bits: an element rounded the other way moves by at most 2**-3 of itself; a GEMM over
# thousands of operands, a few percent of them moved so, moves far less.  Half of that bound.
FP8_ROUNDING = 2**-4


@pytest.mark.parametrize("recipe", ["rowwise", "tensorwise"])
def test_float8_mlp_step_matches_stock(recipe):
    """A torchao Float8Linear MLP's forward and backward (bf16, bias, GELU; 4096 tokens, 2048 -> 4096 -> 2048),
    compiled with the flag off and on, on fresh random data.  The output is bit-equal to stock's.  Tensorwise, every
    gradient but the biases' is too (the fp8 casts feed the same GEMMs).  Rowwise, the realized scales change which
    intermediate Inductor stores: the fused compile stores the GELU gradient in bf16, rounded as eager rounds it,
    where stock's keeps it in fp32 for its fp8 casts, so an fp8 element can round the other way; those gradients
    agree with stock's to :data:`FP8_ROUNDING` (dx measured 0.0083 apart on the H200, 2026-12-04).  The bias
    gradients, sums in another order, agree to bf16 tolerance, the last one against a float64 reference."""
    float8 = pytest.importorskip("torchao.float8")
    torch.manual_seed(torch.seed() % 2**31)
    base = torch.nn.Sequential(torch.nn.Linear(2048, 4096), torch.nn.GELU(), torch.nn.Linear(4096, 2048))
    base = base.to(torch.bfloat16).cuda()
    x = torch.randn(4096, 2048, device="cuda", dtype=torch.bfloat16)
    g = torch.randn(4096, 2048, device="cuda", dtype=torch.bfloat16)
    results = {}
    for label, options in (("stock", STOCK), ("fused", {"reduction_transpose_fusion": True})):
        model = float8.convert_to_float8_training(
            copy.deepcopy(base), config=float8.Float8LinearConfig.from_recipe_name(recipe))
        torch._dynamo.reset()
        compiled = torch.compile(model, options=options | {"fx_graph_cache": False})
        xi = x.clone().requires_grad_()
        y = compiled(xi)
        y.backward(g)
        results[label] = {"y": y, "dx": xi.grad} | {n: p.grad for n, p in model.named_parameters()}
    stock, fused = results["stock"], results["fused"]
    tolerance = families.TOLERANCE[torch.bfloat16]
    assert families.rel_err(fused["2.bias"], g.double().sum(0)) <= tolerance  # the last layer's: g.sum(0)
    assert torch.equal(fused["y"], stock["y"]), f"{recipe}: the output differs from stock"
    for name in stock:
        if name.endswith("bias"):
            assert families.rel_err(fused[name], stock[name].double()) <= tolerance, name
        elif recipe == "rowwise":
            assert families.rel_err(fused[name], stock[name].double()) <= FP8_ROUNDING, name
        else:
            assert torch.equal(fused[name], stock[name]), f"{recipe}: {name} differs from stock"


@pytest.mark.parametrize("fp8", [torch.float8_e4m3fn, torch.float8_e5m2], ids=["e4m3fn", "e5m2"])
@pytest.mark.parametrize("dtype", families.DTYPES.values(), ids=families.DTYPES.keys())
def test_fp8_casts_without_their_clamps_keep_stock_bits(fp8, dtype):
    """torchao's clamped cast and its transposed copy, on values across and past the fp8 range (±inf, NaN, ±0): with
    the clamps dropped (``fx_passes/saturating_casts.py``) every byte equals stock's, whose clamps are kept."""
    seed = torch.seed() % 2**31
    x = values_past_fp8((4100, 3080), dtype, fp8, seed, device="cuda")
    s = torch.tensor(1.0 + torch.rand(()).item(), device="cuda")
    fn = to_fp8_saturated(fp8)
    _, want, _ = compile_and_run(fn, (x, s), STOCK)
    _, got, _ = compile_and_run(fn, (x, s), {"reduction_transpose_fusion": True})
    for w, g in zip(want, got):
        assert torch.equal(w.view(torch.uint8), g.view(torch.uint8)), f"seed {seed}"


def test_reductions_that_store_transposed_are_tuned_and_keep_their_bits(decisions):
    """Inductor's own reduction kernels that store a tensor transposed, tuned by coordinate descent at their first
    call (``scheduler.tuned_by_coordinate_descent``): a row amax beside a transposed fp8 copy, and torchao's rowwise
    transposed cast with its bias gradient (F5-rowwise: a column amax that the cast reads, one two-loop kernel).  The
    fp8 bytes equal stock's, on fresh random data, and a second call of the tuned graph gives the same bytes; the
    amax equals a float64 reference's (a max is exact), the sum is within bf16 tolerance of one."""
    seed = torch.seed() % 2**31
    generator = torch.Generator(device="cuda").manual_seed(seed)
    # 16384 columns: stock does not split the column amax (more columns would split it, and leave no such kernel)
    x = torch.randn(2048, 16384, device="cuda", dtype=torch.bfloat16, generator=generator)
    scale = torch.rand(1, 16384, device="cuda", generator=generator) + 0.5
    fresh = {"fx_graph_cache": False}  # a cache hit would log nothing
    # each workload's outputs that are not fp8: (float64 reference, tolerance; 0 for equal)
    workloads = ((row_amax_and_transposed_cast, (x, scale), [(x.double().abs().amax(1, keepdim=True), 0.0)]),
                 (families.f5_rowwise, (x,), [(x.double().sum(0), families.TOLERANCE[torch.bfloat16])]))
    for fn, inputs, references in workloads:
        decisions.clear()
        _, want, _ = compile_and_run(fn, inputs, STOCK | fresh)
        tuned, got, _ = compile_and_run(fn, inputs, {"reduction_transpose_fusion": True} | fresh)
        again = tuned(*inputs)
        assert any("tuned by coordinate descent" in line for line in decisions), (fn.__name__, decisions)
        references = iter(references)
        for w, g, a in zip(want, got, again):
            if w.dtype == torch.float8_e4m3fn:
                assert torch.equal(w.view(torch.uint8), g.view(torch.uint8)), f"{fn.__name__}: seed {seed}"
                assert torch.equal(g.view(torch.uint8), a.view(torch.uint8)), f"{fn.__name__}: rerun, seed {seed}"
            else:
                reference, tolerance = next(references)
                assert families.rel_err(g, reference) <= tolerance, f"{fn.__name__}: seed {seed}"
