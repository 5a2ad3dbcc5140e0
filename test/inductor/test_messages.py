"""What the package says to a user: the log's reasons for degenerate shapes, and launch overrides it adjusts or
refuses."""

from __future__ import annotations

import itertools

import pytest
import torch

from reduction_transpose_fusion.runtime import triton_heuristics
from reduction_transpose_fusion_testing import families, interpret

ON = dict(reduction_transpose_fusion=True)


def _copy_and_sum(x):
    return x.t().contiguous(), x.sum(0)


def test_an_empty_input_is_logged_as_empty(decisions):
    interpret.generate(_copy_and_sum, interpret.fake_inputs(((64, 0), torch.float32)), **ON)
    assert decisions == ["skip sum_1 float32[0]: not a site: empty tensor (N * C == 0)"]


@pytest.mark.parametrize("shape", [(1, 1), (1, 4096), (4096, 1)])
def test_a_transpose_that_inductor_made_a_view_is_logged_as_one(decisions, shape):
    interpret.generate(_copy_and_sum, interpret.fake_inputs((shape, torch.float32)), **ON)
    rows, cols = shape
    assert len(decisions) == 1
    assert decisions[0].endswith(
        f"not a site: the transposed copy of the [{rows}, {cols}] tensor is a view: with a dim of size 1, x.t() is "
        "already contiguous, so .contiguous() copies nothing and there is no copy to fuse"), decisions


# ---- launch overrides: adjusted ones are logged, impossible ones refused ----

EVERY_SITE = families.FUSE_EVERY_SITE


def _fuse(shape, launch: str, dtype=torch.float32, fn=_copy_and_sum):
    return interpret.generate(fn, interpret.fake_inputs((shape, dtype)), **EVERY_SITE,
                              reduction_transpose_fusion_launch_config=launch)


def test_an_override_the_persistent_tile_changes_is_logged_with_what_was_asked_and_used(decisions):
    _fuse((256, 64), "TILES_PER_PROGRAM=1,R0_BLOCK=4")
    notes = [d for d in decisions if "launch override" in d]
    assert notes == ["sum_1: launch override R0_BLOCK=4 -> 8: with one row tile a program (the persistent kernel) "
                     "the tile is all of a program's rows, ceil(N / RSPLIT) to a power of two, and RSPLIT=5 (the "
                     "partials budget, 2% of x's bytes, or the override) grows to at least ceil(N / (2 R0_BLOCK)), "
                     "so RSPLIT is now the programs that get rows"], decisions


def test_a_row_tile_grid_override_that_is_not_taken_says_why(decisions):
    _fuse((256, 64), "ROW_TILE_GRID=1")
    notes = [d for d in decisions if "launch override" in d]
    assert notes == ["sum_1: launch override ROW_TILE_GRID=1 -> 0: the grid is one program per row tile, and this "
                     "kernel's launch takes 0 row tiles a program (0: one wave); TILES_PER_PROGRAM=1 asks for one"]


def test_a_small_inputs_odd_override_is_within_the_bounds_floor():
    """RSPLIT=6 over 8 rows (programs with no rows) is a few KiB: under the 1 MiB floor, so it is launched."""
    launch = triton_heuristics.launch_config(160, 8, 2, 2, 132, {"RSPLIT": 6})
    assert launch.RSPLIT == 6


def test_an_override_used_as_given_is_not_logged(decisions):
    _fuse((256, 64), "XBLOCK=32,RSPLIT=3")
    assert not [d for d in decisions if "launch override" in d]
    assert any("RSPLIT=3" in d for d in decisions if d.startswith("fused"))


def test_an_override_that_needs_more_workspace_than_the_bound_is_refused_naming_it():
    with pytest.raises(Exception) as err:
        _fuse((4096, 1024), "RSPLIT=100000")
    text = str(err.value)
    assert ("the fused launch RSPLIT=100000 over x [4096, 1024] (1 reduction(s)) needs 416002048 bytes of partials "
            "and semaphores, over the bound of 4194304 bytes (the most of 25% of x's 16777216 bytes, two programs' "
            "partials and 1048576 bytes); reduction_transpose_fusion_launch_config asks for {'RSPLIT': 100000}") in text


@pytest.mark.parametrize("launch,dtype,per_thread", [("XBLOCK=1024,R0_BLOCK=1024,num_warps=1", torch.float32, 32768),
                                                     ("num_warps=1", torch.bfloat16, 256)])  # the rules' 64 x 128 tile
def test_an_override_whose_tile_gives_a_thread_more_than_the_bound_is_refused_naming_it(launch, dtype, per_thread):
    """A tile the H200 cannot hold in registers (ptxas did not finish compiling 1024 x 1024 on one warp in 10
    minutes) is refused when the graph compiles, naming the elements a thread and the override."""
    with pytest.raises(Exception) as err:
        _fuse((4096, 1024), launch, dtype)
    text = str(err.value)
    assert f"gives each thread {per_thread} elements, more than {triton_heuristics.MAX_ELEMENTS_PER_THREAD}" in text
    assert "reduction_transpose_fusion_launch_config asks for {" in text and "'num_warps': 1" in text


def test_the_largest_tile_the_rules_give_is_within_the_elements_a_thread_bound():
    """The bound refuses no launch the rules choose: their largest tile, 128 x 128 on 4 warps, is at it."""
    launch = triton_heuristics.launch_config(4096, 4096, 2, 2, 132, {"XBLOCK": 128, "R0_BLOCK": 128})
    assert launch.XBLOCK * launch.R0_BLOCK // (32 * launch.num_warps) == triton_heuristics.MAX_ELEMENTS_PER_THREAD
    with pytest.raises(triton_heuristics.LaunchBoundError) as err:
        triton_heuristics.launch_config(4096, 4096, 2, 2, 132, {"XBLOCK": 256, "R0_BLOCK": 128})
    assert err.value.from_override


def test_the_launch_rules_stay_within_the_workspace_bound():
    """The bound refuses only overrides: every launch the rules choose, over shapes from 3 rows to 12M, fits it."""
    for rows, cols, (narrowest, widest), reductions, static, grid, ops in itertools.product(
            (3, 17, 129, 1000, 4095, 8191, 25229, 1000000, 12582912), (2, 17, 100, 1021, 3072, 30522, 131072),
            ((1, 1), (2, 2), (4, 4), (1, 4), (2, 4), (8, 8)), (1, 2), (True, False), (True, False), (0, 60)):
        try:
            launch = triton_heuristics.launch_config(cols, rows, narrowest, widest, 132, {}, ops, reductions,
                                                     frozenset({"tanh"}) if ops else frozenset(), static,
                                                     narrowest + widest, row_tile_grid=grid)
        except ValueError as e:
            assert "partials and semaphores" not in str(e)
            continue
        need = triton_heuristics.workspace_bytes(launch, cols, widest, reductions)
        assert need <= max(rows * cols * widest * triton_heuristics.MAX_WORKSPACE_FRACTION,
                           2 * cols * max(4, widest) * reductions)  # within the bound without its 1 MiB floor


# ---- sites that would give one kernel too much to do ----

def _residual_stream(x, *branches):
    """A residual stream's gradient: each block adds a branch, and each sum reads x only through that chain of adds
    (as every LayerNorm and bias gradient of a ViT backward reaches the stream's input)."""
    sums, r = [], x
    for b in branches:
        r = r + b
        sums.append(r.sum(0))
    return (x.t().contiguous(), *sums)


def test_a_reduction_that_reads_x_as_a_minor_input_is_left_to_stock(decisions):
    specs = [((4096, 768), torch.bfloat16)] * 5
    interpret.generate(_residual_stream, interpret.fake_inputs(*specs), **ON)
    fused = [d for d in decisions if d.startswith("candidate")]
    minor = [d for d in decisions if "bytes an element the reduction is computed from" in d]
    # x + b1 reads x as half its inputs: a site; x + b1 + b2 (a third) and longer chains: not
    assert [d.split(" + ")[1].split(" ")[0] for d in fused] == ["sum_1"], decisions
    assert len(minor) == 3, decisions
    assert "x is 2 of the 6 bytes an element" in minor[0] or "x is 2 of the 6 bytes an element" in " ".join(minor)


def _many_sums(x):
    return (x.t().contiguous(), *[(x * (i + 1)).sum(0) for i in range(80)])


@pytest.mark.parametrize("options", [ON, EVERY_SITE], ids=["profitability", "every-site"])
def test_a_launch_the_rules_would_choose_over_the_workspace_bound_falls_back_to_stock(decisions, options,
                                                                                      monkeypatch):
    """80 sums of one f32[4096, 768] (the cap on reductions a copy lifted): the rules' RSPLIT needs more partials
    than the bound allows; the compile does not fail, and the log says why the site is not fused (the cost model's
    launch, or the kernel's)."""
    from reduction_transpose_fusion.fx_passes import reduction_transpose
    monkeypatch.setattr(reduction_transpose, "MAX_COPY_REDUCTIONS", 100)
    error = pytest.raises(triton_heuristics.WorkspaceBoundError, triton_heuristics.launch_config, 768, 4096, 4, 4,
                          132, {}, 1, 80)
    assert not error.value.from_override
    code = interpret.generate(_many_sums, interpret.fake_inputs(((4096, 768), torch.float32)), **options)
    assert "async_compile.triton" in code
    assert any("over the bound of" in d and "the launch rules chose it" in d for d in decisions), decisions
    assert not any(d.startswith("fused") for d in decisions), decisions


def test_a_copy_that_pairs_with_more_reductions_than_one_kernel_holds_is_left_to_stock(decisions):
    fn = lambda x: (x.t().contiguous(), *[(x * (i + 1)).sum(0) for i in range(6)])  # noqa: E731
    interpret.generate(fn, interpret.fake_inputs(((4096, 768), torch.float32)), **ON)
    reasons = [d for d in decisions if d.startswith("skip clone")]
    assert len(reasons) == 6 and all("pairs with 6 reductions, more than the 4 one kernel may hold" in d
                                     for d in reasons), decisions


def test_a_copys_reductions_are_left_to_stock_together_when_the_cost_model_skips_one(decisions, monkeypatch):
    """LayerNorm backward: the cost model judges each sum alone; when it leaves one to stock, that one reads x again
    in stock's kernels, so the other is not fused either (bf16[561, 547] with one sum fused ran at 0.89x)."""
    from reduction_transpose_fusion.fx_passes import reduction_transpose as rt
    judged = rt.skip_reason
    monkeypatch.setattr(rt, "skip_reason", lambda site, *a: f"{rt.COST_MODEL_SKIP}: a test" if site.reduction == "sum_1"
                        else judged(site, *a))
    case = families.ALL_CASES["F3-layernorm-backward"]
    code = interpret.generate(case.fn, interpret.fake_inputs(*case.specs(4096, 1024, torch.bfloat16)), **ON)
    stock = interpret.generate(case.fn, interpret.fake_inputs(*case.specs(4096, 1024, torch.bfloat16)))
    assert len(interpret.kernel_names(code)) == len(interpret.kernel_names(stock))
    assert any(d.startswith("skip clone + sum_2") and "other reduction sum_1 is left to stock by the cost model" in d
               for d in decisions), decisions
    assert not any(d.startswith(("candidate", "fused")) for d in decisions), decisions


@pytest.mark.parametrize("shape,dtype,fused", [
    ((291, 27080), torch.float32, False),  # the launch would split 291 rows 5 ways: measured 0.72x, left to stock
    ((88, 32002), torch.bfloat16, True),  # unsplit (RSPLIT 1): measured 2.17x, fused
])
def test_a_wide_c_is_fused_only_where_its_launch_does_not_split_a_few_hundred_rows(decisions, shape, dtype, fused):
    interpret.generate(_copy_and_sum, interpret.fake_inputs((shape, dtype)), **ON)
    assert any(d.startswith("fused") for d in decisions) == fused, decisions
    if not fused:
        assert any(f"split N={shape[0]} < 1024 rows over RSPLIT=" in d for d in decisions), decisions
