"""Launch configuration of the fused reduction–transpose kernel: tile shape, ``RSPLIT``, warps.

The kernel (see :mod:`reduction_transpose_fusion.codegen.triton`) runs on a grid of ``RSPLIT x ceil(C / XBLOCK)``
programs.  Program ``(s, j)`` owns columns ``[j*XBLOCK, (j+1)*XBLOCK)`` and rows ``[s*chunk, (s+1)*chunk)`` of
``x [N, C]``, where ``chunk`` is ``ceil(N / R0_BLOCK / RSPLIT) * R0_BLOCK``; it streams ``[XBLOCK, R0_BLOCK]`` tiles,
writing each tile transposed and accumulating column partials, then one program of each column block sums the
``RSPLIT`` partials in a fixed order: the last to arrive (an atomic ticket) for one-wave launches, the last in launch
order for row-tile launches (it waits only for peers that started before it).  Unlike Inductor's cooperative
reductions the grid has no residency limit.

Rules, each from the H200 sweep recorded in ``benchmarks/results/`` (see docs/design.md, "How the launch is chosen"):

* **Tile**: both the load (contiguous along C) and the transposed store (contiguous along N) must be coalesced:
  ``XBLOCK`` from the widest full-size dtype (:data:`XBLOCK_BY_WIDEST`), ``R0_BLOCK`` a 256-byte run of the
  narrowest, within :data:`TILE_ELEMENTS`; fewer elements per thread where accesses are scalar (odd C or N) or the
  producer is heavy (:data:`SCALAR_ELEMENTS_PER_THREAD` and its neighbours); a 128-wide tile for the persistent
  one-tile kernels with one reduction over 16-bit tensors of static, even C and N, off the wide path, that move
  :data:`BIG_TILE_MIN_MOVED_BYTES` or more.  Tiles shrink to the next power of two of C or N.
* **RSPLIT**: one row tile a program (``RSPLIT = ceil(N / R0_BLOCK)`` within the partials budget) for a single
  reduction with odd C and odd N, with few one-wave splits (:data:`FEW_SPLITS`, the wide path included) or with a
  full-size tensor of :data:`ONE_TILE_MIN_BYTES` or more (at most :data:`MAX_ONE_TILE_RSPLIT` row tiles), for a
  plain copy with one odd extent, and for f32 rows of a static odd N under a producer or two reductions
  (:data:`ODD_ROWS_F32_TILES_PER_PROGRAM`); with a dynamic N, one program per row tile too (:class:`RowTileGrid`: the grid
  from N at launch), and also for aligned 16-bit kernels of one reduction and :data:`DYNAMIC_ROW_TILE_MIN_BYTES` or
  more and for a wide fp8 cast (with a static N too: :func:`wide_fp8_cast`); where that grid cannot be (partials
  that are not flagged, AOTInductor)
  :data:`DYNAMIC_TILES_PER_PROGRAM` (:data:`DYNAMIC_SCALAR_TILES_PER_PROGRAM` with odd C and N), looped, instead of
  one; :data:`SCALAR_TILES_PER_PROGRAM` for several reductions with odd C and N; none of these with a heavy producer
  or a 1-byte tensor (e.g. an fp8 output), but for a large aligned cast from f32 to fp8 with a static N;
  otherwise one wave of resident programs (:data:`COPY_PROGRAMS_PER_SM` or :data:`PROGRAMS_PER_SM` per SM,
  rounded down; 1 on the wide path, whose column blocks alone fill two waves), at most :data:`MAX_RSPLIT`, at most
  one program per ``R0_BLOCK`` rows, and few enough
  that the partials (``4 * RSPLIT * C`` bytes, written once and read once) stay under :data:`MAX_PARTIALS_FRACTION`
  of the bytes of ``x`` (in the widest dtype the kernel reads).
* **Prefetch**: a looped kernel with at most :data:`PREFETCH_MAX_ELEMENTS_PER_THREAD` tile elements a thread and
  only 16-bit full-size tensors, and more than one row tile a program, loads the next row tile before it computes the
  current one.
"""

from __future__ import annotations

import dataclasses
import math

from torch._inductor.runtime.runtime_utils import next_power_of_2
from triton.language import TRITON_MAX_TENSOR_NUMEL

from .._torch_private import GridExpr

# The rules' constants, each with the rule it sets and the H200 runs it came from (files under benchmarks/results/, the
# sweeps under sweeps/); the shapes and timings of each run are in docs/launch.md, "The evidence beside each constant".
#
# The tile: 8192 elements on 4 warps (64 fp32 registers of tile data a thread; Inductor computes in fp32).  XBLOCK,
# the loads' contiguous run, from the widest full-size dtype; R0_BLOCK, the transposed stores' run, 256 bytes of the
# narrowest.  Best or within noise of best at every large shape of the first sweep (sweeps/2026-11-29-h200-sweep1.csv).
TILE_ELEMENTS = 8192
NUM_WARPS = 4
STORE_RUN_BYTES = 256
XBLOCK_BY_WIDEST = {1: 128, 2: 64, 4: 64, 8: 32}
# The wide path: where the column blocks alone fill two waves (C >= 2 x SMs x XBLOCK), twice the tile's XBLOCK and
# warps and no row split (sweep-f5, waves sweep).
WIDE_TILE_SCALE = 2
# One wave of resident programs for RSPLIT, rounded down: 4 an SM for plain copies (~128 registers), 3 with a
# producer or a second reduction (up to 168); the scalar and heavy tiles take 4 (waves sweep).
COPY_PROGRAMS_PER_SM = 4
PROGRAMS_PER_SM = 3
# The one-wave cast of f32 to fp8 compiles to 212-224 registers (2 programs of 4 warps an SM, not 3) wherever a
# program loops or masks rows (residency sweep).
FP8_CAST_PROGRAMS_PER_SM = 2
# The one-wave RSPLIT's cap, and every kernel's whose reductions are not all sum, max or min: for those the last
# program loads all XBLOCK x RSPLIT partials at once (choices.py caps them; codegen/triton.py chunks the others).
MAX_RSPLIT = 64
# The partials (4 x RSPLIT x C bytes) stay under 2% of x's bytes: mid-size inputs are bound by this budget rather
# than by the wave (waves sweep).
MAX_PARTIALS_FRACTION = 0.02
# Smallest tile edge: one warp's 32 lanes never masked off in both directions.
MIN_BLOCK = 16
# Two or more reductions over 16-bit tensors: R0_BLOCK 64 (an fp32 accumulator and a partials row each; sweep-two).
MULTI_REDUCTION_R0_BLOCK = 64
# Tile elements a thread where accesses are scalar (an odd C or N: no vector loads or stores along it) or the producer
# is heavy (more than HEAVY_OPS ops an element, or a transcendental one), so that 4 programs stay resident and none
# spills; scalar loads shrink XBLOCK first, vector loads R0_BLOCK (sweep-odd, -check, -tune).
HEAVY_ELEMENTS_PER_THREAD = 8  # a heavy producer
SCALAR_ELEMENTS_PER_THREAD = 16  # odd C and odd N
HALF_SCALAR_ELEMENTS_PER_THREAD = 32  # odd C or odd N
HEAVY_OPS = 32
# Producers that count as heavy whatever their op count (only GELU backward was measured).
TRANSCENDENTAL = frozenset({
    "gelu", "gelu_backward", "tanh", "tanh_backward", "erf", "erfc", "exp", "exp2", "expm1", "log", "log1p",
    "log2", "sigmoid", "sigmoid_backward", "silu", "silu_backward", "sin", "cos", "pow",
})
SHRINK_FLOOR = 32  # a shrunk tile edge stays one warp's 32 lanes wide
# One row tile a program (the persistent kernel: no loop, no accumulator tile, flagged partials) for one reduction
# where one wave would give at most FEW_SPLITS programs a column block or the wide path (spin sweep); several
# reductions with the scalar tile take SCALAR_TILES_PER_PROGRAM (sweep-onetile).
FEW_SPLITS = 2
SCALAR_TILES_PER_PROGRAM = 2
# ... and for a full-size tensor of 96 MiB or more (between the largest loss, 64 MiB, and the smallest gain, 128 MiB;
# sweep-fewsplits).
ONE_TILE_MIN_BYTES = 96 << 20
# The persistent one-tile kernel of 16-bit tensors takes a 128 x 128 tile on 4 warps where it moves 320 MiB or more
# (bigtile2 sweep: every kernel of 384 MiB or more gained but a tie; none of 296 MiB or less).
BIG_TILE_XBLOCK = 128
BIG_TILE_R0_BLOCK = 128
BIG_TILE_MIN_MOVED_BYTES = 320 << 20
# Programs a group of the two-level flagged finish (codegen/triton.py): best or within 1% on 9 of 12 one-tile shapes
# (group sweep).
FINISH_GROUP = 64
# The large-tensor rule only while the two-level finish reads at most FINISH_GROUP words a column at each level, and
# only with a static N (a dynamic N's looped one-tile kernel was not measured).
MAX_ONE_TILE_RSPLIT = FINISH_GROUP * FINISH_GROUP
# Looped kernels of at most 16 tile elements a thread whose loads are 16-bit prefetch the next row tile (codegen/
# triton.py, prefetch_row_loop): gains on every 16-bit kernel swept, mixed for f32, losses for fp8 outputs but under a
# heavy producer (sweeps prefetch, prefetch2, checks, prefetchcheck; lab-steps-tensorwise).
PREFETCH_MAX_ELEMENTS_PER_THREAD = SCALAR_ELEMENTS_PER_THREAD
PREFETCH_ITEMSIZE = 2
# A looped kernel moving at least 120 MiB drops Inductor's evict_first hint on its loads (between the largest loss,
# 111 MiB, and the smallest gain, 128 MiB; hints3 and hints4-dynamic sweeps).
NO_EVICT_FIRST_MIN_MOVED_BYTES = 120 << 20
# One odd extent in a plain copy: one row tile a program (oddcheck sweeps).
HALF_SCALAR_COPY_TILES_PER_PROGRAM = 1
# f32 rows of a static odd N (C 16-byte aligned) under a producer or two reductions: one row tile a program, for at
# most ODD_ROWS_F32_MAX_ROW_TILES row tiles (sweep-oddone, -oddtile2).
ODD_ROWS_F32_TILES_PER_PROGRAM = 1
ODD_ROWS_F32_MAX_ROW_TILES = 256
# A dynamic N that cannot take the row-tile grid takes 4 looped row tiles a program (2 for the scalar tile) where a
# static N takes one (sweep-dynamic, -dynamic2).
DYNAMIC_TILES_PER_PROGRAM = 4
DYNAMIC_SCALAR_TILES_PER_PROGRAM = 2
# One program per row tile of a dynamic N (RowTileGrid) where a static N takes one tile a program, and also for
# aligned 16-bit kernels of one reduction of 8 MiB or more (sweep-dynamic3, -dynamic4, -dynamic6).
DYNAMIC_ROW_TILE_MIN_BYTES = 8 << 20
# The wide cast of f32 to fp8 takes the row-tile grid with a static N too (wide_fp8_cast), on the plain X64 tile where
# C is a multiple of FP8_VECTOR_COLS (profile-kernels-run16, sweep-staticgrid, -dynamicfp8).
FP8_VECTOR_COLS = 16
# ... with more rows than one 128-row tile (not measured either way; a review).
FP8_GRID_MIN_ROWS = 128
# Dynamic sizes are cast to int32 for kernels of several reductions off the wide path (LaunchConfig.int32_sizes), and
# the row-tile grid's last tile is shifted to end at row N, with no row mask, unless a tensor is 1-byte
# (LaunchConfig.shift_last_tile; profile-kernels-run2, -run5).

# Two rules from the held-out suite (holdout sweeps): the wide one-tile kernel (one row tile a program over a wide
# tensor of 16-bit or f32 elements in 16-byte-aligned rows, one reduction, even N) runs on 4 warps, X128 R128 for
# 16-bit and X64 R64 for f32; and a narrow C (one wave, capped at MAX_RSPLIT, would launch fewer programs than SMs)
# takes one row tile a program, or the fewest that keep RSPLIT within MAX_ONE_TILE_RSPLIT, for one reduction and no
# heavy producer.

# One wave's RSPLIT above 32 rounded down to even, so that the finish's partials rows stay 8-byte aligned (an odd
# RSPLIT made every partials load a scalar: 203 registers against 128; oddrsplit sweep).
EVEN_RSPLIT_ABOVE = 32


# The column tile: Inductor's persistent reduction, unsplit.  One program holds XBLOCK columns of all N rows in
# registers (R0_BLOCK = N to the next power of two), so it reads x once, writes v.T from the same registers and needs
# no partials, no finish, no semaphores, and no second pass for a result read by a full-size op (a centering, a
# rowwise fp8 cast's column scale): one launch.  XBLOCK covers one 32-byte sector of a loaded row, halved (down to
# COLUMN_TILE_MIN_XBLOCK) until the tile holds at most COLUMN_TILE_MAX_ELEMENTS; the warps give each thread
# COLUMN_TILE_ELEMENTS_PER_THREAD elements (HEAVY_ELEMENTS_PER_THREAD under a transcendental producer), at least 4.
# So it takes N up to 8192 (f32 or 16-bit; a transcendental producer 2048), the rows past 2048 (f32) or 1024 (16-bit)
# with part of a sector a row.  In the H200 labs (results/lab/*-column-tile*.csv; docs/profitability.md) tiles of one
# sector ran 1.10-3.14x faster than stock, larger tiles spilled, and narrower ones gained where C is narrow and lost
# where it is wide (the cost model's sector term, fx_passes/profitability.py).
COLUMN_TILE_ROW_BYTES = 32
COLUMN_TILE_ELEMENTS_PER_THREAD = 64
COLUMN_TILE_MAX_ELEMENTS = 16384
COLUMN_TILE_MIN_XBLOCK = 2
COLUMN_TILE_MIN_WARPS, COLUMN_TILE_MAX_WARPS = 4, 16


def column_tile(cols: int, rows: int, itemsize: int, heavy: bool = False, override: dict[str, int] | None = None
                ) -> tuple[int, int] | None:
    """``(XBLOCK, num_warps)`` of the column tile (above) for ``x [rows, cols]`` whose widest full-size elements
    have ``itemsize`` bytes, ``heavy`` under a transcendental producer; None where even its narrowest tile would
    exceed :data:`COLUMN_TILE_MAX_ELEMENTS` or its warps' share.  ``override`` may set ``XBLOCK`` and ``num_warps``
    (``reduction_transpose_fusion_launch_config``)."""
    override = override or {}
    rblock = next_power_of_2(rows)
    per_thread = HEAVY_ELEMENTS_PER_THREAD if heavy else COLUMN_TILE_ELEMENTS_PER_THREAD
    most = min(COLUMN_TILE_MAX_ELEMENTS, COLUMN_TILE_MAX_WARPS * 32 * per_thread)
    xblock = override.get("XBLOCK", min(max(1, COLUMN_TILE_ROW_BYTES // itemsize), next_power_of_2(cols)))
    while "XBLOCK" not in override and xblock * rblock > most and xblock > COLUMN_TILE_MIN_XBLOCK:
        xblock //= 2
    lanes = -(-xblock * rblock // per_thread)
    warps = override.get("num_warps", min(max(COLUMN_TILE_MIN_WARPS, next_power_of_2(-(-lanes // 32))),
                                          COLUMN_TILE_MAX_WARPS))
    if xblock * rblock > min(most, warps * 32 * per_thread):
        return None
    return xblock, warps


# CUDA's gridDim.x limit: RSPLIT is the grid's dim 0 (the heuristic's stays far below; config checks an override's)
MAX_GRID_X = 2**31 - 1


@dataclasses.dataclass(frozen=True)
class LaunchConfig:
    """A launch of the fused kernel.  ``as_dict()`` is what Inductor's ``FixedTritonConfig`` takes."""

    XBLOCK: int
    R0_BLOCK: int
    RSPLIT: int
    num_warps: int
    num_stages: int = 1
    # Row tiles a program when RSPLIT came from them (0: one wave); not a kernel argument.  The kernel then takes the
    # chunked finish (codegen/triton.py), as it does whenever RSPLIT > MAX_RSPLIT.
    tiles_per_program: int = 0
    # Programs a group of the two-level flagged finish (codegen/triton.py; 0 or >= RSPLIT: one level); not a kernel
    # argument.
    finish_group: int = 0
    # Whether the row loop prefetches the next row tile into registers (codegen/triton.py; the rule is at
    # :data:`PREFETCH_MAX_ELEMENTS_PER_THREAD`); not a kernel argument.
    prefetch: bool = False
    # One program per row tile of a dynamic N, the grid computed from N at launch (:class:`RowTileGrid`); RSPLIT is
    # then the programs at N's size hint (at least 2); not a kernel argument.
    row_tile_grid: bool = False
    # Whether the kernel casts its dynamic sizes to int32 (codegen/triton.py, int32_size_args; the rule and its data
    # follow DYNAMIC_ROW_TILE_MIN_BYTES); not a kernel argument.
    int32_sizes: bool = False
    # Whether the row-tile grid's last tile is shifted to end at row N, with no row mask on loads and stores
    # (codegen/triton.py, shift_last_tile; :mod:`..choices` guards N >= R0_BLOCK); not a kernel argument.
    shift_last_tile: bool = False
    # Whether the kernel's input loads carry the ``evict_first`` hint Inductor gives a looped reduction's loads: a looped
    # kernel's do unless NO_EVICT_FIRST_MIN_MOVED_BYTES drops them (codegen/triton.py, cache_hints); the persistent
    # kernel's and the row-tile grid's never do; not a kernel argument.
    evict_first: bool = True
    # One line for each launch override whose value this launch does not use as given: "KEY=asked -> used: why"
    # (:func:`launch_config`, :func:`changed_overrides`); logged by ``choices``; not a kernel argument.
    notes: tuple[str, ...] = dataclasses.field(default=(), compare=False, repr=False)

    def as_dict(self) -> dict[str, int]:
        return {k: v for k, v in dataclasses.asdict(self).items()
                if k not in ("tiles_per_program", "finish_group", "prefetch", "row_tile_grid", "int32_sizes",
                             "shift_last_tile", "evict_first", "notes")}

    @property
    def chunked_finish(self) -> bool:
        """True if the last program should combine the partials in chunks (many programs per column block)."""
        return self.tiles_per_program > 0 or self.RSPLIT > MAX_RSPLIT


def launch_config(cols: int, rows: int, narrowest: int, widest: int, num_sms: int,
                  override: dict[str, int] | None = None, ops: int = 0, reductions: int = 1,
                  producer_ops: frozenset[str] = frozenset(), static_rows: bool = True,
                  moved: int = 0, static_cols: bool = True, vector_rows: bool = True,
                  vector_cols: bool = True, row_tile_grid: bool = False, widest_load: int = 0) -> LaunchConfig:
    """Choose the launch for a fused kernel over ``x [rows, cols]``.

    Args:
        cols: C, the kept extent (the kernel's ``xnumel``); a size hint for dynamic shapes.
        rows: N, the reduced extent (``rnumel``); a size hint for dynamic shapes.
        narrowest: bytes per element of the narrowest full-size (N * C) tensor the kernel reads or writes.
        widest: bytes per element of the widest one (1, 2, 4 or 8).
        num_sms: streaming multiprocessors of the device (132 on an H200).
        override: keys of :class:`LaunchConfig` to force (``reduction_transpose_fusion_launch_config``).
        ops: arithmetic ops per element in the kernel's loop (loads, stores and constants not counted).
        reductions: reductions the kernel computes (F3: two).
        producer_ops: names of the ATen ops between ``x`` and the fused outputs (``Site.producer_ops``).
        static_rows: whether N is a number (not symbolic); one row tile a program is then the persistent kernel; a
            dynamic N takes the row-tile grid instead where ``row_tile_grid`` allows it, else
            :data:`DYNAMIC_TILES_PER_PROGRAM` looped row tiles a program.
        moved: bytes an element of ``x`` moves, the element sizes of the full-size tensors the kernel reads from
            or writes to memory summed (a bf16 copy: 4; ``a * b + 1`` in bf16: 6); 0 where unknown or where the
            kernel holds no transposed copy (then no wider tile, and the loads keep ``evict_first``: the rule at
            :data:`NO_EVICT_FIRST_MIN_MOVED_BYTES`).
        static_cols: whether C is a number; the wider tile was measured with static shapes only (with a dynamic C
            it compiled to 255 registers and spilled).
        vector_rows, vector_cols: False where N (C) is dynamic and not known to be a multiple of 16 elements
            (``choices._vector_rows``, ``_vector_cols``): Triton then cannot vectorize the accesses along it,
            whatever its parity, so the tile is chosen as for an odd N (C).
        row_tile_grid: whether the kernel may take one program per row tile (:class:`RowTileGrid`; the kernel's
            partials must all be flagged, ``choices``): a dynamic N where the rules give one tile a program (else
            :data:`DYNAMIC_TILES_PER_PROGRAM` looped tiles), a static N for :func:`wide_fp8_cast`; with
            ``ROW_TILE_GRID=1`` in ``override`` any static N is launched as a dynamic N would be (on the grid where
            those rules, or ``TILES_PER_PROGRAM=1``, give one row tile a program).
        widest_load: bytes per element of the widest full-size tensor the kernel loads from memory, where it is
            narrower than ``widest`` (16-bit inputs computed through an f32 buffer: 2); 0: ``widest``.  Only the
            prefetch, which holds the loaded tile, looks at it.

    Raises:
        ValueError: if a size is not positive, or the tile (override blocks included) is larger than one Triton
            tensor.  The override's own values are checked where it is parsed (``config.launch_override``).
        LaunchBoundError: if the tile gives a thread more than :data:`MAX_ELEMENTS_PER_THREAD` elements
            (:func:`check_tile`), or the partials exceed the workspace bound (:class:`WorkspaceBoundError`,
            :func:`check_workspace`).
    """
    if cols < 1 or rows < 1 or num_sms < 1 or not 1 <= narrowest <= widest:
        raise ValueError(f"launch_config needs positive sizes, got cols={cols} rows={rows} num_sms={num_sms} "
                         f"itemsizes {narrowest}..{widest}")
    override = override or {}
    asked_static_rows, grid_allowed = static_rows, row_tile_grid  # for the override notes
    # the wide fp32 -> fp8 cast takes the row-tile grid, with a static N too (FP8_VECTOR_COLS; ROW_TILE_GRID=0, for
    # a static N: not)
    cast_on_grid = (row_tile_grid and (override.get("ROW_TILE_GRID", 1) or not static_rows) and rows % 2 == 0
                    and vector_rows and vector_cols
                    and wide_fp8_cast(cols, rows, narrowest, widest, reductions, num_sms))
    if static_rows and row_tile_grid and override.get("ROW_TILE_GRID", cast_on_grid):
        static_rows = False  # launched as a dynamic N would be, on the row-tile grid
    xblock = XBLOCK_BY_WIDEST[min(XBLOCK_BY_WIDEST, key=lambda k: abs(k - widest))]
    rblock = min(STORE_RUN_BYTES // narrowest, TILE_ELEMENTS // xblock)
    warps = NUM_WARPS
    copy = ops == 0 and reductions == 1
    programs_per_sm = COPY_PROGRAMS_PER_SM if copy else PROGRAMS_PER_SM
    if reductions > 1 and widest <= 2:
        rblock = min(rblock, MULTI_REDUCTION_R0_BLOCK)
    wide = cols >= WIDE_TILE_SCALE * num_sms * xblock
    if wide and not (cast_on_grid and cols % FP8_VECTOR_COLS == 0):
        xblock, warps = xblock * WIDE_TILE_SCALE, warps * WIDE_TILE_SCALE
    heavy = heavy_kernel(ops, producer_ops)
    if heavy:
        warps = 2 * NUM_WARPS  # the wide path's count already
    xblock = min(xblock, max(MIN_BLOCK, next_power_of_2(cols)))
    rblock = min(rblock, max(MIN_BLOCK, next_power_of_2(rows)))
    # scalar accesses along C (N): an odd size, or a dynamic one Triton cannot take for a multiple of 16
    scalar_cols, scalar_rows = cols % 2 == 1 or not vector_cols, rows % 2 == 1 or not vector_rows
    per_thread = _elements_per_thread(scalar_cols, scalar_rows, heavy)
    if per_thread:
        xblock, rblock = _shrink(xblock, rblock, per_thread * 32 * warps, scalar_loads=scalar_cols)
        if per_thread <= SCALAR_ELEMENTS_PER_THREAD:  # at most 64 (8 warps) or 128 (4 warps) registers: 4 fit
            programs_per_sm = COPY_PROGRAMS_PER_SM
    xblock, rblock = override.get("XBLOCK", xblock), override.get("R0_BLOCK", rblock)
    few_splits = wide or num_sms * programs_per_sm // -(-cols // xblock) <= FEW_SPLITS
    large = rows * cols * widest >= ONE_TILE_MIN_BYTES and -(-rows // rblock) <= MAX_ONE_TILE_RSPLIT
    # an fp8 output keeps one wave, except a large aligned cast from f32 (see ONE_TILE_MIN_BYTES; static N only)
    one_byte = narrowest == 1 and not (large and static_rows and widest >= 4 and not wide and not per_thread)
    col_blocks, row_blocks = -(-cols // xblock), -(-rows // rblock)
    under_one_wave = col_blocks * MAX_RSPLIT < num_sms  # one wave would not fill the SMs: "a narrow C", above
    odd_rows_f32 = (static_rows and static_cols and not wide and narrowest == widest == 4 and scalar_rows
                    and cols * widest % 16 == 0 and not under_one_wave and row_blocks <= ODD_ROWS_F32_MAX_ROW_TILES)
    default_tiles = _tiles_per_program(per_thread, heavy, copy, reductions, one_byte, few_splits or large,
                                       odd_rows_f32)
    narrow = (not default_tiles and reductions == 1 and not heavy and under_one_wave
              and num_sms < col_blocks * row_blocks)
    if narrow:
        default_tiles = -(-row_blocks // MAX_ONE_TILE_RSPLIT)
    if not static_rows and not (narrow and not row_tile_grid):  # 4 looped tiles a program would starve the SMs again
        row_tiles_win = not per_thread and reductions == 1 and (  # 16-bit, or the cast of f32 to fp8 on the wide path
            narrowest == widest == 2 and rows * cols * widest >= DYNAMIC_ROW_TILE_MIN_BYTES or cast_on_grid)
        default_tiles = _dynamic_tiles(default_tiles, row_tile_grid, per_thread == SCALAR_ELEMENTS_PER_THREAD,
                                       row_tiles_win)
    tiles_per_program = override.get("TILES_PER_PROGRAM", default_tiles)
    if wide and not tiles_per_program:
        default_rsplit = 1
    else:
        default_rsplit = _rsplit(cols, rows, widest, num_sms * programs_per_sm, xblock, rblock, tiles_per_program)
        if (narrowest == 1 and widest == 4 and not tiles_per_program and not per_thread and reductions == 1
                and (not static_rows or default_rsplit < row_blocks or rows % rblock)):  # FP8_CAST_PROGRAMS_PER_SM
            default_rsplit = _rsplit(cols, rows, widest, num_sms * FP8_CAST_PROGRAMS_PER_SM, xblock, rblock)
    rsplit = override.get("RSPLIT", default_rsplit)
    one_tile = tiles_per_program == 1 and "RSPLIT" not in override
    persistent = one_tile and static_rows
    row_tile_grid = one_tile and not static_rows and row_tile_grid
    budget_rsplit = rsplit  # before the persistent tile, for the override notes
    if persistent:
        rblock, rsplit = _persistent_tile(rows, rsplit, rblock)
    elif row_tile_grid:  # the programs at N's hint; 2 at least, so that the kernel keeps its finish (HAS_RSPLIT)
        rsplit = max(2, -(-rows // rblock))
    if ((persistent or row_tile_grid) and wide and static_cols and not per_thread and reductions == 1
            and narrowest == widest in (2, 4) and cols * widest % 16 == 0
            and not override.keys() & {"XBLOCK", "num_warps"}):  # "the wide one-tile kernel", above
        one_tile_xblock = xblock if widest == 2 else XBLOCK_BY_WIDEST[widest]  # X128 for 16-bit, X64 for f32
        if one_tile_xblock * rblock <= BIG_TILE_XBLOCK * BIG_TILE_R0_BLOCK:  # at most 128 elements a thread on 4 warps
            xblock, warps = one_tile_xblock, NUM_WARPS
    # the wider tile only where it was measured: static C and N, even both (vector accesses), 16-bit, one reduction,
    # off the wide path, the 128-row persistent tile on 4 warps, none of them overridden
    if (persistent and static_cols and not override.keys() & {"XBLOCK", "R0_BLOCK", "num_warps"} and not wide
            and not per_thread and narrowest == widest == 2 and reductions == 1 and rblock == BIG_TILE_R0_BLOCK
            and warps == NUM_WARPS and rows * cols * moved >= BIG_TILE_MIN_MOVED_BYTES):
        xblock = min(BIG_TILE_XBLOCK, max(MIN_BLOCK, next_power_of_2(cols)))
    if xblock * rblock > TRITON_MAX_TENSOR_NUMEL:  # after the persistent tile, whose rows can outgrow R0_BLOCK
        source, _ = _who_chose(override, ("XBLOCK", "R0_BLOCK", "TILES_PER_PROGRAM", "RSPLIT"))
        raise ValueError(f"XBLOCK x R0_BLOCK = {xblock} x {rblock} = {xblock * rblock} elements exceeds Triton's "
                         f"largest tensor ({TRITON_MAX_TENSOR_NUMEL})"
                         + ("; with one row tile a program R0_BLOCK is the program's rows, ceil(N / RSPLIT) to the "
                            "next power of two" if persistent else "") + f"; {source}")
    launch = LaunchConfig(
        XBLOCK=xblock,
        R0_BLOCK=rblock,
        RSPLIT=rsplit,
        num_warps=override.get("num_warps", warps),
        num_stages=override.get("num_stages", 1),
        tiles_per_program=0 if "RSPLIT" in override else tiles_per_program,
        finish_group=override.get("FINISH_GROUP", FINISH_GROUP),
        prefetch=bool(override.get("PREFETCH", 0 < per_thread <= PREFETCH_MAX_ELEMENTS_PER_THREAD
                                   and (widest_load or widest) == PREFETCH_ITEMSIZE
                                   and (narrowest == widest or heavy)
                                   and tiles_per_program != 1))
                      and not row_tile_grid,  # its kernel has no loop
        row_tile_grid=row_tile_grid,
        # with N and C static the kernel has no size argument to cast (an override's INT32_SIZES=1 is noted)
        int32_sizes=bool(override.get("INT32_SIZES", not static_rows and reductions > 1 and not wide))
                    and not (asked_static_rows and static_cols),
        shift_last_tile=bool(override.get("SHIFT_LAST_TILE", row_tile_grid and narrowest > 1)) and row_tile_grid,
        evict_first=not (persistent or row_tile_grid) and bool(override.get(
            "EVICT_FIRST", rows * cols * moved < NO_EVICT_FIRST_MIN_MOVED_BYTES or (wide and not static_rows))),
    )
    check_tile(launch, override)
    check_workspace(launch, rows, cols, widest, reductions, override)
    notes = _override_notes(override, launch, rows, budget_rsplit, persistent, asked_static_rows, grid_allowed)
    return dataclasses.replace(launch, notes=notes)


def heavy_kernel(ops: int, producer_ops: frozenset[str]) -> bool:
    """Whether a kernel of ``ops`` arithmetic ops an element, computing ``producer_ops``, counts as heavy: more than
    :data:`HEAVY_OPS` ops, or a :data:`TRANSCENDENTAL` one (its tile then gives each thread fewer elements)."""
    return ops > HEAVY_OPS or bool(producer_ops & TRANSCENDENTAL)


def _override_notes(override: dict[str, int], launch: LaunchConfig, rows: int, budget_rsplit: int,
                    persistent: bool, static_rows: bool, grid_allowed: bool) -> tuple[str, ...]:
    """"KEY=asked -> used: why" for each key of ``override`` that :func:`launch_config` did not use as given.
    ``budget_rsplit``: RSPLIT before the persistent tile; ``static_rows``: whether N is static (before
    ``ROW_TILE_GRID=1`` launched it as a dynamic N); ``grid_allowed``: the ``row_tile_grid`` argument."""
    tiles = override.get("TILES_PER_PROGRAM", 0)
    if "RSPLIT" in override:
        used_tiles, tiles_why = 0, f"RSPLIT={override['RSPLIT']} is given too, and wins"
    elif persistent or launch.row_tile_grid or not tiles:
        used_tiles, tiles_why = min(tiles, 1) if tiles else 0, ""
    else:  # looped row tiles: RSPLIT programs share ceil(N / R0_BLOCK) tiles
        used_tiles = -(-(-(-rows // launch.R0_BLOCK)) // launch.RSPLIT)
        tiles_why = (f"RSPLIT={launch.RSPLIT} (at most the partials budget, {MAX_PARTIALS_FRACTION:.0%} of x's "
                     f"bytes) shares N's {-(-rows // launch.R0_BLOCK)} row tiles of {launch.R0_BLOCK} rows")
    if not grid_allowed:
        grid_why = ("this kernel may not take the row-tile grid (partials that are not all flagged fp32 words, the "
                    "cpp wrapper or AOTInductor; choices logs which)")
    else:
        grid_why = (f"the grid is one program per row tile, and this kernel's launch takes {launch.tiles_per_program} "
                    "row tiles a program (0: one wave); TILES_PER_PROGRAM=1 asks for one")
    if not static_rows:
        grid_why = ("ROW_TILE_GRID applies to a static N; a dynamic N takes the grid wherever its rules give one "
                    "row tile a program")
    used = {
        "R0_BLOCK": (launch.R0_BLOCK, f"with one row tile a program (the persistent kernel) the tile is all of a "
                     f"program's rows, ceil(N / RSPLIT) to a power of two, and RSPLIT={budget_rsplit} (the partials "
                     f"budget, {MAX_PARTIALS_FRACTION:.0%} of x's bytes, or the override) grows to at least "
                     "ceil(N / (2 R0_BLOCK)), so RSPLIT is now the programs that get rows"),
        "TILES_PER_PROGRAM": (used_tiles, tiles_why),
        "ROW_TILE_GRID": (int(launch.row_tile_grid), grid_why),
        "PREFETCH": (int(launch.prefetch), "the row-tile grid's kernel has no row loop to prefetch"),
        "SHIFT_LAST_TILE": (int(launch.shift_last_tile), "only the row-tile grid's kernel has a last tile to shift"),
        "INT32_SIZES": (int(launch.int32_sizes), "N and C are static: the kernel has no size argument to cast"),
        "EVICT_FIRST": (int(launch.evict_first), "the persistent and the row-tile grid's kernels' loads take no "
                        "evict_first hint"),
    }
    return tuple(f"{key}={override[key]} -> {value}: {why}" for key, (value, why) in used.items()
                 if key in override and value != override[key])


# The launch fields an override key sets, for changed_overrides (switches as 0 or 1)
_OVERRIDE_FIELDS = {"XBLOCK": "XBLOCK", "R0_BLOCK": "R0_BLOCK", "RSPLIT": "RSPLIT", "num_warps": "num_warps",
                    "num_stages": "num_stages", "TILES_PER_PROGRAM": "tiles_per_program",
                    "FINISH_GROUP": "finish_group", "PREFETCH": "prefetch", "INT32_SIZES": "int32_sizes",
                    "SHIFT_LAST_TILE": "shift_last_tile", "ROW_TILE_GRID": "row_tile_grid",
                    "EVICT_FIRST": "evict_first"}


def changed_overrides(override: dict[str, int], before: LaunchConfig, after: LaunchConfig, why: str) -> LaunchConfig:
    """``after`` with a note "KEY=asked -> used: why" added for each key of ``override`` that ``before`` used as
    given and ``after`` does not (``choices``' own changes to a launch: the grid-barrier cap, the one-wave launch)."""
    def value(launch, key):
        return int(getattr(launch, _OVERRIDE_FIELDS[key]))

    notes = [f"{key}={asked} -> {value(after, key)}: {why}" for key, asked in override.items()
             if value(before, key) == asked != value(after, key)]
    return dataclasses.replace(after, notes=before.notes + tuple(notes))


# The partials and flagged words a launch may take, as a fraction of the bytes of x (its widest full-size tensor).
# The rules' own launches take at most 4 / (R0_BLOCK x itemsize) of them, one word a column for each row tile (the
# row-tile grid; 12.5% for 1-byte rows of R0_BLOCK 32, 1.6-3.1% for f32 and 16-bit tiles) and 2% on one wave
# (MAX_PARTIALS_FRACTION), a reduction; an override's RSPLIT could ask for gigabytes (RSPLIT=100000 on f32[4096,
# 1024]: 410 MB of words for a 16 MiB input).  Two programs a column block are always allowed (a small N), and so is
# any workspace of at most MIN_WORKSPACE_BOUND_BYTES (a small input's odd launch costs nothing to allow).
MAX_WORKSPACE_FRACTION = 0.25
MIN_WORKSPACE_BOUND_BYTES = 1 << 20


def workspace_bytes(launch: LaunchConfig, cols: int, widest: int, reductions: int) -> int:
    """Bytes of the partials (or flagged words, with the two-level finish's group words) the launch needs: one
    ``max(4, widest)``-byte partial per program, column and reduction; 0 for one program a column block.  (The
    tickets, a word a column block, are left out.)"""
    if launch.RSPLIT < 2:
        return 0
    group = launch.finish_group
    groups = -(-launch.RSPLIT // group) if group and launch.RSPLIT > group else 0
    return (launch.RSPLIT + groups) * cols * max(4, widest) * reductions


def workspace_bound(rows: int, cols: int, widest: int, reductions: int) -> int:
    """The most bytes of partials and semaphore words a launch over ``x [rows, cols]`` may take (:func:`check_workspace`)."""
    return max(int(MAX_WORKSPACE_FRACTION * rows * cols * widest), 2 * cols * max(4, widest) * reductions,
               MIN_WORKSPACE_BOUND_BYTES)


def _who_chose(override: dict[str, int], keys: tuple[str, ...]) -> tuple[str, bool]:
    """Who set a refused launch, for its error: "reduction_transpose_fusion_launch_config asks for {...}" with those of
    ``keys`` that ``override`` sets, or "the launch rules chose it"; and whether the override set any of them."""
    asked = {k: override[k] for k in keys if k in override}
    if asked:
        return f"reduction_transpose_fusion_launch_config asks for {asked}", True
    return "the launch rules chose it", False


class LaunchBoundError(ValueError):
    """A launch past a bound the fused kernel keeps: its partials' workspace (:class:`WorkspaceBoundError`) or its
    tile's elements a thread (:func:`check_tile`); ``from_override`` tells whether
    ``reduction_transpose_fusion_launch_config`` asked for it (an error for the user) or the rules chose it (the
    caller falls back to Inductor's own launch)."""

    def __init__(self, message: str, from_override: bool) -> None:
        super().__init__(message)
        self.from_override = from_override


class WorkspaceBoundError(LaunchBoundError):
    """A launch whose partials and semaphore words exceed :func:`workspace_bound`."""


# The most tile elements a thread of the fused kernel may hold: the rules' largest tile (BIG_TILE_XBLOCK x
# BIG_TILE_R0_BLOCK on NUM_WARPS warps), 128 fp32 registers of tile data of a thread's 255.  Past it the tile spills
# to local memory, and ptxas's time grows with the spill: an override of 1024 x 1024 on one warp (32768 elements a
# thread) had not finished compiling for sm_90a after 10 minutes (CPU, 2026-12-07).
MAX_ELEMENTS_PER_THREAD = BIG_TILE_XBLOCK * BIG_TILE_R0_BLOCK // (32 * NUM_WARPS)


def check_tile(launch: LaunchConfig, override: dict[str, int]) -> None:
    """Refuse a launch whose ``XBLOCK x R0_BLOCK`` tile gives a thread of its ``num_warps`` more than
    :data:`MAX_ELEMENTS_PER_THREAD` elements.

    Raises:
        LaunchBoundError: naming the tile, the warps and the override keys that set them (none: the rules chose it).
    """
    per_thread = launch.XBLOCK * launch.R0_BLOCK // (32 * launch.num_warps)
    if per_thread <= MAX_ELEMENTS_PER_THREAD:
        return
    source, asked = _who_chose(override, ("XBLOCK", "R0_BLOCK", "num_warps", "TILES_PER_PROGRAM", "RSPLIT"))
    raise LaunchBoundError(f"the fused launch's tile XBLOCK x R0_BLOCK = {launch.XBLOCK} x {launch.R0_BLOCK} on "
                           f"{launch.num_warps} warp(s) gives each thread {per_thread} elements, more than "
                           f"{MAX_ELEMENTS_PER_THREAD} (the largest tile of the launch rules; past it the tile spills "
                           f"and compiles slowly): fewer elements or more warps; {source}", from_override=asked)


def check_workspace(launch: LaunchConfig, rows: int, cols: int, widest: int, reductions: int,
                    override: dict[str, int]) -> None:
    """Refuse a launch whose partials and semaphore words (:func:`workspace_bytes`) exceed
    the bound: :data:`MAX_WORKSPACE_FRACTION` of the bytes of ``x [rows, cols]`` in its widest dtype, or two programs'
    partials, or :data:`MIN_WORKSPACE_BOUND_BYTES`, whichever is most (:func:`workspace_bound`).

    Raises:
        WorkspaceBoundError: naming the bytes, the bound and the launch (with the override, if one set RSPLIT,
            TILES_PER_PROGRAM or R0_BLOCK).
    """
    need = workspace_bytes(launch, cols, widest, reductions)
    x_bytes = rows * cols * widest
    bound = workspace_bound(rows, cols, widest, reductions)
    if need <= bound:
        return
    source, asked = _who_chose(override, ("RSPLIT", "TILES_PER_PROGRAM", "R0_BLOCK"))
    raise WorkspaceBoundError(f"the fused launch RSPLIT={launch.RSPLIT} over x [{rows}, {cols}] ({reductions} reduction(s)) "
                     f"needs {need} bytes of partials and semaphores, over the bound of {bound} bytes "
                     f"(the most of {MAX_WORKSPACE_FRACTION:.0%} of x's {x_bytes} bytes, two programs' partials and "
                     f"{MIN_WORKSPACE_BOUND_BYTES} bytes); {source}", from_override=asked)


def wide_fp8_cast(cols: int, rows: int, narrowest: int, widest: int, reductions: int, num_sms: int) -> bool:
    """True for the wide cast of f32 to fp8 that takes the row-tile grid (:class:`RowTileGrid`) with a static N as
    with a dynamic one (``rows``: its hint), where its partials allow it (flagged, ``choices``) and N is even (a
    vectorizable dynamic N): 1-byte and 4-byte full-size tensors, one reduction, an even C of at least
    ``WIDE_TILE_SCALE * num_sms * 64`` columns (the wide path of f32), and more than :data:`FP8_GRID_MIN_ROWS` rows.
    From the H200 runs of :data:`FP8_VECTOR_COLS` and :data:`DYNAMIC_ROW_TILE_MIN_BYTES`; the post-grad pass asks it
    too (``expects_row_tiles``)."""
    return (narrowest == 1 and widest == 4 and reductions == 1 and cols % 2 == 0 and rows > FP8_GRID_MIN_ROWS
            and cols >= WIDE_TILE_SCALE * num_sms * XBLOCK_BY_WIDEST[4])


class RowTileGrid(GridExpr):
    """The grid of a fused kernel with one program per row tile of a dynamic N: ``(ceil(N / R0_BLOCK),
    ceil(C / XBLOCK))``, computed from the kernel's ``r0_numel`` and ``xnumel`` arguments at each launch (Inductor's
    ``CooperativeReductionGrid`` launches the config's constant ``RSPLIT``).  The kernel takes its ``RSPLIT`` from
    the grid (``codegen/triton.py``, ``row_tile_grid``).  Registered by name where Inductor looks grid types up
    (``_torch_private.register_grid_type``)."""

    def generate(self, meta: dict[str, int], is_lazy: bool = False) -> None:
        # is_lazy: torch 2.15 passes it (True where meta's values are names of the autotuner's result, not ints);
        # torch 2.11 never does.  The grid is the same expression either way.
        self.x_grid = self.ceildiv("r0_numel", meta["R0_BLOCK"])
        self.y_grid = self.ceildiv("xnumel", meta.get("XBLOCK"))


class FinishGrid(GridExpr):
    """The grid of the finish kernel of the separate finish (``codegen/triton.py``, ``finish_kernel_source``): one
    program a column block, ``(1, ceil(C / XBLOCK))``.  Registered as :class:`RowTileGrid` is."""

    def generate(self, meta: dict[str, int], is_lazy: bool = False) -> None:
        self.x_grid = 1
        self.y_grid = self.ceildiv("xnumel", meta.get("XBLOCK"))


def _persistent_tile(rows: int, rsplit: int, rblock: int) -> tuple[int, int]:
    """(R0_BLOCK, RSPLIT) of the persistent one-tile kernel.  Its tile is all of a program's rows,
    ``ceil(N / RSPLIT)`` to the next power of two (Inductor computes it so in the kernel, from RSPLIT); where the
    partials budget capped RSPLIT below ``ceil(N / R0_BLOCK)`` that is more than R0_BLOCK, and RSPLIT then shrinks to
    the programs that get rows.  bf16[8191, 1021]: RSPLIT 81 with 128-row tiles, of which 17 programs a column block
    got none, becomes RSPLIT 64 (review, 2026-11-30).  The tile grows to at most twice ``rblock`` (that
    case, measured); beyond, RSPLIT passes the budget, which only a small N meets (bf16[129, 17]: one program of 256
    rows, 64 elements a thread, becomes two of 128)."""
    rsplit = max(rsplit, -(-rows // (2 * rblock)))
    rblock = next_power_of_2(-(-rows // rsplit))
    return rblock, -(-rows // rblock)


def _tiles_per_program(per_thread: int, heavy: bool, copy: bool, reductions: int, one_byte: bool,
                       few_splits_or_large: bool, odd_rows_f32: bool = False) -> int:
    """Row tiles a program (0: one wave of looping programs).  One tile a program for a single reduction with scalar
    tiles (odd C and N), few one-wave splits or a large tensor, for a plain copy with one odd extent and for f32 rows
    of a static odd N (``odd_rows_f32``: only C 16-byte aligned); two for several reductions with scalar tiles; one
    wave for a heavy producer, a 1-byte tensor (an fp8 output) and everything else (``launch_config`` then gives a
    narrow C row tiles, "a narrow C" above)."""
    if heavy or one_byte:
        return 0
    if per_thread == SCALAR_ELEMENTS_PER_THREAD:
        return 1 if reductions == 1 else SCALAR_TILES_PER_PROGRAM
    if per_thread == HALF_SCALAR_ELEMENTS_PER_THREAD and copy:
        return HALF_SCALAR_COPY_TILES_PER_PROGRAM
    if per_thread == HALF_SCALAR_ELEMENTS_PER_THREAD and odd_rows_f32:
        return ODD_ROWS_F32_TILES_PER_PROGRAM
    return 1 if few_splits_or_large and reductions == 1 else 0


def _dynamic_tiles(tiles: int, row_tile_grid: bool, scalar: bool, row_tiles_win: bool) -> int:
    """Row tiles a program with a dynamic N, from ``tiles``, a static N's.  With the row-tile grid: one where a static
    N takes one, and where ``row_tiles_win`` though a static N keeps one wave (an aligned 16-bit kernel of one
    reduction, :data:`DYNAMIC_ROW_TILE_MIN_BYTES`; a wide fp8 cast).  Without it, where a static N takes one:
    :data:`DYNAMIC_TILES_PER_PROGRAM` looped tiles (:data:`DYNAMIC_SCALAR_TILES_PER_PROGRAM` for the scalar tile)."""
    if row_tile_grid:
        return 1 if row_tiles_win else tiles
    if tiles == 1:
        return DYNAMIC_SCALAR_TILES_PER_PROGRAM if scalar else DYNAMIC_TILES_PER_PROGRAM
    return tiles


def _elements_per_thread(scalar_cols: bool, scalar_rows: bool, heavy: bool) -> int:
    """The cap on tile elements per thread (0: none), from the scalar directions (odd C, odd N) and the producer."""
    if heavy:
        return HEAVY_ELEMENTS_PER_THREAD
    if scalar_cols and scalar_rows:
        return SCALAR_ELEMENTS_PER_THREAD
    if scalar_cols or scalar_rows:
        return HALF_SCALAR_ELEMENTS_PER_THREAD
    return 0


def _shrink(xblock: int, rblock: int, elements: int, scalar_loads: bool) -> tuple[int, int]:
    """Halve the tile until it has at most ``elements``: XBLOCK first if loads are scalar, else R0_BLOCK."""
    while xblock * rblock > elements:
        if xblock > SHRINK_FLOOR and (scalar_loads or rblock <= SHRINK_FLOOR):
            xblock //= 2
        elif rblock > SHRINK_FLOOR:
            rblock //= 2
        else:
            break
    return xblock, rblock


def _rsplit(cols: int, rows: int, itemsize: int, target_programs: int, xblock: int, rblock: int,
            tiles_per_program: int = 0) -> int:
    """RSPLIT for one wave of ``target_programs`` programs, or for ``tiles_per_program`` row tiles a program if set;
    either way within the partials budget."""
    col_blocks = -(-cols // xblock)
    row_blocks = -(-rows // rblock)
    # partials bytes 4*RSPLIT*C (read once) <= fraction * bytes of x (rows*cols*itemsize of the widest input)
    partial_budget = int(MAX_PARTIALS_FRACTION * rows * itemsize / 4)
    if tiles_per_program:
        return max(1, min(-(-row_blocks // tiles_per_program), partial_budget))
    fill = target_programs // col_blocks  # rounded down: the grid stays within one wave
    return even_rsplit(max(1, min(fill, MAX_RSPLIT, row_blocks, partial_budget)))


def even_rsplit(rsplit: int) -> int:
    """``rsplit`` rounded down to even above :data:`EVEN_RSPLIT_ABOVE`, so that the finish's partials rows are 8-byte
    aligned (one wave's RSPLIT, and the grid-barrier kernel's cap in ``choices``)."""
    return rsplit - rsplit % 2 if rsplit > EVEN_RSPLIT_ABOVE else rsplit
