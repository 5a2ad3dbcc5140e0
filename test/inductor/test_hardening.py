"""Hardening on the CPU (fake-device codegen, kernels under Triton's interpreter): the failure kinds of issue 4.

Dynamic shapes, empty / tiny / 3-D / 4-D / non-contiguous inputs, outputs that alias, in-place producers, NaN and
±Inf, fp16 overflow, deterministic mode and the decision log.  Every fused result is checked against eager float64
(reductions) and stock Inductor's code run the same way (transposed copies and casts, bit-exact).  The GPU half
(torch.compile paths, CUDA graphs, caches across processes, > 2³¹ elements) is ``test_gpu_hardening.py``.
"""

from __future__ import annotations

import importlib.util
import re
import threading
import unittest.mock

import pytest
import torch
import torch._inductor.config as inductor_config
from torch._inductor import choices as inductor_choices_module
from torch._inductor.choices import InductorChoices
from torch._inductor.virtualized import V

from reduction_transpose_fusion import _torch_private
from reduction_transpose_fusion._torch_private import ROW_LOOP
from reduction_transpose_fusion.choices import ReductionTransposeChoices
from reduction_transpose_fusion.codegen.triton import RSPLIT_FROM_GRID, SHIFTED_OFFSET_LINE
from reduction_transpose_fusion_testing import families, interpret
from reduction_transpose_fusion_testing.logs import decision_log
from reduction_transpose_fusion_testing.processes import run_python
from reduction_transpose_fusion_testing.edge_cases import (
    broadcast_column,
    broadcast_row,
    chunks,
    inplace_input,
    inplace_producer,
    reads_its_own_sum,
    strided_slice,
    sum_4d,
    transpose_3d,
    transposed_input,
    two_copies_no_partner,
    views_of_the_copy,
)
from reduction_transpose_fusion_testing.stock_codegen import normalize

ON = families.FUSE_EVERY_SITE
OFF = dict(reduction_transpose_fusion=False)
SMALL_TILES = "XBLOCK=32,R0_BLOCK=64,RSPLIT=3"  # several programs per column block at these small shapes


def compile_both(fn, inputs, dynamic=(), **options):
    """(fused source, stock source) for ``fn`` at the shapes and dtypes of the CPU tensors ``inputs``."""
    specs = [(tuple(t.shape), t.dtype) for t in inputs]
    fused = interpret.generate(fn, interpret.fake_inputs(*specs, dynamic=dynamic), **ON, **options)
    stock = interpret.generate(fn, interpret.fake_inputs(*specs, dynamic=dynamic), **OFF)
    return fused, stock


def check(fn, inputs, fused_src, stock_src, transposed=(0,), exact=()):
    """Run both modules on ``inputs``; assert the outputs match stock's layout, transposed/exact outputs are
    bit-equal to stock's, and reductions are within tolerance of ``fn`` on float64 copies of the inputs."""
    fused = interpret.run_on_cpu(fused_src, inputs)
    stock = interpret.run_on_cpu(stock_src, inputs)
    ref = fn(*[t.double() if t.is_floating_point() else t for t in inputs])
    assert len(fused) == len(stock) == len(ref)
    for i, (out, st, r) in enumerate(zip(fused, stock, ref)):
        assert (out.shape, out.stride(), out.dtype) == (st.shape, st.stride(), st.dtype), i
        if i in transposed or i in exact:
            assert torch.equal(families.bits(out), families.bits(st)), f"output {i} differs from stock"
        else:
            families.assert_matches_reference(out, r)
    return fused


def n_kernels(src):
    return len(interpret.kernel_names(src))


def randn(*shape, dtype=torch.float32, seed=0):
    return torch.randn(shape, generator=torch.Generator().manual_seed(seed)).to(dtype)


# ---- 1. dynamic shapes ----


@pytest.mark.parametrize("dynamic", [(0,), (1,), (0, 1)], ids=["N", "C", "N-and-C"])
def test_dynamic_sizes_fuse_once_and_are_correct_at_other_sizes(dynamic):
    """One compile with symbolic N and/or C: fused, no guard beyond stock's but C's bound (its column blocks must fit
    CUDA's gridDim.y: C <= 65535 * XBLOCK), and correct at sizes other than the hint (including below the gate),
    since the graph is not recompiled per size; a single row breaks the graph's guards (Inductor takes a dynamic size
    for at least 2), so the CPU runner refuses it as a compiled graph would recompile for it."""
    case = families.CASES["F3-layernorm-backward"]
    hint = [randn(300, 96, seed=1), randn(300, 96, seed=2)]
    specs = [(tuple(t.shape), t.dtype) for t in hint]
    fused_inputs = interpret.fake_inputs(*specs, dynamic=dynamic)
    fused = interpret.generate(case.fn, fused_inputs, **ON, reduction_transpose_fusion_launch_config=SMALL_TILES)
    stock_inputs = interpret.fake_inputs(*specs, dynamic=dynamic)
    stock = interpret.generate(case.fn, stock_inputs, **OFF)
    assert n_kernels(fused) == 1 and n_kernels(stock) > 1
    guards = lambda inputs: {str(g.expr) for g in inputs[0].fake_mode.shape_env.guards}  # noqa: E731
    extra = guards(fused_inputs) - guards(stock_inputs)
    assert all(re.fullmatch(r"s\d+ <= 2097120", g) for g in extra) and len(extra) == (1 in dynamic), extra
    for rows, cols in [(300, 96), (517, 96), (1, 96), (300, 33), (77, 161)]:
        rows, cols = (rows if 0 in dynamic else 300), (cols if 1 in dynamic else 96)
        inputs = [randn(rows, cols, seed=rows), randn(rows, cols, seed=cols)]
        if rows == 1 and 0 in dynamic:
            with pytest.raises(ValueError, match="break the module's shape guards"):
                interpret.run_on_cpu(fused, inputs)
            continue
        check(case.fn, inputs, fused, stock)


def divisible_args(module_source: str) -> set[str]:
    """Names of the fused kernel's arguments that its ``triton_meta`` marks divisible by 16 (``tt.divisibility``)."""
    (source,) = interpret.kernel_sources(module_source).values()
    names = re.search(r"def \w+\((.*?)\):", source).group(1).split(", ")
    marked = re.search(r"'configs': \[\{(.*?)\}\]", source).group(1)
    return {names[int(i)] for i in re.findall(r"\((\d+),\): \[\['tt.divisibility', 16\]\]", marked)}


@pytest.mark.parametrize("rows,guarded", [(4096, True), (4104, False)])
def test_a_dynamic_n_whose_hint_is_a_multiple_of_16_is_guarded_to_stay_one(rows, guarded, decisions):
    """With the guard Inductor marks N's size arguments divisible by 16, which lets Triton vectorize the transposed
    stores (on the H200 the unguarded kernels ran up to 4x slower); a hint that is not a multiple gets no guard and
    the scalar tile; C (static here) gets none either way, and the results are right at other N."""
    case = families.CASES["F1-t"]
    specs = [((rows, 256), torch.bfloat16)]
    fused_inputs, stock_inputs = interpret.fake_inputs(*specs, dynamic=(0,)), interpret.fake_inputs(*specs, dynamic=(0,))
    # profitability off: 2 MB is the cost model's to skip, and the guard is what is tested here
    fused = interpret.generate(case.fn, fused_inputs, reduction_transpose_fusion=True,
                               reduction_transpose_fusion_profitability=False)
    stock = interpret.generate(case.fn, stock_inputs, **OFF)
    guards = lambda inputs: {str(g.expr) for g in inputs[0].fake_mode.shape_env.guards}  # noqa: E731
    extra = guards(fused_inputs) - guards(stock_inputs)
    mods = {g for g in extra if g.startswith("Eq(Mod(")}
    assert len(mods) == guarded and all(re.fullmatch(r"Eq\(Mod\(s\d+, 16\), 0\)", g) for g in mods), extra
    assert all(re.fullmatch(r"s\d+ >= \d+", g) for g in extra - mods), extra  # a row-tile grid's N >= R0_BLOCK
    assert any(r.startswith("guard: N=s") and "multiple of 16" in r for r in decisions) == guarded, decisions
    assert {"ks0", "r0_numel"} <= divisible_args(fused) if guarded else not {"ks0", "r0_numel"} & divisible_args(fused)
    launch = re.search(r"config=(\{.*?\})", fused).group(1)
    assert ("'R0_BLOCK': 64" in launch) != guarded, launch  # unguarded: the half-scalar tile (32 elements a thread)
    for n in ((4096, 4112) if guarded else (4104, 77)):
        check(case.fn, [randn(n, 256, dtype=torch.bfloat16, seed=n)], fused, stock)


@pytest.mark.parametrize("dims,guarded", [((1,), True), ((0, 1), False)], ids=["N=2*T", "N=B*T"])
def test_a_dynamic_n_of_a_flattened_input_is_guarded_through_its_symbol(dims, guarded):
    """F4's ``[B, T, C]`` with T dynamic has N = 2 T: T is guarded to a multiple of 16 (and N), so that both size
    arguments of the transposed store, T's and N's, are marked divisible (review, 2026-11-30: a guard on N alone
    marked only N's, and the stores stayed scalar); with B and T dynamic no guard can do that, so none is added."""
    case = families.CASES["F4-flatten"]
    fake = interpret.fake_inputs(((2, 2048, 256), torch.bfloat16), dynamic=dims)
    fused = interpret.generate(case.fn, fake, reduction_transpose_fusion=True,
                               reduction_transpose_fusion_profitability=False)  # 2 MB: the model would skip it
    mods = [str(g.expr) for g in fake[0].fake_mode.shape_env.guards if "Mod" in str(g.expr)]
    assert bool(mods) == guarded, mods
    size_args = {"ks0", "ks1", "r0_numel"} & set(re.search(r"def \w+\((.*?)\):", fused).group(1).split(", "))
    assert (size_args <= divisible_args(fused)) == guarded, (size_args, divisible_args(fused))


def test_no_guard_where_shapes_are_size_oblivious(decisions):
    """Under ``backed_size_oblivious`` Inductor installs no guard; the dynamic N then takes the scalar tile (until the
    review of 2026-11-30 an assertion failed and compilation crashed)."""
    import torch.fx.experimental._config as exp_config

    fake = interpret.fake_inputs(((4096, 1024), torch.bfloat16), dynamic=(0,))
    with unittest.mock.patch.object(exp_config, "backed_size_oblivious", True):
        fused = interpret.generate(families.f1_t, fake, reduction_transpose_fusion=True)
    assert not any("Mod" in str(g.expr) for g in fake[0].fake_mode.shape_env.guards)
    assert any(r.startswith("fused ") for r in decisions) and "'R0_BLOCK': 64" in fused  # the half-scalar tile


def test_a_dynamic_c_is_not_guarded():
    """One guard (N's) costs at most one recompile; C, seldom dynamic, takes the scalar tile instead."""
    case = families.CASES["F1-t"]
    specs = [((4096, 1024), torch.bfloat16)]
    fused_inputs = interpret.fake_inputs(*specs, dynamic=(1,))
    fused = interpret.generate(case.fn, fused_inputs, reduction_transpose_fusion=True)
    assert not any("Mod" in str(g.expr) for g in fused_inputs[0].fake_mode.shape_env.guards)
    assert "'XBLOCK': 32" in re.search(r"config=(\{.*?\})", fused).group(1)  # scalar loads: XBLOCK shrinks


@pytest.mark.parametrize("fn,dtype,rows,fuses", [
    (families.f3_layernorm_backward, torch.float32, 25229, False), (families.f1_t, torch.float32, 25229, True),
    (families.f3_layernorm_backward, torch.float32, 25232, True), (families.f3_layernorm_backward, torch.bfloat16, 25229, True),
    (families.f2_gelu_backward, torch.float32, 25229, True),
], ids=["f32-two-reductions", "f32-row-tiles", "f32-aligned-N", "bf16", "f32-gelu-backward"])
def test_f32_with_odd_c_and_an_unaligned_dynamic_n_fuses_only_with_row_tiles(fn, dtype, rows, fuses, decisions):
    """Profitability rule 3c: every access scalar, f32[25229, 3067] ran 0.92-0.96x of stock fused with N dynamic and
    looped kernels, and 1.11x faster with one program per row tile, which one reduction gets (two keep the loop).  A
    GELU backward producer (one wave, looped) fuses: stock's own kernel is slower still (f32[9999, 777]: 1.88x)."""
    specs = [((rows, 3067), dtype)] * (1 if fn is families.f1_t else 2)
    src = interpret.generate(fn, interpret.fake_inputs(*specs, dynamic=(0,)), reduction_transpose_fusion=True)
    assert any(r.startswith("fused ") for r in decisions) == fuses, decisions
    if not fuses:
        assert any("dynamic N whose size hint 25229 is not a multiple of 16" in r for r in decisions), decisions
    if fn is families.f1_t:
        assert "RowTileGrid" in src


ROW_TILES = "XBLOCK=32,R0_BLOCK=16,TILES_PER_PROGRAM=1"  # one program per 16-row tile: many programs at small N


@pytest.mark.parametrize("name,shape,dims,hint_rows", [
    ("F1-t", (300, 32), (0,), 300),  # 19 programs at the hint: a one-level finish
    ("F1-t", (2000, 32), (0,), 2000),  # 125: the two-level finish (groups of 64)
    ("F2-mul-add", (300, 48), (0,), 300),
    ("F4-flatten", (2, 150, 32), (1,), 300),  # N = 2 T
], ids=["one-level", "two-level", "producer", "N=2*T"])
def test_a_dynamic_n_launches_one_program_per_row_tile(name, shape, dims, hint_rows):
    """With N dynamic, one row tile a program is a grid of ceil(N / R0_BLOCK) programs computed at each launch
    (RowTileGrid), RSPLIT taken from the grid and no row loop, so the kernel is as lean as the persistent one of a
    static N (64 registers against 128 looped, bf16[8192, 50257], sm_90a; test_codegen).  The flagged words are sized
    from N.  Correct at the hint and at smaller and larger N, where the number of programs and of finish groups
    differs from the hint's; every program is run in a shuffled order, finishers after their peers."""
    case = families.CASES[name]
    x = [randn(*shape, dtype=torch.bfloat16, seed=i) for i in range(len(case.specs(1, 1, torch.bfloat16)))]
    fused, stock = compile_both(case.fn, x, dynamic=dims, reduction_transpose_fusion_launch_config=ROW_TILES)
    (kernel,) = interpret.kernel_sources(fused).values()
    assert "'grid_type': 'RowTileGrid'" in kernel and RSPLIT_FROM_GRID in kernel
    assert ROW_LOOP not in kernel and "for r0_offset" not in kernel
    assert f"'RSPLIT': {-(-hint_rows // 16)}" in kernel  # the programs at the hint (HAS_RSPLIT, one or two levels)
    assert ("rsplit_is_group_last" in kernel) == (hint_rows > 64 * 16)
    # N >= R0_BLOCK (guarded): the last tile ends at row N, and no load or store takes the row mask
    assert SHIFTED_OFFSET_LINE in kernel
    assert not [line for line in kernel.splitlines() if "r0_mask" in line and ("tl.load(" in line or "tl.store(" in line)]
    for rows in sorted({hint_rows, 48, hint_rows + 336, 4 * hint_rows + 16}):  # a hint of 16 k keeps N a multiple
        sizes = [s if d not in dims else (rows if len(shape) == 2 else rows // 2) for d, s in enumerate(shape)]
        inputs = [randn(*sizes, dtype=torch.bfloat16, seed=rows + i) for i in range(len(x))]
        check(case.fn, inputs, fused, stock)


@pytest.mark.parametrize("hint,shifted,sizes", [
    (24, False, (5, 24, 37)),  # a hint below R0_BLOCK (32): no guard either way, the masked kernel
    (40, True, (32, 33, 40, 47)),  # the last tile ends at row N: rows 8-39 at N = 40, overlapping rows 8-31
    (64, True, (32, 48, 64, 96)),
])
def test_a_row_tile_grid_whose_n_may_be_less_than_a_tile_keeps_its_row_mask(hint, shifted, sizes):
    """The shifted last tile (rows [N - R0_BLOCK, N)) needs N >= R0_BLOCK, which a hint of that many rows guards (a
    call with fewer rows recompiles); a hint below it gets no tile guard (not ``N < R0_BLOCK`` either: found by a
    fresh-user review) and the masked kernel.  Each is right at N at and above R0_BLOCK, the masked one below it too,
    the shifted one where its last tile overlaps the one before."""
    case = families.CASES["F1-t"]
    launch = "XBLOCK=32,R0_BLOCK=32,TILES_PER_PROGRAM=1"
    specs = [((hint, 24), torch.bfloat16)]
    fused_inputs, stock_inputs = interpret.fake_inputs(*specs, dynamic=(0,)), interpret.fake_inputs(*specs, dynamic=(0,))
    fused = interpret.generate(case.fn, fused_inputs, **ON, reduction_transpose_fusion_launch_config=launch)
    stock = interpret.generate(case.fn, stock_inputs, **OFF)
    (kernel,) = interpret.kernel_sources(fused).values()
    assert "'grid_type': 'RowTileGrid'" in kernel and (SHIFTED_OFFSET_LINE in kernel) == shifted, hint
    guards = lambda inputs: {str(g.expr) for g in inputs[0].fake_mode.shape_env.guards}  # noqa: E731
    tile_guards = {g for g in guards(fused_inputs) - guards(stock_inputs) if "Mod" not in g}
    assert tile_guards == ({next(iter(tile_guards))} if shifted else set()), tile_guards
    assert all(re.fullmatch(r"s\d+ >= 32", g) for g in tile_guards), tile_guards
    for rows in sizes:
        check(case.fn, [randn(rows, 24, dtype=torch.bfloat16, seed=rows)], fused, stock)


@pytest.mark.parametrize("name,dtype,rows,shifted", [
    ("F5-fp8-cast-transpose-dbias", torch.float32, 300, False),  # the rule's kernel: 1 byte, a masked last tile
    ("F5-fp8-cast-transpose-dbias", torch.float32, 256, False),  # N a multiple of the tile
    ("F1-t", torch.bfloat16, 300, True),  # 16-bit: the last tile shifted to end at row N
])
def test_a_static_n_on_the_row_tile_grid_is_correct(name, dtype, rows, shifted):
    """A static N takes the row-tile grid for the wide fp32 -> fp8 cast (runtime/triton_heuristics.py,
    ``wide_fp8_cast``; 1.18x faster than stock on the H200), and for any kernel with ``ROW_TILE_GRID=1``, here with
    small tiles at small sizes: one program per row tile, N in the kernel a constant, and the grid from it."""
    case = families.CASES[name]
    inputs = case.inputs(rows, 40, dtype, seed=rows)
    fused, stock = compile_both(case.fn, inputs,
                                reduction_transpose_fusion_launch_config=f"ROW_TILE_GRID=1,{ROW_TILES}")
    (kernel,) = interpret.kernel_sources(fused).values()
    assert "'grid_type': 'RowTileGrid'" in kernel and RSPLIT_FROM_GRID in kernel and "for r0_offset" not in kernel
    assert f"r0_numel = {rows}" in kernel and f"'RSPLIT': {-(-rows // 16)}" in kernel
    assert (SHIFTED_OFFSET_LINE in kernel) == shifted
    check(case.fn, inputs, fused, stock, transposed=case.transposed, exact=case.exact)


@pytest.mark.parametrize("name,dtype,rows,cols,rsplit", [
    ("F1-t", torch.bfloat16, 17000, 8, 133),  # one column block of 133 row tiles of 128
    ("F2-mul-add", torch.float32, 9000, 2, 141),  # a producer, f32: row tiles of 64
])
def test_a_narrow_c_with_many_rows_takes_one_row_tile_a_program(name, dtype, rows, cols, rsplit):
    """One column block, where one wave's RSPLIT, capped at MAX_RSPLIT, would launch 64 programs on 132 SMs
    (bf16[1000000, 8] ran at 0.66x of stock so on the H200): the default launch is the persistent kernel, one row tile
    a program, with no row loop.  (The last-program finish: the separate finish is these small sites' default.)"""
    case = families.CASES[name]
    inputs = case.inputs(rows, cols, dtype, seed=rows)
    fused, stock = compile_both(case.fn, inputs, reduction_transpose_fusion_launch_config="SEPARATE_FINISH=0")
    (kernel,) = interpret.kernel_sources(fused).values()
    assert f"'RSPLIT': {rsplit}" in kernel and "for r0_offset" not in kernel
    check(case.fn, inputs, fused, stock, transposed=case.transposed, exact=case.exact)


def test_a_static_n_that_cannot_take_the_row_tile_grid_says_why():
    """``ROW_TILE_GRID=1`` asks for the grid, which two reductions cannot take (their partials keep the ticket): the
    static N keeps its kernel, correct, and the log says why (found by a fresh-user review, 2026-12-01)."""
    x = randn(300, 32, dtype=torch.bfloat16)
    with decision_log() as records:
        fused, stock = compile_both(families.f3_amax, [x],
                                    reduction_transpose_fusion_launch_config=f"ROW_TILE_GRID=1,{ROW_TILES}")
    (kernel,) = interpret.kernel_sources(fused).values()
    assert "RowTileGrid" not in kernel
    assert any("no row-tile grid with the static N=300" in r and "2 reductions" in r for r in records), records
    check(families.f3_amax, [x], fused, stock)


def cumsum_then_transpose(x):
    y = x.cumsum(0) * 2
    return y.t().contiguous(), y.sum(0)


def test_a_scan_source_is_left_to_stock(decisions):
    """A reduction left unsplit over a scan's output went into Inductor's split-scan kernel, which cannot hold one:
    the compile crashed ("NYI TritonSplitDimKernel reductions"; found by a fresh-user review, 2026-12-01).  Such a
    site is now left to stock, which is correct."""
    x = [randn(256, 48, seed=3)]
    fused, stock = compile_both(cumsum_then_transpose, x)
    assert any("scan's output" in r for r in decisions), decisions
    check(cumsum_then_transpose, x, fused, stock)
    big = interpret.fake_inputs(((8192, 2048), torch.float32))
    interpret.generate(cumsum_then_transpose, big, reduction_transpose_fusion=True)  # raised before


def test_no_package_guard_narrows_a_size_range_the_user_declared():
    """``mark_dynamic(x, 0, min=..., max=...)`` makes Dynamo fail the compile on any guard that narrows the range
    (``ConstraintViolationError``), so with such a range the package installs neither of its guards (N a multiple of
    16, N >= R0_BLOCK): the kernel keeps the scalar tile and the row mask.  ``user_size_ranges`` sees the range from
    inside a compile."""
    seen = []

    def backend(gm, example_inputs):
        seen.append(_torch_private.user_size_ranges())
        return gm.forward

    for bounds in ({}, {"min": 2, "max": 4096}):
        torch._dynamo.reset()
        x = torch.randn(64, 8)
        torch._dynamo.mark_dynamic(x, 0, **bounds)
        torch.compile(lambda t: t.sum(0), backend=backend)(x)
    assert seen == [False, True]
    case = families.CASES["F1-t"]
    specs = [((4096, 256), torch.bfloat16)]
    with unittest.mock.patch.object(_torch_private, "user_size_ranges", lambda: True):
        inputs = interpret.fake_inputs(*specs, dynamic=(0,))
        fused = interpret.generate(case.fn, inputs, **ON, reduction_transpose_fusion_launch_config=ROW_TILES)
    stock_inputs = interpret.fake_inputs(*specs, dynamic=(0,))
    interpret.generate(case.fn, stock_inputs, **OFF)
    guards = lambda inputs: {str(g.expr) for g in inputs[0].fake_mode.shape_env.guards}  # noqa: E731
    extra = guards(inputs) - guards(stock_inputs)  # Inductor's own int32 indexing checks of the flagged words stay
    assert not [g for g in extra if "Mod(" in g or ">=" in g], extra
    (kernel,) = interpret.kernel_sources(fused).values()
    assert "'grid_type': 'RowTileGrid'" in kernel and SHIFTED_OFFSET_LINE not in kernel


@pytest.mark.parametrize("fn,dtype", [(families.f3_amax, torch.bfloat16), (families.f1_t, torch.float64)],
                         ids=["two-reductions", "fp64-partials"])
def test_no_row_tile_grid_where_a_partial_is_not_a_flagged_word(fn, dtype):
    """A ticketed partial's workspace is sized by the config's RSPLIT, so its kernel keeps the looped one-tile launch
    (TILES_PER_PROGRAM=1 with a dynamic N, Inductor's grid) and stays correct at a larger N."""
    x = randn(300, 32, dtype=dtype)
    with decision_log() as records:
        fused, stock = compile_both(fn, [x], dynamic=(0,), reduction_transpose_fusion_launch_config=ROW_TILES)
    (kernel,) = interpret.kernel_sources(fused).values()
    assert "RowTileGrid" not in kernel and ROW_LOOP in kernel
    why = "2 reductions" if fn is families.f3_amax else "a sum of torch.float64"
    assert any("no row-tile grid with the dynamic N" in r and why in r for r in records), records  # the log says why
    for rows in (300, 1201):
        x = randn(rows, 32, dtype=dtype, seed=rows)
        if dtype == torch.float64:  # no fp64 tolerance in check(): the sum to fp64 rounding, the copy bit-exact
            copy, total = interpret.run_on_cpu(fused, [x])
            assert torch.equal(copy, x.t()) and torch.allclose(total, x.sum(0), rtol=1e-12, atol=1e-12)
        else:
            check(fn, [x], fused, stock)


def test_no_row_tile_grid_where_n_may_be_zero():
    """Under ``backed_size_oblivious`` one graph serves N = 0, where a grid of ceil(N / R0_BLOCK) programs would launch
    none and leave the sum unwritten (review, 2026-11-30): the kernel keeps Inductor's grid and writes zeros."""
    import torch.fx.experimental._config as exp_config

    with unittest.mock.patch.object(exp_config, "backed_size_oblivious", True), decision_log() as records:
        fake = interpret.fake_inputs(((300, 32), torch.bfloat16), dynamic=(0,))
        src = interpret.generate(families.f1_t, fake, reduction_transpose_fusion=True,
                                 reduction_transpose_fusion_profitability=False,  # small: the model would skip it
                                 reduction_transpose_fusion_launch_config=ROW_TILES)
    assert "RowTileGrid" not in src and n_kernels(src) == 1
    assert any("N may be 0" in r for r in records), records
    copy, total = interpret.run_on_cpu(src, [torch.ones(0, 32, dtype=torch.bfloat16)])
    assert copy.shape == (32, 0) and torch.equal(total, torch.zeros(32, dtype=torch.bfloat16))
    x = randn(300, 32, dtype=torch.bfloat16)
    copy, total = interpret.run_on_cpu(src, [x])
    assert torch.equal(copy, x.t()) and families.rel_err(total, x.double().sum(0)) <= 1e-2


def test_dynamic_flattened_leading_dims():
    case = families.CASES["F4-flatten"]
    x = randn(2, 150, 64, dtype=torch.bfloat16)
    fused, stock = compile_both(case.fn, [x], dynamic=(1,), reduction_transpose_fusion_launch_config=SMALL_TILES)
    assert n_kernels(fused) == 1
    for t in (150, 41):
        check(case.fn, [randn(2, t, 64, dtype=torch.bfloat16, seed=t)], fused, stock)


# ---- 2. empty, tiny, 3-D / 4-D and non-contiguous inputs ----


@pytest.mark.parametrize("rows,cols", [(0, 64), (64, 0)])
def test_empty_input_is_left_to_stock(rows, cols, decisions):
    x = randn(rows, cols)
    fused, stock = compile_both(families.f1_t, [x])
    assert normalize(fused) == normalize(stock)
    fused_out = interpret.run_on_cpu(fused, [x])
    assert fused_out[0].shape == (cols, rows) and torch.equal(fused_out[1], torch.zeros(cols))


@pytest.mark.parametrize("rows,cols", [(1, 200), (200, 1), (3, 5), (63, 2)])
def test_smaller_than_a_tile(rows, cols, decisions):
    x = randn(rows, cols, seed=rows * cols)
    fused, stock = compile_both(families.f1_t, [x])
    check(families.f1_t, [x], fused, stock)
    assert any(r.startswith(("candidate ", "skip ")) for r in decisions), "no decision logged"


def test_4d_input():
    x = randn(2, 3, 20, 48, dtype=torch.float16)
    fused, stock = compile_both(sum_4d, [x], reduction_transpose_fusion_launch_config=SMALL_TILES)
    assert n_kernels(fused) == 1
    check(sum_4d, [x], fused, stock)


def test_3d_transpose_is_not_a_site(decisions):
    x = randn(4, 30, 40)
    fused, stock = compile_both(transpose_3d, [x])
    assert normalize(fused) == normalize(stock)
    check(transpose_3d, [x], fused, stock)
    assert any("not a site" in r for r in decisions)


@pytest.mark.parametrize("fn,inputs", [
    (strided_slice, [randn(130, 2 * 70)]),
    (transposed_input, [randn(70, 130)]),
    (broadcast_row, [randn(130, 70), randn(70, seed=1)]),
    (broadcast_column, [randn(130, 70), randn(130, 1, seed=1)]),
], ids=["strided-slice", "transposed-input", "broadcast-row", "broadcast-column"])
def test_non_contiguous_and_broadcast_inputs(fn, inputs, decisions):
    fused, stock = compile_both(fn, inputs, reduction_transpose_fusion_launch_config=SMALL_TILES)
    check(fn, inputs, fused, stock)
    assert decisions, "the candidate was not logged"


# ---- outputs that alias or share storage ----


@pytest.mark.parametrize("fn,n_in,transposed", [
    (views_of_the_copy, 1, (0, 1, 2, 4)),
    (chunks, 1, (0, 1)),
    (inplace_producer, 2, (0, 2)),
], ids=["views", "chunk", "inplace-producer"])
def test_aliasing_outputs(fn, n_in, transposed):
    inputs = [randn(130, 70, seed=i) for i in range(n_in)]
    fused, stock = compile_both(fn, inputs, reduction_transpose_fusion_launch_config=SMALL_TILES)
    assert n_kernels(fused) < n_kernels(stock)
    out = check(fn, inputs, fused, stock, transposed=transposed)
    if fn is views_of_the_copy:
        assert out[1].data_ptr() == out[0].data_ptr() == out[2].data_ptr()
        assert out[4] is inputs[0]


def test_mutated_input():
    """``a.mul_(2)`` before the site: Inductor copies the mutation back to ``a``; outputs use the new value."""
    inputs = [randn(130, 70), randn(130, 70, seed=1)]
    fused, stock = compile_both(inplace_input, [t.clone() for t in inputs],
                                reduction_transpose_fusion_launch_config=SMALL_TILES)
    a, b = (t.clone() for t in inputs)
    out = interpret.run_on_cpu(fused, [a, b])
    assert torch.equal(a, inputs[0] * 2) and torch.equal(out[0], (inputs[0] * 2).t())
    assert families.rel_err(out[1], (inputs[0].double() * 2).sum(0)) <= 1e-5


# ---- 3. values: NaN, ±Inf, fp16 overflow ----


@pytest.mark.parametrize("dtype", families.DTYPES.values(), ids=families.DTYPES.keys())
def test_nan_and_inf_propagate_as_in_eager(dtype):
    x = randn(150, 70, dtype=dtype)
    x[3, 0] = float("nan")
    x[7, 1] = float("inf")
    x[9, 2], x[100, 2] = float("inf"), float("-inf")  # inf - inf = NaN
    x[140, 3] = float("-inf")
    x[5, 4], x[6, 4] = float("nan"), float("inf")
    for name in ("F1-t", "F3-amax"):
        case = families.CASES[name]
        fused, stock = compile_both(case.fn, [x], reduction_transpose_fusion_launch_config=SMALL_TILES)
        out = check(case.fn, [x], fused, stock)
        assert out[-1][:5].isnan().tolist() == [True, False, True, False, True]
        if name == "F3-amax":
            assert out[1][:5].isnan().tolist() == [True, False, False, False, True]
            assert out[1][1].item() == out[1][2].item() == out[1][3].item() == float("inf")


def test_fp16_sum_overflow_is_inf_as_in_eager():
    x = torch.full((200, 40), 400.0, dtype=torch.float16) + randn(200, 40, dtype=torch.float16)
    x[:, :20] *= -1
    x[:, 30:] = 1.0  # finite columns beside the overflowing ones
    fused, stock = compile_both(families.f1_t, [x], reduction_transpose_fusion_launch_config=SMALL_TILES)
    out = check(families.f1_t, [x], fused, stock)
    eager = x.sum(0)
    assert eager[:30].isinf().all() and torch.equal(out[1].isinf(), eager.isinf())
    assert torch.equal(out[1][:30], eager[:30])


# ---- 4. determinism ----


def test_deterministic_algorithms_emit_no_atomics(decisions):
    """Under ``torch.use_deterministic_algorithms(True)`` a site fuses only with the column tile (no ticket); one
    whose rows the tile cannot hold (20000 f32 rows) stays stock's, and says why."""
    x = randn(4096, 256)
    fused = interpret.generate(families.f1_t, interpret.fake_inputs(((4096, 256), torch.float32)),
                               **ON, reduction_transpose_fusion_launch_config="COLUMN_TILE=0")
    assert "tl.atomic_add" in fused  # the split launch's ticket
    torch.use_deterministic_algorithms(True)
    try:
        det, stock = compile_both(families.f1_t, [x])
        tall = randn(20000, 64)
        det_tall, stock_tall = compile_both(families.f1_t, [tall])
    finally:
        torch.use_deterministic_algorithms(False)
    (kernel,) = interpret.kernel_sources(det).values()
    assert "tl.atomic" not in kernel and "sem_ptr" not in kernel and "for r0_offset" not in kernel  # one tile
    assert any("the column tile" in r and "use_deterministic_algorithms" in r for r in decisions), decisions
    check(families.f1_t, [x], det, stock)
    assert "tl.atomic" not in det_tall and normalize(det_tall) == normalize(stock_tall)
    assert any("use_deterministic_algorithms(True): the split launch's finish takes an atomic ticket" in r
               for r in decisions)


def test_reruns_are_bitwise_identical():
    x = randn(300, 96)
    fused, _ = compile_both(families.f3_amax, [x], reduction_transpose_fusion_launch_config="XBLOCK=32,RSPLIT=5")
    first = interpret.run_on_cpu(fused, [x])
    for _ in range(3):  # the interpreter shuffles program order per call count; the GPU test reruns 10x
        again = interpret.run_on_cpu(fused, [x])
        assert all(torch.equal(families.bits(a), families.bits(b)) for a, b in zip(first, again))


# ---- 8. the decision log ----


def test_every_candidate_is_logged_with_sizes_dtype_and_why(decisions):
    interpret.generate(two_copies_no_partner, interpret.fake_inputs(*[((4096, 512), torch.bfloat16)] * 2), **ON)
    text = "\n".join(decisions)
    assert ("skip clone bfloat16[512, 4096]: not a site: no sum, mean, amax or amin over the leading dims reads the "
            "same tensor") in text
    assert "skip sum_1 bfloat16[512]: not a site: no transposed contiguous copy clone(permute(v))" in text


def test_a_copy_beside_an_unmatched_reduction_names_the_reductions_it_looks_for(decisions):
    interpret.generate(lambda x: (x.t().contiguous(), x.prod(0)), interpret.fake_inputs(((256, 512), torch.float32)),
                       **ON)
    assert any("not a site: no sum, mean, amax or amin" in d and "prod" in d for d in decisions)


@pytest.mark.parametrize("copy", ["cast", "copy_"])
def test_copies_written_other_ways_are_named_in_the_log(copy, decisions):
    """A cast between the permute and the clone, or a copy_ into a new buffer (whose hint used to name only the cast;
    fresh-user review, 2026-11-30): not matched, and the reduction's log line says which spellings are not."""
    def fn(x):
        if copy == "cast":
            return x.t().to(torch.bfloat16).contiguous(), x.sum(0)
        return x.new_empty(x.shape[1], x.shape[0]).copy_(x.t()), x.sum(0)

    interpret.generate(fn, interpret.fake_inputs(((256, 512), torch.float32)), **ON)
    (line,) = [d for d in decisions if d.startswith("skip sum")]
    assert "a cast or pointwise op between the permute and the clone" in line and "copy_ into a new buffer" in line


def test_an_unrolled_reduction_is_logged_as_skipped(decisions):
    """N <= unroll_reductions_threshold: Inductor emits no reduction kernel, so the site says why it is not fused."""
    x = randn(4, 1579)
    fused, stock = compile_both(families.f1_t, [x])
    assert normalize(fused) == normalize(stock)
    assert any("unroll_reductions_threshold" in r for r in decisions)
    check(families.f1_t, [x], fused, stock)


class _TuningBlockRan(Exception):
    pass


def test_cpp_wrapper_autotune_block_allocates_the_packages_semaphores(monkeypatch):
    """``cpp_wrapper=True`` (and AOTInductor) first runs a Python block that launches each kernel once on example
    arguments; it allocates the workspaces itself and takes an argument whose name does not start with ``workspace``
    or ``semaphore`` for a graph buffer, which failed compiling every fused graph (``rtf_semaphores_cuda_0``, found
    2026-11-30).  On the fake device the block cannot launch, so it is captured where Inductor would run it; the GPU
    runs it whole (``test_gpu_hardening.py::test_cpp_wrapper``)."""
    from torch._inductor.codegen import wrapper

    blocks = []

    def capture(code, scope):
        blocks.append(code)
        raise _TuningBlockRan

    monkeypatch.setattr(wrapper, "exec", capture, raising=False)
    x = interpret.fake_inputs(((4096, 3072), torch.bfloat16))
    # the block runs by default on torch 2.11; torch 2.15 runs it only when asked (its default compiles lazily:
    # the next test)
    with pytest.raises(Exception, match="Failed to run autotuning code block"):
        interpret.generate(families.f1_t, x, **ON, cpp_wrapper=True, **{"triton.autotune_at_compile_time": True})
    (block,) = blocks
    assert "semaphores_rtf_cuda_0 = " in block and "semaphores_rtf_cuda_0.zero_()" in block
    (call,) = [line for line in block.splitlines() if line.strip().startswith("triton_") and ".run(" in line]
    assert "semaphores_rtf_cuda_0" in call


@pytest.mark.skipif(importlib.util.find_spec("torch._inductor.runtime.triton_lazy_compile") is None,
                    reason="torch 2.11's cpp wrapper has no lazy kernel compile (torch._inductor.runtime."
                           "triton_lazy_compile, in torch 2.15): it always runs the autotune block, tested above")
def test_cpp_wrapper_lazy_compile_allocates_the_packages_semaphores():
    """torch 2.15's cpp wrapper, by default, runs no autotune block: its C++ compiles and tunes each kernel at the
    first launch, with the arguments the C++ itself allocates; the package's semaphores are one of them, zeroed
    before the kernel's first launch (a dynamic N too: the cpp wrapper takes no row-tile grid)."""
    for dynamic in ((), (0,)):
        x = interpret.fake_inputs(((4096, 3072), torch.bfloat16), dynamic=dynamic)
        src = interpret.generate(families.f1_t, x, **ON, cpp_wrapper=True)
        assert "runTritonKernelWithAutotune(" in src and "RowTileGrid" not in src
        allocated = re.search(r"aoti_torch_empty_strided\(.*&semaphores_rtf_cuda_0_handle\)\);", src)
        zeroed = src.find("aoti_torch_zero_(semaphores_rtf_cuda_0.get())")
        (call,) = re.findall(r"^\s*call_triton_\w+\(.*\);$", src, re.M)
        assert allocated and allocated.end() < zeroed < src.find(call) and "semaphores_rtf_cuda_0" in call


def sites_beside_row_sums(x, y):
    return x.t().contiguous(), x.sum(0), y.t().contiguous(), y.sum(0), (x * 2).sum(1), (y + 1).sum(1)


@pytest.fixture(params=["default", "set by the user"])
def combo_algorithm(request):
    """Inductor's combo-kernel group algorithm, or a user's own set after the package's import (the package used to
    wrap the algorithm itself, so setting one dropped the filter)."""
    from torch._inductor.scheduler import ForeachKernelSchedulerNode as Foreach
    before = Foreach.group_algorithm_for_combo_kernels
    if request.param != "default":
        def users_own(scheduler):
            return Foreach._default_group_nodes_for_combo_kernels(scheduler)
        Foreach.set_group_algorithm_for_combo_kernels(users_own)
    yield
    Foreach.set_group_algorithm_for_combo_kernels(before)


def test_combo_kernels_leave_the_fused_sites_alone(decisions, combo_algorithm):
    """``combo_kernels=True`` packed both sites' unsplit reductions into one combo kernel with Inductor's own launch
    (C / XBLOCK programs, no wide launch, nothing logged).  The sites now keep their own fused kernels; the two row
    sums still share a combo kernel, with Inductor's algorithm or one the user set.  (Rows enough for the split
    launch, pinned: a site of a few thousand rows takes the column tile, Inductor's own persistent kernel, which may
    join a combo kernel.)"""
    x, y = randn(3000, 200), randn(2600, 100, seed=1)
    fused, stock = compile_both(sites_beside_row_sums, [x, y], combo_kernels=True,
                                reduction_transpose_fusion_launch_config="SEPARATE_FINISH=0")
    kernels = interpret.kernel_sources(fused)
    combo = [k for k in kernels.values() if "combo_grid_meta" in k]
    assert len(combo) == 1 and "sem_ptr" not in combo[0]
    assert sum("sem_ptr" in k for k in kernels.values()) == 2  # the fused kernels' last-program finish
    assert sum(r.startswith("fused ") for r in decisions) == 2
    assert sum("kept out of combo kernels" in r for r in decisions) == 2
    check(sites_beside_row_sums, [x, y], fused, stock, transposed=(0, 2))


@pytest.mark.parametrize("dtype", [torch.int32, torch.int64, torch.uint8])
def test_integer_inputs(dtype):
    """Integer sums (int64 results) beside the transposed copy, against stock's code bit for bit (the CPU runner
    used to fail poisoning stock's column-major int64 split buffer; fresh-user review, 2026-11-30)."""
    x = torch.randint(0, 100, (300, 96), generator=torch.Generator().manual_seed(3)).to(dtype)
    fused, stock = compile_both(families.f1_t, [x], reduction_transpose_fusion_launch_config=SMALL_TILES)
    assert n_kernels(fused) == 1
    out = interpret.run_on_cpu(fused, [x])
    want = interpret.run_on_cpu(stock, [x])
    assert all(torch.equal(a, b) for a, b in zip(out, want))
    assert torch.equal(out[1], x.sum(0))


def test_the_cpu_runner_refuses_a_grid_barrier_it_cannot_run(monkeypatch):
    """The interpreter runs one program at a time, so a grid barrier with RSPLIT > 1 would wait forever; the CPU
    runner says so instead (2026-11-30).  The pass leaves a sum a full-size op reads to stock, so the test hides that
    reader from it, as where Inductor fuses one the pass cannot see."""
    from reduction_transpose_fusion.fx_passes import reduction_transpose as rt

    monkeypatch.setattr(rt, "full_size_reader", lambda reduction, numel: "")
    x = randn(300, 96)
    src = interpret.generate(reads_its_own_sum, interpret.fake_inputs(((300, 96), torch.float32)), **ON,
                             reduction_transpose_fusion_launch_config=SMALL_TILES)
    with pytest.raises(NotImplementedError, match="grid barrier with RSPLIT=3"):
        interpret.run_on_cpu(src, [x])


def two_copies_one_sum(x):
    return x.t().contiguous(), (x * 2).t().contiguous(), x.sum(0)


def test_a_second_copy_of_the_same_source_is_not_a_site_of_its_own(decisions):
    """One reduction, two transposed copies: the first pairs with it; the log says the second is not a site of its
    own and that Inductor may still fuse it into that kernel (it does here)."""
    x = randn(300, 96)
    fused, stock = compile_both(two_copies_one_sum, [x], reduction_transpose_fusion_launch_config=SMALL_TILES)
    assert any("not a site of its own: the reduction already pairs with clone" in r for r in decisions), decisions
    assert n_kernels(fused) == 1
    check(two_copies_one_sum, [x], fused, stock, transposed=(0, 1))


class CountingChoices(InductorChoices):
    """A user's own heuristics class, counting Inductor's calls of ``reduction_split_factor``."""

    calls = 0

    def uuid(self):  # torch 2.15 asks it of every class it makes a handler from (its cache key)
        return "counting-choices"

    def reduction_split_factor(self, *args, **kwargs):
        type(self).calls += 1
        return super().reduction_split_factor(*args, **kwargs)


def in_a_fresh_thread(fn, **config):
    """``fn()`` in a new thread, under ``inductor_config.patch(config)`` made in that thread: Inductor makes its
    choices handler from ``config.inductor_choices_class`` at the thread's first use and keeps it for the thread.
    torch 2.15's config values are per thread (a patch made in the test's thread would not reach it); torch 2.11's are
    global, and the patch is the same there.  Returns ``fn()``'s value and the class of the handler Inductor asks for
    ``reduction_split_factor`` (torch 2.15 composes the configured class with the package's registered one, the
    configured class's methods first: ``_torch_private.choices_hook_owner``)."""
    result = {}

    def target():
        try:
            with inductor_config.patch(config):
                value = fn()
            owner = _torch_private.choices_hook_owner(V.choices, "reduction_split_factor")
            result["value"] = value, type(owner)
        except BaseException as e:  # re-raised in the test's thread
            result["error"] = e

    thread = threading.Thread(target=target)
    thread.start()
    thread.join()
    if "error" in result:
        raise result["error"]
    return result["value"]


def source_and_kernels(**options):
    src = interpret.generate(families.f1_t, interpret.fake_inputs(((4096, 1024), torch.float32)), **options)
    return src, interpret.kernel_names(src)


@pytest.mark.parametrize("flag", [False, True], ids=["off", "on"])
def test_a_choices_class_the_user_sets_after_the_import_is_used(flag, decisions):
    """Importing the package used to install its handler in the importing thread, so a user's own
    ``inductor_choices_class`` set afterwards was never called there, even with the flag off; with the flag on the log
    said "candidate" for sites whose reductions the user's class then split (fresh-user review, 2026-11-30).  Now
    the user's class is Inductor's, and with the flag on every site is skipped, saying why."""
    CountingChoices.calls = 0
    (src, kernels), handler = in_a_fresh_thread(lambda: source_and_kernels(reduction_transpose_fusion=flag,
                                                                            reduction_transpose_fusion_min_bytes=0),
                                                inductor_choices_class=CountingChoices)
    assert handler is CountingChoices and CountingChoices.calls > 0
    assert len(kernels) >= 2  # stock's split reduction beside the copy
    if flag:
        assert not any(r.startswith(("candidate", "fused")) for r in decisions)
        assert any("choices handler is a CountingChoices" in r for r in decisions)


class ConvChoices(InductorChoices):
    """A user's heuristics class that overrides none of the methods the package's overrides."""

    def uuid(self):
        return "conv-choices"

    def get_conv_configs(self, *args, **kwargs):
        return super().get_conv_configs(*args, **kwargs)


def test_a_users_choices_class_fuses_only_where_it_leaves_the_packages_methods_to_the_package(decisions):
    """torch 2.15 makes a handler from the user's ``inductor_choices_class`` and the package's registered class,
    each method from the first that overrides it: a user's class that overrides none of the package's methods leaves
    the fusion on.  torch 2.11 makes the handler from the user's class alone, which then splits the reductions: the
    sites are skipped, saying so."""
    (src, kernels), owner = in_a_fresh_thread(lambda: source_and_kernels(**ON), inductor_choices_class=ConvChoices)
    composed = hasattr(inductor_choices_module, "register_inductor_choices")  # torch 2.15's registry of factories
    assert owner is (ReductionTransposeChoices if composed else ConvChoices)
    assert (len(kernels) == 1) == composed, kernels
    assert any("choices handler is a ConvChoices" in r for r in decisions) != composed, decisions


USER_CHOICES_AFTER_IMPORT = """
from reduction_transpose_fusion_testing import fake_cuda
fake_cuda.install()
import torch, torch._inductor.config as c
from torch._inductor.choices import InductorChoices
import reduction_transpose_fusion
from reduction_transpose_fusion_testing import families, interpret
calls = []
class Mine(InductorChoices):
    def uuid(self):
        return "mine"

    def reduction_split_factor(self, *args, **kwargs):
        calls.append(1)
        return super().reduction_split_factor(*args, **kwargs)
c.inductor_choices_class = Mine
interpret.generate(families.f1_t, interpret.fake_inputs(((4096, 1024), torch.float32)))
print(len(calls))
"""


def test_a_choices_class_the_user_sets_after_the_import_is_used_in_the_importing_thread():
    """The fresh-user review's case (2026-11-30): the importing thread itself, flag off, compiling after the user set
    their class; the package used to pin its handler there at import, and the user's class was never called."""
    out = run_python(USER_CHOICES_AFTER_IMPORT)
    assert out.returncode == 0, out.stderr[-3000:]
    assert int(out.stdout.split()[-1]) > 0


class UsersChoices(ReductionTransposeChoices):
    """A user's heuristics built on the package's."""


@pytest.mark.parametrize("configured", [ReductionTransposeChoices, UsersChoices], ids=["package's", "subclass"])
def test_a_thread_that_compiled_before_the_import_fuses(configured):
    """A thread's handler is made once; one made before the package's import is a stock ``InductorChoices``, which
    the pass replaces by the configured class when a graph compiles with the flag on (a subclass of the package's
    too: it was skipped; review, 2026-11-30)."""

    def compile_after_a_stock_handler():
        V.set_choices_handler(InductorChoices())  # what a compile before the import leaves in the thread
        return source_and_kernels(**ON)[1]

    kernels, handler = in_a_fresh_thread(compile_after_a_stock_handler, inductor_choices_class=configured)
    assert len(kernels) == 1 and handler is configured
