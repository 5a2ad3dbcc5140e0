"""Launch configuration of the fused reduction–transpose kernel: tile shape, ``RSPLIT``, warps.

The kernel (see :mod:`reduction_transpose_fusion.codegen.triton`) runs on a grid of ``RSPLIT x ceil(C / XBLOCK)``
programs.  Program ``(s, j)`` owns columns ``[j*XBLOCK, (j+1)*XBLOCK)`` and rows ``[s*chunk, (s+1)*chunk)`` of
``x [N, C]``, where ``chunk`` is ``ceil(N / R0_BLOCK / RSPLIT) * R0_BLOCK``; it streams ``[XBLOCK, R0_BLOCK]`` tiles,
writing each tile transposed and accumulating column partials, then one program of each column block sums the
``RSPLIT`` partials in a fixed order: the last to arrive (an atomic ticket) for one-wave launches, the last in launch
order for row-tile launches (it waits only for peers that started before it).  Unlike Inductor's cooperative
reductions the grid has no residency limit.

Rules, each from the H200 sweep recorded in ``benchmarks/results/`` (see README, "How the launch is chosen"):

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

import contextlib
import contextvars
import dataclasses
import math

from torch._inductor.runtime.runtime_utils import next_power_of_2
from triton.language import TRITON_MAX_TENSOR_NUMEL

from .._torch_private import GridExpr

# The tile.  Inductor computes in fp32 whatever the storage dtype, so registers go by elements: 8192 elements on
# 4 warps is 64 fp32 registers of tile data per thread.  XBLOCK (the loaded rows' contiguous run) is set by the
# widest tensor, R0_BLOCK (the transposed store's run) by the narrowest, 256 bytes of it.  Against the first H200
# sweep (benchmarks/results/sweeps/2026-11-29-h200-sweep1.csv) this gives the best launch or one within noise of
# it at every large shape: f32 X64 R64 (1.09-1.11x copy SOL), bf16 X64 R128 (1.15-1.18x), bf16 -> fp8 X64 R128
# (1.26x; best 1.24x).  Four warps beat eight for bf16 by 2-9%.
TILE_ELEMENTS = 8192
NUM_WARPS = 4
STORE_RUN_BYTES = 256
XBLOCK_BY_WIDEST = {1: 128, 2: 64, 4: 64, 8: 32}
# When the column blocks alone are two waves of SMs (C >= 2 * SMs * XBLOCK, e.g. a 30522-word vocabulary), a wider
# tile with 8 warps and few programs is better: f32[4096, 30522] ran at 1.20x SOL with X128 R64 w8 against 1.25x
# with X64 R64 w4 (any RSPLIT); its fp32 -> fp8 cast-transpose at 1.48x with X128 R128 w8 RSPLIT 2 and 1.95x with
# RSPLIT 5 (benchmarks/results/sweeps/2026-11-29-h200-sweep-f5.csv).  No row split: the column blocks alone are two
# waves or more, and bf16[4096, 30522] ran at 1.26x SOL with RSPLIT 1 against 1.49x with 2 (waves sweep).
WIDE_TILE_SCALE = 2
# Programs per SM for RSPLIT: one wave of resident programs, rounded down, so that every program is resident at
# once and all finish together (a memory-bound grid a little over one or two waves ends in a tail of few programs).
# From the H200 waves sweep (benchmarks/results/sweeps/2026-11-29-h200-sweep-waves.csv, 26 corpus cases at 3 or 4
# programs per SM, one or two waves): plain copies (no producer op, one reduction; most compile to ~128 registers a
# thread, so 4 programs of 4 warps are resident) at 4 per SM, kernels with a producer or a second reduction (up to
# 168 registers, 3 resident) at 3 per SM; bf16 -> fp8 [8192, 4096] ran at 1.17x copy SOL against 1.26x at 4 per SM.
# Against the previous rule (ceil of 8 per SM) the corpus's fused cases went from 1.22x to 1.16x copy SOL in geomean
# (superseded/2026-11-29-h200-corpus-run5.csv against -run3.csv).  The scalar and heavy tiles below have 4 per SM.
COPY_PROGRAMS_PER_SM = 4
PROGRAMS_PER_SM = 3
# The cast of f32 to fp8 on one wave (4-byte loads and 1-byte stores on the X64 R128 tile: 64 f32 elements a thread,
# loaded and accumulated) compiles to 212-224 registers wherever a program loops over more than one row tile or masks
# rows (ptxas, sm_90a, CPU; 122-128 for exactly one full row tile a program), so 2 programs of 4 warps are resident,
# not PROGRAMS_PER_SM's 3, and its one-wave grid of 300-384 programs ran as 1.1-1.5 waves.  In the H200 residency
# sweep (sweeps/2026-12-01-h200-sweep-residency.csv; x copy SOL, the 3-an-SM RSPLIT twice, then 2 an SM, then two
# waves of 2): [3152, 3072] 1.364, 1.394 -> 1.132 (1.293); [4096, 3072] 1.206, 1.210 -> 1.123 (1.095); [6144, 3072]
# 1.234, 1.245 -> 1.131 (1.168); [3152, 768] 1.256, 1.259 -> 1.173 (1.321); [8192, 1024] 1.289, 1.300 -> 1.104
# (1.161).  Measured with one reduction and N static; a dynamic N always masks rows (218 registers, ptxas).
FP8_CAST_PROGRAMS_PER_SM = 2
# The one-wave RSPLIT's cap, and every kernel's whose reductions are not all sum, max or min: for those the last
# program loads all XBLOCK x RSPLIT partials at once (choices.py caps them; codegen/triton.py chunks the others).
MAX_RSPLIT = 64
# 2%: mid-size inputs are limited by the budget rather than by the wave (fp16[2048, 2048] ran at 1.03x SOL with
# 16 row splits, partials 1.6% of the input, against 1.21x with the 10 that 1% allowed; waves sweep).
MAX_PARTIALS_FRACTION = 0.02
# Smallest tile edge: one warp's 32 lanes, so a small C or N never leaves lanes masked off in both directions.
MIN_BLOCK = 16
# Two or more reductions in a 16-bit kernel (LayerNorm backward's two sums, amax + sum): each adds an fp32
# accumulator tile and a partials row per program, and the sweep of four such shapes (bf16[1024, 4096],
# fp16[3152, 3072], bf16[8192, 4096], fp16[8192, 768]; benchmarks/results/sweeps/2026-11-29-h200-sweep-two.csv)
# was best or within 6% of best at R0_BLOCK 64 (1.64, 1.22, 1.32, 1.14x copy SOL), against 1.86, 1.54, 1.40, 1.32x
# with the one-reduction rules in the corpus run.
MULTI_REDUCTION_R0_BLOCK = 64
# Registers per element.  A 16-byte-aligned row gives vector loads or stores that share one address among 4-16
# elements; an odd C (or N) leaves every access along that direction a scalar with its own 64-bit address and mask,
# and a long producer (ops per element, e.g. a GELU backward's ~60 with its tanh) keeps many temporaries live and
# issues ~30 FP instructions an element.  Such kernels get fewer elements per thread, so that 4 programs stay
# resident and none spills.  From two H200 sweeps of the cases the old tiles ran farthest from SOL
# (benchmarks/results/sweeps/2026-11-29-h200-sweep-odd.csv, then -check and -tune; registers from the compiled
# kernels):
# * odd C and odd N, f32[25229, 3067]: X64 R64 w4 (32 a thread, 182 registers) 3.13x copy SOL, X32 R64 w4 (16 a
#   thread, 94) 1.80x; bf16[8191, 1021] with a producer: X64 R128 (64, 219) 2.18x, X32 R64 (16, 80) 1.72x;
# * odd C only, bf16[8192, 50257] (wide): X128 R128 w8 (64, 197) 1.85x, X64 R128 w8 (32, 80) 1.54x;
# * a GELU backward producer, bf16[25216, 3072]: X64 R128 w8 (32, 205) 3.55x, X64 R32 w4 (16, 114) 1.76x,
#   X64 R32 w8 (8 a thread) 1.63x; bf16[32768, 11008]: X64 R32 w4 1.82x, X64 R32 w8 1.66x.  Heavy kernels keep
#   twice the warps, so 8 elements a thread is the same tile.
# Scalar loads gain nothing from a long load run, so XBLOCK shrinks first (down to one warp's 32 lanes); with vector
# loads R0_BLOCK does (GELU: X64 R32 1.76x against X32 R64 1.96x).
HEAVY_ELEMENTS_PER_THREAD = 8  # a heavy producer
SCALAR_ELEMENTS_PER_THREAD = 16  # odd C and odd N
HALF_SCALAR_ELEMENTS_PER_THREAD = 32  # odd C or odd N
HEAVY_OPS = 32
# Transcendental producers count as heavy whatever their op count (special-function units, long dependency chains,
# libdevice's branches); only GELU backward was measured, and ``pow`` counts even where Inductor emits x * x.
# Not measured either: the odd-extent test looks at C and N only, so fp8 rows with C = 2 mod 4 (2-byte aligned) get
# the plain tile.
TRANSCENDENTAL = frozenset({
    "gelu", "gelu_backward", "tanh", "tanh_backward", "erf", "erfc", "exp", "exp2", "expm1", "log", "log1p",
    "log2", "sigmoid", "sigmoid_backward", "silu", "silu_backward", "sin", "cos", "pow",
})
SHRINK_FLOOR = 32  # a shrunk tile edge stays one warp's 32 lanes wide
# One row tile a program.  A grid of many short programs keeps more loads in flight than one wave of looping ones,
# once two costs are gone (codegen/triton.py): the ticket (an atomic round trip in every program, 4-25% in the lab
# whatever its memory ordering; lab/2026-11-30-h200-lab-fence.csv), replaced by flagged partials and the launch-order
# finisher; and the [XBLOCK, R0_BLOCK] fp32 accumulator of the looped kernel (a bf16 tile at 90-94 registers instead
# of 64), gone in the persistent kernel one tile a program compiles to.  In the H200 spin sweep of 32 shapes
# (sweeps/2026-11-30-h200-sweep-spin-persistent.csv; one wave, then one tile a program, fused / copy SOL):
# * few one-wave splits (one wave would give RSPLIT <= FEW_SPLITS, or the wide path): bf16[8192, 14336] 1.162 ->
#   1.101, bf16[32768, 14336] 1.200 -> 1.140, bf16[4096, 30522]
#   1.265 -> 1.135, f32 a * b + 1 [2048, 50257] 1.262 -> 1.071, odd C bf16[8192, 50257] 1.534 -> 1.273; bf16
#   a * b + 1 [8192, 11008] 1.154 -> 1.162 (a tie);
# * odd C and odd N (the scalar tile, 16 elements a thread): bf16[8191, 1021] 1.630 -> 1.339 (two tiles a program,
#   the previous rule: 1.634), f32[25229, 3067] 1.777 -> 1.545 (1.776), a * b + 1 over bf16[8191, 1021] 1.551 ->
#   1.571 (1.557, a tie);
# * but with many one-wave splits (C = 3072 or 768: 48 or 12 column blocks, RSPLIT 8-16) one wave stayed 3-14%
#   faster, and kernels with two reductions 6-51%, with an fp8 output 1-12% and with a GELU backward 2.6x;
# * between the two (sweeps/2026-11-30-h200-sweep-spincheck.csv, one run) two aligned copies also gained:
#   bf16[8192, 8192] (one wave: RSPLIT 4) 1.187 -> 1.149, bf16[16384, 6144] (RSPLIT 5) 1.152 -> 1.130, and one RSPLIT-6
#   kernel, fp32 -> bf16 [32768, 4096] 1.101 -> 1.078, while RSPLIT-8 ones lost (fp16[8192, 4096] flattened 1.151 ->
#   1.183, a * b + 1 over fp16[4096, 3072] 1.020 -> 1.133).  FEW_SPLITS stays 2: at 5 it would also move a * b + 1
#   over bf16[8192, 4095] (one odd extent, RSPLIT 3), for which one wave was 5% faster than the looped one-tile kernel
#   (oddcheck sweeps); the persistent one, measured once since, gained (ONE_TILE_MIN_BYTES below), and the tensors of
#   RSPLIT 4-6 above are 128 MiB or more, so the large-tensor rule now takes them.
# Several reductions with scalar tiles keep two row tiles a program (the looped kernel), the rule before this one:
# bf16[8191, 1021] at 1.78x copy SOL against 2.73x for one wave (sweeps/2026-11-30-h200-sweep-onetile.csv).  Not
# for a 1-byte full-size tensor (an fp8 output; int8 too, not measured): the fp8 cast of bf16[4099, 769] ran at 1.58x
# copy SOL with two tiles a program in the corpus run (2026-11-30-h200-corpus.csv of package 7f6ba3da; 1.55-1.70x with
# one, two or four in the oddcheck sweeps) against 1.34x with one wave (superseded/2026-11-30-h200-corpus-run6.csv).
FEW_SPLITS = 2
# Once the flagged finish was two-level (FINISH_GROUP below), one row tile a program beat one wave on large aligned
# kernels too (sweeps/2026-11-30-h200-sweep-fewsplits.csv, one wave -> one tile, x copy SOL): f32 -> bf16 [32768,
# 4096] 1.098 -> 1.039, a * b + 1 over f32[25216, 3072] 1.091 -> 1.040, f32[25216, 3072] 1.094 -> 1.077,
# bf16[8192, 8192] 1.173 -> 1.142, bf16[16384, 6144] 1.153 -> 1.135, bf16[65536, 1024] 1.282 -> 1.134; a tie on
# bf16[25216, 3072] (1.141 / 1.145) and a * b + 1 over bf16[65536, 1024] (1.149 / 1.146).  On kernels of 64 MiB tensors
# or less one wave stayed faster: fp16[8192, 4096] flattened 1.128 / 1.156, a * b + 1 over fp16[4096, 3072] 1.043 /
# 1.147, f32[3152, 3072] 1.035 / 1.061, f32[4096, 768] 1.035 / 1.092 (the finish's fixed tail weighs more on a short
# kernel).  The threshold sits between the largest loss (64 MiB) and the smallest gain (128 MiB), in bytes of the
# widest full-size tensor.  Left alone: a * b + 1 over bf16[8192, 4095] (64 MiB, one odd extent, one-wave RSPLIT 3)
# gained too in this one run (1.484 -> 1.401); the rule leaves it on one wave.
ONE_TILE_MIN_BYTES = 96 << 20
# The large-tensor rule's one exception to fp8 outputs' one wave (launch_config's `one_byte`): a cast from f32 (4-byte
# loads, 1-byte transposed stores) of a large tensor (ONE_TILE_MIN_BYTES of f32 or more), aligned, off the wide path,
# takes one row tile a program like the other large kernels.  Its one-wave kernel compiles to 212 registers, so fewer
# programs than the wave's 3 an SM are resident; the persistent one-tile kernel to 117.  In the H200 fp8b sweep
# (sweeps/2026-11-30-h200-sweep-fp8b.csv; one wave, twice, then one row tile a program, x copy SOL): f32 -> fp8 [25216,
# 3072] 1.349, 1.369 -> 1.141, [32768, 4096] 1.391, 1.391 -> 1.134, [8192, 8192] 1.382, 1.385 -> 1.159.  Under 96 MiB it
# was mixed ([3152, 768] 1.24 -> 1.16, [4096, 768] 1.06 -> 1.12, [8192, 1024] 1.27 -> 1.31), with odd C and N a tie
# ([25229, 3067] 2.47 -> 2.49), and the bf16 -> fp8 casts were no faster with one row tile a program (spin sweep) or any
# other tile tried (bigtile, fp8 sweeps).
# The persistent one-tile kernel of 16-bit tensors takes a 128 x 128 tile (4 warps: 121-124 registers for a copy,
# 189-195 for a * b + 1, so 4 or 2 programs an SM) instead of 64 x 128 when the kernel moves a lot.  In the H200
# bigtile2 sweep (sweeps/2026-11-30-h200-sweep-bigtile2.csv; x copy SOL, X64 measured twice, its runs 0.1-1.9% apart,
# then X128) every kernel moving 384 MiB or more gained but one, a tie: a * b + 1 over bf16[8192, 11008] 1.144, 1.143
# -> 1.065, [32768, 4096] 1.103, 1.106 -> 1.038, [25216, 3072] 1.145, 1.156 -> 1.092, [65536, 1024] 1.130, 1.147 ->
# 1.087; copies bf16[32768, 14336] 1.106, 1.108 -> 1.063, [32768, 4096] 1.137, 1.135 -> 1.086, [16384, 6144] 1.149,
# 1.150 -> 1.121; bf16[8192, 14336] 1.100, 1.098 -> 1.105 (448 MiB, the tie).  Kernels moving 296 MiB or less did not
# gain: bf16[25216, 3072] 1.118, 1.132 -> 1.130 (296 MiB), [8192, 8192] 1.145, 1.146 -> 1.175 and [65536, 1024] 1.110,
# 1.131 -> 1.149 (256 MiB).  The threshold sits between.  Elsewhere it lost or was not measured (bigtile sweep): f32
# (X128 12% slower; X64 R128 0.6-2% faster than X64 R64, left alone), fp8 outputs (up to 14% slower), two reductions,
# 8 warps (1.26-2.3x copy SOL), one-wave shapes; the wide path on 4 warps was within 1.1% of its 8, and odd extents,
# dynamic sizes and int16 were not measured.
BIG_TILE_XBLOCK = 128
BIG_TILE_R0_BLOCK = 128
BIG_TILE_MIN_MOVED_BYTES = 320 << 20
# Programs a group of the two-level flagged finish (codegen/triton.py), so one tile a program with RSPLIT > 64 has a
# finisher that reads ceil(RSPLIT / 64) words a column, not RSPLIT: in the H200 group sweep
# (sweeps/2026-11-30-h200-sweep-group.csv; groups of 16, of 64, one level) groups of 64 were best or within 1% on 9 of
# 12 one-tile shapes: f32[25216, 3072] 1.160 -> 1.075x copy SOL (16: 1.104), f32[25229, 3067] 1.565 -> 1.424 (1.417),
# bf16[32768, 14336] 1.124 -> 1.109 (1.144), f32 -> bf16 [32768, 4096] 1.075 -> 1.044 (1.043); at RSPLIT 32-64 one
# level, which 64 keeps, was 3-9% faster than groups of 16 (a group's last program waits for the programs before it,
# holding its SM slot).  Groups of 16 were 2-4% faster on the two short (20-30 us) bf16[8191, 1021] kernels.
FINISH_GROUP = 64
# The large-tensor rule holds only while one tile a program leaves at most FINISH_GROUP ** 2 programs a column block,
# so that the two-level finish reads at most FINISH_GROUP words a column at each level (measured up to RSPLIT 512; a
# tall, narrow tensor such as f32[12582912, 2] would give RSPLIT 196608 and a finisher reading 3072 group words), and
# only with a static N: a dynamic N gets the looped one-tile kernel (133-175 registers against 63-66; not measured),
# so it keeps one wave (review, 2026-11-30).
MAX_ONE_TILE_RSPLIT = FINISH_GROUP * FINISH_GROUP
# Looped kernels with small tiles (at most 16 elements a thread: a heavy producer's, or two reductions with odd C and
# N) whose full-size tensors are all 16-bit prefetch the next row tile into registers (codegen/triton.py,
# prefetch_row_loop): with few elements a thread, a warp has nothing in flight while it computes a tile and stores it
# transposed.  From four H200 sweeps (sweeps/2026-11-30-h200-sweep-{prefetch,prefetch2,checks,prefetchcheck}.csv;
# prefetch off -> on, x copy SOL; registers from the compiled kernels):
# * 16-bit, all gains: GELU backward (8 elements a thread, 8 warps) bf16[25216, 3072] 1.590 -> 1.275 (1.269 in a
#   second sweep), bf16[32768, 11008] 1.670 -> 1.364 (1.364), fp16[8192, 4096] 1.627 -> 1.316, bf16[8191, 1021]
#   (odd) 2.312 -> 1.787; two reductions with odd C and N (16 elements a thread, two row tiles a program): LayerNorm
#   backward bf16[8191, 1021] 1.757 -> 1.567, amax + sum bf16[8191, 1021] 2.283 -> 1.985.  The heavy tile stayed
#   best with the prefetch (16 elements a thread, 4 warps, or RSPLIT 2-16: 1.38-3.07x);
# * f32, mixed: GELU backward f32[512, 1024] 1.251 -> 1.206, f32[4096, 3072] 1.118 -> 1.152 (89 registers against
#   64: an f32 heavy kernel already needs the 64 that 4 programs of 8 warps allow), LayerNorm backward f32[25229,
#   3067] 1.901 -> 1.887;
# * an fp8 output, losses: fp32 -> fp8 [25229, 3067] 2.571 -> 3.230 (slower than stock), bf16 -> fp8 [4099, 769]
#   1.351 -> 1.373 (a cast, no arithmetic to hide the loads behind); but a GELU backward of 16-bit loads into fp8
#   copies (the heavy tile: 8 elements a thread, 8 warps), the Float8Linear MLP's layer-1 backward at bf16[16384,
#   4096] in a real tensorwise step, took 238 µs prefetched against 375 µs (the step 4.197 against 4.347 ms; the
#   launch lab of 2026-12-02, lab/2026-12-02-h200-lab-steps-tensorwise.csv), so heavy kernels with 16-bit loads
#   prefetch whatever they store;
# * looped kernels of 32-64 elements a thread: 8 of 10 lost 4-18% (two reductions, fp8 casts, short aligned copies:
#   registers from 120-164 to 156-254), two short ones gained 4% (LayerNorm backward fp16[8192, 768] 1.148 -> 1.106,
#   amax + sum bf16[1024, 4096] 1.419 -> 1.366); at 8 warps (half the elements a thread), with or without the
#   prefetch, none of six beat its default by more than 0.7% (bf16 -> fp8 [32768, 11008] without it: 1.258 against
#   1.267), and the rest were 4-31% slower.  The persistent kernel (one row tile a program) has no loop to prefetch,
#   and the looped one (one row tile a program with a dynamic N) would load its one tile twice: neither does.
PREFETCH_MAX_ELEMENTS_PER_THREAD = SCALAR_ELEMENTS_PER_THREAD
PREFETCH_ITEMSIZE = 2
# Inductor gives the loads of a looped reduction the evict_first hint (L2 evict-first policy); the persistent kernel
# and the row-tile grid's have none.  A looped kernel that moves at least this many bytes (``moved`` x N x C: the
# full-size tensors' bytes from or to memory; with N dynamic, at N's size hint, decided at compile time) drops it
# (codegen/triton.py, cache_hints).  From the H200 hints3 sweep (sweeps/2026-12-01-h200-sweep-hints3.csv: 32 looped
# one-wave kernels of the corpus, main and held-out suites and one persistent kernel as a control, a warm-up launch,
# then the hint and no hint alternated three times; fused time without / with the hint, medians):
# * 128-2064 MiB moved, 17 looped kernels: 14 faster, bf16 -> fp8 [8192, 4096] (128 MiB) 0.975, [25216, 3072] 0.952,
#   [32768, 11008] 0.962, four more 0.956-0.961; LayerNorm backward bf16[8192, 4096] 0.960, bf16[65536, 1024] 0.935,
#   f32[25216, 768] 0.969, f32[25216, 3072] 0.957, f32[32768, 4096] 0.955, f32[4096, 30522] 0.935; GELU backward
#   bf16[32768, 11008] 0.954.  Ties on a plain copy and a * b + 1 (0.999, 1.002); one slower, GELU backward
#   bf16[25216, 3072] (443 MiB), 1.007;
# * 16-111 MiB, 15 looped kernels: 7 slower, up to 72 MiB (all but a * b + 1 beyond the spread of their timings):
#   LayerNorm backward f32[4096, 768] 1.041, fp16[8192, 768] 1.037; fp32 -> fp8 [4096, 3072] 1.045, [3152, 3072]
#   1.048; bf16 -> fp8 [4096, 3072] 1.029; a * b + 1 fp16[4096, 3072] 1.030; amax + sum fp16[3152, 3072] 1.027.
#   LayerNorm backward f32[3152, 3072] (111 MiB) 1.010, within its 3.4% spread (0.994 with N dynamic); ties
#   elsewhere (0.990-1.003).
# The threshold sits between 111 and 128 MiB.  With N dynamic (-hints4-dynamic.csv, the same protocol, 10 looped
# kernels of 111 MiB-1.4 GiB) 9 gained or tied: fp32 -> fp8 [25216, 3072] 0.918, LayerNorm backward bf16[8192, 4096]
# 0.962, f32[25216, 3072] 0.959, f32[25216, 768] 0.973, f32[3152, 3072] 0.994, amax + sum bf16[8192, 4096] 0.967,
# bf16 -> fp8 [32768, 4096] 0.956, [8192, 4096] 0.982, GELU backward bf16[25216, 3072] 0.984; the wide LayerNorm
# backward f32[4096, 30522] lost, 1.005 (0.98x of stock either way), so the wide path keeps the hint with a dynamic
# N.  Streaming stores (cache_modifier='.cs') lost on 15 of 19 kernels in the first sweep (-hints.csv; up to 10%):
# not a rule.
NO_EVICT_FIRST_MIN_MOVED_BYTES = 120 << 20
SCALAR_TILES_PER_PROGRAM = 2
# One odd extent (half-scalar tile, 32 elements a thread) in a plain copy (no producer op, one reduction): one row
# tile a program (then looped, with the ticket) ran bf16[8191, 4096] at 1.74x copy SOL against 1.98x for one wave,
# bf16[8192, 4095] at 1.36x against 1.50x and f32[8191, 4096] at 1.39x against 1.59x; with a producer (a * b + 1 over
# bf16[8192, 4095]) one wave stayed best, 1.49x against 1.57x (sweeps/2026-11-30-h200-sweep-oddcheck-run1.csv; run 2,
# -run2.csv: 1.72x against 2.00x, 1.36x against 1.54x, 1.40x against 1.63x).  Not measured since it became persistent.
HALF_SCALAR_COPY_TILES_PER_PROGRAM = 1
# f32 rows of an odd N (C 16-byte aligned) under a producer or two reductions, static N: one row tile a program (the
# persistent kernel) against one wave of looping programs, fused / copy SOL (sweeps/2026-12-01-h200-sweep-oddone.csv,
# defaults timed three times): a * b + 1 over f32[8191, 1024] 1.34x against 1.56-1.61x, [4097, 3072] 1.27x against
# 1.55-1.58x, [12289, 768] 1.21x against 1.46-1.49x; LayerNorm backward f32[8191, 1024] 1.28x against 1.48-1.50x; and
# the held-out a * b + 1 over f32[10007, 1000] 1.25x against 1.48-1.57x (-sweep-oddtile2.csv, X64 tiles).  Not for
# 16-bit (a * b + 1 over bf16[8191, 1024] and [4097, 3072]: 13% slower, 218-222 registers against 98-99), an fp8
# output (the f32 -> fp8 cast of [4095, 3072] 12% slower, of [8191, 1000] 16% faster) or a heavy producer (GELU
# backward f32[8191, 1024]: 3% faster, not swept further).  Only where it was measured: static C and N, off the wide
# path, not a narrow C (whose own rule, above, gives several row tiles a program), and 65-193 row tiles, so at most
# ODD_ROWS_F32_MAX_ROW_TILES (a review found a million odd rows taking 15626 programs a column block, whose
# two-reduction kernels finish by a ticket with no two-level grouping).
ODD_ROWS_F32_TILES_PER_PROGRAM = 1
ODD_ROWS_F32_MAX_ROW_TILES = 256
# A dynamic N has no persistent one-tile kernel of Inductor's (its tile would be a constexpr from N).  The package's
# own (RowTileGrid below) launches one program per row tile, however many N has.  Where that cannot be, a dynamic N
# takes 4 row tiles a program (2 with odd C and N), looped, where a static N takes one, and a large tensor does too.
# In the H200 dynamic sweep (sweeps/2026-11-30-h200-sweep-dynamic.csv; N dynamic with its divisibility guard; one
# tile, 2, 4 a program, x copy SOL), 4 tiles were best on every aligned or odd-C shape: bf16[8192, 50257] copy 2.02 -> 1.81
# (stock 1.87), bf16[4096, 30522] 1.98 -> 1.81, bf16[32768, 14336] 1.50 -> 1.30, a * b + 1 over bf16[8192, 11008]
# 1.45 -> 1.28, f32[2048, 50257] a * b + 1 1.54 -> 1.34, bf16[25216, 3072] 1.41 (one wave) -> 1.31; with odd C and
# N, 2 tiles: bf16[8191, 1021] copy 2.15 -> 1.48, its a * b + 1 1.78 -> 1.56 (4 tiles: 1.57).  The second sweep
# (sweep-dynamic2.csv) kept the rest on one wave: 2 or 4 tiles lost on the flattened 3-D inputs (fp16[8192, 4096]
# 1.46 -> 1.54-1.61) and LayerNorm backward f32[25216, 768] (1.27 -> 1.38-1.45), gained on fp16[2048, 2048] (1.20 ->
# 1.02) and fp16[4096, 3072] a * b + 1 (1.22 -> 1.19): mixed; 8 tiles were within 5% of 4 either way; f32[25216,
# 3072] tied (1.09-1.10) and the f32 -> bf16 cast of [32768, 4096] took 4 (1.19 against 1.32 for one wave).
DYNAMIC_TILES_PER_PROGRAM = 4
DYNAMIC_SCALAR_TILES_PER_PROGRAM = 2
# One program per row tile of a dynamic N (RowTileGrid; codegen/triton.py): its kernel is the persistent one's (64
# registers against the looped kernel's 128 for bf16[8192, 50257], sm_90a), where the looped one-wave kernel of a
# dynamic N ran 7-30% further from SOL than with N static (corpus-dynamic of package 7e0ebe3d).  In the H200 dynamic3
# sweep (sweeps/2026-11-30-h200-sweep-dynamic3.csv; row-tile grid twice, 4 looped tiles, one wave; x copy SOL) it was
# best on 10 of 11 shapes that a static N runs with one tile a program: bf16[8192, 50257] 1.393, 1.395 against 1.811
# and 2.097, bf16[4096, 30522] 1.247 against 1.814, bf16[32768, 14336] 1.145 against 1.294, a * b + 1 over
# bf16[8192, 11008] 1.137 against 1.273, bf16[25216, 3072] 1.158, 1.180 against 1.311, f32 a * b + 1 [2048, 50257]
# 1.190 against 1.311 (one wave), the f32 -> bf16 cast of [32768, 4096] 1.093 against 1.197, bf16[8192, 8192]
# 1.158, 1.190 against 1.338, odd C and N bf16[8191, 1021] 1.433, 1.443 against 1.455 (2 tiles) and its a * b + 1
# 1.477, 1.487 against 1.521; f32[25216, 3072] 1.107, 1.107 against 1.094 (4 tiles), a tie.  In the dynamic4 sweep
# (-sweep-dynamic4.csv; one wave twice, then the row-tile grid and 2 tiles) it also beat one wave for the aligned
# 16-bit kernels of one reduction that a static N keeps on one wave: fp16[8192, 4096] flattened 1.448, 1.512 -> 1.183,
# bf16[25216, 768] flattened 1.371, 1.420 -> 1.199, fp16[2048, 2048] 1.207, 1.221 -> 1.020, a * b + 1 over
# fp16[4096, 3072] 1.241, 1.270 -> 1.100, and tied on bf16[1024, 1024] (2 MiB: 1.004, 1.068 -> 1.068), so it starts
# at the smallest gain, 8 MiB; it lost for f32 (f32[4096, 768] 1.031, 1.033 -> 1.083, f32[3152, 3072] 1.044, 1.049
# -> 1.062; f32[2048, 1024] flattened a tie) and for fp8 outputs (bf16 -> fp8 [32768, 4096] 1.201, 1.214 -> 1.295,
# [25216, 3072] 1.173, 1.217 -> 1.270, [32768, 11008] 1.251, 1.252 -> 1.308), which keep one wave, but on the wide
# path: the fp32 -> fp8 cast of [4096, 30522] ran at 1.41x copy SOL with the grid against 2.05x with one wave
# (stock 2.44x; -sweep-dynamic5.csv).
DYNAMIC_ROW_TILE_MIN_BYTES = 8 << 20
# A static N takes the row-tile grid too for the wide cast of f32 to fp8 (:func:`wide_fp8_cast`), which the static rules
# otherwise keep on one wave (a 1-byte output) or leave to stock (rule 3b).  In the H200 profile of the 21 cases (19 of
# the corpus, 2 of the main job) whose kernel a dynamic N puts on the grid
# (profile/2026-12-01-h200-profile-kernels-run16.csv; static kernel twice, then the same static N on the grid, x
# copy SOL) the grid won on bert/F5-vocab-fp32 (the fp32 -> fp8 cast of [4096, 30522]: 1.507, 1.505 -> 1.272; stock
# 1.504), lost 1-6% on 13 (persistent one-tile kernels, one-wave 16-bit ones) and tied (within 1%) on 6; one odd-C-and-N
# producer read faster (a * b + 1 over bf16[8191, 1021] 1.68 -> 1.53), but that run's static readings of it were 12%
# above the corpus run's, where the grid's time would be no gain, and its copy lost 1.40 -> 1.48: no rule. The
# staticgrid sweep (sweeps/2026-12-01-h200-sweep-staticgrid.csv; one wave twice, the grid with the wide tile X128 w8,
# X64 w8, X64 w4) confirmed it on four wide casts: [4096, 30522] 1.524, 1.529 -> 1.285 (X64 w4 1.321), [8192, 30522]
# 1.573, 1.573 -> 1.305 (1.365), and with fp8 rows 16-byte aligned [2048, 32000] 1.282, 1.283 -> 1.290, X64 w4 1.185,
# [4096, 50304] 1.259, 1.259 (0.97x of stock) -> 1.208, X64 w4 1.127: so where C is a multiple of FP8_VECTOR_COLS the
# grid takes the plain X64 tile on 4 warps.  The same with N dynamic (sweeps/2026-12-01-h200-sweep-dynamicfp8.csv; the
# grid X128 w8 twice, then X64 w4): [2048, 32000] 1.311, 1.313 -> 1.227, [4096, 50304] 1.209, 1.209 -> 1.156, while
# [4096, 30522] lost (1.229, 1.234 -> 1.361) and [8192, 30522] too (1.286, 1.289 -> 1.415).
FP8_VECTOR_COLS = 16
# The cast's row tile (R0_BLOCK 128 of 1-byte stores): with no more rows than one tile the grid is one program per
# column block that still takes the flagged finish (RSPLIT 2 at the hint keeps it), which the wide path's one wave
# (RSPLIT 1) does not have.  Not measured either way (the runs above had N >= 2048; found by a review).
FP8_GRID_MIN_ROWS = 128
# With the sizes a dynamic N brings cast to int32 (LaunchConfig.int32_sizes) and the row-tile grid's kernel lighter
# (no division for its row chunk, no evict_first: codegen/triton.py), the dynamic6 sweep (-sweep-dynamic6.csv, 2026-12-01;
# the rule twice, one wave, the grid) kept every choice above: the grid stayed 6-42% faster than one wave where the
# rule takes it, tied on f32[25216, 3072] (1.106, 1.107 / 1.105), and one wave stayed within noise where the rule
# keeps it.
#
# Dynamic sizes cast to int32 (LaunchConfig.int32_sizes; the kernel's index dtype must be int32) for kernels of
# several reductions off the wide path only.  LayerNorm backward's one-wave kernels ran 13-21% slower with N dynamic
# than static, the source the same but for N's two int64 arguments, and with the cast as fast as static
# (profile/2026-12-01-h200-profile-kernels-run2.csv, one run, dynamic: int64 -> int32, x copy SOL): f32[32768, 4096]
# 1.333 -> 1.098 (static 1.101), f32[25216, 768] 1.305 -> 1.122 (1.125), bf16[8192, 4096] 1.436 -> 1.266 (1.260),
# f32[4096, 768] 1.294 -> 1.171 (1.160).  Elsewhere it lost (-profile-kernels-run5.csv, one run, int64 -> int32): f32
# a * b + 1 on one wave [4096, 3072] 1.071 -> 1.175 and [3152, 3072] 1.146 -> 1.280, the wide LayerNorm backward
# f32[4096, 30522] 1.383 -> 1.545 (0.88x of stock in superseded/2026-12-01-h200-main-dynamic-int32-everywhere.csv), and
# the row-tile grid's kernels (with the shifted last tile below) tied or lost: bf16[32768, 14336] 1.112 -> 1.117,
# fp16[8192, 4096] flattened 1.225 -> 1.288, bf16[25216, 3072] 1.143 -> 1.171, fp16[2048, 2048] 1.086 -> 1.089.
#
# The row-tile grid's last tile shifted to end at row N (LaunchConfig.shift_last_tile): its kernel then masks no load or
# store by row, and compiles to 53-70 registers against 111-121 with the mask (aligned 16-bit kernels, sm_90a, ptxas
# on CPU).  In the same run (-profile-kernels-run5.csv, masked -> shifted, both with int32 sizes) bf16[32768, 14336]
# ran at 1.205 -> 1.116x copy SOL (static 1.065), bf16[25216, 3072] 1.220 -> 1.170 (static 1.128), fp16[8192, 4096]
# flattened 1.269 -> 1.288 and fp16[2048, 2048] 1.059 -> 1.092; shifted with int64 sizes, the rule: 1.112, 1.143, 1.225
# and 1.086.  Not with a 1-byte tensor: the wide fp32 -> fp8 cast's kernel compiled to 215 registers shifted, 124 not.

# Two rules from the held-out suite (benchmarks/cases.csv, suite "holdout": shapes from models and odd extents that
# none of the sweeps above had; 2026-12-01-h200-holdout.csv found three kinds of site slower fused than stock) and the
# sweeps that followed (sweeps/2026-12-01-h200-sweep-holdout{1,smalln,2,3}[-dynamic].csv; x copy SOL, the rule's launch
# twice where it was not changed):
# * the wide one-tile kernel: one row tile a program (persistent, or the row-tile grid of a dynamic N) over a wide
#   tensor of 16-bit or f32 elements in 16-byte-aligned rows (one reduction, even N) runs on 4 warps, not the wide
#   path's 8: X128 R128 for 16-bit, X64 R64 for f32.  16-bit, persistent: a * b + 1 over bf16[8192, 18944] 1.422,
#   1.423 -> 1.053 (0.92x of stock -> 1.24x), bf16[4096, 28672] 1.433, 1.429 -> 1.060 (1.00x -> 1.35x),
#   fp16[4096, 32000] 1.284 -> 1.058; copies bf16[4096, 32000] 1.217 -> 1.101, [2048, 128256] 1.250 -> 1.108,
#   [1024, 151936] 1.150 -> 1.121 (holdout1; X64 w4 second on five of six); bf16[1024, 131072] 1.64 (holdoutsmalln)
#   -> 1.136 (holdout2, where a C 64 less ran alike: the power of two was not the cause).  On the grid
#   (holdout2dynamic, holdout3dynamic): a * b + 1 over bf16[8192, 18944] 1.331 -> 1.094, [4096, 28672] 1.346 ->
#   1.097, bf16[4096, 32000] 1.188 -> 1.095, [2048, 128256] 1.408 -> 1.272, [8192, 32768] 1.540 -> 1.072 (X64 w4
#   1.104), [1024, 131072] 1.78 (0.96x of stock) -> 1.35 (X64 w4 1.26, another run).  f32 (holdout2, holdout3; X128
#   R64 w8 -> X64 R64 w4): [8192, 16896] 1.590 -> 1.064 (0.73x of stock -> 1.08x), [1024, 262144] 1.588 -> 1.086,
#   [256, 262144] 1.616 -> 1.096, [64, 262144] 1.167 -> 1.069 (0.94x -> 1.03x), [4096, 32000] 1.125 -> 1.061,
#   [2048, 32128] 1.110 -> 1.070, a * b + 1 over [2048, 32000] 1.044 -> 1.026.  Rows not 16-byte aligned keep the
#   wide path's tile: f32[4096, 30522] (8-byte rows) lost 1.7% with X64 w4 (1.097 -> 1.116), bf16[4096, 30522] was
#   within 1.1% on either count (bigtile sweep).  Not where the persistent tile grew past R0_BLOCK 128 (a 16-bit N the
#   partials budget splits in fewer programs than row tiles, N of 130-398): X128 R256 on 4 warps, 256 elements a
#   thread, compiled to 255 registers and a 552-byte stack for bf16[130, 16896] (ptxas, sm_90a; a review).
# * a narrow C: where one wave's RSPLIT, capped at MAX_RSPLIT, would launch fewer programs than SMs (a C of one or two
#   column blocks) and there are more row tiles than that, a kernel of one reduction and no heavy producer that the
#   rules above keep on one wave takes one row tile a program, or the fewest that keep RSPLIT within MAX_ONE_TILE_RSPLIT
#   (with a dynamic N and no row-tile grid, those tiles looped, not DYNAMIC_TILES_PER_PROGRAM): bf16[1000000, 8] ran at
#   4.91x copy SOL on one wave (0.66x of stock, 64 programs), 1.74x with one tile a program and 1.43x with two (the
#   rule's, 2.27x faster than stock); f32[1000000, 8] 5.91 -> 1.55 (one), 1.20 (two) and 1.055 (four, the rule's, 2.35x
#   faster than stock; holdout2); a * b + 1 over bf16[1000000, 8] 6.65 -> 1.59 and 1.41 (two, the rule's); fp16[500000,
#   64] 2.34 -> 1.16 (one, the rule's; two 1.23) and bf16[200000, 128] 1.87 -> 1.11 (one, the rule's; two 1.20); in
#   holdout2, the bf16 -> fp8 cast of [1000000, 16] 4.23 (0.40x of stock) -> 1.29 (1.32x) and f32[12582912, 2] 25.3
#   (0.086x) -> 2.06 (1.05x; 48 tiles a program).  Between one and two programs an SM (C of 3 or 4 column blocks) it was
#   not measured; fp16[32768, 320] (5 column blocks, 320 programs) ran at 1.05x on one wave and keeps it.  Heavy
#   producers and several reductions, which one row tile a program slowed at a wide C (above), were not measured at a
#   narrow one and keep one wave (the odd-N f32 rule below stops short of a narrow C).

# One wave's RSPLIT above 32 is rounded down to even.  The last program loads the partials of its column block as an
# [XBLOCK, RSPLIT] tile (RSPLIT padded to 64 there) whose rows are RSPLIT words apart (xindex * RSPLIT + rsplit_id), so
# an odd RSPLIT leaves them 4-byte aligned and every load a scalar: the bf16 copy of [8192, 1024] (RSPLIT 33) compiled
# to 203 registers against 128 with RSPLIT 32 (ptxas, sm_90a; 32 scalar loads against 4 of 16 bytes), so 2 programs an
# SM were resident instead of 4.  In the H200 oddrsplit sweep (sweeps/2026-12-01-h200-sweep-oddrsplit.csv; x copy SOL,
# odd RSPLIT twice -> even): bf16[8192, 1024] 1.281, 1.329 -> 0.992, bf16[12608, 1024] 1.291, 1.296 -> 1.153, fp16[8192,
# 1024] 1.312, 1.316 -> 1.008, bf16[16384, 1024] 1.215, 1.221 -> 0.992; with no register change, LayerNorm backward
# f32[4096, 768] 1.053, 1.053 -> 0.987, fp16[8192, 768] 1.193, 1.187 -> 1.147, f32[25216, 768] 1.097, 1.134 -> 1.121 (a
# tie), a * b + 1 over f32[4096, 768] 0.989, 0.991 -> 0.966, the fp32 -> fp8 cast of [3152, 768] (25 -> 24) 1.273, 1.270
# -> 1.258 (a 32-wide tile, 16 loads a thread: the same registers; smaller odd RSPLITs are kept, as 3 -> 2 would cost a
# third of the programs).
EVEN_RSPLIT_ABOVE = 32

# Launch candidates timed at compile time on the GPU (codegen/triton.py, ReductionTransposeTritonScheduling; switch
# ``reduction_transpose_fusion_autotune``), each an override over the rules' launch, the first ({}) the rules' own:
# the launch shapes the rules choose between, so that a site none of their sweeps had gets the fastest of them.  In
# the H200 sweep of the random-site losses (sweeps/2026-12-02-h200-sweep-losses.csv; fused / stock) one row tile a
# program beat the rules' one wave on each of the four losing sites (LayerNorm backward f32[20973, 2846] 0.52 ->
# 1.55x, f32[40244, 554] 0.78 -> 0.97x, f32[11738, 214] 0.91 -> 1.06x, the bf16 cast of fp16[83998, 257] 0.80 -> 1.51x)
# and the prefetched row loop on two (f32[40244, 554] 1.23x, f32[11738, 214] 1.16x); one wave is there for the sites
# the rules give one tile a program.  COLUMN_TILE=1 is the column tile (above) where N fits it (else it comes out as
# the rules' launch and is timed once).  The last, STOCK_LAUNCH, is Inductor's own launch of the unsplit reduction
# (choices leaves the kernel to stock's heuristics): where stock emits that kernel anyway (N <= 128, or a wide C) it
# is stock's time, so a site the rules' launch would lose, e.g. f32[2, 2, 16, 22137] flattened to N = 64 at 0.73x of
# stock (random seed 1667986576), keeps stock's launch.  Candidates that come out as the same source are timed once.  Inductor's
# ``max_autotune`` adds the other launches of that sweep (8 warps, 2 and 4 row tiles a program, the X32 R64 tile).
STOCK_LAUNCH = {"UNSPLIT": 1}
# Under ``max_autotune`` also SEPARATE_FINISH=1, the rules' launch with its partials combined by a second kernel
# (codegen/triton.py), timed as both its kernels in one module; by default the cost model proposes it as the rules' launch
# where it predicts it faster (small sites: fx_passes/profitability.py).
AUTOTUNE_CANDIDATES: tuple[dict[str, int], ...] = (
    {}, {"TILES_PER_PROGRAM": 1}, {"TILES_PER_PROGRAM": 0}, {"PREFETCH": 1}, {"COLUMN_TILE": 1}, STOCK_LAUNCH,
)
MAX_AUTOTUNE_CANDIDATES = AUTOTUNE_CANDIDATES + (
    {"num_warps": 8}, {"TILES_PER_PROGRAM": 2}, {"TILES_PER_PROGRAM": 4}, {"XBLOCK": 32, "R0_BLOCK": 64},
    {"SEPARATE_FINISH": 1},
)
# A candidate replaces the baseline (the rules' launch; Inductor's own where stock emits the kernel unsplit) only when
# it is this much faster: CUDA-graph replay (runtime/benchmarking.py) repeats within 0.2-0.4% on the same code in the
# median random site and up to about 5% on sites of a few µs (two stock compiles timed apart, 2026-12-03 random seeds),
# and the rules' launch was measured in full sweeps.
AUTOTUNE_MARGIN = 0.03

_CANDIDATE: contextvars.ContextVar[dict[str, int]] = contextvars.ContextVar("launch_candidate", default={})


@contextlib.contextmanager
def launch_candidate(override: dict[str, int]):
    """Within the block, :func:`candidate_override` returns ``override`` (``choices`` merges it over the expert
    override when it builds the fused kernel's launch)."""
    token = _CANDIDATE.set(dict(override))
    try:
        yield
    finally:
        _CANDIDATE.reset(token)


def candidate_override() -> dict[str, int]:
    """The launch candidate being emitted or timed (:func:`launch_candidate`); ``{}`` outside one."""
    return dict(_CANDIDATE.get())


def fastest_candidate(timed: list[tuple[dict[str, int], float]], baseline: dict[str, int] | None = None
                      ) -> dict[str, int]:
    """The candidate to emit, from ``[(override, ms), ...]`` as timed: the fastest, if it beats ``baseline`` (default
    the rules' own launch, ``{}``) by more than :data:`AUTOTUNE_MARGIN` (or ``baseline`` was not timed or failed,
    ``inf``, or came out at 0 ms or less), else ``baseline``.  Ties go to the earlier candidate, so the choice is a
    function of the timings alone.  ``baseline`` is :data:`STOCK_LAUNCH` where stock emits the site's kernel unsplit
    anyway (codegen/triton.py): there stock's launch is what the package must not be slower than."""
    baseline = {} if baseline is None else baseline
    # a time of 0 or less (Inductor subtracts the cloning of in-place arguments from a tiny kernel's) is no time
    timed = [(override, ms if ms > 0 else math.inf) for override, ms in timed]
    base_ms = next((ms for override, ms in timed if override == baseline), math.inf)
    best, best_ms = min(timed, key=lambda item: item[1], default=(baseline, math.inf))
    return dict(best) if best_ms < base_ms * (1 - AUTOTUNE_MARGIN) else dict(baseline)


# The column tile: Inductor's persistent reduction, unsplit.  One program holds XBLOCK columns of all N rows in
# registers (R0_BLOCK = N to the next power of two), so it reads x once, writes v.T from the same registers and needs
# no partials, no finish, no semaphores, and no second pass for a result read by a full-size op (a centering, a
# rowwise fp8 cast's column scale): one launch.  XBLOCK covers one 32-byte sector of a loaded row, halved (down to
# COLUMN_TILE_MIN_XBLOCK) until the tile holds at most COLUMN_TILE_MAX_ELEMENTS; the warps give each thread
# COLUMN_TILE_ELEMENTS_PER_THREAD elements (HEAVY_ELEMENTS_PER_THREAD under a transcendental producer), at least 4.
# So it takes N up to 8192 (f32 or 16-bit; a transcendental producer 2048), the rows past 2048 (f32) or 1024 (16-bit)
# with part of a sector a row.  H200 labs (results/lab/*-column-tile*.csv): on 96 random sites with N in
# [128, 4096] and C in [8, 8192], tiles of one sector ran 1.10-3.14x faster than stock (geomean 2.09x), 4 warps best
# up to 8192 elements and 8 at 16384; tiles of 32768 elements on 16 warps ran 0.15-1.33x (registers spill), and a GELU
# backward's tile of 8192 elements 0.79x on 4 warps, 1.39x on 16.  On 48 sites with N in [1024, 16384] the tiles of
# XBLOCK 4 and 2 ran 0.70-2.19x: faster than one sector's where C is narrow (more programs), slower where it is wide
# (the cost model's sector term, fx_passes/profitability.py).
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
    # Whether the kernel's output stores are streaming stores, ``cache_modifier='.cs'`` (codegen/triton.py,
    # cache_hints); not a kernel argument.
    stream_stores: bool = False
    # One line for each launch override whose value this launch does not use as given: "KEY=asked -> used: why"
    # (:func:`launch_config`, :func:`changed_overrides`); logged by ``choices``; not a kernel argument.
    notes: tuple[str, ...] = dataclasses.field(default=(), compare=False, repr=False)

    def as_dict(self) -> dict[str, int]:
        return {k: v for k, v in dataclasses.asdict(self).items()
                if k not in ("tiles_per_program", "finish_group", "prefetch", "row_tile_grid", "int32_sizes",
                             "shift_last_tile", "evict_first", "stream_stores", "notes")}

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
    heavy = ops > HEAVY_OPS or bool(producer_ops & TRANSCENDENTAL)
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
        asked = {k: override[k] for k in ("XBLOCK", "R0_BLOCK", "TILES_PER_PROGRAM", "RSPLIT") if k in override}
        raise ValueError(f"XBLOCK x R0_BLOCK = {xblock} x {rblock} = {xblock * rblock} elements exceeds Triton's "
                         f"largest tensor ({TRITON_MAX_TENSOR_NUMEL})"
                         + ("; with one row tile a program R0_BLOCK is the program's rows, ceil(N / RSPLIT) to the "
                            "next power of two" if persistent else "")
                         + (f" (reduction_transpose_fusion_launch_config asks for {asked})" if asked else ""))
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
        int32_sizes=bool(override.get("INT32_SIZES", not static_rows and reductions > 1 and not wide)),
        shift_last_tile=bool(override.get("SHIFT_LAST_TILE", row_tile_grid and narrowest > 1)) and row_tile_grid,
        evict_first=not (persistent or row_tile_grid) and bool(override.get(
            "EVICT_FIRST", rows * cols * moved < NO_EVICT_FIRST_MIN_MOVED_BYTES or (wide and not static_rows))),
        stream_stores=bool(override.get("STREAM_STORES", 0)),
    )
    check_workspace(launch, rows, cols, widest, reductions, override)
    notes = _override_notes(override, launch, rows, budget_rsplit, persistent, asked_static_rows, grid_allowed)
    return dataclasses.replace(launch, notes=notes)


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
                    "EVICT_FIRST": "evict_first", "STREAM_STORES": "stream_stores"}


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


class WorkspaceBoundError(ValueError):
    """A launch whose partials and semaphore words exceed :func:`workspace_bound`; ``from_override`` tells whether
    ``reduction_transpose_fusion_launch_config`` asked for it (an error for the user) or the rules chose it (the
    caller falls back to Inductor's own launch)."""

    def __init__(self, message: str, from_override: bool) -> None:
        super().__init__(message)
        self.from_override = from_override


def check_workspace(launch: LaunchConfig, rows: int, cols: int, widest: int, reductions: int,
                    override: dict[str, int]) -> None:
    """Refuse a launch whose partials and semaphore words (:func:`workspace_bytes`) exceed
    the bound: :data:`MAX_WORKSPACE_FRACTION` of the bytes of ``x [rows, cols]`` in its widest dtype, or two programs'
    partials, or :data:`MIN_WORKSPACE_BOUND_BYTES`, whichever is most (:func:`workspace_bound`).

    Raises:
        WorkspaceBoundError: naming the bytes, the bound and the launch (with the override, if one set RSPLIT).
    """
    need = workspace_bytes(launch, cols, widest, reductions)
    x_bytes = rows * cols * widest
    bound = workspace_bound(rows, cols, widest, reductions)
    if need <= bound:
        return
    asked = {k: override[k] for k in ("RSPLIT", "TILES_PER_PROGRAM", "R0_BLOCK") if k in override}
    source = (f"reduction_transpose_fusion_launch_config asks for {asked}" if asked else
              "the launch rules chose it")
    raise WorkspaceBoundError(f"the fused launch RSPLIT={launch.RSPLIT} over x [{rows}, {cols}] ({reductions} reduction(s)) "
                     f"needs {need} bytes of partials and semaphores, over the bound of {bound} bytes "
                     f"(the most of {MAX_WORKSPACE_FRACTION:.0%} of x's {x_bytes} bytes, two programs' partials and "
                     f"{MIN_WORKSPACE_BOUND_BYTES} bytes); {source}", from_override=bool(asked))


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
