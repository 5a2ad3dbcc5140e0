"""The post-grad pass that finds sites (fx_passes/reduction_transpose.py): what is a site, what is not, and why."""

from __future__ import annotations

import dataclasses

import pytest
import sympy
import torch
import torch._inductor.config as inductor_config
from torch._inductor.decomposition import select_decomp_table
from torch.fx.experimental.proxy_tensor import make_fx

from reduction_transpose_fusion.fx_passes import reduction_transpose as rt
from reduction_transpose_fusion_testing import families


def trace(fn, *inputs) -> torch.fx.Graph:
    """An aten graph decomposed as Inductor's post-grad graphs are (``t`` becomes ``permute``)."""
    return make_fx(fn, decomposition_table=select_decomp_table(), tracing_mode="fake")(*inputs).graph


def graph(fn, *shapes, dtype=torch.float32):
    return trace(fn, *[torch.randn(s, dtype=dtype) for s in shapes])


@pytest.mark.parametrize("name", list(families.CASES))
def test_every_family_is_a_site(name):
    case = families.CASES[name]
    sites = rt.find_sites(trace(case.fn, *case.inputs(64, 48, torch.float32)))
    assert sites and {s.rows for s in sites} == {64} and {s.cols for s in sites} == {48}


@pytest.mark.parametrize("fn,shapes,why", [
    (lambda x: (x.t().contiguous(), x.sum(1)), [(64, 48)], "a reduction over the last dim"),
    (lambda x, y: (x.t().contiguous(), y.sum(0)), [(64, 48), (64, 48)], "different tensors"),
    (lambda x: (x.t().clone(), x.sum(0)), [(64, 48)], "clone keeps the transposed strides"),
    (lambda x: (x.reshape(-1, 48).t().contiguous(), x.sum(0)), [(4, 16, 48)], "only the first of two leading dims"),
    (lambda x: (x.flip(0).t().contiguous(), x.sum(0)), [(64, 48)], "a flip is not elementwise"),
    (lambda x: (x.t().contiguous(), x.sum()), [(64, 48)], "a full reduction"),
])
def test_not_a_site(fn, shapes, why):
    assert rt.find_sites(graph(fn, *shapes)) == [], why


def site(rows, cols, fn=families.f1_t, dtype=torch.float32):
    (s,) = rt.find_sites(graph(fn, (rows, cols), dtype=dtype))
    return s


def test_skip_reasons_in_order():
    assert "gate" in rt.skip_reason(site(200, 2))  # 1600 bytes, below the default 2 KiB
    assert "one unsplit kernel (N=128: its split factor is 1" in rt.skip_reason(site(128, 4096))
    # stock splits, but half a MB is predicted no faster fused (the cost model: the fixed cost about equals the
    # launches it saves)
    assert "cost model predicts no clear gain" in rt.skip_reason(site(12735, 10))
    assert rt.skip_reason(site(4096, 4096)) is None
    with inductor_config.patch(split_reductions=False):  # the switch, not N, is why stock emits one kernel
        assert "one unsplit kernel (split_reductions=False: its split factor is 1" in rt.skip_reason(site(4096, 4096))
    with inductor_config.patch(reduction_transpose_fusion_profitability=False):
        assert rt.skip_reason(site(128, 4096)) is None
    with inductor_config.patch(reduction_transpose_fusion_min_bytes=1 << 20):
        assert "gate" in rt.skip_reason(site(64, 48))
        assert rt.skip_reason(site(4096, 4096)) is None
        assert rt.skip_reason(site(8191, 4093)) is None  # both prime: the scalar tile, measured faster fused
        fp8 = rt.find_sites(trace(families.f5_fp8_cast_transpose_dbias, torch.randn(1024, 30522), torch.tensor(2.)))[0]
        assert "one unsplit kernel for an fp8 cast" in rt.skip_reason(fp8)
        with inductor_config.patch(reduction_transpose_fusion_profitability=False):
            assert rt.skip_reason(fp8) is None


@pytest.mark.parametrize("rows,cols,factor", [(32, 4096, 1), (128, 2048, 1), (129, 2048, 2), (256, 8, 2),
                                               (8192, 48, 64), (1024, 8448, 1), (1024, 8447, 8)])
def test_stock_split_factor_follows_inductor(rows, cols, factor):
    """Inductor's own split of an outer reduction (ir.py:1374 and InductorChoices.reduction_split_factor): none for
    N <= 32 or C >= 64 * SMs (8448 on the H200), else ceil(N / 128) at these sizes."""
    assert rt.stock_split_factor(site(rows, cols)) == factor


def _producer_of_transposed_inputs(a, b, c):
    y = c + a.t() * b.t()
    return y.t().contiguous(), y.sum(0)


def _producer_of_one_transposed_input(a, c):
    y = c + a.t()
    return y.t().contiguous(), y.sum(0)


def test_reductions_inductor_lowers_as_inner_are_skipped():
    """Inductor calls a reduction inner when more of its full-size reads are contiguous along N than not
    (ir.py:1433), or when C = 1; it then splits it itself (or emits one kernel), and the fusion, which removes
    only the split of a column reduction, cannot take it."""
    (s,) = rt.find_sites(graph(_producer_of_transposed_inputs, (1024, 4096), (1024, 4096), (4096, 1024)))
    assert (s.inner_reads, s.outer_reads) == (2, 1) and "inner reduction" in rt.skip_reason(s)
    (s,) = rt.find_sites(graph(_producer_of_one_transposed_input, (1024, 4096), (4096, 1024)))
    assert (s.inner_reads, s.outer_reads) == (1, 1) and rt.skip_reason(s) is None  # a tie is outer
    assert (site(4096, 1024).inner_reads, site(4096, 1024).outer_reads) == (0, 1)
    c1 = lambda x: (x.permute(1, 0).clone(memory_format=torch.contiguous_format), x.sum(0))  # noqa: E731
    (s,) = rt.find_sites(graph(c1, (4096, 1)))
    assert "C=1" in rt.skip_reason(s)


def test_split_reductions_off_leaves_sites_to_stock():
    """With config.split_reductions off stock never splits, and its one kernel already holds the copy."""
    s = site(4096, 1024)
    assert rt.stock_split_factor(s) == 32 and rt.skip_reason(s) is None
    with inductor_config.patch(split_reductions=False):
        assert rt.stock_split_factor(s) == 1 and "one unsplit kernel" in rt.skip_reason(s)


def test_wide_fp8_casts_without_the_row_tile_grid_stay_stock():
    """Stock does not split once C >= 64 * SMs (8448 on the H200), so fusing only changes the tile.  A scaled fp8
    cast with rows not 8-byte aligned measured no faster fused unless its kernel launches one program per row tile;
    plain copies of 4-byte elements in such rows were left to stock too until 2026-12-01, and now fuse
    (1.11-1.35x faster with N static or dynamic; LayerNorm backward over them a tie with N static, 1.10-1.12x
    faster with N dynamic: sweeps/2026-12-01-h200-sweep-{staticgrid,dynamicfp8}.csv)."""
    copy = site(1024, 50257, dtype=torch.float32)
    assert rt.skip_reason(copy) is None
    assert rt.skip_reason(dataclasses.replace(copy, rows=sympy.Symbol("s0", positive=True, integer=True))) is None
    (s,) = rt.find_sites(trace(families.f4_flatten, torch.randn(2, 512, 50257)))
    assert s.copy_ops == {"view"} and rt.skip_reason(s) is None
    assert rt.skip_reason(site(1024, 50257, dtype=torch.bfloat16)) is None
    (s,) = rt.find_sites(trace(families.f5_fp8_cast_transpose_dbias, torch.randn(1024, 30522), torch.tensor(2.0)))
    assert "an fp8 cast" in rt.skip_reason(s)  # 1-byte rows of 30522 bytes: 0.99x fused on one wave
    assert rt.skip_reason(s, row_tiles=True) is None  # 1.18x faster on the row-tile grid
    (s,) = rt.find_sites(trace(families.f5_fp8_cast_transpose_dbias, torch.randn(1024, 30528), torch.tensor(2.0)))
    assert rt.skip_reason(s) is None  # 8-byte-aligned fp8 rows


def test_a_dynamic_n_with_row_tiles_fuses_what_rules_3b_and_3c_leave_to_stock():
    """A kernel expected to launch one program per row tile of a dynamic N was measured faster than stock for the
    wide fp32 -> fp8 cast (1.73x) and for f32 with odd C and an unaligned N (1.11x); without it the rules stand."""
    dynamic = lambda s: dataclasses.replace(s, rows=sympy.Symbol("s0", positive=True, integer=True))  # noqa: E731
    (fp8,) = rt.find_sites(trace(families.f5_fp8_cast_transpose_dbias, torch.randn(1024, 30522), torch.tensor(2.0)))
    odd = site(1031, 1021)
    assert rt.skip_reason(odd) is None and "an fp8 cast" in rt.skip_reason(fp8)  # N static
    assert rt.skip_reason(dynamic(fp8), row_tiles=True) is None and rt.skip_reason(dynamic(odd), row_tiles=True) is None
    assert "an fp8 cast" in rt.skip_reason(dynamic(fp8))
    assert "without one program per row tile" in rt.skip_reason(dynamic(odd))


@pytest.mark.parametrize("fn,inputs,reductions,expected", [
    (families.f5_fp8_cast_transpose_dbias, [torch.randn(1024, 30522), torch.tensor(2.0)], 1, True),
    (families.f5_fp8_cast_transpose_dbias, [torch.randn(1024, 30522).bfloat16(), torch.tensor(2.0)], 1, False),
    (families.f5_fp8_cast_transpose_dbias, [torch.randn(1023, 30522), torch.tensor(2.0)], 1, False),  # odd N
    (families.f5_fp8_cast_transpose_dbias, [torch.randn(1024, 12000), torch.tensor(2.0)], 1, False),  # not wide
    (families.f5_fp8_cast_transpose_dbias, [torch.randn(128, 30522), torch.tensor(2.0)], 1, False),  # one row tile
    (families.f1_t, [torch.randn(1024, 30522)], 1, False),  # a static N's copy: the persistent kernel
], ids=["fp8-from-f32", "fp8-from-bf16", "fp8-odd-n", "fp8-narrow", "fp8-one-row-tile", "copy"])
def test_a_static_n_expects_row_tiles_only_for_the_wide_fp32_to_fp8_cast(fn, inputs, reductions, expected):
    """With N static the launch takes the row-tile grid for the wide cast of f32 to fp8 alone
    (``runtime.triton_heuristics.wide_fp8_cast``), and the pass predicts it so (rule 3b); ``ROW_TILE_GRID=1`` in
    the launch override predicts it for the others too, and the cpp wrapper for none."""
    graph = trace(fn, *inputs)
    s = rt.find_sites(graph)[0]
    assert s.rows.is_number and rt.expects_row_tiles(graph, s, reductions) == expected
    with inductor_config.patch(cpp_wrapper=True):
        assert not rt.expects_row_tiles(graph, s, reductions)
    with inductor_config.patch(reduction_transpose_fusion_launch_config="ROW_TILE_GRID=1"):
        assert rt.expects_row_tiles(graph, s, reductions) == (expected or fn is families.f1_t)  # fp8: its own rule
    if expected:  # a dynamic C is taken as odd (no vector accesses) unless known a multiple of 16: one wave
        c = sympy.Symbol("s1", positive=True, integer=True)
        assert not rt.expects_row_tiles(graph, dataclasses.replace(s, cols=c), reductions)
        assert rt.expects_row_tiles(graph, dataclasses.replace(s, cols=16 * c), reductions)


def symbolic(fn, *inputs):
    """(graph, sites) with every size of the inputs symbolic (hints: the inputs' sizes)."""
    graph = make_fx(fn, decomposition_table=select_decomp_table(), tracing_mode="symbolic")(*inputs).graph
    return graph, rt.find_sites(graph)


def sum_read_by_a_full_size_op(x):
    s = x.sum(0)
    return x.t().contiguous(), s, x - s


def fp64_sum(x):
    return x.t().contiguous(), x.sum(0, dtype=torch.float64)


@pytest.mark.parametrize("fn,inputs,reductions,expected", [
    (families.f1_t, [torch.randn(1031, 1021)], 1, True),
    (families.f1_t, [torch.randn(1031, 1021)], 2, False),  # LayerNorm backward's two sums: the ticket
    (families.f2_gelu_backward, [torch.randn(1031, 1021)] * 2, 1, False),  # heavy: one wave
    (sum_read_by_a_full_size_op, [torch.randn(1031, 1021)], 1, False),  # maybe a later loop: the grid barrier
    (fp64_sum, [torch.randn(1031, 1021)], 1, False),  # fp64 partials: a ticketed workspace
    (families.f5_fp8_cast_transpose_dbias, [torch.randn(1024, 30522), torch.tensor(2.0)], 1, True),
    (families.f5_fp8_cast_transpose_dbias, [torch.randn(1024, 30522).bfloat16(), torch.tensor(2.0)], 1, False),
    (families.f5_fp8_cast_transpose_dbias, [torch.randn(1028, 30522), torch.tensor(2.0)], 1, False),  # scalar N
], ids=["copy", "two-reductions", "gelu", "later-loop", "fp64", "fp8-from-f32", "fp8-from-bf16", "fp8-scalar-n"])
def test_the_pass_expects_row_tiles_where_choices_will_launch_them(fn, inputs, reductions, expected):
    """The pass's prediction (rules 3b and 3c) follows what choices and the launch heuristic need for the grid; N
    dynamic, C static (the fp8 cast's launch takes a dynamic C for odd, one wave: see the static-N test above)."""
    graph, sites = symbolic(fn, *inputs)
    (s,) = [x for x in sites if x.reduction == sites[0].reduction]
    s = dataclasses.replace(s, cols=sympy.Integer(s.hints[1]))
    assert not s.rows.is_number
    assert rt.expects_row_tiles(graph, s, reductions) == expected
    if expected:
        with inductor_config.patch(cpp_wrapper=True):
            assert not rt.expects_row_tiles(graph, s, reductions)


def test_no_row_tiles_where_n_may_be_zero():
    """Under ``backed_size_oblivious`` a dynamic N may be 0, and a grid of no programs would write no result."""
    import unittest.mock

    import torch.fx.experimental._config as exp_config

    with unittest.mock.patch.object(exp_config, "backed_size_oblivious", True):
        graph, (s,) = symbolic(families.f1_t, torch.randn(1031, 1021))
    assert not rt.expects_row_tiles(graph, s, 1)


def test_the_wide_rule_looks_at_the_copy_not_the_reductions():
    """LayerNorm backward: (g * h).sum(0) has a producer, g.sum(0) none, but both pair with the copy of g, so both
    sites get the same decision (one kernel either way)."""
    g, h = torch.randn(1024, 50257), torch.randn(1024, 50257)
    sites = rt.find_sites(trace(families.f3_layernorm_backward, g, h))
    assert len(sites) == 2 and {s.producer_ops for s in sites} == {frozenset({"mul"}), frozenset()}
    assert len({rt.skip_reason(s) is None for s in sites}) == 1


def test_transcendental_producers_are_fused():
    """GELU backward ran 1.56x (bf16[25216, 3072]) and 1.37x (bf16[32768, 11008]) faster fused with the heavy tile
    (corpus, 2026-11-29); it used to be left to stock."""
    (s,) = rt.find_sites(trace(families.f2_gelu_backward, torch.randn(4096, 4096), torch.randn(4096, 4096)))
    assert "tanh" in s.producer_ops
    with inductor_config.patch(reduction_transpose_fusion_min_bytes=0):
        assert rt.skip_reason(s) is None


def test_mark_sites_marks_only_what_it_fuses():
    g = graph(families.f1_t, (4096, 4096))
    with inductor_config.patch(reduction_transpose_fusion=True, reduction_transpose_fusion_min_bytes=0):
        marked = rt.mark_sites(g)
    assert [s.reduction for s in marked] == ["sum_1"]
    assert [n.name for n in g.nodes if rt.META_KEY in n.meta] == ["sum_1"]


def test_a_reduction_whose_result_a_full_size_op_reads_is_left_to_stock_past_the_column_tile():
    """Centering (x - x.mean(0)) and rowwise fp8's per-column amax feed a full-size op: one kernel would need a grid
    barrier between the reduction and a second pass over x (measured at half of stock's speed), unless all N rows
    fit the column tile (at most 8192), which finishes the reduction in registers."""
    (s,) = [s for s in rt.find_sites(graph(families.f6_centering, (16384, 1024))) if s.result_reader]
    assert s.result_reader.startswith("sub")
    assert "its result is read by the full-size sub" in rt.skip_reason(s)
    with inductor_config.patch(reduction_transpose_fusion_profitability=False):  # not a profitability rule
        assert "its result is read" in rt.skip_reason(s)
    (tile,) = [s for s in rt.find_sites(graph(families.f6_centering, (1024, 1024))) if s.result_reader]
    assert rt.column_tile_allowed(tile) and rt.skip_reason(tile) is None
    amax, total = sorted(rt.find_sites(graph(families.f5_rowwise, (16384, 1024), dtype=torch.bfloat16)),
                         key=lambda s: s.reduction)
    assert amax.reduction.startswith("amax") and amax.result_reader and not total.result_reader


def test_a_copy_computed_from_a_column_reduction_of_x_is_left_to_stock_past_the_column_tile():
    """Rowwise fp8: the copy needs the column amax of x first (a second pass whatever kernel holds it but the column
    tile), so the bias gradient beside it saves no read fused (random sites: 0.74-1.00x)."""
    sites = rt.find_sites(graph(families.f5_rowwise, (16384, 1024), dtype=torch.bfloat16))
    (total,) = [s for s in sites if s.reduction.startswith("sum")]
    assert total.copy_reads_reduction.startswith("amax")
    assert "computed from amax" in rt.skip_reason(total)
    (total,) = [s for s in rt.find_sites(graph(families.f5_rowwise, (1024, 1024), dtype=torch.bfloat16))
                if s.reduction.startswith("sum")]
    assert rt.skip_reason(total) is None


def test_a_copy_computed_from_another_tensors_reduction_is_still_one_pass():
    """``v = x * y.mean(0)`` needs y's mean first, not a second pass over x: the site fuses."""
    def fn(x, y):
        v = x * y.mean(0)
        return v.t().contiguous(), v.sum(0)

    sites = rt.find_sites(graph(fn, (4096, 1024), (4096, 1024)))
    (s,) = [s for s in sites if s.source == "x_1"]
    assert s.copy_reads_reduction == ""
    assert s.result_reader == ""


@pytest.mark.parametrize("fn,operands,rows,fuses", [
    (families.f1_t, 1, 88, True),  # a copy: the wide one-tile launch beats stock's kernel (bf16[88, 32002] 2.19x)
    (families.f3_layernorm_backward, 2, 4096, False),  # two reductions: 0.42x at fp16[90, 24079]
    (families.f2_mul_add, 2, 388, False),  # a producer over few rows: 0.85x at fp16[388, 12865]
    (families.f2_mul_add, 2, 2048, True),  # over more: 1.25-1.74x at 2048-32768 rows (corpus, held-out suite)
])
def test_wide_sites_fuse_with_one_reduction_and_no_short_producer(fn, operands, rows, fuses):
    """Where C is wide stock already emits one kernel that reads x once: only its launch can differ."""
    sites = rt.find_sites(graph(fn, *[(rows, 20000)] * operands, dtype=torch.bfloat16))
    reasons = [rt.skip_reason(s, reductions=len(sites)) for s in sites]
    assert all((r is None) == fuses for r in reasons), reasons
    if not fuses:
        assert all("reads x once" in r for r in reasons)


def test_the_cost_model_decides_sites_stock_splits():
    """A site stock splits fuses where the model predicts a clear gain and is skipped, with the prediction logged,
    where it does not: a 0.5 MB f32[12735, 10] (no launch predicted 1.1x faster than stock's three kernels) and a
    large aligned bf16[25216, 3072] (1.4x faster fused in the corpus)."""
    small = site(12735, 10)
    assert rt.stock_split_factor(small) > 1
    reason = rt.skip_reason(small)
    assert reason and "predicted fused" in reason and "3 kernels" in reason
    large = site(25216, 3072, dtype=torch.bfloat16)
    assert rt.skip_reason(large) is None
    assert rt.predicted_estimate(large, 1, False).speedup >= rt.profitability.MIN_PREDICTED_SPEEDUP
