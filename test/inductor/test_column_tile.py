"""The column tile (runtime/triton_heuristics.py: Inductor's persistent reduction, unsplit; all N rows of a few
columns in one program): its size, where the pass allows it, the cost model's choice of it, the one kernel it
emits (a centering and a rowwise fp8 cast too, whose reduction feeds a full-size op), its numerics under the
interpreter, and the expert key.  On the fake H200 (CPU); the H200 runs are in benchmarks/results/lab/*-column-tile*
and test_gpu.py's test_column_tile_on_gpu."""

from __future__ import annotations

import dataclasses

import pytest
import torch
from torch._inductor import config as inductor_config
from torch._inductor.decomposition import select_decomp_table
from torch.fx.experimental.proxy_tensor import make_fx

from reduction_transpose_fusion import config
from reduction_transpose_fusion.fx_passes import profitability
from reduction_transpose_fusion.fx_passes import reduction_transpose as rt
from reduction_transpose_fusion.runtime.triton_heuristics import COLUMN_TILE_MAX_ELEMENTS, column_tile
from reduction_transpose_fusion_testing import families, interpret

ON = families.FUSE_EVERY_SITE


def generate(name: str, dtype: str, rows: int, cols: int, dynamic=(), **options) -> str:
    case = families.ALL_CASES[name]
    inputs = interpret.fake_inputs(*case.specs(rows, cols, families.DTYPES[dtype]), dynamic=dynamic)
    return interpret.generate(case.fn, inputs, **options)


def check_numerics(name: str, dtype: str, rows: int, cols: int, module: str, exact_copies: bool = True) -> None:
    """Every output against float64 eager on fresh data; with ``exact_copies`` the transposed (and exact) outputs
    bit-equal to stock's generated code (both under the interpreter)."""
    case = families.ALL_CASES[name]
    inputs = case.inputs(rows, cols, families.DTYPES[dtype], seed=torch.seed() % 2**31)
    out = interpret.run_on_cpu(module, inputs)
    stock = interpret.run_on_cpu(generate(name, dtype, rows, cols, reduction_transpose_fusion=False), inputs)
    for i, (o, st, ref) in enumerate(zip(out, stock, case.reference(inputs))):
        if exact_copies and (i in case.transposed or i in case.exact):
            assert torch.equal(families.bits(o), families.bits(st)), f"output {i} differs from stock"
        else:
            families.assert_matches_reference(o, ref)


@pytest.mark.parametrize("itemsize,rows,xblock,warps", [
    (4, 200, 8, 4),      # one 32-byte sector of f32 a row, 2048 elements
    (2, 300, 16, 4),     # 16-bit: 16 columns
    (2, 1000, 16, 8),    # 16 x 1024 = 16384 elements: 8 warps of 64 a thread
    (4, 2048, 8, 8),     # 16384 elements: 8 warps
    (4, 3000, 4, 8),     # more rows than a sector's tile holds: half a sector
    (2, 8192, 2, 8),     # the narrowest tile
])
def test_the_tile_covers_a_sector_of_a_row_and_shrinks_for_more_rows(itemsize, rows, xblock, warps):
    assert column_tile(4096, rows, itemsize) == (xblock, warps)
    assert xblock * 2 ** (rows - 1).bit_length() <= COLUMN_TILE_MAX_ELEMENTS


def test_no_tile_past_its_rows_and_a_transcendental_producer_takes_fewer():
    assert column_tile(4096, 8193, 2) is None and column_tile(4096, 8193, 4) is None
    assert column_tile(4096, 512, 4, heavy=True) == (8, 16)  # 4096 elements, 8 a thread
    assert column_tile(4096, 2048, 4, heavy=True) == (2, 16)
    assert column_tile(4096, 2049, 4, heavy=True) is None
    assert column_tile(5, 200, 4) == (8, 4)  # C=5: one block of 8 columns
    assert column_tile(4096, 200, 4, override={"XBLOCK": 32, "num_warps": 8}) == (32, 8)
    assert column_tile(4096, 2048, 4, override={"num_warps": 4}) is None  # 16384 elements on 4 warps: 128 a thread


@pytest.mark.parametrize("name,dtype,rows,cols", [
    ("F6-centering", "fp32", 671, 115),
    ("F6-centering", "bf16", 3000, 40),        # half a sector a row
    ("F5-rowwise", "bf16", 300, 200),
    ("F5-rowwise", "fp32", 1047, 73),
])
def test_a_second_pass_over_x_fuses_into_one_kernel(name, dtype, rows, cols, decisions):
    """A column reduction read by a full-size op (a centering's mean, a rowwise cast's column amax) is finished in
    the tile's registers: one kernel (stock: 3 or 4), no grid barrier, the shipped defaults."""
    module = generate(name, dtype, rows, cols, reduction_transpose_fusion=True)
    (kernel,) = interpret.kernel_sources(module).values()
    assert "sem_ptr" not in kernel and "for r0_offset" not in kernel
    assert any("the column tile, Inductor's persistent reduction unsplit (the cost model" in d for d in decisions)
    # the centered copy is computed from the tile's own mean, summed in another order than stock's split
    check_numerics(name, dtype, rows, cols, module, exact_copies=name != "F6-centering")


def test_a_second_pass_the_tile_cannot_hold_stays_with_stock(decisions):
    """More rows than the tile holds, or a dynamic N: stock's kernels, and the log says why."""
    large = generate("F6-centering", "fp32", 20000, 64, reduction_transpose_fusion=True)
    assert len(interpret.kernel_names(large)) == 3
    assert any("the column tile, which holds all N rows" in d and "does not apply" in d for d in decisions)
    decisions.clear()
    dynamic = generate("F6-centering", "fp32", 600, 64, dynamic=(0,), reduction_transpose_fusion=True)
    assert len(interpret.kernel_names(dynamic)) == 3
    assert any("does not apply" in d for d in decisions)


def test_the_cost_model_prices_the_sector_and_the_rows():
    """More rows and less of a sector a row cost more; a site whose only launch is the tile has no split."""
    def unused(xblock, stores=()):  # 10**5 elements, 2 bytes of bf16 loaded
        return profitability.unused_sector_bytes(10**5, xblock, 2, 2, stores)

    assert unused(16) == 0 and unused(8) == 2 * 10**5  # 16 of a sector's 32 bytes unused a row of 8
    assert unused(16, (1,)) == 10**5  # a row of 16 fp8 elements: half a sector
    base = profitability.column_tile_us(500, 10**6, unused(16))
    assert profitability.column_tile_us(500, 10**6, unused(8)) > base
    assert profitability.column_tile_us(500, 10**6, unused(16, (1,))) > base
    assert profitability.column_tile_us(5000, 10**6, unused(16)) > base
    guess = profitability.estimate(671, 115, 1, 10**6, 6 * 10**5, 11, 32, split=False, tile_us=base)
    assert guess.column_tile and guess.split_us == float("inf") and "column tile" in guess.describe()


def test_a_row_major_store_is_priced_with_its_sectors():
    """Float8's cast-transpose-dbias stores q row-major besides q.T: its bytes and the sectors its 1-byte rows leave
    unused count in the tile's price; a tensor only the fused sites read is not stored."""
    def sites(fn, *inputs):
        return rt.find_sites(make_fx(fn, decomposition_table=select_decomp_table())(*inputs).graph)

    g = torch.randn(2048, 96, dtype=torch.bfloat16)
    (fp8,) = sites(families.f5_fp8_cast_transpose_dbias, g, torch.tensor(2.0))
    assert fp8.stores == (1,)
    assert rt.predicted_column_tile_us(fp8, 4) > rt.predicted_column_tile_us(dataclasses.replace(fp8, stores=()), 4)
    (cast,) = sites(families.f5_bf16_cast, g.float())
    assert cast.stores == ()

    def returned(a, b):
        y = a * b + 1
        return y, y.t().contiguous(), y.sum(0)

    def squared(a, b):  # y * y is one more reduction of the same kernel: y stays in registers
        y = a * b + 1
        return y.t().contiguous(), y.sum(0), (y * y).sum(0)

    def viewed(a, s):  # q of a 3-D activation, stored through the view its GEMM reads
        q = (a * s).to(torch.float8_e4m3fn).reshape(-1, a.shape[-1])
        return q, q.t().contiguous(), a.sum((0, 1))

    def abs_returned(a):  # |a| stored for one site of the copy: both sites (one kernel) price it
        b = a.abs()
        return b, a.t().contiguous(), b.amax(0), a.sum(0)

    assert [s.stores for s in sites(returned, g.float(), g.float())] == [(4,)]
    assert [s.stores for s in sites(squared, g.float(), g.float())] == [(), ()]
    assert [s.stores for s in sites(viewed, g.reshape(16, 128, 96), torch.tensor(2.0))] == [(1,)]
    assert [s.stores for s in sites(abs_returned, g.float())] == [(4,), (4,)]


def test_each_row_major_tensor_a_program_walks_costs_its_rows():
    """The tile's row term counts the row-major tensors the kernel walks: LayerNorm backward's two sites share g
    and h (2 reads each, as the kernel), a cast reads 1, Float8's cast reads g and stores q (2)."""
    def sites(fn, *inputs):
        return rt.find_sites(make_fx(fn, decomposition_table=select_decomp_table())(*inputs).graph)

    g, h = torch.randn(2048, 96), torch.randn(2048, 96)
    assert [s.reads for s in sites(families.f3_layernorm_backward, g, h)] == [2, 2]
    (cast,) = sites(families.f5_bf16_cast, g)
    (fp8,) = sites(families.f5_fp8_cast_transpose_dbias, g.bfloat16(), torch.tensor(2.0))
    assert cast.reads == 1 and (fp8.reads, fp8.stores) == (1, (1,))
    one = profitability.column_tile_us(2048, 10**6, 0, 1)
    assert profitability.column_tile_us(2048, 10**6, 0, 2) - one == pytest.approx(
        profitability.COLUMN_TILE.row_us * 2048)
    assert rt.predicted_column_tile_us(dataclasses.replace(cast, reads=2), 8) > rt.predicted_column_tile_us(cast, 8)


def test_the_expert_key_takes_only_the_tiles_own_keys():
    with inductor_config.patch(reduction_transpose_fusion_launch_config="COLUMN_TILE=1,XBLOCK=4,num_warps=8"):
        assert config.launch_override() == {"COLUMN_TILE": 1, "XBLOCK": 4, "num_warps": 8}
    with inductor_config.patch(reduction_transpose_fusion_launch_config="COLUMN_TILE=1,RSPLIT=4"):
        with pytest.raises(ValueError, match="COLUMN_TILE=1 takes only XBLOCK and num_warps"):
            config.launch_override()


def test_the_expert_tile_where_it_does_not_fit_is_the_packages_launch(decisions):
    module = generate("F1-t", "fp32", 20000, 64, **ON, reduction_transpose_fusion_launch_config="COLUMN_TILE=1")
    (kernel,) = interpret.kernel_sources(module).values()
    assert "RSPLIT" in kernel
    assert any("no column tile (N=20000 rows of 4-byte elements do not fit it)" in d for d in decisions)
    tile = generate("F1-t", "fp32", 700, 64, **ON, reduction_transpose_fusion_launch_config="COLUMN_TILE=1,XBLOCK=2")
    (kernel,) = interpret.kernel_sources(tile).values()
    assert "config={'XBLOCK': 2" in kernel and "RSPLIT" not in kernel
    check_numerics("F1-t", "fp32", 700, 64, tile)
    # 1024 rows of 8 columns on one warp is 256 elements a thread, over the tile's 64: the log names the warps asked
    decisions.clear()
    module = generate("F1-t", "fp32", 1000, 64, **ON,
                      reduction_transpose_fusion_launch_config="COLUMN_TILE=1,num_warps=1")
    assert "RSPLIT" in next(iter(interpret.kernel_sources(module).values()))
    assert any("do not fit it with num_warps=1)" in d for d in decisions), decisions


def test_column_tile_0_is_the_packages_launch(decisions):
    """``COLUMN_TILE=0`` (like any key, an expert launch) keeps the package's split, alone or beside other keys."""
    for launch in ("COLUMN_TILE=0", "COLUMN_TILE=0,RSPLIT=4"):
        module = generate("F1-t", "fp32", 1000, 64, **ON, reduction_transpose_fusion_launch_config=launch)
        (kernel,) = interpret.kernel_sources(module).values()
        assert "RSPLIT" in kernel, launch
        check_numerics("F1-t", "fp32", 1000, 64, module)


def centered_beside_a_tanh_sum(x):
    m = x.mean(0)
    return (x - m).t().contiguous(), m, x.t().contiguous(), torch.tanh(x).sum(0)


def test_a_kernel_the_priced_tile_does_not_fit_takes_inductors_launch_not_a_grid_barrier(decisions):
    """The centering's site fits the tile at 4096 rows, but Inductor puts it in one kernel with a tanh sum, whose
    transcendental producer halves the tile's rows: the kernel reads the mean in a later loop, so it takes Inductor's
    own launch (two loops, no barrier), not the package's grid-barrier split."""
    x = torch.randn(4096, 16, generator=torch.Generator().manual_seed(0))
    module = interpret.generate(centered_beside_a_tanh_sum, interpret.fake_inputs(((4096, 16), torch.float32)), **ON)
    assert any("the column tile the pass priced for it does not fit this kernel" in d for d in decisions), decisions
    assert all("sem_ptr" not in k for k in interpret.kernel_sources(module).values())
    out = interpret.run_on_cpu(module, [x])  # a grid barrier would raise here
    for o, ref in zip(out, centered_beside_a_tanh_sum(x.double())):
        families.assert_matches_reference(o, ref)
