"""The launch heuristic's rules (runtime/triton_heuristics.py)."""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from reduction_transpose_fusion.runtime import triton_heuristics as th

H200_SMS = 132


# every mix the families produce (an fp8 x transposed on its own is not one: its tile is 128 x 64)
@pytest.mark.parametrize("narrowest,widest", [(1, 2), (1, 4), (2, 2), (2, 4), (4, 4)])
def test_large_tiles_coalesce_both_the_load_and_the_transposed_store(narrowest, widest):
    cfg = th.launch_config(cols=3072, rows=25216, narrowest=narrowest, widest=widest, num_sms=H200_SMS)
    assert cfg.XBLOCK * widest >= 128 and cfg.R0_BLOCK * narrowest >= 128
    assert cfg.XBLOCK * cfg.R0_BLOCK <= th.TILE_ELEMENTS * cfg.num_warps // th.NUM_WARPS


def test_tiles_measured_best():
    # the first H200 sweep's best (or within noise) per dtype: f32, bf16, bf16 -> fp8
    assert th.launch_config(3072, 25216, 4, 4, H200_SMS).as_dict() | {"RSPLIT": 0} == dict(
        XBLOCK=64, R0_BLOCK=64, RSPLIT=0, num_warps=4, num_stages=1)
    assert (th.launch_config(3072, 25216, 2, 2, H200_SMS).R0_BLOCK, th.launch_config(4096, 16384, 1, 2, H200_SMS).R0_BLOCK) == (128, 128)


@settings(max_examples=300, deadline=None)
@given(cols=st.integers(1, 200_000), rows=st.integers(1, 2_000_000), itemsize=st.sampled_from([1, 2, 4, 8]))
def test_rsplit_bounds(cols, rows, itemsize):
    cfg = th.launch_config(cols, rows, itemsize, itemsize, H200_SMS)
    row_blocks = -(-rows // cfg.R0_BLOCK)
    if cfg.tiles_per_program:  # k row tiles a program (or fewer programs, for the partials budget)
        assert 1 <= cfg.RSPLIT <= -(-row_blocks // cfg.tiles_per_program)
    else:
        assert 1 <= cfg.RSPLIT <= min(th.MAX_RSPLIT, row_blocks)
    # a plain copy takes one row tile a program with an odd extent, few one-wave splits or a large x, and never with
    # 1-byte x
    wide = cols >= th.WIDE_TILE_SCALE * H200_SMS * th.XBLOCK_BY_WIDEST[itemsize]
    few_splits = wide or th.COPY_PROGRAMS_PER_SM * H200_SMS // -(-cols // cfg.XBLOCK) <= th.FEW_SPLITS
    large = rows * cols * itemsize >= th.ONE_TILE_MIN_BYTES and -(-rows // cfg.R0_BLOCK) <= th.MAX_ONE_TILE_RSPLIT
    # ... and a narrow C takes row tiles where one wave (RSPLIT <= MAX_RSPLIT) would launch fewer programs than SMs
    expected = itemsize > 1 and bool(cols % 2 or rows % 2 or few_splits or large)
    if cfg.tiles_per_program != expected:  # the narrow-C rule: one wave of at most MAX_RSPLIT programs a column block
        assert -(-cols // cfg.XBLOCK) * th.MAX_RSPLIT < H200_SMS and cfg.tiles_per_program >= 1
    # partials (4 B per column per split) stay under the budget (2% of x's bytes) whenever a split happens at all
    # (or, for one row tile a program, RSPLIT passed it so that the tile stays at most twice the rule's: a small N)
    if cfg.RSPLIT > 1:
        assert 4 * cfg.RSPLIT * cols <= th.MAX_PARTIALS_FRACTION * rows * cols * itemsize or growth_capped(cfg, rows,
                                                                                                           itemsize)
    for block in (cfg.XBLOCK, cfg.R0_BLOCK):  # the persistent tile of N < 16 rows is N to the next power of two
        assert block >= min(th.MIN_BLOCK, th.next_power_of_2(rows)) and block & (block - 1) == 0


def growth_capped(cfg, rows: int, itemsize: int) -> bool:
    """True if a one-tile launch has more programs than the partials budget allows because the budget's tile (all of
    a program's rows) would have been more than the kernel's, which is at most twice the rule's."""
    budget = max(1, int(th.MAX_PARTIALS_FRACTION * rows * itemsize / 4))
    return cfg.tiles_per_program == 1 and cfg.RSPLIT == -(-rows // cfg.R0_BLOCK) and cfg.R0_BLOCK * budget < rows


@pytest.mark.parametrize("cols", [3072, 4096])  # 528 / 64 column blocks = 8.25: rounded down, not up
@pytest.mark.parametrize("ops,reductions,per_sm", [(0, 1, 4), (3, 1, 3), (1, 2, 3)])
def test_grid_is_one_wave_of_resident_programs(cols, ops, reductions, per_sm):
    """The waves sweep (sweeps/2026-11-29-h200-sweep-waves.csv): as many programs as fit at once, never a few more;
    4 per SM for a plain copy, 3 with a producer or a second reduction."""
    cfg = th.launch_config(cols, 4096, 4, 4, H200_SMS, ops=ops, reductions=reductions)  # under ONE_TILE_MIN_BYTES
    col_blocks = -(-cols // cfg.XBLOCK)
    assert per_sm * H200_SMS - col_blocks < cfg.RSPLIT * col_blocks <= per_sm * H200_SMS


def test_small_dims_shrink_tiles():
    cfg = th.launch_config(cols=3, rows=10, narrowest=4, widest=4, num_sms=H200_SMS)
    assert cfg.XBLOCK == th.MIN_BLOCK and cfg.R0_BLOCK == th.MIN_BLOCK and cfg.RSPLIT == 1


def test_wide_tiles_for_a_vocabulary():
    """The column blocks alone are almost two waves: the wide tile, one row tile a program (spin sweep, persistent:
    bf16[4096, 30522] 1.135x copy SOL against 1.265x for RSPLIT 1; waves sweep, looped: RSPLIT 2 1.49x); an fp8
    output keeps RSPLIT 1."""
    cfg = th.launch_config(cols=30522, rows=4096, narrowest=2, widest=2, num_sms=H200_SMS)
    assert (cfg.XBLOCK, cfg.num_warps, cfg.tiles_per_program) == (128, 8, 1)
    assert cfg.RSPLIT == 4096 // cfg.R0_BLOCK
    assert th.launch_config(cols=30522, rows=4096, narrowest=1, widest=4, num_sms=H200_SMS).RSPLIT == 1


@pytest.mark.parametrize("cols,ops,reductions,tiles", [
    (14336, 0, 1, 1),  # bf16[8192, 14336]: 224 column blocks, one wave would give RSPLIT 2 (1.101x against 1.162x)
    (11008, 2, 1, 1),  # a * b + 1, 172 column blocks at 3 programs per SM: RSPLIT 2 (a tie, 1.162x against 1.154x)
    (3072, 0, 1, 0),  # 48 column blocks, RSPLIT 11: one wave (1.135x against 1.192x)
    (14336, 1, 2, 0),  # two reductions keep one wave (LayerNorm backward: 6-51% slower with one tile a program)
    (14336, 40, 1, 0),  # so does a heavy producer (GELU backward: 2.6x slower)
])
def test_one_row_tile_a_program_where_one_wave_would_split_the_rows_in_two_or_fewer(cols, ops, reductions, tiles):
    cfg = th.launch_config(cols, 8192, 2, 2, H200_SMS, ops=ops, reductions=reductions)
    assert cfg.tiles_per_program == tiles
    assert cfg.RSPLIT == (8192 // cfg.R0_BLOCK if tiles else cfg.RSPLIT)


@pytest.mark.parametrize("cols,rows,narrowest,widest,ops,reductions,tiles", [
    (8192, 8192, 2, 2, 0, 1, 1),  # bf16, 128 MiB, one-wave RSPLIT 4: 1.142x copy SOL against 1.173x
    (1024, 65536, 2, 2, 0, 1, 1),  # bf16, 128 MiB, RSPLIT 33: 1.134x against 1.282x
    (3072, 25216, 2, 4, 1, 1, 1),  # f32 -> bf16 cast, 296 MiB: 1.039x against 1.098x
    (4096, 8192, 2, 2, 0, 1, 0),  # fp16, 64 MiB, RSPLIT 8: one wave (1.128x against 1.156x)
    (3072, 25216, 4, 4, 1, 2, 0),  # two reductions keep one wave
    (4096, 32768, 1, 2, 2, 1, 0),  # so does an fp8 output cast from bf16 (1-12% slower with one tile)
    (3072, 25216, 1, 4, 2, 1, 1),  # but not one cast from f32, 296 MiB: 1.141x against 1.349x and 1.369x (fp8b sweep)
    (8192, 8192, 1, 4, 2, 1, 1),  # 256 MiB: 1.159x against 1.382x and 1.385x
    (1024, 8192, 1, 4, 2, 1, 0),  # 32 MiB: one wave (1.27x against 1.31x)
    (3067, 25229, 1, 4, 2, 1, 0),  # odd C and N: one wave (a tie, 2.47x against 2.49x)
    (30522, 4096, 1, 4, 2, 1, 0),  # the wide path: its own launch, not measured with one tile
    (3072, 25216, 2, 2, 40, 1, 0),  # and a heavy producer
])
def test_one_row_tile_a_program_for_a_large_tensor(cols, rows, narrowest, widest, ops, reductions, tiles):
    """The fewsplits sweep (sweeps/2026-11-30-h200-sweep-fewsplits.csv): with the two-level flagged finish one row
    tile a program beat one wave on kernels whose widest full-size tensor is 128 MiB or more, and lost at 64 MiB."""
    cfg = th.launch_config(cols, rows, narrowest, widest, H200_SMS, ops=ops, reductions=reductions)
    assert cfg.tiles_per_program == tiles
    assert cfg.finish_group == th.FINISH_GROUP


def test_the_large_tensor_rule_needs_at_most_4096_row_tiles():
    """A tall, narrow tensor (f32[12582912, 2], 96 MiB) would get RSPLIT 196608 and a finisher reading 3072 group
    words.  A dynamic N has no persistent kernel and takes 4 looped row tiles a program."""
    assert th.launch_config(8192, 8192, 2, 2, H200_SMS).tiles_per_program == 1
    assert th.launch_config(8192, 8192, 2, 2, H200_SMS, static_rows=False).tiles_per_program == 4
    assert th.MAX_ONE_TILE_RSPLIT == th.FINISH_GROUP ** 2
    tall = th.launch_config(2, 12582912, 4, 4, H200_SMS)
    # not the large-tensor rule's one tile a program, but the narrow-C rule's fewest looped tiles within the cap
    assert tall.tiles_per_program == -(-12582912 // tall.R0_BLOCK // th.MAX_ONE_TILE_RSPLIT) > 1
    assert tall.RSPLIT <= th.MAX_ONE_TILE_RSPLIT
    assert th.launch_config(1024, 4096 * 128, 2, 2, H200_SMS).tiles_per_program == 1  # 4096 row tiles of 128
    assert th.launch_config(1024, 4097 * 128, 2, 2, H200_SMS).tiles_per_program == 0


@pytest.mark.parametrize("cols,rows,ops,moved,xblock", [
    (14336, 32768, 0, 4, 128),  # bf16 copy, 1792 MiB moved: 1.107 -> 1.063x copy SOL
    (6144, 16384, 0, 4, 128),  # copy, 384 MiB: 1.149 -> 1.121
    (1024, 65536, 2, 6, 128),  # a * b + 1, 384 MiB: 1.139 -> 1.087
    (3072, 25216, 2, 6, 128),  # a * b + 1, 444 MiB: 1.150 -> 1.092
    (3072, 25216, 0, 4, 64),  # copy, 296 MiB: 1.125 -> 1.136 with X128
    (1024, 65536, 0, 4, 64),  # copy, 256 MiB: 1.120 -> 1.149
    (14336, 32768, 0, 0, 64),  # bytes moved unknown, or no transposed copy in the kernel
])
def test_a_wider_persistent_tile_for_16_bit_kernels_that_move_a_lot(cols, rows, ops, moved, xblock):
    """The bigtile sweeps (sweeps/2026-11-30-h200-sweep-bigtile{,2}.csv): X128 R128 on 4 warps beat X64 R128 for the
    one-tile kernels of 16-bit tensors moving 384 MiB or more, and not at 296 MiB or less."""
    cfg = th.launch_config(cols, rows, 2, 2, H200_SMS, ops=ops, moved=moved)
    assert (cfg.XBLOCK, cfg.R0_BLOCK, cfg.num_warps, cfg.tiles_per_program) == (xblock, 128, 4, 1)


@pytest.mark.parametrize("cols,rows,narrowest,widest,kwargs,tile", [
    (18944, 8192, 2, 2, {"ops": 2, "moved": 6}, (128, 4)),  # a * b + 1 over bf16[8192, 18944]: 1.42x -> 1.05x copy SOL
    (151936, 1024, 2, 2, {}, (128, 4)),  # bf16[1024, 151936]: 1.150x -> 1.121x
    (18944, 8192, 2, 2, {"static_rows": False, "row_tile_grid": True}, (128, 4)),  # the grid: 1.331x -> 1.094x
    (16896, 8192, 4, 4, {}, (64, 4)),  # f32[8192, 16896]: 1.590x -> 1.064x with X64 w4
    (262144, 64, 4, 4, {}, (64, 4)),  # f32[64, 262144]: 0.94x of stock -> 1.03x
    (30522, 4096, 4, 4, {}, (128, 8)),  # f32 rows 8-byte aligned: X64 w4 1.7% slower
    (30522, 4096, 2, 2, {}, (128, 8)),  # bf16 rows 4-byte aligned: a tie (bigtile sweep), unchanged
    (18944, 8192, 2, 2, {"reductions": 2}, (128, 8)),  # two reductions: one wave
    (18944, 8192, 1, 2, {"ops": 2}, (128, 8)),  # an fp8 output: one wave
    (18944, 8192, 2, 2, {"static_cols": False}, (128, 8)),  # a dynamic C: not measured
    (18944, 8192, 2, 2, {"override": {"num_warps": 8}}, (128, 8)),  # the override wins
])
def test_the_wide_one_tile_kernel_takes_4_warps(cols, rows, narrowest, widest, kwargs, tile):
    """The holdout sweeps: one row tile a program over a wide tensor of 16-bit or f32 elements in 16-byte-aligned rows
    takes 4 warps (X128 for 16-bit, X64 for f32) instead of the wide path's X128 on 8 warps (2.5-33% faster on 17
    shapes); every case one condition away keeps the wide path's tile."""
    cfg = th.launch_config(cols, rows, narrowest, widest, H200_SMS, **kwargs)
    assert (cfg.XBLOCK, cfg.num_warps) == tile


@pytest.mark.parametrize("cols,rows,narrowest,widest,ops,rsplit", [
    (1024, 8192, 2, 2, 0, 32),  # a bf16 copy: 528 programs // 16 column blocks = 33, rounded down to even
    (768, 4096, 4, 4, 1, 32),  # f32 a * b + 1: 396 // 12 = 33
    (768, 3152, 1, 2, 2, 25),  # a bf16 -> fp8 cast: 25 (a 32-wide finish tile) stays odd
    (4095, 8192, 2, 2, 2, 3),  # and so does 3 (a third of the programs)
])
def test_one_wave_rsplit_above_32_is_even(cols, rows, narrowest, widest, ops, rsplit):
    """The finish loads RSPLIT-word partials rows: an odd RSPLIT above 32 made them scalar loads (oddrsplit sweep)."""
    cfg = th.launch_config(cols, rows, narrowest, widest, H200_SMS, ops=ops)
    assert (cfg.tiles_per_program, cfg.RSPLIT) == (0, rsplit)


@pytest.mark.parametrize("cols,rows,widest,kwargs,rsplit,two_an_sm", [
    (3072, 3152, 4, {}, 5, True),  # 384 programs at 3 an SM, 2 resident (215 registers): 240 (1.36x -> 1.13x copy SOL)
    (3072, 4096, 4, {}, 5, True),  # 1.21x -> 1.12x
    (768, 3152, 4, {}, 22, True),  # 25 row tiles, the last one masked (213 registers): 1.26x -> 1.17x
    (1024, 8192, 4, {}, 16, True),  # 1.29x -> 1.10x
    (768, 4096, 4, {"static_rows": False}, 22, True),  # a dynamic N masks rows (218 registers)
    (768, 4096, 4, {}, 32, False),  # one full row tile a program (128 registers, 4 resident): kept
    (1000, 2048, 4, {}, 16, False),  # the same (163 registers, 3 resident): kept
    (4096, 8192, 2, {}, 6, False),  # a bf16 -> fp8 cast (128 registers) keeps 3 an SM
    (3072, 3152, 4, {"override": {"RSPLIT": 8}}, 8, False),  # the override wins
])
def test_the_fp32_to_fp8_cast_on_one_wave_is_one_wave_of_two_programs_an_sm(cols, rows, widest, kwargs, rsplit,
                                                                            two_an_sm):
    """The residency sweep: the looped cast of f32 to fp8 compiles to 212-224 registers, 2 programs of 4 warps an SM,
    so one wave at 3 an SM ran as 1.1-1.5 waves; one wave of 2 an SM was 7-17% faster on five shapes."""
    cfg = th.launch_config(cols, rows, 1, widest, H200_SMS, ops=2, **kwargs)
    assert (cfg.tiles_per_program, cfg.RSPLIT) == (0, rsplit)
    if two_an_sm:  # every program resident at once
        assert -(-cols // cfg.XBLOCK) * cfg.RSPLIT <= th.FP8_CAST_PROGRAMS_PER_SM * H200_SMS


@pytest.mark.parametrize("cols,rows,narrowest,widest,moved,kwargs,evict_first", [
    (4096, 8192, 1, 2, 4, dict(ops=2), False),  # bf16 -> fp8 [8192, 4096]: 128 MiB moved, 2.5% faster without
    (3072, 4096, 1, 2, 4, dict(ops=2), True),  # bf16 -> fp8 [4096, 3072]: 48 MiB, 2.9% slower without
    (3072, 3152, 4, 4, 12, dict(reductions=2), True),  # LayerNorm backward f32[3152, 3072]: 111 MiB, 1.0% slower
    (4096, 8192, 2, 2, 6, dict(reductions=2), False),  # LayerNorm backward bf16[8192, 4096]: 4.0% faster
    (30522, 4096, 4, 4, 12, dict(reductions=2), False),  # the wide LayerNorm backward, N static: 6.5% faster
    (30522, 4096, 4, 4, 12, dict(reductions=2, static_rows=False), True),  # the same with N dynamic: 0.5% slower
    (4096, 8192, 2, 2, 0, dict(reductions=2), True),  # nothing known of the bytes moved: Inductor's hint
])
def test_a_looped_kernel_that_moves_120_mib_or_more_drops_the_evict_first_hint(cols, rows, narrowest, widest, moved,
                                                                                kwargs, evict_first):
    """The hints3 and hints4 sweeps: without the hint the looped kernels moving 128 MiB or more ran 2.5-6.5% faster
    (but plain copies and a * b + 1, which tied), those moving 111 MiB or less up to 4.8% slower."""
    cfg = th.launch_config(cols, rows, narrowest, widest, H200_SMS, moved=moved, **kwargs)
    assert cfg.evict_first is evict_first
    forced = th.launch_config(cols, rows, narrowest, widest, H200_SMS, override={"EVICT_FIRST": int(not evict_first)},
                              moved=moved, **kwargs)
    assert forced.evict_first is not evict_first


@pytest.mark.parametrize("cols,rows,kwargs", [
    (3072, 25216, {}),  # bf16[25216, 3072], 148 MiB: one row tile a program, the persistent kernel
    (14336, 32768, dict(static_rows=False, row_tile_grid=True)),  # N dynamic: the row-tile grid
])
def test_kernels_without_a_row_loop_carry_no_evict_first_hint_whatever_the_override(cols, rows, kwargs):
    """The persistent kernel has no hint and the row-tile grid's kernel drops it (codegen/triton.py), so the launch
    says so, for the decision log, and ``EVICT_FIRST=1`` does not put it back."""
    for override in ({}, {"EVICT_FIRST": 1}):
        cfg = th.launch_config(cols, rows, 2, 2, H200_SMS, override=override, moved=4, **kwargs)
        assert cfg.tiles_per_program == 1 and cfg.evict_first is False


@pytest.mark.parametrize("cols,rows,itemsize,tiles", [
    (8, 1_000_000, 2, 2),  # bf16[1000000, 8]: 4.91x copy SOL on one wave of 64 programs, 1.43x with two tiles
    (8, 1_000_000, 4, 4),  # f32: 64-row tiles, so four (two: 1.20x against 5.91x)
    (64, 500_000, 2, 1),  # fp16[500000, 64]: 2.34x -> 1.16x with one tile a program
    (128, 200_000, 2, 1),  # bf16[200000, 128]: 1.87x -> 1.11x
    (320, 32768, 2, 0),  # 5 column blocks: one wave has 320 programs (1.05x copy SOL), kept
    (48, 8192, 2, 0),  # one column block but only 64 row tiles: no more programs than one wave's
])
def test_a_narrow_c_takes_row_tiles_where_one_wave_would_leave_sms_idle(cols, rows, itemsize, tiles):
    cfg = th.launch_config(cols, rows, itemsize, itemsize, H200_SMS)
    assert cfg.tiles_per_program == tiles
    if tiles:
        assert -(-cols // cfg.XBLOCK) * cfg.RSPLIT >= H200_SMS and cfg.RSPLIT <= th.MAX_ONE_TILE_RSPLIT


def test_the_narrow_c_rule_leaves_heavy_and_multi_reduction_kernels_on_one_wave_and_never_starves_a_dynamic_n():
    """A review: the rule was measured on copies, a * b + 1 and an fp8 cast (one reduction, no heavy
    producer); with a dynamic N and no row-tile grid its one tile a program had become 4 looped ones (34 programs
    for bf16[17000, 8], fewer than one wave's 64)."""
    assert th.launch_config(8, 17000, 2, 2, H200_SMS).tiles_per_program == 1
    assert th.launch_config(8, 17000, 2, 2, H200_SMS, reductions=2).tiles_per_program == 0
    assert th.launch_config(8, 17000, 2, 2, H200_SMS, ops=40).tiles_per_program == 0
    looped = th.launch_config(8, 17000, 2, 2, H200_SMS, static_rows=False)
    assert (looped.tiles_per_program, looped.RSPLIT, looped.row_tile_grid) == (1, 133, False)
    grid = th.launch_config(8, 17000, 2, 2, H200_SMS, static_rows=False, row_tile_grid=True)
    assert (grid.tiles_per_program, grid.row_tile_grid) == (1, True)


def test_the_wide_one_tile_kernel_keeps_8_warps_where_its_tile_grew_past_128_rows():
    """bf16[130, 16896]: the partials budget gives one program of 256 rows a column block; X128 R256 on 4 warps
    compiled to 255 registers and a 552-byte stack (review), on 8 warps to 112 and none."""
    cfg = th.launch_config(16896, 130, 2, 2, H200_SMS)
    assert (cfg.XBLOCK, cfg.R0_BLOCK, cfg.num_warps) == (128, 256, 8)


@pytest.mark.parametrize("args,kwargs", [
    ((4096, 32768, 4, 4), {}),  # f32: X64 R128 within 2% of X64 R64, X128 up to 12% slower
    ((4096, 32768, 2, 4), {}),  # an f32 -> bf16 cast: f32 too
    ((4096, 32768, 1, 2), {"ops": 2, "moved": 3}),  # an fp8 output: one wave, and X128 up to 14% slower
    ((4095, 32768, 2, 2), {}),  # odd C: the half-scalar tile
    ((14336, 32768, 2, 2), {"static_rows": False}),  # a dynamic N: the looped one-tile kernel
    ((14336, 32768, 2, 2), {"static_cols": False}),  # a dynamic C: 255 registers and spills (sm_90a)
    ((4096, 32768, 2, 2), {"override": {"RSPLIT": 256}}),  # a looped launch
    ((4096, 32768, 2, 2), {"override": {"XBLOCK": 32}}),  # the override wins
    ((4096, 32768, 2, 2), {"override": {"R0_BLOCK": 256}}),  # with an override of the other block
    ((4096, 32768, 2, 2), {"override": {"num_warps": 8}}),  # or of the warps (8 warps: 1.3-1.9x copy SOL)
])
def test_no_wider_tile_elsewhere(args, kwargs):
    """Each case one condition away from the wider tile (a 16-bit persistent kernel moving 512 MiB or more)."""
    cfg = th.launch_config(*args, H200_SMS, **{"moved": 4 if args[2] == 2 else 3, **kwargs})
    assert cfg.XBLOCK != th.BIG_TILE_XBLOCK or cfg.num_warps == 8 and "num_warps" not in kwargs.get("override", {})
    if kwargs.get("static_rows") is False:
        assert cfg.tiles_per_program == th.DYNAMIC_TILES_PER_PROGRAM  # looped: no persistent kernel


@pytest.mark.parametrize("cols,rows,narrowest,widest,kwargs,tiles", [
    (50257, 8192, 2, 2, {}, 1),  # one tile with N static (wide): the row-tile grid
    (3072, 25216, 2, 2, {}, 1),  # large
    (4096, 8192, 2, 2, {}, 1),  # one wave with N static: the row-tile grid for 16-bit, 8 MiB or more
    (3072, 4096, 2, 2, {"ops": 2}, 1),  # a * b + 1 over fp16[4096, 3072]
    (1024, 1024, 2, 2, {}, 0),  # 2 MiB: a tie, one wave
    (768, 4096, 4, 4, {}, 0),  # f32 keeps one wave (f32[4096, 768] 5% slower with the grid)
    (4096, 8192, 1, 2, {"ops": 2}, 0),  # an fp8 output keeps one wave (4-8% slower with the grid)
    (4096, 8192, 2, 2, {"reductions": 2}, 0),  # two reductions: the ticket, no grid
    (3072, 25216, 2, 2, {"producer_ops": frozenset({"gelu_backward"})}, 0),  # a heavy producer: one wave
    (1021, 8191, 2, 2, {}, 1),  # the scalar tile
    (30522, 4096, 1, 4, {"ops": 2}, 1),  # the wide fp32 -> fp8 cast (1.41x copy SOL against 2.05x one wave)
    (11008, 32768, 1, 2, {"ops": 2}, 0),  # an fp8 cast off the wide path keeps one wave
    (30522, 4096, 1, 2, {"ops": 2}, 0),  # the wide bf16 -> fp8 cast: not measured, one wave
])
def test_a_dynamic_n_takes_the_row_tile_grid(cols, rows, narrowest, widest, kwargs, tiles):
    """With N dynamic and the row-tile grid allowed (choices: flagged partials, Python wrapper), one program per row
    tile where a static N takes one row tile a program and for aligned 16-bit kernels of one reduction of 8 MiB or
    more (dynamic3 and dynamic4 sweeps); RSPLIT is then the programs at the hint, at least 2."""
    cfg = th.launch_config(cols, rows, narrowest, widest, H200_SMS, static_rows=False, row_tile_grid=True, **kwargs)
    assert cfg.tiles_per_program == tiles and cfg.row_tile_grid == (tiles == 1)
    if tiles:
        assert cfg.RSPLIT == max(2, -(-rows // cfg.R0_BLOCK))
    without = th.launch_config(cols, rows, narrowest, widest, H200_SMS, static_rows=False, **kwargs)
    assert not without.row_tile_grid and without.tiles_per_program in (0, th.DYNAMIC_TILES_PER_PROGRAM,
                                                                       th.DYNAMIC_SCALAR_TILES_PER_PROGRAM)
    static = th.launch_config(cols, rows, narrowest, widest, H200_SMS, row_tile_grid=True, **kwargs)
    # a static N has Inductor's persistent kernel, but for the wide fp32 -> fp8 cast (the next test)
    assert static.row_tile_grid == ((narrowest, widest, cols) == (1, 4, 30522))


@pytest.mark.parametrize("cols,rows,widest,grid,xblock,warps", [
    (30522, 4096, 4, True, 128, 8),  # bert/F5-vocab-fp32: 1.27-1.29x copy SOL against 1.52x one wave (stock 1.50x)
    (30522, 8192, 4, True, 128, 8),  # 1.31x against 1.57x
    (32000, 2048, 4, True, 64, 4),  # fp8 rows 16-byte aligned: the plain tile, 1.19x against X128 w8's 1.29x
    (50304, 4096, 4, True, 64, 4),  # 1.13x against 1.21x (one wave 1.26x, 0.97x of stock)
    (30522, 4095, 4, False, 128, 8),  # odd N (scalar stores along N): not measured
    (30522, 4096, 2, False, 128, 8),  # from bf16: not measured
    (12000, 4096, 4, False, 64, 4),  # off f32's wide path (C < 2 * 132 * 64)
    (32000, 128, 4, False, 128, 8),  # one row tile: the wide path's one wave, no finish (not measured either way)
    (32000, 130, 4, True, 64, 4),
])
def test_a_static_n_takes_the_row_tile_grid_for_the_wide_fp32_to_fp8_cast(cols, rows, widest, grid, xblock, warps):
    """The staticgrid sweep (sweeps/2026-12-01-h200-sweep-staticgrid.csv): one program per row tile, launched as for
    a dynamic N, where the kernel may take the grid (``row_tile_grid``: flagged partials, Python wrapper), and with
    the plain tile on 4 warps where the fp8 rows are 16-byte aligned (with N dynamic too); ``ROW_TILE_GRID=0`` turns
    it off for a static N and ``=1`` turns it on for any static N."""
    cfg = th.launch_config(cols, rows, 1, widest, H200_SMS, ops=2, row_tile_grid=True)
    assert cfg.row_tile_grid == grid and (cfg.XBLOCK, cfg.num_warps) == (xblock, warps)
    if grid:
        assert cfg.tiles_per_program == 1 and cfg.RSPLIT == -(-rows // cfg.R0_BLOCK) and not cfg.shift_last_tile
        dynamic = th.launch_config(cols, rows, 1, widest, H200_SMS, ops=2, static_rows=False, row_tile_grid=True)
        assert dynamic == cfg  # the same launch (dynamicfp8 sweep: X64 w4 1.156-1.227x copy SOL against X128's
        # 1.209-1.311x on the aligned shapes, 1.361-1.415x against 1.229-1.286x on C = 30522)
        assert dynamic == th.launch_config(cols, rows, 1, widest, H200_SMS, {"ROW_TILE_GRID": 0}, ops=2,
                                           static_rows=False, row_tile_grid=True)  # a static N's key only
    assert not th.launch_config(cols, rows, 1, widest, H200_SMS, ops=2).row_tile_grid  # the cpp wrapper, AOTI
    off = th.launch_config(cols, rows, 1, widest, H200_SMS, {"ROW_TILE_GRID": 0}, ops=2, row_tile_grid=True)
    assert not off.row_tile_grid and (off.RSPLIT == 1 or not grid)  # the wide path's one wave
    on = th.launch_config(14336, 8192, 2, 2, H200_SMS, {"ROW_TILE_GRID": 1}, row_tile_grid=True)
    assert on.row_tile_grid and on.shift_last_tile and on.XBLOCK == 64  # the dynamic grid's X64, not the big tile


@pytest.mark.parametrize("cols,rows,narrowest,widest,kwargs,int32,shift", [
    (768, 25216, 4, 4, {"reductions": 2, "ops": 1}, True, False),  # LayerNorm backward: 13-21% faster with int32
    (4096, 8192, 2, 2, {"reductions": 2, "ops": 1}, True, False),
    (30522, 4096, 4, 4, {"reductions": 2, "ops": 1}, False, False),  # on the wide path: 11% slower with int32
    (3072, 4096, 4, 4, {"ops": 2}, False, False),  # one wave of f32 a * b + 1: 5-11% slower with int32
    (14336, 32768, 2, 2, {}, False, True),  # the row-tile grid: its last tile shifted, int64 (int32 tied or lost)
    (30522, 4096, 1, 4, {"ops": 2}, False, False),  # the grid's wide fp8 cast: no shift (215 registers against 124)
])
def test_int32_sizes_and_the_shifted_last_tile_where_measured(cols, rows, narrowest, widest, kwargs, int32, shift):
    """A dynamic N's sizes are cast to int32 for kernels of several reductions off the wide path, and the row-tile
    grid's last tile is shifted but with a 1-byte tensor; never with N static (no size arguments); an override forces
    either way."""
    cfg = th.launch_config(cols, rows, narrowest, widest, H200_SMS, static_rows=False, row_tile_grid=True, **kwargs)
    assert (cfg.int32_sizes, cfg.shift_last_tile) == (int32, shift)
    static = th.launch_config(cols, rows, narrowest, widest, H200_SMS, row_tile_grid=True, **kwargs)
    assert not static.int32_sizes and not static.shift_last_tile
    forced = th.launch_config(cols, rows, narrowest, widest, H200_SMS, static_rows=False, row_tile_grid=True,
                              **{**kwargs, "override": {"INT32_SIZES": int(not int32), "SHIFT_LAST_TILE": 1}})
    assert forced.int32_sizes != int32 and forced.shift_last_tile == forced.row_tile_grid
    assert "int32_sizes" not in cfg.as_dict() and "shift_last_tile" not in cfg.as_dict()


def test_int32_sizes_asked_with_n_and_c_static_is_noted_and_not_taken():
    """Static N and C leave the kernel no size argument to cast: INT32_SIZES=1 is not taken, and the note says why;
    with a dynamic C the override stands."""
    cfg = th.launch_config(768, 25216, 4, 4, H200_SMS, {"INT32_SIZES": 1}, reductions=2, ops=1)
    assert not cfg.int32_sizes
    assert cfg.notes == ("INT32_SIZES=1 -> 0: N and C are static: the kernel has no size argument to cast",)
    dynamic_c = th.launch_config(768, 25216, 4, 4, H200_SMS, {"INT32_SIZES": 1}, reductions=2, ops=1,
                                 static_cols=False)
    assert dynamic_c.int32_sizes and not dynamic_c.notes


def test_partials_budget_counts_the_input_bytes():
    # fp32 -> fp8 on a small input: the budget goes by the 4-byte input, not the 1-byte output, which would allow 10
    # (sweep-f5: 16 splits ran at 1.03x SOL, 5 at 1.17x)
    assert th.launch_config(cols=1000, rows=2048, narrowest=1, widest=4, num_sms=H200_SMS).RSPLIT == 16


def test_partials_budget_is_two_percent():
    # fp16[2048, 2048]: the wave allows 16 splits and 2% of the input allows 20; 1% would allow 10 (waves sweep:
    # 16 ran at 1.03x SOL, 10 at 1.21x)
    assert th.MAX_PARTIALS_FRACTION == 0.02
    assert th.launch_config(cols=2048, rows=2048, narrowest=2, widest=2, num_sms=H200_SMS).RSPLIT == 16


def test_override_wins_and_is_validated():
    cfg = th.launch_config(3072, 25216, 4, 4, H200_SMS, {"XBLOCK": 32, "RSPLIT": 7, "num_stages": 2})
    assert (cfg.XBLOCK, cfg.RSPLIT, cfg.num_stages) == (32, 7, 2)
    # the override's own values are checked where it is parsed (test_config.py); the tile, with the heuristic's
    # blocks for the keys left out, here
    with pytest.raises(ValueError, match="exceeds Triton's largest tensor") as err:
        th.launch_config(3072, 25216, 4, 4, H200_SMS, {"XBLOCK": 2048, "R0_BLOCK": 1024})
    assert "one row tile a program" in str(err.value)  # f32[25216, 3072], one reduction: the large-tensor rule's
    with pytest.raises(ValueError, match="exceeds Triton's largest tensor") as err:  # two: a looped kernel
        th.launch_config(3072, 25216, 4, 4, H200_SMS, {"XBLOCK": 2048, "R0_BLOCK": 1024}, reductions=2)
    assert "one row tile a program" not in str(err.value)
    with pytest.raises(ValueError, match="exceeds Triton's largest tensor"):
        th.launch_config(3072, 25216, 4, 4, H200_SMS, {"XBLOCK": 32768})
    # one row tile a program regrows R0_BLOCK to the program's rows (64 -> 128 here, the partials budget capping
    # RSPLIT at 1000): the check sees the kernel's tile, not the override's (a Triton compile error before;
    # 2026-11-30)
    with pytest.raises(ValueError, match="16384 x 128 = 2097152 elements exceeds.*one row tile a program R0_BLOCK is"):
        th.launch_config(16, 100000, 2, 2, H200_SMS, {"XBLOCK": 16384, "R0_BLOCK": 64, "TILES_PER_PROGRAM": 1})
    # ... by at most twice: an 8-row tile grows to 16, not 128 (RSPLIT then passes the partials budget)
    assert th.launch_config(16, 20000, 2, 2, H200_SMS, {"R0_BLOCK": 8, "TILES_PER_PROGRAM": 1}).R0_BLOCK == 16
    # ... but not past the workspace bound: 2-row tiles grown to 4 would take a partials word a column for every 4
    # rows, half of x's bytes
    with pytest.raises(ValueError, match=r"over the bound of 1048576 bytes \(the most of 25% of x's 2560000 bytes"):
        th.launch_config(64, 20000, 2, 2, H200_SMS, {"R0_BLOCK": 2, "TILES_PER_PROGRAM": 1})
    with pytest.raises(ValueError, match="positive"):
        th.launch_config(0, 25216, 4, 4, H200_SMS)


def per_thread(cfg) -> int:
    return cfg.XBLOCK * cfg.R0_BLOCK // (32 * cfg.num_warps)


@pytest.mark.parametrize("producer", [dict(ops=th.HEAVY_OPS + 1), dict(ops=6, producer_ops=frozenset({"tanh"}))])
def test_heavy_producers_get_eight_elements_a_thread_on_eight_warps(producer):
    """GELU backward bf16[25216, 3072]: X64 R32 w8 ran at 1.63x copy SOL, the old X64 R128 w8 at 3.55x
    (sweeps/2026-11-29-h200-sweep-{odd,tune}.csv); the load run (XBLOCK) stays, R0_BLOCK shrinks."""
    light = th.launch_config(3072, 25216, 2, 2, H200_SMS, ops=6)
    heavy = th.launch_config(3072, 25216, 2, 2, H200_SMS, **producer)
    assert (heavy.XBLOCK, heavy.R0_BLOCK, heavy.num_warps) == (light.XBLOCK, 32, 8)
    assert per_thread(heavy) == th.HEAVY_ELEMENTS_PER_THREAD
    assert heavy.RSPLIT * 48 == 4 * H200_SMS  # 4 programs per SM, one wave


@pytest.mark.parametrize("producer", [dict(ops=th.HEAVY_OPS + 1), dict(ops=6, producer_ops=frozenset({"gelu_backward"}))])
def test_small_16_bit_tiles_prefetch_the_next_row_tile_and_others_do_not(producer):
    """GELU backward bf16[25216, 3072] and [32768, 11008]: 1.590 -> 1.275 and 1.670 -> 1.364x copy SOL with the
    prefetch; LayerNorm backward bf16[8191, 1021] (odd C and N) 1.757 -> 1.567; f32 mixed, an fp8 cast and
    kernels of 32-64 elements a thread lost (sweeps/2026-11-30-h200-sweep-{prefetch,checks,prefetchcheck}.csv); a
    GELU backward of bf16 into fp8 copies gained 375 -> 238 µs (lab/2026-12-02-h200-lab-steps-tensorwise.csv)."""
    assert th.launch_config(3072, 25216, 2, 2, H200_SMS, **producer).prefetch
    assert not th.launch_config(3072, 25216, 2, 2, H200_SMS, **producer, override={"PREFETCH": 0}).prefetch
    odd = th.launch_config(1021, 8191, 2, 2, H200_SMS, ops=1, reductions=2)
    assert per_thread(odd) == th.SCALAR_ELEMENTS_PER_THREAD and odd.tiles_per_program == 2 and odd.prefetch
    for light in (dict(ops=6), dict(ops=0, reductions=2), dict(ops=2)):
        assert not th.launch_config(3072, 25216, 2, 2, H200_SMS, **light).prefetch  # 16-bit, but 32-64 elements
    assert not th.launch_config(4095, 8192, 2, 2, H200_SMS, ops=2).prefetch  # one odd extent: 32 elements a thread
    # one row tile a program, looped: the prefetch would load the tile twice
    looped = th.launch_config(1021, 8191, 2, 2, H200_SMS, ops=1, override={"TILES_PER_PROGRAM": 1}, static_rows=False)
    assert looped.tiles_per_program == 1 and not looped.prefetch
    # a dynamic N, odd C and N: two row tiles a program, prefetched (as in the dynamic sweep)
    dynamic = th.launch_config(1021, 8191, 2, 2, H200_SMS, ops=1, static_rows=False)
    assert dynamic.tiles_per_program == 2 and dynamic.prefetch
    assert not th.launch_config(3072, 4096, 4, 4, H200_SMS, **producer).prefetch  # f32
    # a GELU backward of bf16 loads into fp8 copies (the Float8Linear MLP's backward): heavy, so prefetched
    assert th.launch_config(4096, 16384, 1, 2, H200_SMS, **producer).prefetch
    # the same computed through an f32 buffer (widest 4): the loads are still 16-bit, so still prefetched
    assert th.launch_config(4096, 16384, 1, 4, H200_SMS, **producer, widest_load=2).prefetch
    assert not th.launch_config(4096, 16384, 1, 4, H200_SMS, **producer).prefetch  # f32 loads
    fp8 = th.launch_config(769, 4099, 1, 2, H200_SMS, ops=2)  # an fp8 cast with odd C and N: one wave
    assert per_thread(fp8) == th.SCALAR_ELEMENTS_PER_THREAD and not fp8.tiles_per_program and not fp8.prefetch
    assert th.launch_config(3072, 25216, 2, 2, H200_SMS, ops=2, override={"PREFETCH": 1}).prefetch


@pytest.mark.parametrize("itemsize,ops,r0_block,rsplit", [(4, 0, 64, 395), (2, 2, 128, 64)])
def test_odd_c_and_odd_n_get_a_narrow_scalar_tile_and_one_row_tile_a_program(itemsize, ops, r0_block, rsplit):
    """Prime f32[25229, 3067] (X32 R64 w4: 1.80x copy SOL against 3.13x) and bf16[8191, 1021] a * b + 1 (1.72x
    against 2.18x): no vector access either way, so 16 elements a thread, the load run shrunk first; then one row
    tile a program (spin sweep: 1.545x against 1.777x for one wave; 1.571x against 1.551x, a tie), so RSPLIT =
    row tiles, and the finish is chunked.  The partials budget allows bf16[8191, 1021] 81 programs a column block,
    not 128, so its persistent tile is a program's 102 rows to the next power of two, 128, and 64 programs cover
    the rows (it was launched with 81, 17 of which got none, and logged as R0_BLOCK 64)."""
    rows, cols = (25229, 3067) if itemsize == 4 else (8191, 1021)
    cfg = th.launch_config(cols, rows, itemsize, itemsize, H200_SMS, ops=ops)
    assert (cfg.XBLOCK, cfg.R0_BLOCK, cfg.num_warps, cfg.RSPLIT) == (32, r0_block, 4, rsplit)
    budget = int(th.MAX_PARTIALS_FRACTION * rows * itemsize / 4)
    assert min(-(-rows // 64), budget) == (395 if itemsize == 4 else 81) and cfg.chunked_finish
    assert "tiles_per_program" not in cfg.as_dict()  # not a kernel argument


@settings(max_examples=300, deadline=None)
@given(cols=st.integers(1, 200_000), rows=st.integers(1, 2_000_000), itemsize=st.sampled_from([2, 4]),
       ops=st.sampled_from([0, 2]))
def test_the_persistent_tile_is_the_one_the_kernel_computes_and_every_program_gets_rows(cols, rows, itemsize, ops):
    """A static one-tile launch reports the R0_BLOCK that the persistent kernel computes from RSPLIT
    (``next_power_of_2(ceil(N / RSPLIT))``), and RSPLIT is the number of such tiles, so no program is empty."""
    cfg = th.launch_config(cols, rows, itemsize, itemsize, H200_SMS, ops=ops)
    if cfg.tiles_per_program == 1:
        assert cfg.R0_BLOCK == th.next_power_of_2(-(-rows // cfg.RSPLIT))
        assert cfg.RSPLIT == -(-rows // cfg.R0_BLOCK)
        assert cfg.RSPLIT <= max(1, int(th.MAX_PARTIALS_FRACTION * rows * itemsize / 4)) or growth_capped(cfg, rows,
                                                                                                          itemsize)


def test_several_reductions_with_odd_c_and_odd_n_take_two_row_tiles_a_program():
    cfg = th.launch_config(1021, 8191, 2, 2, H200_SMS, ops=1, reductions=2)
    assert cfg.tiles_per_program == th.SCALAR_TILES_PER_PROGRAM and cfg.chunked_finish


@pytest.mark.parametrize("cols,rows,itemsize", [(4096, 8191, 2), (4095, 8192, 2), (4096, 8191, 4)])
def test_a_plain_copy_with_one_odd_extent_takes_one_row_tile_a_program(cols, rows, itemsize):
    """oddcheck sweep: 1.74x, 1.36x, 1.39x copy SOL against 1.98x, 1.50x, 1.59x for one wave."""
    cfg = th.launch_config(cols, rows, itemsize, itemsize, H200_SMS)
    budget = int(th.MAX_PARTIALS_FRACTION * rows * itemsize / 4)  # bf16[8191, 4096]: 81 programs, not 128
    assert cfg.RSPLIT == min(-(-rows // cfg.R0_BLOCK), budget) and cfg.chunked_finish


def test_an_fp8_output_keeps_one_wave_with_odd_c_and_odd_n():
    """The corpus's fp8 cast of bf16[4099, 769]: 1.34x copy SOL with one wave, 1.55-1.70x with 1, 2 or 4 tiles."""
    assert not th.launch_config(769, 4099, 1, 2, H200_SMS, ops=2).chunked_finish
    assert th.launch_config(769, 4099, 2, 2, H200_SMS, ops=2).chunked_finish  # the same shape without fp8


def test_one_odd_extent_with_a_producer_or_an_explicit_rsplit_keeps_one_wave():
    # a * b + 1 over 64 MiB: one wave (one tile a program was best with the looped kernel; the persistent one gained
    # 6% in one run, sweeps/2026-11-30-h200-sweep-fewsplits.csv, which the rule leaves alone)
    assert not th.launch_config(4095, 8192, 2, 2, H200_SMS, ops=2).chunked_finish
    forced = th.launch_config(1021, 8191, 2, 2, H200_SMS, override={"RSPLIT": 7})
    assert forced.RSPLIT == 7 and not forced.chunked_finish
    assert th.launch_config(1021, 8191, 2, 2, H200_SMS, override={"RSPLIT": 100}).chunked_finish  # > MAX_RSPLIT


@pytest.mark.parametrize("cols,rows,reductions", [(1024, 8191, 1), (3072, 4097, 1), (768, 12289, 1), (1000, 10007, 1),
                                                   (1024, 8191, 2)])
def test_f32_rows_of_an_odd_n_take_one_row_tile_a_program(cols, rows, reductions):
    """oddone sweep: a * b + 1 over f32[8191, 1024], [4097, 3072], [12289, 768] and LayerNorm backward f32[8191, 1024]
    ran 14-18% faster with one row tile a program than with one wave; the held-out f32[10007, 1000] 16%."""
    cfg = th.launch_config(cols, rows, 4, 4, H200_SMS, ops=2, reductions=reductions)
    assert cfg.tiles_per_program == th.ODD_ROWS_F32_TILES_PER_PROGRAM == 1 and cfg.chunked_finish
    assert cfg.RSPLIT == -(-rows // cfg.R0_BLOCK)  # the persistent kernel: every program gets rows
    assert per_thread(cfg) == th.HALF_SCALAR_ELEMENTS_PER_THREAD


@pytest.mark.parametrize("cols,rows,narrowest,widest,ops,static_rows", [
    (1024, 8191, 2, 2, 2, True),  # 16-bit: 13% slower with one tile a program (218 registers against 99)
    (1000, 8191, 1, 4, 2, True),  # an fp8 output: mixed (one 16% faster, one 12% slower)
    (1024, 8191, 4, 4, 40, True),  # a heavy producer (GELU backward: 3% faster, not swept further)
    (1022, 8191, 4, 4, 2, True),  # rows not 16-byte aligned either way (C even, not a multiple of 4): not measured
    (1024, 8191, 4, 4, 2, False),  # a dynamic N: not measured
    (1024, 8192, 4, 4, 2, True),  # an even N: vector stores, one wave
    (1024, 1000001, 4, 4, 2, True),  # 15626 row tiles: past the 65-193 measured (review)
])
def test_odd_n_rows_outside_the_f32_rule_keep_one_wave(cols, rows, narrowest, widest, ops, static_rows):
    cfg = th.launch_config(cols, rows, narrowest, widest, H200_SMS, ops=ops, static_rows=static_rows)
    assert cfg.tiles_per_program == 0  # one wave of looping programs, as before the rule


def test_the_f32_odd_n_rule_leaves_a_narrow_c_the_wide_path_and_a_dynamic_c_alone():
    """A review found the rule taking these from their own launches: a narrow C keeps its rule's several
    row tiles a program, a wide LayerNorm backward its one wave of RSPLIT 1, a dynamic C (vectorizable) one wave."""
    narrow = th.launch_config(8, 1000001, 4, 4, H200_SMS, ops=2)
    assert narrow.tiles_per_program == th.launch_config(8, 1000000, 4, 4, H200_SMS, ops=2).tiles_per_program == 4
    wide = th.launch_config(17408, 4097, 4, 4, H200_SMS, ops=4, reductions=2)
    assert (wide.tiles_per_program, wide.RSPLIT) == (0, 1)
    dynamic_c = th.launch_config(1024, 8191, 4, 4, H200_SMS, ops=2, static_cols=False)
    assert dynamic_c.tiles_per_program == 0


def test_one_odd_extent_gets_half_the_elements():
    # odd C (2-byte-aligned vocabulary rows), the wide path: X64 R128 w8 ran at 1.54x copy SOL, X128 R128 w8 at 1.85x
    wide = th.launch_config(50257, 8192, 2, 2, H200_SMS)
    assert (wide.XBLOCK, wide.R0_BLOCK, wide.num_warps) == (64, 128, 8)
    assert per_thread(wide) == th.HALF_SCALAR_ELEMENTS_PER_THREAD
    # odd N only: loads stay vectorized, so the store run (R0_BLOCK) shrinks (one wave, with a producer); a plain copy
    # is one row tile a program, whose persistent tile the partials budget makes a program's 102 rows, so 128
    odd_n = th.launch_config(4096, 8191, 2, 2, H200_SMS, ops=2)
    assert (odd_n.XBLOCK, odd_n.R0_BLOCK, odd_n.tiles_per_program) == (64, 64, 0)
    copy = th.launch_config(4096, 8191, 2, 2, H200_SMS)
    assert (copy.XBLOCK, copy.R0_BLOCK, copy.RSPLIT, copy.tiles_per_program) == (64, 128, 64, 1)
    # odd C only: the load run shrinks (bf16[8192, 4095]: X32 R128 ran at 1.48x copy SOL, X64 R128 at 2.43x)
    assert (th.launch_config(4095, 8192, 2, 2, H200_SMS).XBLOCK, th.launch_config(4095, 8192, 2, 2, H200_SMS).R0_BLOCK) == (32, 128)


def test_heavy_on_the_wide_path_stays_on_eight_warps():
    cfg = th.launch_config(50264, 4096, 2, 2, H200_SMS, ops=th.HEAVY_OPS + 8)
    assert (cfg.XBLOCK, cfg.R0_BLOCK, cfg.num_warps, cfg.RSPLIT) == (64, 32, 8, 1)


def test_plain_arithmetic_is_not_heavy_and_a_half_scalar_tile_keeps_three_per_sm():
    light = th.launch_config(3072, 25216, 2, 2, H200_SMS, ops=2, producer_ops=frozenset({"mul", "add"}))
    assert (light.XBLOCK, light.R0_BLOCK, light.num_warps) == (64, 128, 4)
    # odd C with a producer: 32 elements a thread (X32 R128), still ~170 registers, so 3 programs per SM
    odd = th.launch_config(4095, 8192, 2, 2, H200_SMS, ops=2)
    assert (odd.XBLOCK, odd.R0_BLOCK, odd.RSPLIT) == (32, 128, 3 * H200_SMS // 128)


@settings(max_examples=300, deadline=None)
@given(cols=st.integers(1, 100_000), rows=st.integers(1, 100_000), sizes=st.sampled_from([(1, 1), (1, 2), (1, 4),
       (2, 2), (2, 4), (4, 4), (8, 8)]), ops=st.sampled_from([0, 2, th.HEAVY_OPS + 1]), reductions=st.integers(1, 3),
       transcendental=st.booleans())
@example(cols=17, rows=129, sizes=(2, 2), ops=0, reductions=1, transcendental=False)
def test_elements_per_thread_never_exceed_the_cap(cols, rows, sizes, ops, reductions, transcendental):
    producer_ops = frozenset({"exp"}) if transcendental else frozenset()
    cfg = th.launch_config(cols, rows, *sizes, H200_SMS, ops=ops, reductions=reductions, producer_ops=producer_ops)
    heavy = ops > th.HEAVY_OPS or transcendental
    cap = (th.HEAVY_ELEMENTS_PER_THREAD if heavy else th.SCALAR_ELEMENTS_PER_THREAD if cols % 2 and rows % 2
           else th.HALF_SCALAR_ELEMENTS_PER_THREAD if cols % 2 or rows % 2 else 128)
    # the persistent one-tile kernel's tile is a program's rows: where the partials budget capped RSPLIT, up to twice
    # the rule's (16-bit, odd C and N: 32 elements a thread; bf16[129, 17] had 64 before the cap, found by this test)
    assert per_thread(cfg) <= cap * (2 if cfg.tiles_per_program == 1 else 1)
    assert cfg.num_warps in (4, 8) and (cfg.num_warps == 8) >= heavy
    for block in (cfg.XBLOCK, cfg.R0_BLOCK):  # the persistent tile of N < 16 rows is N to the next power of two
        assert block >= min(th.MIN_BLOCK, th.next_power_of_2(rows)) and block & (block - 1) == 0


@pytest.mark.parametrize("args,kwargs,tiles", [
    ((50257, 8192, 2, 2), {}, 4),  # odd C, wide (gpt2 vocabulary): 2.02 -> 1.81x copy SOL (stock 1.87)
    ((14336, 32768, 2, 2), {}, 4),  # large copy: 1.50 -> 1.30
    ((3072, 25216, 2, 2), {}, 4),  # large (148 MiB), one wave static or not: 1.41 -> 1.31
    ((11008, 8192, 2, 2), {"ops": 2}, 4),  # a * b + 1: 1.45 -> 1.28
    ((1021, 8191, 2, 2), {}, 2),  # odd C and N: 2.15 -> 1.48
    ((4096, 32768, 2, 4), {"ops": 1}, 4),  # f32 -> bf16 cast, 512 MiB: 1.19 against 1.32 for one wave
    ((3072, 32768, 1, 4), {"ops": 2}, 0),  # f32 -> fp8: one wave (the persistent kernel's rule needs a static N)
    ((768, 25216, 4, 4), {"reductions": 2}, 0),  # two reductions: one wave
    ((4096, 8192, 2, 2), {}, 0),  # 64 MiB, many splits: one wave (2 or 4 tiles mixed)
])
def test_a_dynamic_n_takes_four_looped_row_tiles_where_a_static_one_takes_one(args, kwargs, tiles):
    """The dynamic sweeps (sweeps/2026-11-30-h200-sweep-dynamic{,2}.csv): with no persistent kernel, 4 row tiles a
    program (2 with odd C and N) beat one tile and one wave where a static N takes one tile."""
    cfg = th.launch_config(*args, H200_SMS, static_rows=False, **kwargs)
    assert cfg.tiles_per_program == tiles


def test_an_unaligned_dynamic_size_takes_the_scalar_tile():
    """A dynamic N (C) not known to be a multiple of 16 gets scalar accesses whatever its hint's parity."""
    aligned = th.launch_config(3072, 25216, 2, 2, H200_SMS, static_rows=False)
    n_only = th.launch_config(3072, 25216, 2, 2, H200_SMS, static_rows=False, vector_rows=False)
    both = th.launch_config(3072, 25216, 2, 2, H200_SMS, static_rows=False, vector_rows=False, vector_cols=False)
    assert (per_thread(aligned), per_thread(n_only), per_thread(both)) == (
        64, th.HALF_SCALAR_ELEMENTS_PER_THREAD, th.SCALAR_ELEMENTS_PER_THREAD)
    assert both.XBLOCK == 32  # scalar loads: XBLOCK shrinks first
