"""Launch-configuration sweep for the fused kernel (GPU only): the data behind ``runtime/triton_heuristics.py``.

    python -m benchmarks.sweep --out DIR [--workers 12]

For each shape in :data:`SHAPES` and each launch in :func:`launches` (tile ``XBLOCK x R0_BLOCK``, warps, and
``RSPLIT`` from a target of programs per SM), it compiles the case through Inductor with
``reduction_transpose_fusion_launch_config`` forcing that launch, and times it against the copy SOL and stock
``torch.compile``, all in one process.  Compiles are slow next to timings, so a pool of processes first compiles
every variant once to warm Inductor's FX-graph cache and Triton's cache on disk; the timing process then hits them.
Writes ``sweep.csv`` (one row per shape and launch) and prints the best launches per shape.
"""

from __future__ import annotations

import argparse
import multiprocessing
import pathlib

SMALL_SHAPES = [  # under the L2 (60 MB) and the old 64 MiB gate: where parallelism and launch count matter
    ("F1-t", "fp32", 2048, 1000),
    ("F1-t", "fp32", 4096, 768),
    ("F1-t", "bf16", 3152, 768),
    ("F3-layernorm-backward", "fp32", 3152, 3072),
]
F5_SHAPES = [  # fp32 -> fp8 cast-transpose: 4-byte loads, 1-byte stores both ways
    ("F5-fp8-cast-transpose-dbias", "fp32", 4096, 30522),
    ("F5-fp8-cast-transpose-dbias", "fp32", 2048, 1000),
    ("F5-fp8-cast-transpose-dbias", "fp32", 25216, 3072),
    ("F5-fp8-cast-transpose-dbias", "fp32", 4096, 3072),
]
TWO_REDUCTION_SHAPES = [  # amax + sum, and LayerNorm backward's two sums: the corpus cases farthest from SOL
    ("F3-amax", "bf16", 1024, 4096),
    ("F3-amax", "fp16", 3152, 3072),
    ("F3-layernorm-backward", "bf16", 8192, 4096),
    ("F3-layernorm-backward", "fp16", 8192, 768),
]
SHAPES = [
    ("F1-t", "fp32", 25216, 3072),
    ("F1-t", "bf16", 25216, 3072),
    ("F1-t", "bf16", 65536, 1024),
    ("F1-t", "fp32", 4096, 768),
    ("F1-t", "fp32", 2048, 1000),
    ("F1-t", "fp32", 4096, 30522),
    ("F3-layernorm-backward", "fp32", 25216, 3072),
    ("F5-fp8-cast-transpose-dbias", "bf16", 16384, 4096),
]
# (XBLOCK, R0_BLOCK, num_warps) by the narrowest itemsize of the case
TILES = {
    4: [(64, 64, 4), (64, 64, 8), (128, 64, 8), (64, 128, 8), (128, 128, 8), (32, 128, 4)],
    2: [(64, 128, 8), (64, 128, 4), (128, 128, 8), (128, 64, 4), (64, 64, 4), (64, 256, 8)],
    1: [(128, 128, 8), (64, 128, 4), (128, 256, 8), (64, 256, 8), (128, 128, 4)],
    3: [(64, 128, 4), (64, 128, 8), (128, 128, 8), (64, 64, 4), (128, 64, 4), (32, 128, 4)],
}
# The cases the profitability rules leave to stock or that run farthest from the copy SOL (corpus of 2026-11-29):
# unaligned rows (prime N and C, 2-byte-aligned vocab rows), a GELU backward producer (~30 FP instructions an
# element), fp32 -> fp8 over a vocabulary, and the 8 MB amax + sum.  {shape: ((XBLOCK, R0_BLOCK, warps) tiles,
# programs per SM)}; the first tile is the heuristic's.  RSPLIT = programs per SM * SMs // column blocks, rounded down.
ODD_PLAN = {
    ("F1-t", "fp32", 25229, 3067): ([(64, 64, 4), (64, 64, 8), (32, 64, 4), (64, 32, 4), (32, 32, 4), (128, 32, 4)],
                                    [2, 3, 4, 8]),
    ("F2-mul-add", "bf16", 8191, 1021): ([(64, 128, 4), (64, 128, 8), (64, 64, 4), (32, 64, 4), (32, 128, 4),
                                          (64, 32, 4)], [2, 3, 4, 8]),
    ("F2-gelu-backward", "bf16", 25216, 3072): ([(64, 128, 8), (64, 64, 8), (64, 64, 4), (32, 64, 4), (32, 128, 4),
                                                 (64, 32, 4)], [1, 2, 3, 4]),
    ("F1-t", "bf16", 8192, 50257): ([(128, 128, 8), (128, 64, 8), (64, 128, 4), (64, 128, 8), (256, 64, 8),
                                     (128, 128, 4)], [1]),
    ("F5-fp8-cast-transpose-dbias", "fp32", 4096, 30522): ([(128, 128, 8), (128, 256, 8), (64, 128, 4),
                                                            (64, 256, 8), (128, 64, 8), (256, 64, 8)], [1]),
    ("F3-amax", "bf16", 1024, 4096): ([(64, 64, 4), (32, 64, 4), (64, 32, 4), (32, 128, 4)], [1, 2, 3]),
}
# After the scalar-tile rule (runtime/triton_heuristics.py, from the odd sweep): its launch ("") beside the launch of
# the rule before it, on shapes with one odd extent (not in the corpus) and on the fp8 vocab case still left to stock.
CHECK_PLAN = {
    ("F1-t", "bf16", 8191, 4096): ["", "XBLOCK=64,R0_BLOCK=128,RSPLIT=8,num_warps=4"],
    ("F1-t", "bf16", 8192, 4095): ["", "XBLOCK=64,R0_BLOCK=128,RSPLIT=8,num_warps=4"],
    ("F2-mul-add", "bf16", 8192, 4095): ["", "XBLOCK=64,R0_BLOCK=128,RSPLIT=6,num_warps=4"],
    ("F5-fp8-cast-transpose-dbias", "fp32", 4096, 30522): [
        "", "XBLOCK=64,R0_BLOCK=128,RSPLIT=1,num_warps=8", "XBLOCK=256,R0_BLOCK=64,RSPLIT=1,num_warps=8"],
}
# Fewer elements per thread (8) and more programs per SM than the scalar-tile rule, on the corpus cases it left
# farthest from the copy SOL (corpus run after that rule, 2026-11-29): GELU backward and odd-C vocabulary rows.
TUNE_PLAN = {
    ("F2-gelu-backward", "bf16", 25216, 3072): [
        "", "XBLOCK=64,R0_BLOCK=32,RSPLIT=16,num_warps=4", "XBLOCK=64,R0_BLOCK=32,RSPLIT=22,num_warps=4",
        "XBLOCK=32,R0_BLOCK=32,RSPLIT=11,num_warps=4", "XBLOCK=32,R0_BLOCK=32,RSPLIT=16,num_warps=4",
        "XBLOCK=64,R0_BLOCK=16,RSPLIT=22,num_warps=4", "XBLOCK=64,R0_BLOCK=32,RSPLIT=11,num_warps=8",
        "XBLOCK=64,R0_BLOCK=32,RSPLIT=22,num_warps=8", "XBLOCK=128,R0_BLOCK=32,RSPLIT=11,num_warps=8"],
    ("F2-gelu-backward", "bf16", 32768, 11008): [
        "", "XBLOCK=64,R0_BLOCK=32,RSPLIT=4,num_warps=4", "XBLOCK=64,R0_BLOCK=32,RSPLIT=6,num_warps=4",
        "XBLOCK=32,R0_BLOCK=32,RSPLIT=3,num_warps=4", "XBLOCK=32,R0_BLOCK=32,RSPLIT=6,num_warps=4",
        "XBLOCK=64,R0_BLOCK=32,RSPLIT=3,num_warps=8", "XBLOCK=64,R0_BLOCK=32,RSPLIT=6,num_warps=8"],
    ("F1-t", "bf16", 8192, 50257): [
        "", "XBLOCK=64,R0_BLOCK=128,RSPLIT=2,num_warps=8", "XBLOCK=32,R0_BLOCK=128,RSPLIT=1,num_warps=8",
        "XBLOCK=64,R0_BLOCK=64,RSPLIT=1,num_warps=8", "XBLOCK=32,R0_BLOCK=128,RSPLIT=1,num_warps=4",
        "XBLOCK=64,R0_BLOCK=64,RSPLIT=1,num_warps=4"],
    ("F1-t", "fp32", 2048, 50257): [
        "", "XBLOCK=64,R0_BLOCK=64,RSPLIT=1,num_warps=8", "XBLOCK=64,R0_BLOCK=64,RSPLIT=1,num_warps=4",
        "XBLOCK=32,R0_BLOCK=64,RSPLIT=1,num_warps=4", "XBLOCK=64,R0_BLOCK=128,RSPLIT=1,num_warps=8"],
    ("F1-t", "fp32", 25229, 3067): [
        "", "XBLOCK=32,R0_BLOCK=64,RSPLIT=8,num_warps=4", "XBLOCK=32,R0_BLOCK=64,RSPLIT=4,num_warps=8",
        "XBLOCK=32,R0_BLOCK=128,RSPLIT=5,num_warps=8", "XBLOCK=16,R0_BLOCK=128,RSPLIT=3,num_warps=4"],
}
# 16-bit shapes whose 64-wide column blocks alone fill one or two waves (SMs * 64 <= C < 2 * SMs * 64), below the
# wide path's threshold: the X128 tiles that a stand-alone lab kernel ran fastest on bf16[32768, 14336]
# (benchmarks/results/lab/2026-11-30-h200-lab-grid.csv: X128 R128 w4 at 8 programs per SM, 3.6% faster than the
# generated kernel), beside the heuristic's launch ("").  {shape: [(XBLOCK, R0_BLOCK, warps, RSPLIT), ...]}
MIDWIDE_PLAN = {
    shape: ["", *(f"XBLOCK={xb},R0_BLOCK={rb},RSPLIT={rs},num_warps={w}" for xb, rb, w, rs in launches)]
    for shapes, launches in (
        ([("F1-t", "bf16", 8192, 14336), ("F1-t", "bf16", 32768, 14336)],
         [(128, 128, 4, 4), (128, 128, 4, 9), (128, 128, 8, 4), (128, 128, 8, 9), (64, 128, 8, 2), (64, 128, 8, 4),
          (128, 64, 4, 4)]),
        ([("F2-mul-add", "bf16", 8192, 11008), ("F5-fp8-cast-transpose-dbias", "bf16", 32768, 11008)],
         [(128, 128, 4, 6), (128, 128, 4, 12), (128, 128, 8, 6), (128, 128, 8, 12), (64, 128, 8, 3), (64, 128, 8, 6),
          (128, 64, 4, 6)]),
    )
    for shape in shapes
}
# The size gate and stock's own split: the heuristic's launch ("") on inputs under 1 MiB whose column reduction stock
# splits (N > 128: stock emits 3 kernels) and on inputs with N <= 128, where stock's outer split factor is 1 and it
# already emits one kernel (the forced corpus run of 2026-11-30: c48/F2, split by stock, 1.58x fused at 786 KB; every
# N <= 128 case 0.79-0.88x).  Run twice on 2026-11-30 (sweeps/2026-11-30-h200-sweep-gate-run{1,2}.csv): the split
# sites 1.04-1.20x, the N <= 128 ones 0.82-0.96x; hence the split rule and the 8 KiB gate.
GATE_PLAN = {shape: [""] for shape in (
    ("F1-t", "fp32", 256, 8), ("F1-t", "fp32", 512, 128), ("F1-t", "bf16", 1024, 64), ("F1-t", "fp16", 4096, 32),
    ("F3-layernorm-backward", "bf16", 2048, 128), ("F5-fp8-cast-transpose-dbias", "bf16", 4096, 64),
    ("F1-t", "fp32", 128, 4096), ("F1-t", "bf16", 64, 8192), ("F2-mul-add", "fp32", 128, 2048),
    ("F1-t", "fp32", 96, 2048),
)}
# One to four row tiles a program (RSPLIT = ceil(N / R0_BLOCK / k), many waves) against the heuristic's one-wave
# launch (""), after the finish became coalesced and chunked (codegen/triton.py): a lab kernel with that finish ran
# one tile a program within 1% of the generated kernel on four aligned shapes, 4% faster on two and 11-46% faster on
# odd ones (benchmarks/results/lab/2026-11-30-h200-lab-ticket.csv).  The fused corpus cases >= 8 MB with a row split
# (WAVES_FILE), the odd and GELU ones, and the plain copy of bf16[8191, 1021] (the lab's worst case).
ONETILE_EXTRA = [
    ("F2-mul-add", "bf16", 8191, 1021), ("F1-t", "fp32", 25229, 3067), ("F1-t", "bf16", 8191, 1021),
    ("F2-gelu-backward", "bf16", 25216, 3072), ("F2-gelu-backward", "bf16", 32768, 11008),
]
ONETILE_LAUNCHES = ["", "TILES_PER_PROGRAM=1", "TILES_PER_PROGRAM=2", "TILES_PER_PROGRAM=4"]
# The onetile shapes again after the row-tile launches lost their ticket (flagged partials, the launch-order finisher;
# codegen/triton.py): the lab's one-tile kernel ran 4-25% faster without a ticket than with one, whatever its memory
# ordering (benchmarks/results/lab/2026-11-30-h200-lab-fence.csv).
SPIN_LAUNCHES = ["", "TILES_PER_PROGRAM=1", "TILES_PER_PROGRAM=2"]
SPIN_EXTRA = [("F1-t", "bf16", 8192, 50257)]  # odd C on the wide path (gpt2/F1-vocab-bf16)
# After the one-row-tile rule: the plain copies with one odd extent (their rule was measured with the looped kernel and
# the ticket) at the heuristic's launch ("", now persistent) and at the one-wave RSPLIT; and copies whose one wave
# would split the rows in 4 or 5 (above FEW_SPLITS = 2, not measured) at one wave ("") and one tile a program.
SPINCHECK_PLAN = {
    ("F1-t", "bf16", 8191, 4096): ["", "RSPLIT=8"],
    ("F1-t", "bf16", 8192, 4095): ["", "RSPLIT=4"],
    ("F1-t", "fp32", 8191, 4096): ["", "RSPLIT=8"],
    ("F1-t", "bf16", 8192, 8192): ["", "TILES_PER_PROGRAM=1"],
    ("F1-t", "bf16", 16384, 6144): ["", "TILES_PER_PROGRAM=1"],
}
# After the odd-C-and-odd-N rule (two row tiles a program): shapes with one odd extent (half-scalar tiles) and the
# corpus's fp8 cast of bf16[4099, 769] (odd both ways).  Run 1 (2026-11-30), when "" was one wave for all four
# half-scalar shapes: "", TILES_PER_PROGRAM=1 and =2 (=1, 4 for the fp8 cast); one row tile a program won on the
# three plain copies, so they now take it by default, and run 2 times their one-wave launch (RSPLIT=8, 4, 8) beside.
ODDCHECK_PLAN = {
    ("F1-t", "bf16", 8191, 4096): ["", "RSPLIT=8", "TILES_PER_PROGRAM=2"],
    ("F1-t", "bf16", 8192, 4095): ["", "RSPLIT=4", "TILES_PER_PROGRAM=2"],
    ("F2-mul-add", "bf16", 8192, 4095): ["", "TILES_PER_PROGRAM=1", "TILES_PER_PROGRAM=2"],
    ("F1-t", "fp32", 8191, 4096): ["", "RSPLIT=8", "TILES_PER_PROGRAM=2"],
    ("F5-fp8-cast-transpose-dbias", "bf16", 4099, 769): ["", "TILES_PER_PROGRAM=1", "TILES_PER_PROGRAM=4"],
}
# After the two-level flagged finish (codegen/triton.py: the last program of each group of 16 combines the group's
# partials, so the finisher reads ceil(RSPLIT / 16) words a column instead of RSPLIT): the spin sweep's one-tile
# launches lost 1-35 us to one wave on the aligned shapes, about 0.3-0.4 us per 16-row step of the finisher's loop
# (sweeps/2026-11-30-h200-sweep-spin-persistent.csv).  Every single-reduction shape of the spin sweep but the GELU
# ones, at the heuristic's launch (""), one row tile a program, and one row tile with evict_first on the tile loads
# (the looped kernel has it, the persistent one does not; the key EVICT_FIRST was an experiment of commit 20cdaa8,
# removed since: slower on 20 of the 23 shapes).
TREE_LAUNCHES = ["", "TILES_PER_PROGRAM=1"]
TREE_MULTI_REDUCTION = ("F3-layernorm-backward", "F3-amax")
# The tree plan's one-tile launches with groups of 16 lost 2-9% against the one-level finish on the shapes whose one
# tile a program has RSPLIT 32-64 and many column blocks (a group's last program waits for the 15 before it, so one
# program in 16 holds its SM slot idle instead of one in RSPLIT), and gained 1-13% where RSPLIT is 197-512.  Groups of
# 16 and 64 and one level (FINISH_GROUP=4096, above every RSPLIT) on the one-tile shapes of both kinds.
GROUP_LAUNCHES = ["", *(f"TILES_PER_PROGRAM=1,FINISH_GROUP={g}" for g in (16, 64, 4096))]
GROUP_SHAPES = [
    ("F1-t", "fp32", 25216, 3072), ("F1-t", "bf16", 25216, 3072), ("F4-flatten", "bf16", 25216, 768),
    ("F1-t", "fp32", 25229, 3067), ("F1-t", "bf16", 8191, 1021), ("F2-mul-add", "bf16", 8191, 1021),
    ("F1-t", "bf16", 32768, 14336), ("F5-bf16-cast", "fp32", 32768, 4096), ("F1-t", "bf16", 8192, 14336),
    ("F1-t", "bf16", 8192, 50257), ("F2-mul-add", "bf16", 8192, 11008), ("F1-t", "bf16", 4096, 30522),
]
# After groups of 64 (FINISH_GROUP): one row tile a program against one wave ("") where one wave splits the rows 3-44
# ways (the rule's FEW_SPLITS is 2): the group sweep had f32[25216, 3072] 1.075x copy SOL against 1.088x and the
# f32 -> bf16 cast [32768, 4096] 1.044x against 1.102x.  Corpus and main-job shapes with one reduction and no 1-byte
# output or heavy producer, the two aligned copies of the spincheck plan, and a * b + 1 over bf16[8192, 4095].
FEWSPLITS_LAUNCHES = ["", "TILES_PER_PROGRAM=1", "TILES_PER_PROGRAM=1,FINISH_GROUP=16"]
FEWSPLITS_SHAPES = [
    ("F5-bf16-cast", "fp32", 32768, 4096), ("F1-t", "fp32", 25216, 3072), ("F2-mul-add", "fp32", 25216, 3072),
    ("F1-t", "bf16", 25216, 3072), ("F1-t", "bf16", 8192, 8192), ("F1-t", "bf16", 16384, 6144),
    ("F2-mul-add", "bf16", 8192, 4095), ("F4-flatten", "fp16", 8192, 4096), ("F2-mul-add", "fp16", 4096, 3072),
    ("F1-t", "bf16", 65536, 1024), ("F2-mul-add", "bf16", 65536, 1024), ("F1-t", "fp32", 3152, 3072),
    ("F1-t", "fp32", 4096, 768),
]
# Several reductions (LayerNorm backward's two sums, amax beside a sum) with flagged partials again, now that their
# finish is two-level: the spin sweep's one-level flagged finish for LayerNorm backward f32[25216, 768] ran at 1.59x
# copy SOL against 1.17x with the ticket, its finisher reading 2 x 25 chunks one after the other.  One wave (""), one
# row tile a program with the ticket, and with flagged partials (the key FLAG_SEVERAL was an experiment of commit
# 04cfbce, which the results came with, removed since: flagged was no faster than the ticket on any of the 9 shapes).
SEVERAL_LAUNCHES = ["", "TILES_PER_PROGRAM=1"]
SEVERAL_SHAPES = [
    ("F3-layernorm-backward", "fp32", 25216, 3072), ("F3-layernorm-backward", "fp32", 25216, 768),
    ("F3-layernorm-backward", "fp32", 32768, 4096), ("F3-layernorm-backward", "bf16", 8192, 4096),
    ("F3-layernorm-backward", "bf16", 65536, 1024), ("F3-layernorm-backward", "fp16", 8192, 768),
    ("F3-layernorm-backward", "fp32", 4096, 3072), ("F3-amax", "fp16", 3152, 3072), ("F3-amax", "bf16", 1024, 4096),
]
# A register prefetch of the row loop (PREFETCH=1: each iteration issues the next row tile's loads before it computes
# and stores the current one; codegen/triton.py prefetch_row_loop) on the kernels that keep the looped one-wave
# launch: GELU backward (the farthest from the copy SOL, ~28 FP instructions an element), two reductions, fp8 outputs
# and short aligned kernels.  In the run of 2026-11-30 (package cba4a6fe) the GELU shapes' PREFETCH=0 was "", the
# heuristic's launch of the day, and they also had LOOP_STAGES=2 and 3 (Triton's own pipelining of the loop, cp.async
# through shared memory; 2.8-3.7x copy SOL against 1.6-1.7x): an experiment key of commit 00c86c3, removed since.  The lab's
# prefetch of a plain copy was 6-7% faster on two of seven shapes (lab/2026-11-30-h200-lab-loop.csv).  Beside GELU,
# a * b + 1 at GELU's launch: the same bytes and tile without the tanh, which says what the math costs.
PREFETCH_PLAN = {
    **{shape: ["PREFETCH=0", "PREFETCH=1", "PREFETCH=1,num_warps=4"] for shape in (
        ("F2-gelu-backward", "bf16", 25216, 3072), ("F2-gelu-backward", "bf16", 32768, 11008))},
    ("F2-mul-add", "bf16", 32768, 11008): ["XBLOCK=64,R0_BLOCK=32,RSPLIT=3,num_warps=8",
                                           "XBLOCK=64,R0_BLOCK=32,RSPLIT=3,num_warps=8,PREFETCH=1"],
    **{shape: ["", "PREFETCH=1"] for shape in (
        ("F2-gelu-backward", "fp32", 512, 1024), ("F3-layernorm-backward", "bf16", 8192, 4096),
        ("F3-layernorm-backward", "fp32", 32768, 4096), ("F3-layernorm-backward", "fp32", 25216, 768),
        ("F3-layernorm-backward", "fp16", 8192, 768), ("F5-fp8-cast-transpose-dbias", "bf16", 32768, 11008),
        ("F5-fp8-cast-transpose-dbias", "bf16", 25216, 3072), ("F3-amax", "bf16", 1024, 4096),
        ("F4-flatten", "fp16", 8192, 4096), ("F2-mul-add", "fp16", 4096, 3072), ("F1-t", "fp32", 4096, 768))},
}
# The prefetch plan's result (sweeps/2026-11-30-h200-sweep-prefetch.csv): the prefetch gained 16-20% on the two large
# GELU kernels (1.590 -> 1.275, 1.670 -> 1.364x copy SOL; 55-64 registers) and lost 4-18% on 8 of the 10 kernels of
# 32-64 elements a thread, whose registers rose from 120-164 to 156-254 (two short ones gained 4%).  So: the heavy tile's neighbours with the prefetch
# (elements a thread, warps, RSPLIT), and the other looped kernels at half the elements a thread (8 warps), with and
# without the prefetch (-prefetch2.csv: the heavy tile stayed best, and nothing beat the others' defaults).
PREFETCH2_GELU = ["PREFETCH=1", "PREFETCH=1,XBLOCK=64,R0_BLOCK=64,num_warps=8",
                  "PREFETCH=1,XBLOCK=128,R0_BLOCK=32,num_warps=8", "PREFETCH=1,XBLOCK=32,R0_BLOCK=32,num_warps=4"]
PREFETCH2_PLAN = {
    ("F2-gelu-backward", "bf16", 25216, 3072): [*PREFETCH2_GELU, "PREFETCH=1,RSPLIT=8", "PREFETCH=1,RSPLIT=16",
                                                "PREFETCH=1,XBLOCK=32,R0_BLOCK=32,num_warps=4,RSPLIT=11"],
    ("F2-gelu-backward", "bf16", 32768, 11008): [*PREFETCH2_GELU, "PREFETCH=1,RSPLIT=2", "PREFETCH=1,RSPLIT=5",
                                                 "PREFETCH=1,XBLOCK=32,R0_BLOCK=32,num_warps=4,RSPLIT=3"],
    **{shape: ["", "num_warps=8", "PREFETCH=1,num_warps=8"] for shape in (
        ("F3-layernorm-backward", "bf16", 8192, 4096), ("F3-layernorm-backward", "fp32", 32768, 4096),
        ("F5-fp8-cast-transpose-dbias", "bf16", 32768, 11008), ("F5-fp8-cast-transpose-dbias", "bf16", 25216, 3072),
        ("F4-flatten", "fp16", 8192, 4096), ("F3-amax", "bf16", 1024, 4096))},
}
# Unmeasured launches of the notes of 2026-11-30: the two-level finish of huge/F1 (RSPLIT 512) against one level
# (FINISH_GROUP=4096); one row tile a program for odd C and N without a row-tile cap (f32[2100001, 33]: RSPLIT 32813)
# against 4 and 16 tiles a program and a one-wave RSPLIT; and the prefetch on the scalar tiles' looped kernels (two
# reductions with odd C and N: 16 elements a thread, two row tiles a program).
CHECKS_PLAN = {
    ("F1-t", "bf16", 65536, 50257): ["", "FINISH_GROUP=4096"],
    ("F1-t", "fp32", 2100001, 33): ["", "TILES_PER_PROGRAM=4", "TILES_PER_PROGRAM=16", "RSPLIT=64"],
    ("F3-layernorm-backward", "bf16", 8191, 1021): ["", "PREFETCH=1"],
    ("F3-layernorm-backward", "fp32", 25229, 3067): ["", "PREFETCH=1"],
}
# Out-of-sample checks of the prefetch rule (at most 16 elements a thread, looped): the heuristic's launch ("", now
# prefetched) against PREFETCH=0 on shapes no sweep had: fp8 casts with odd C and N (one wave, 16 elements a thread),
# amax + sum with odd C and N (two row tiles a program), and GELU backward at other sizes, odd ones included.
PREFETCHCHECK_PLAN = {shape: ["", "PREFETCH=0"] for shape in (
    ("F5-fp8-cast-transpose-dbias", "bf16", 4099, 769), ("F5-fp8-cast-transpose-dbias", "fp32", 25229, 3067),
    ("F3-amax", "bf16", 8191, 1021), ("F2-gelu-backward", "fp16", 8192, 4096), ("F2-gelu-backward", "fp32", 4096, 3072),
    ("F2-gelu-backward", "bf16", 8191, 1021),
)}
# The prefetch on the odd shapes that now take one row tile a program (persistent, no loop): looped launches of two to
# four row tiles a program, or one wave, with the prefetch, beside the heuristic's launch ("").  Run on 2026-11-30
# (sweeps/2026-11-30-h200-sweep-oddprefetch.csv): the persistent kernel stayed best or within 2.6% (a * b + 1 over
# bf16[8191, 1021]: one wave with the prefetch 1.535x copy SOL against 1.576x, one run of a 30 us kernel).
ODDPREFETCH_PLAN = {
    **{shape: ["", "TILES_PER_PROGRAM=2,PREFETCH=0", "TILES_PER_PROGRAM=2,PREFETCH=1", "TILES_PER_PROGRAM=4,PREFETCH=1",
               "RSPLIT=16,PREFETCH=1"] for shape in (("F2-mul-add", "bf16", 8191, 1021), ("F1-t", "bf16", 8191, 1021))},
    ("F1-t", "bf16", 8192, 50257): ["", "TILES_PER_PROGRAM=2,PREFETCH=1", "TILES_PER_PROGRAM=2,PREFETCH=1,num_warps=16"],
    ("F1-t", "fp32", 25229, 3067): ["", "TILES_PER_PROGRAM=2,PREFETCH=1", "TILES_PER_PROGRAM=4,PREFETCH=1"],
}
# Wider and taller one-tile launches on aligned shapes.  The baseline's hand-written pure transpose of bf16[25216,
# 3072] ran at 1.02x copy SOL with 128 x 128 tiles on 8 warps (H200 baseline, 2026-11-29), the lab's one-tile
# transpose at 1.06x with the heuristic's X64 R128; no sweep had run one row tile a program with X128 tiles (or 8
# warps) through Inductor on the non-wide shapes.  "" is the heuristic's launch.
_ONE = "TILES_PER_PROGRAM=1"
_BIG16 = ["", f"XBLOCK=128,R0_BLOCK=128,num_warps=8,{_ONE}", f"XBLOCK=128,R0_BLOCK=128,num_warps=4,{_ONE}",
          f"XBLOCK=64,R0_BLOCK=128,num_warps=8,{_ONE}", f"XBLOCK=128,R0_BLOCK=256,num_warps=8,{_ONE}"]
BIGTILE_PLAN = {
    # the heuristic's launch here is X64 R128 w4, one tile a program; the first shape has it twice (the noise)
    ("F1-t", "bf16", 25216, 3072): [*_BIG16, f"XBLOCK=64,R0_BLOCK=128,num_warps=4,{_ONE}"],
    **{shape: _BIG16 for shape in (("F1-t", "bf16", 32768, 14336), ("F1-t", "bf16", 8192, 14336),
                                   ("F2-mul-add", "bf16", 8192, 11008))},
    # one wave here (RSPLIT 8 and 44): one tile a program at the heuristic's tile too, and one wave at X128 R128 w8
    **{shape: [*_BIG16, f"XBLOCK=64,R0_BLOCK=128,num_warps=4,{_ONE}", "XBLOCK=128,R0_BLOCK=128,num_warps=8"]
       for shape in (("F4-flatten", "fp16", 8192, 4096), ("F4-flatten", "bf16", 25216, 768))},
    **{shape: ["", f"XBLOCK=128,R0_BLOCK=128,num_warps=8,{_ONE}", f"XBLOCK=128,R0_BLOCK=128,num_warps=4,{_ONE}",
               f"XBLOCK=64,R0_BLOCK=256,num_warps=8,{_ONE}", f"XBLOCK=128,R0_BLOCK=256,num_warps=8,{_ONE}",
               "XBLOCK=128,R0_BLOCK=128,num_warps=8"]
       for shape in (("F5-fp8-cast-transpose-dbias", "bf16", 32768, 4096),
                     ("F5-fp8-cast-transpose-dbias", "bf16", 32768, 11008),
                     ("F5-fp8-cast-transpose-dbias", "bf16", 25216, 3072))},
    **{shape: ["", f"XBLOCK=64,R0_BLOCK=128,num_warps=8,{_ONE}", f"XBLOCK=64,R0_BLOCK=64,num_warps=8,{_ONE}",
               f"XBLOCK=128,R0_BLOCK=64,num_warps=8,{_ONE}", f"XBLOCK=128,R0_BLOCK=128,num_warps=8,{_ONE}"]
       for shape in (("F1-t", "fp32", 25216, 3072), ("F5-bf16-cast", "fp32", 32768, 4096))},
    **{shape: ["", "XBLOCK=128,R0_BLOCK=64,num_warps=8", "XBLOCK=64,R0_BLOCK=128,num_warps=8",
               "XBLOCK=128,R0_BLOCK=128,num_warps=8", f"XBLOCK=128,R0_BLOCK=128,num_warps=8,{_ONE}"]
       for shape in (("F3-layernorm-backward", "bf16", 8192, 4096), ("F3-amax", "fp16", 3152, 3072))},
}
# The bigtile sweep's one gain, X128 R128 on 4 warps (123-189 registers: 4 programs an SM) one row tile a program:
# bf16[32768, 14336] 1.122 -> 1.070x copy SOL, a * b + 1 over bf16[8192, 11008] 1.158 -> 1.077, ties on bf16[8192,
# 14336] and bf16[25216, 3072]; on 8 warps 1.3-1.9x everywhere.  Here on every 16-bit one-tile shape of the corpus,
# main job and sweeps, the wide path's 8 warps against 4, and f32 with the same 4-warp tiles.  "" comes twice: the noise.
# In both bigtile plans "" was the heuristic of their commits (97a2748, f3ff572), X64 R128; since 38cf2ba it is the
# X128 launch wherever the wider-tile rule (runtime/triton_heuristics.py, BIG_TILE_*) applies.
_BIG4 = f"XBLOCK=128,R0_BLOCK=128,num_warps=4,{_ONE}"
BIGTILE2_PLAN = {
    **{shape: ["", _BIG4, f"XBLOCK=64,R0_BLOCK=256,num_warps=4,{_ONE}", ""]
       for shape in (("F1-t", "bf16", 32768, 14336), ("F2-mul-add", "bf16", 8192, 11008), ("F1-t", "bf16", 8192, 14336),
                     ("F1-t", "bf16", 25216, 3072), ("F1-t", "bf16", 65536, 1024), ("F2-mul-add", "bf16", 65536, 1024),
                     ("F4-flatten", "bf16", 65536, 1024), ("F1-t", "bf16", 8192, 8192), ("F1-t", "bf16", 16384, 6144),
                     ("F1-t", "bf16", 32768, 4096), ("F2-mul-add", "bf16", 32768, 4096),
                     ("F2-mul-add", "bf16", 25216, 3072))},
    **{shape: ["", "num_warps=4", ""]
       for shape in (("F1-t", "bf16", 4096, 30522), ("F2-mul-add", "fp32", 2048, 50257), ("F1-t", "fp32", 4096, 30522))},
    ("F1-t", "bf16", 8192, 50257): ["", "num_warps=4", _BIG4, ""],
    **{shape: ["", f"XBLOCK=128,R0_BLOCK=64,num_warps=4,{_ONE}", f"XBLOCK=64,R0_BLOCK=128,num_warps=4,{_ONE}", _BIG4, ""]
       for shape in (("F1-t", "fp32", 25216, 3072), ("F5-bf16-cast", "fp32", 32768, 4096),
                     ("F2-mul-add", "fp32", 25216, 3072))},
}
# fp8 outputs keep one wave (one row tile a program lost 1-12%; bigtile: X128 R128 one tile 0-14% slower, one wave
# on 8 warps 10-16% slower).  Not yet run: one wave with X128 R128 or X64 R256 on 4 warps (the 1-byte store's run is
# R0_BLOCK bytes), and the fp32 -> fp8 cast, the main job's farthest family (1.26-1.41x copy SOL).  "" twice: the noise.
FP8_PLAN = {
    **{shape: ["", "XBLOCK=128,R0_BLOCK=128,num_warps=4", "XBLOCK=64,R0_BLOCK=256,num_warps=4",
               "XBLOCK=64,R0_BLOCK=256,num_warps=8", f"XBLOCK=64,R0_BLOCK=256,num_warps=4,{_ONE}", ""]
       for shape in (("F5-fp8-cast-transpose-dbias", "bf16", 32768, 4096),
                     ("F5-fp8-cast-transpose-dbias", "bf16", 32768, 11008),
                     ("F5-fp8-cast-transpose-dbias", "bf16", 25216, 3072),
                     ("F5-fp8-cast-transpose-dbias", "bf16", 8192, 4096))},
    ("F5-fp8-cast-transpose-dbias", "fp32", 25216, 3072): [
        "", "XBLOCK=64,R0_BLOCK=256,num_warps=8", "XBLOCK=32,R0_BLOCK=256,num_warps=4", "XBLOCK=64,R0_BLOCK=128,num_warps=8",
        _ONE, ""],
}
# The fp8 sweep's one gain: the fp32 -> fp8 cast of [25216, 3072] with one row tile a program (the persistent
# kernel) ran at 1.145x copy SOL against 1.351x and 1.364x for one wave; the bf16 -> fp8 casts lost with every other
# launch.  Here every fp32 -> fp8 shape of the main job and a few more, one and two row tiles a program.
FP8B_PLAN = {shape: ["", _ONE, "TILES_PER_PROGRAM=2", ""] for shape in (
    ("F5-fp8-cast-transpose-dbias", "fp32", 25216, 3072), ("F5-fp8-cast-transpose-dbias", "fp32", 3152, 3072),
    ("F5-fp8-cast-transpose-dbias", "fp32", 3152, 768), ("F5-fp8-cast-transpose-dbias", "fp32", 4096, 768),
    ("F5-fp8-cast-transpose-dbias", "fp32", 4096, 3072), ("F5-fp8-cast-transpose-dbias", "fp32", 2048, 1000),
    ("F5-fp8-cast-transpose-dbias", "fp32", 32768, 4096), ("F5-fp8-cast-transpose-dbias", "fp32", 8192, 8192),
    ("F5-fp8-cast-transpose-dbias", "fp32", 25229, 3067), ("F5-fp8-cast-transpose-dbias", "fp32", 8192, 1024),
)}
# N dynamic (--dynamic-rows; the shape's N is the size hint): the corpus run with N dynamic and no divisibility guard
# (results/superseded/2026-11-30-h200-corpus-dynamic-noguard.csv) had the fused kernels 1.05-4.0x slower than with N static.  With the
# guard (choices._vector_size) the transposed stores of an N that is a multiple of 16 are vectors again; here the
# looped one-tile kernel (a dynamic N has no persistent one) against one wave and two or four tiles a program, on the
# shapes that had one tile a program (wide, odd, large) and two that keep one wave.  "" twice: the noise.
_TPP = [f"TILES_PER_PROGRAM={k}" for k in (0, 1, 2, 4)]
DYNAMIC_PLAN = {
    **{shape: ["", *_TPP, ""] for shape in (
        ("F1-t", "bf16", 8192, 50257), ("F1-t", "bf16", 4096, 30522), ("F1-t", "fp32", 25229, 3067),
        ("F2-mul-add", "bf16", 8191, 1021), ("F1-t", "bf16", 32768, 14336), ("F2-mul-add", "bf16", 8192, 11008),
        ("F1-t", "bf16", 25216, 3072), ("F2-mul-add", "fp32", 2048, 50257))},
    **{shape: ["", *_TPP[1:3]] for shape in (
        ("F1-t", "bf16", 8191, 1021), ("F1-t", "fp32", 25216, 3072), ("F3-layernorm-backward", "fp32", 4096, 768),
        ("F5-fp8-cast-transpose-dbias", "bf16", 32768, 4096))},
}
# The dynamic sweep's rule (DYNAMIC_TILES_PER_PROGRAM: 4 tiles a program, 2 with odd C and N, where a static N
# takes one, and for large tensors) is "" here, against one wave (TILES_PER_PROGRAM=0) and more or fewer tiles; the
# shapes it did not cover: f32 (large and odd), the mid-size one-wave shapes, casts, two reductions.
DYNAMIC2_PLAN = {
    **{shape: ["", "TILES_PER_PROGRAM=0", "TILES_PER_PROGRAM=2", "TILES_PER_PROGRAM=4"] for shape in (
        ("F1-t", "fp32", 25229, 3067), ("F1-t", "fp32", 8191, 4096), ("F1-t", "fp32", 25216, 3072),
        ("F5-bf16-cast", "fp32", 32768, 4096), ("F4-flatten", "fp16", 8192, 4096), ("F2-mul-add", "fp16", 4096, 3072),
        ("F4-flatten", "bf16", 25216, 768), ("F1-t", "fp16", 2048, 2048), ("F3-layernorm-backward", "fp32", 25216, 768))},
    **{shape: ["", "TILES_PER_PROGRAM=0", "TILES_PER_PROGRAM=8"] for shape in (
        ("F1-t", "bf16", 25216, 3072), ("F1-t", "bf16", 8192, 14336), ("F1-t", "bf16", 8192, 50257),
        ("F2-mul-add", "bf16", 8192, 11008))},
}
# One program per row tile of a dynamic N (RowTileGrid, the grid from N at launch, no row loop: 64 registers against
# the looped kernel's 128 for bf16[8192, 50257]) is "" here, where a static N takes one row tile a program, against
# the rule before it (4 looped tiles a program, 2 with odd C and N) and one wave; "" twice: the noise.
DYNAMIC3_PLAN = {
    **{shape: ["", "TILES_PER_PROGRAM=4", "TILES_PER_PROGRAM=0", ""] for shape in (
        ("F1-t", "bf16", 8192, 50257), ("F1-t", "bf16", 4096, 30522), ("F1-t", "bf16", 32768, 14336),
        ("F2-mul-add", "bf16", 8192, 11008), ("F1-t", "bf16", 25216, 3072), ("F2-mul-add", "fp32", 2048, 50257),
        ("F1-t", "fp32", 25216, 3072), ("F5-bf16-cast", "fp32", 32768, 4096), ("F1-t", "bf16", 8192, 8192))},
    **{shape: ["", "TILES_PER_PROGRAM=2", "TILES_PER_PROGRAM=0", ""] for shape in (
        ("F1-t", "bf16", 8191, 1021), ("F2-mul-add", "bf16", 8191, 1021))},
}
# With the row-tile grid measured (dynamic3: 9-31% faster than 4 looped tiles on 10 of 11 shapes), the dynamic
# kernels that the rules keep on one wave (mid-size, fp8 outputs, flattened 3-D) ran 7-30% further from SOL than
# with N static (corpus-dynamic of package 7e0ebe3d): one wave ("") against one and two row tiles a program.
DYNAMIC4_PLAN = {shape: ["", "TILES_PER_PROGRAM=1", "TILES_PER_PROGRAM=2", ""] for shape in (
    ("F4-flatten", "fp16", 8192, 4096), ("F4-flatten", "bf16", 25216, 768), ("F4-flatten", "fp32", 2048, 1024),
    ("F1-t", "fp16", 2048, 2048), ("F2-mul-add", "fp16", 4096, 3072), ("F1-t", "fp32", 4096, 768),
    ("F1-t", "fp32", 3152, 3072), ("F5-fp8-cast-transpose-dbias", "bf16", 8192, 4096),
    ("F5-fp8-cast-transpose-dbias", "bf16", 32768, 4096), ("F5-fp8-cast-transpose-dbias", "bf16", 25216, 3072),
    ("F5-fp8-cast-transpose-dbias", "bf16", 32768, 11008), ("F1-t", "bf16", 1024, 1024))}
# Two cases the profitability rules leave to stock with N dynamic, against the row-tile grid: f32 with odd C and an
# N that cannot be vectorized (rule 3c, measured with the looped kernels only) and the fp32 -> fp8 cast of a
# 30522-column vocabulary (rule 3b; static measurements only), whose stock kernels ran at 1.80x and 2.46x copy SOL
# with N dynamic.  "" is the default launch, fused (profitability off).
DYNAMIC5_PLAN = {
    ("F1-t", "fp32", 25229, 3067): ["", "TILES_PER_PROGRAM=0", ""],
    ("F5-fp8-cast-transpose-dbias", "fp32", 4096, 30522): ["", "TILES_PER_PROGRAM=1", ""],
    ("F1-t", "fp32", 8191, 4096): ["", "TILES_PER_PROGRAM=0", ""],
}
# The two sites rule 3b leaves to stock with N static (a copy as is, or an fp8 cast of it, of an f32 tensor whose rows
# are not 8-byte aligned, on the wide path): their one-wave kernels were measured (0.96x and 0.997x of stock), never
# the persistent one-tile kernel, which the fp32 -> fp8 cast of [4096, 30522] took with N dynamic at 1.41x copy SOL
# against stock's 2.44x (dynamic5).  "" (one wave) twice: the noise.
RULE3B_PLAN = {
    ("F5-fp8-cast-transpose-dbias", "fp32", 4096, 30522): ["", "TILES_PER_PROGRAM=1", ""],
    ("F1-t", "fp32", 2048, 50257): ["", "TILES_PER_PROGRAM=1", ""],
}
# Once a dynamic N's sizes were cast to int32 in the kernel (codegen/triton.py; Inductor passes them as i64, and the
# looped one-wave kernels of LayerNorm backward ran 13-20% slower for it, benchmarks/results/profile/), one wave with a
# dynamic N may beat the row-tile grid where dynamic3 and dynamic4 chose the grid: "" (the rule) against one wave and
# the grid, on the shapes of both.
DYNAMIC6_PLAN = {shape: ["", "TILES_PER_PROGRAM=0", "TILES_PER_PROGRAM=1", ""] for shape in [*DYNAMIC3_PLAN, *DYNAMIC4_PLAN]}
# The row-tile grid (N dynamic) took X64 tiles where the persistent kernel of a static N takes X128 ones (BIG_TILE_*,
# measured with a static N only): bf16[32768, 14336] ran at 1.21x copy SOL with N dynamic against 1.07x static
# (profile-kernels run 2, 2026-12-01).  The grid's own launch ("", twice: the noise) against its X128 tile (R0_BLOCK
# 128, 4 warps, as the persistent kernel's), on the 16-bit one-tile shapes of the bigtile2 sweep.
DYNAMIC7_PLAN = {shape: ["", "XBLOCK=128", ""] for shape in list(BIGTILE2_PLAN)[:12]}
# A static N on the row-tile grid (ROW_TILE_GRID=1: the launch a dynamic N's grid would take).  In profile-kernels
# (2026-12-01) it beat the static kernel on the wide fp32 -> fp8 cast (bert/F5-vocab-fp32 1.51 ->
# 1.27x copy SOL; left to stock by rule 3b) and lost or tied on 18 of 20 other one-tile or 16-bit shapes.  Wide
# fp32 -> fp8 casts (the static rule's one wave "", twice: the noise; the grid at its launch, X128 w8, then lighter
# tiles), and the wide odd-C f32 copies and LayerNorm backward that rule 3b's other half leaves to stock.
STATICGRID_PLAN = {
    **{("F5-fp8-cast-transpose-dbias", "fp32", rows, cols): [
        "", "ROW_TILE_GRID=1", "", "ROW_TILE_GRID=1,XBLOCK=64", "ROW_TILE_GRID=1,XBLOCK=64,num_warps=4"]
       for rows, cols in [(4096, 30522), (8192, 30522), (2048, 32000), (4096, 50304)]},
    **{(family, "fp32", rows, cols): ["", ""] for family in ("F1-t", "F3-layernorm-backward")
       for rows, cols in [(2048, 50257), (4096, 30521)]},
}
# The same shapes with N dynamic (--dynamic-rows): does the grid's wide fp8 cast gain from the plain X64 w4 tile as with
# N static, and are rule 3b's wide odd-C f32 copies faster fused with N dynamic ("" twice)?
DYNAMICFP8_PLAN = {
    **{shape: ["", "XBLOCK=64,num_warps=4", ""] for shape in list(STATICGRID_PLAN)[:4]},
    **{shape: ["", ""] for shape in list(STATICGRID_PLAN)[4:]},
}
# The held-out suite (cases.csv, suite "holdout"; 2026-12-01-h200-holdout.csv) found three kinds
# of site slower fused than stock, none in the corpus the rules were tuned on; each against the launches that might
# fix it.  Wide 16-bit kernels, a * b + 1 over bf16[8192, 18944] at 0.92x of stock and [4096, 28672] at 1.00x (the
# persistent X128 R128 w8 tile; 1.42-1.44x copy SOL, while the dynamic N's grid ran them at 1.33-1.34x): the rule's
# launch ("", twice: the noise), the plain persistent tile X64 w4, the big tile X128 w4, the row-tile grid with the
# rule's tile and with X64 w4, on them and on wide copies.
HOLDOUT_WIDE_PLAN = {shape: ["", "XBLOCK=64,num_warps=4", "XBLOCK=128,num_warps=4", "ROW_TILE_GRID=1",
                             "ROW_TILE_GRID=1,XBLOCK=64,num_warps=4", ""] for shape in (
    ("F2-mul-add", "bf16", 8192, 18944), ("F2-mul-add", "bf16", 4096, 28672), ("F2-mul-add", "fp16", 4096, 32000),
    ("F1-t", "bf16", 4096, 32000), ("F1-t", "bf16", 2048, 128256), ("F1-t", "bf16", 1024, 151936))}
# A narrow C (one column block) and a large N: bf16[1000000, 8] ran at 0.66x of stock on one wave, whose RSPLIT is
# capped at MAX_RSPLIT (64 programs on 132 SMs); with N dynamic, on the row-tile grid, 2.07x faster than stock.
HOLDOUT_NARROW_PLAN = {shape: ["", "TILES_PER_PROGRAM=1", "ROW_TILE_GRID=1", "TILES_PER_PROGRAM=2"] for shape in (
    ("F1-t", "bf16", 1000000, 8), ("F1-t", "fp32", 1000000, 8), ("F2-mul-add", "bf16", 1000000, 8),
    ("F1-t", "fp16", 500000, 64), ("F1-t", "bf16", 200000, 128))}
# Mid-size aligned 16-bit copies that a static N keeps on one wave, which the dynamic N's grid ran faster in the
# held-out runs (bf16[12608, 1024] 1.277 -> 1.167x copy SOL): one wave against the grid, twice each.
HOLDOUT_MID_PLAN = {shape: ["", "ROW_TILE_GRID=1", "", "ROW_TILE_GRID=1"] for shape in (
    ("F1-t", "bf16", 8192, 1024), ("F1-t", "bf16", 12608, 1024), ("F1-t", "fp16", 12000, 1280),
    ("F1-t", "fp16", 32768, 320))}
HOLDOUT1_PLAN = {**HOLDOUT_WIDE_PLAN, **HOLDOUT_NARROW_PLAN, **HOLDOUT_MID_PLAN}
# A small N under a wide C, where stock's one unsplit kernel holds all N rows (f32[64, 262144] ran at 0.94x of stock
# fused with N static, 0.78x dynamic): fused ("") against stock at N from 64 to 1024, static (holdoutsmalln) and with
# --dynamic-rows; and an odd-C f32 GELU backward, which rule 3c leaves to stock with N dynamic (stock 3.4x copy SOL).
HOLDOUT_SMALLN_PLAN = {
    **{("F1-t", dtype, rows, cols): [""] for dtype, cols in (("fp32", 262144), ("bf16", 131072))
       for rows in (64, 128, 256, 512, 1024)},
    **{("F2-mul-add", "bf16", rows, 131072): [""] for rows in (128, 512)},
    ("F2-gelu-backward", "fp32", 9999, 777): ["", ""],
}
# After the two rules that holdout1 gave (runtime/triton_heuristics.py: the wide 16-bit persistent tile on 4 warps, a
# narrow C), the third kind: a wide C whose fused kernel lost to stock's one unsplit kernel at every N from 128 to 1024
# in holdoutsmalln (f32[N, 262144] 0.73-0.76x, bf16[N, 131072] 0.83-0.87x from N = 256), while the held-out vocabularies
# of 128256 and 151936 columns gained at N = 1024-2048.  Is it C a power of two (rows 256 KiB or more apart)?  The
# rule's launch ("") against one wave of RSPLIT 1 (each program loops over every row, as stock's kernel does), the
# row-tile grid X64 w4, and the persistent X64 w4, on power-of-two C and on C 64 less; then the narrow-C rule's own
# launches (f32[1000000, 8]: four row tiles a program, twice; an fp8 cast and f32[12582912, 2], 48 tiles a program,
# against one wave).
HOLDOUT2_PLAN = {
    **{shape: ["", "TILES_PER_PROGRAM=0", "ROW_TILE_GRID=1,XBLOCK=64,num_warps=4", "XBLOCK=64,num_warps=4"]
       for shape in (("F1-t", "fp32", 1024, 262144), ("F1-t", "fp32", 1024, 262080), ("F1-t", "bf16", 1024, 131072),
                     ("F1-t", "bf16", 1024, 131008), ("F1-t", "bf16", 256, 131072), ("F1-t", "bf16", 4096, 65536),
                     ("F1-t", "bf16", 4096, 65472), ("F1-t", "bf16", 8192, 32768), ("F2-mul-add", "bf16", 512, 131072),
                     ("F1-t", "fp32", 64, 262144), ("F1-t", "fp32", 64, 262080), ("F1-t", "bf16", 128, 131072))},
    ("F1-t", "fp32", 1000000, 8): ["", ""], ("F1-t", "bf16", 1000000, 8): [""],
    ("F5-fp8-cast-transpose-dbias", "bf16", 1000000, 16): ["", "TILES_PER_PROGRAM=0"],
    ("F1-t", "fp32", 12582912, 2): ["", "TILES_PER_PROGRAM=0"],
}
# The same with N dynamic (--dynamic-rows): the wide 16-bit kernels on the row-tile grid (the rule: X128 w8) against
# X64 w4 and X128 w4 (static, the grid X64 w4 ran a * b + 1 over bf16[8192, 18944] at 1.09x copy SOL against 1.24x
# with X128 w8; holdout1), and the power-of-two C.
HOLDOUT2_DYNAMIC_PLAN = {
    **{shape: ["", "XBLOCK=64,num_warps=4", "XBLOCK=128,num_warps=4"] for shape in (
        ("F2-mul-add", "bf16", 8192, 18944), ("F2-mul-add", "bf16", 4096, 28672), ("F1-t", "bf16", 4096, 32000),
        ("F1-t", "bf16", 2048, 128256))},
    **{shape: ["", "XBLOCK=64,num_warps=4", "TILES_PER_PROGRAM=0"] for shape in (
        ("F1-t", "bf16", 1024, 131072), ("F1-t", "bf16", 1024, 131008))},
}
# holdout2 answered no: C a power of two or not ran alike; the wide path's 8 warps were the cost.  For bf16 the 4 warps of
# holdout1 took [1024, 131072] from 1.64x (holdoutsmalln) to 1.14x copy SOL; f32's wide persistent kernel (X128 R64 w8)
# ran [1024, 262144] at 1.59x (0.74x of stock) against 1.09x with X64 w4, and [64, 262144] at 1.17x (0.94x) against
# 1.07x (1.03x).  With N dynamic the wide 16-bit grid gained from 4 warps too (X128 w4 1.09-1.27x against X128 w8
# 1.19-1.41x).  Before a rule for f32: the wide f32 copies and a * b + 1 that the main job and the held-out suite have
# (the rule's X128 w8 "" twice, X64 w4), and the grid's X128 w4 on the one wide bf16 shape holdout2dynamic did not try.
HOLDOUT3_PLAN = {shape: ["", "XBLOCK=64,num_warps=4", ""] for shape in (
    ("F1-t", "fp32", 4096, 30522), ("F1-t", "fp32", 2048, 32128), ("F1-t", "fp32", 4096, 32000),
    ("F1-t", "fp32", 8192, 16896), ("F2-mul-add", "fp32", 2048, 32000), ("F1-t", "fp32", 256, 262144))}
HOLDOUT3_DYNAMIC_PLAN = {("F1-t", "bf16", 1024, 131072): ["", "XBLOCK=128,num_warps=4"],
                         ("F1-t", "bf16", 8192, 32768): ["", "XBLOCK=128,num_warps=4", "XBLOCK=64,num_warps=4"]}
# An odd one-wave RSPLIT makes the finish's partials rows (xindex * RSPLIT + rsplit_id) 4-byte aligned only, so the
# last program loads them as scalars: the bf16 copies of [8192, 1024] and [12608, 1024] (RSPLIT 33) compiled to 203 and
# 205 registers against 128 with RSPLIT 32 (ptxas, sm_90a), 2 programs an SM resident instead of 4, and ran at 1.27x
# and 1.29x copy SOL on one wave against 1.12x and 1.17x on the row-tile grid (holdout1).  The rule's odd RSPLIT
# ("", twice) against the even one below it, on those, on two more bf16/fp16 copies, and on the corpus and main-job
# kernels whose one-wave RSPLIT is odd (their registers do not change).
ODDRSPLIT_PLAN = {(family, dtype, rows, cols): ["", f"RSPLIT={rsplit - 1}", ""] for family, dtype, rows, cols, rsplit in (
    ("F1-t", "bf16", 8192, 1024, 33), ("F1-t", "bf16", 12608, 1024, 33), ("F1-t", "fp16", 8192, 1024, 33),
    ("F1-t", "bf16", 16384, 1024, 33), ("F3-layernorm-backward", "fp32", 25216, 768, 33),
    ("F3-layernorm-backward", "fp32", 4096, 768, 33), ("F3-layernorm-backward", "fp16", 8192, 768, 33),
    ("F5-fp8-cast-transpose-dbias", "fp32", 3152, 768, 25), ("F2-mul-add", "fp32", 4096, 768, 33))}
# One wave assumes 3 resident programs an SM for a kernel with a producer (up to 168 registers on 4 warps), but the
# looped fp32 -> fp8 cast compiles to 213-224 registers (ptxas, sm_90a, CPU), so 2 are resident and its one-wave grid
# of 300-384 programs is 1.1-1.5 waves of 264; the wide LayerNorm backward (X128 R64 w8, 174 registers) is resident
# once an SM and launches 239 programs, 1.8 waves.  The rule's launch ("", twice) against one and two true waves
# (2 programs an SM), and, for the wide kernel, R0_BLOCK 32 (86 registers, 2 an SM: 239 programs in one wave; 80 on
# X64 w4, 6 an SM).
RESIDENCY_PLAN = {
    **{("F5-fp8-cast-transpose-dbias", "fp32", rows, cols): ["", f"RSPLIT={one}", f"RSPLIT={two}", ""]
       for rows, cols, one, two in ((3152, 3072, 5, 11), (4096, 3072, 5, 11), (6144, 3072, 5, 11),
                                    (3152, 768, 22, 44), (8192, 1024, 16, 32))},
    ("F3-layernorm-backward", "fp32", 4096, 30522): ["", "R0_BLOCK=32", "XBLOCK=64,R0_BLOCK=32,num_warps=4", ""],
}
# Cache hints (2026-12-01): the loads without Inductor's evict_first hint (looped kernels only: the persistent
# kernel has none) on corpus cases >= 8 MB; the heuristic's launch first and last (the run's noise).  The streaming
# stores this plan also timed (lost on 15 of 19 kernels; docs/launch.md) are no longer a launch key.
HINT_LOOPED = [
    ("F1-t", "bf16", 25216, 3072), ("F4-flatten", "bf16", 25216, 768), ("F4-flatten", "fp16", 8192, 4096),
    ("F2-mul-add", "fp16", 4096, 3072), ("F5-fp8-cast-transpose-dbias", "bf16", 8192, 4096),
    ("F5-fp8-cast-transpose-dbias", "bf16", 25216, 3072), ("F5-fp8-cast-transpose-dbias", "bf16", 32768, 11008),
    ("F3-layernorm-backward", "bf16", 8192, 4096), ("F3-layernorm-backward", "fp32", 25216, 768),
    ("F3-amax", "fp16", 3152, 3072), ("F3-amax", "bf16", 1024, 4096), ("F2-gelu-backward", "bf16", 25216, 3072),
    ("F1-t", "bf16", 8191, 1021),
]
HINTS_PLAN = {
    **{s: ["", "EVICT_FIRST=0", ""] for s in HINT_LOOPED},
}
# The hints plan's runs drifted (its first and last default launch up to 7% apart, the first the faster), so the
# second plan alternates the default and the variant three times each on the shapes where one gained.
HINTS2_PLAN = {
    **{s: ["", "EVICT_FIRST=0"] * 3 for s in [
        ("F5-fp8-cast-transpose-dbias", "bf16", 8192, 4096), ("F5-fp8-cast-transpose-dbias", "bf16", 25216, 3072),
        ("F5-fp8-cast-transpose-dbias", "bf16", 32768, 11008), ("F5-fp8-cast-transpose-dbias", "bf16", 32768, 4096),
        ("F5-fp8-cast-transpose-dbias", "bf16", 4096, 3072), ("F3-layernorm-backward", "bf16", 8192, 4096),
        ("F1-t", "bf16", 25216, 3072), ("F3-amax", "fp16", 3152, 3072), ("F2-gelu-backward", "bf16", 25216, 3072)]},
}
# The evict_first hint on the looped one-wave kernels of the corpus, main and held-out suites, 8 MB to 1.4 GB: a first
# default launch as a warm-up (the first timing of a shape read up to 7% faster in hints2), then the default and the
# variant alternated three times.
HINTS3_SHAPES = [
    ("F5-fp8-cast-transpose-dbias", "bf16", 4096, 3072), ("F5-fp8-cast-transpose-dbias", "bf16", 8192, 4096),
    ("F5-fp8-cast-transpose-dbias", "bf16", 25216, 3072), ("F5-fp8-cast-transpose-dbias", "bf16", 32768, 4096),
    ("F5-fp8-cast-transpose-dbias", "bf16", 32768, 11008), ("F5-fp8-cast-transpose-dbias", "bf16", 65536, 1024),
    ("F5-fp8-cast-transpose-dbias", "bf16", 8192, 6400), ("F5-fp8-cast-transpose-dbias", "bf16", 16384, 5120),
    ("F5-fp8-cast-transpose-dbias", "fp32", 3152, 3072), ("F5-fp8-cast-transpose-dbias", "fp32", 4096, 3072),
    ("F5-fp8-cast-transpose-dbias", "fp32", 4096, 768),
    ("F3-layernorm-backward", "bf16", 8192, 4096), ("F3-layernorm-backward", "bf16", 65536, 1024),
    ("F3-layernorm-backward", "fp16", 8192, 768), ("F3-layernorm-backward", "fp32", 4096, 768),
    ("F3-layernorm-backward", "fp32", 25216, 768), ("F3-layernorm-backward", "fp32", 3152, 3072),
    ("F3-layernorm-backward", "fp32", 25216, 3072), ("F3-layernorm-backward", "fp32", 32768, 4096),
    ("F3-layernorm-backward", "fp32", 4096, 30522),
    ("F1-t", "bf16", 25216, 3072), ("F4-flatten", "bf16", 25216, 768), ("F4-flatten", "fp16", 8192, 4096),
    ("F1-t", "fp16", 2048, 2048), ("F1-t", "fp32", 3152, 3072), ("F1-t", "fp32", 4096, 3072),
    ("F2-mul-add", "fp16", 4096, 3072), ("F2-mul-add", "fp32", 4096, 3072), ("F2-mul-add", "fp32", 3152, 768),
    ("F3-amax", "fp16", 3152, 3072), ("F3-amax", "bf16", 1024, 4096),
    ("F2-gelu-backward", "bf16", 25216, 3072), ("F2-gelu-backward", "bf16", 32768, 11008),
]
HINTS_ALTERNATED = ["", *["", "EVICT_FIRST=0"] * 3]  # a warm-up, then the default and the variant, three times
HINTS3_PLAN = {s: HINTS_ALTERNATED for s in HINTS3_SHAPES}
# The same with N dynamic (run with --dynamic-rows): the looped kernels of a dynamic N the evict_first rule would reach.
HINTS4_PLAN = {s: HINTS_ALTERNATED for s in [
    ("F3-layernorm-backward", "fp32", 4096, 30522), ("F3-layernorm-backward", "bf16", 8192, 4096),
    ("F3-layernorm-backward", "fp32", 25216, 768), ("F3-layernorm-backward", "fp32", 25216, 3072),
    ("F3-layernorm-backward", "fp32", 3152, 3072), ("F5-fp8-cast-transpose-dbias", "bf16", 32768, 4096),
    ("F5-fp8-cast-transpose-dbias", "bf16", 8192, 4096), ("F5-fp8-cast-transpose-dbias", "fp32", 25216, 3072),
    ("F2-gelu-backward", "bf16", 25216, 3072), ("F2-mul-add", "fp32", 25216, 3072), ("F3-amax", "bf16", 8192, 4096),
]}
# Rows not 16-byte aligned (odd C or N) with wider column tiles than the heuristic's X32/X64: a plain Triton transpose
# of bf16[8191, 1021] ran at 1.00x copy SOL with 64 rows x 128 columns on 8 warps against the package's 1.31x
# (lab/2026-12-01-h200-lab-gluon.csv).  Corpus shapes, then held-out ones as the check; a warm-up default first and
# the default again last (the noise).  oddtile gives RSPLIT, which makes the kernel a looped one with one row tile a
# program (config.py: RSPLIT wins over TILES_PER_PROGRAM); oddtile2 leaves it out, so the kernel is the persistent
# one-tile kernel, whose tile doubles R0_BLOCK where the 2% partials budget caps RSPLIT (R0_BLOCK=32 gives 64-row
# tiles on bf16[8191, 1021]; _persistent_tile).
ODDTILE_SHAPES = [
    ("F1-t", "bf16", 8191, 1021), ("F2-mul-add", "bf16", 8191, 1021), ("F1-t", "fp32", 25229, 3067),
    ("F5-fp8-cast-transpose-dbias", "bf16", 4099, 769), ("F1-t", "bf16", 4096, 30522),
    ("F5-fp8-cast-transpose-dbias", "fp32", 4096, 30522), ("F1-t", "bf16", 8192, 50257),
    ("F2-mul-add", "fp32", 2048, 50257),
    ("F1-t", "bf16", 12345, 2047), ("F2-mul-add", "fp32", 10007, 1000), ("F5-fp8-cast-transpose-dbias", "fp32", 5003, 4099),
    ("F1-permute", "fp32", 100003, 96), ("F2-gelu-backward", "fp32", 9999, 777),
]
ODDTILE_TILES = [(128, 64, 8), (128, 64, 4), (64, 64, 4), (128, 32, 4), (256, 32, 8)]
ODDTILE2_TILES = [(128, 32, 8), (128, 64, 8), (64, 64, 4), (64, 32, 4), (128, 32, 4)]


def oddtile_launches(rows: int, persistent: bool = False) -> list[str]:
    """One tile a program for each tile of :data:`ODDTILE_TILES` (or, ``persistent``, :data:`ODDTILE2_TILES`),
    between defaults."""
    if persistent:
        tiles = [f"XBLOCK={x},R0_BLOCK={r},num_warps={w},TILES_PER_PROGRAM=1" for x, r, w in ODDTILE2_TILES]
    else:
        tiles = [f"XBLOCK={x},R0_BLOCK={r},RSPLIT={-(-rows // r)},num_warps={w},TILES_PER_PROGRAM=1"
                 for x, r, w in ODDTILE_TILES]
    return ["", "", *tiles, ""]


# One tile a program where the heuristic keeps one wave of looping programs on rows not 16-byte aligned (a producer,
# an fp8 cast, two reductions): in oddtile2 the held-out a * b + 1 over f32[10007, 1000] ran at 1.25x copy SOL with
# one tile a program against 1.48x, and the f32 -> fp8 cast of [5003, 4099] at 1.66x against 2.03x.  New shapes
# (none in a suite), the heuristic's tile and X64, between defaults.
ODDONE_SHAPES = [
    ("F2-mul-add", "fp32", 8191, 1024), ("F2-mul-add", "fp32", 4097, 3072), ("F2-mul-add", "fp32", 12289, 768),
    ("F2-mul-add", "fp32", 3001, 4097), ("F2-mul-add", "bf16", 8191, 1024), ("F2-mul-add", "bf16", 4097, 3072),
    ("F2-gelu-backward", "fp32", 8191, 1024), ("F5-fp8-cast-transpose-dbias", "fp32", 4095, 3072),
    ("F5-fp8-cast-transpose-dbias", "fp32", 3001, 4097), ("F5-fp8-cast-transpose-dbias", "fp32", 8191, 1000),
    ("F5-fp8-cast-transpose-dbias", "bf16", 4095, 3072), ("F5-fp8-cast-transpose-dbias", "bf16", 8191, 1000),
    ("F3-layernorm-backward", "fp32", 8191, 1024),
]
ODDONE_LAUNCHES = ["", "", "TILES_PER_PROGRAM=1", "XBLOCK=64,TILES_PER_PROGRAM=1", ""]


# Taller tiles on odd C and N: the Triton tile transpose of f32[25229, 3067] ran at 1.18x copy SOL with 128 rows x 32
# columns on 4 warps against 1.48x with the package's 64 x 32 (lab/2026-12-01-h200-lab-gluon-triton.csv).
PRIMETILE_PLAN = {shape: ["", "", "XBLOCK=32,R0_BLOCK=128,num_warps=4,TILES_PER_PROGRAM=1",
                          "XBLOCK=32,R0_BLOCK=256,num_warps=8,TILES_PER_PROGRAM=1", ""]
                  for shape in [("F1-t", "fp32", 25229, 3067), ("F1-t", "bf16", 12345, 2047),
                                ("F2-mul-add", "bf16", 8191, 1021), ("F1-t", "bf16", 8192, 50257)]}


# The random-site losses of 2026-12-02 (seeds 763936093, 1474020138, 1635222520; fused x stock): LayerNorm backward in
# fp32 over rows that are not 16-byte aligned, [20973, 2846] 0.49x, [40244, 554] 0.77x, [11738, 214] 0.87x (the one-wave
# looped launch), the narrow odd-C cast fp16[83998, 257] 0.74x; the aligned real size [25216, 3072] as the reference.
# The launch the rules pick twice (noise), then row tiles a program, other tiles, warps, a doubled RSPLIT, prefetch.
LOSSES_SHAPES = [("F3-layernorm-backward", "fp32", 20973, 2846), ("F3-layernorm-backward", "fp32", 40244, 554),
                 ("F3-layernorm-backward", "fp32", 11738, 214), ("F5-bf16-cast", "fp16", 83998, 257),
                 ("F3-layernorm-backward", "fp32", 25216, 3072)]
LOSSES_LAUNCHES = ["", "TILES_PER_PROGRAM=1", "TILES_PER_PROGRAM=2", "TILES_PER_PROGRAM=4", "XBLOCK=32,R0_BLOCK=128",
                   "XBLOCK=128,R0_BLOCK=32", "num_warps=8", "XBLOCK=32,R0_BLOCK=64", "RSPLIT=16", "PREFETCH=1", "INT32_SIZES=1", ""]

# The random-site losses of 2026-12-03 to -05, all with a narrow C (128 or fewer columns) and N past 1024, beside
# two narrow sites that gained: which tile, row tiles a program and finish serve a narrow C.
NARROW_SHAPES = [("F2-gelu-backward", "fp16", 36911, 52), ("F2-gelu-backward", "bf16", 116828, 80),
                 ("F5-fp8-cast-transpose-dbias", "fp32", 40835, 82), ("F3-amax", "fp32", 100761, 40),
                 ("F3-amax", "bf16", 84926, 15), ("F5-bf16-cast", "fp16", 4943, 104),
                 ("F5-bf16-cast", "fp32", 11024, 96), ("F5-fp8-cast-transpose-dbias", "bf16", 76115, 123),
                 ("F1-t", "bf16", 24417, 103), ("F1-t", "fp32", 115315, 75)]
NARROW_LAUNCHES = ["", "TILES_PER_PROGRAM=0", "TILES_PER_PROGRAM=1", "TILES_PER_PROGRAM=2", "TILES_PER_PROGRAM=4",
                   "XBLOCK=16,TILES_PER_PROGRAM=1", "XBLOCK=32,TILES_PER_PROGRAM=1",
                   "XBLOCK=128,R0_BLOCK=64,TILES_PER_PROGRAM=1", "XBLOCK=128,R0_BLOCK=64,TILES_PER_PROGRAM=4",
                   "XBLOCK=32,R0_BLOCK=256,TILES_PER_PROGRAM=1", "num_warps=4,TILES_PER_PROGRAM=1",
                   "SEPARATE_FINISH=1"]

# The plans whose shapes and launches are fixed here: --shapes NAME runs FIXED_PLANS[NAME], {shape: launches}.
FIXED_PLANS = {
    "check": CHECK_PLAN, "tune": TUNE_PLAN, "midwide": MIDWIDE_PLAN, "gate": GATE_PLAN, "oddcheck": ODDCHECK_PLAN,
    "spincheck": SPINCHECK_PLAN,
    "group": {shape: GROUP_LAUNCHES for shape in GROUP_SHAPES},
    "several": {shape: SEVERAL_LAUNCHES for shape in SEVERAL_SHAPES},
    "fewsplits": {shape: FEWSPLITS_LAUNCHES for shape in FEWSPLITS_SHAPES},
    "prefetch": PREFETCH_PLAN, "prefetch2": PREFETCH2_PLAN, "checks": CHECKS_PLAN,
    "prefetchcheck": PREFETCHCHECK_PLAN, "oddprefetch": ODDPREFETCH_PLAN, "bigtile": BIGTILE_PLAN,
    "bigtile2": BIGTILE2_PLAN, "fp8": FP8_PLAN, "fp8b": FP8B_PLAN, "dynamic": DYNAMIC_PLAN,
    "dynamic2": DYNAMIC2_PLAN, "dynamic3": DYNAMIC3_PLAN,
    "dynamic4": DYNAMIC4_PLAN, "dynamic5": DYNAMIC5_PLAN, "rule3b": RULE3B_PLAN,
    "dynamic6": DYNAMIC6_PLAN, "dynamic7": DYNAMIC7_PLAN, "staticgrid": STATICGRID_PLAN,
    "dynamicfp8": DYNAMICFP8_PLAN, "holdout1": HOLDOUT1_PLAN, "holdoutsmalln": HOLDOUT_SMALLN_PLAN,
    "holdout2": HOLDOUT2_PLAN, "holdout2dynamic": HOLDOUT2_DYNAMIC_PLAN, "holdout3": HOLDOUT3_PLAN,
    "holdout3dynamic": HOLDOUT3_DYNAMIC_PLAN, "oddrsplit": ODDRSPLIT_PLAN,
    "residency": RESIDENCY_PLAN, "hints": HINTS_PLAN, "hints2": HINTS2_PLAN, "hints3": HINTS3_PLAN, "hints4": HINTS4_PLAN,
    "oddtile": {shape: oddtile_launches(shape[2]) for shape in ODDTILE_SHAPES},
    "oddtile2": {shape: oddtile_launches(shape[2], persistent=True) for shape in ODDTILE_SHAPES},
    "oddone": {shape: ODDONE_LAUNCHES for shape in ODDONE_SHAPES}, "primetile": PRIMETILE_PLAN,
    "losses": {shape: LOSSES_LAUNCHES for shape in LOSSES_SHAPES},
    "narrow": {shape: NARROW_LAUNCHES for shape in NARROW_SHAPES},
}
PROGRAMS_PER_SM = [4, 8, 16, 32]
SMALL_PROGRAMS_PER_SM = [1, 2, 4, 8, 16]
NUM_SMS = 132


def itemsize(family: str, dtype: str) -> int:
    if family.startswith("F5-fp8"):
        return 3 if dtype == "fp32" else 1  # 3: the fp32 -> fp8 tile list
    return {"fp32": 4, "bf16": 2, "fp16": 2}[dtype]


WAVES_FILE = pathlib.Path(__file__).with_name("sweep_waves.csv")


def wave_launches() -> dict[tuple, list[str]]:
    """{shape: launches} of :data:`WAVES_FILE`: every fused corpus case >= 8 MB at the RSPLITs whose grids come
    nearest below 396, 528, 792 and 1056 programs (one or two waves of 3 or 4 resident 4-warp programs per SM on 132
    SMs), within the row tiles, and at the RSPLIT the launch rule before the waves sweep chose (``rule`` = "previous":
    ceil(8 programs per SM); 4 for 16-bit kernels with two reductions, 2 on the wide path, fewer where the 1% partials
    budget bound).  The sweep of 2026-11-29 ran that last launch as "" (the heuristic of the day).  ``programs`` is
    RSPLIT times the column blocks."""
    import pandas as pd

    frame = pd.read_csv(WAVES_FILE, keep_default_na=False)
    out: dict[tuple, list[str]] = {}
    for r in frame.itertuples():
        out.setdefault((r.family, r.dtype, r.rows, r.cols), []).append(r.launch)
    return out


def launches(family: str, dtype: str, rows: int, cols: int) -> list[str]:
    """Launch-config strings to try for one shape (the tile sweeps; the waves sweep's come from its file)."""
    out = []
    small = (family, dtype, rows, cols) in SMALL_SHAPES + F5_SHAPES + TWO_REDUCTION_SHAPES
    tiles = TILES[itemsize(family, dtype)]
    for xblock, rblock, warps in tiles[: 4 if (family, dtype, rows, cols) in SMALL_SHAPES else None]:
        col_blocks, row_blocks = -(-cols // xblock), -(-rows // rblock)
        targets = SMALL_PROGRAMS_PER_SM if small else PROGRAMS_PER_SM
        rsplits = {max(1, min(row_blocks, 128, -(-p * NUM_SMS // col_blocks))) for p in targets}
        if col_blocks >= NUM_SMS:  # wide: the columns alone fill the GPU, so no split is a candidate
            rsplits.add(1)
        rsplits = sorted(rsplits)
        for rsplit in rsplits:
            out.append(f"XBLOCK={xblock},R0_BLOCK={rblock},RSPLIT={rsplit},num_warps={warps},num_stages=1")
    x, r, w = TILES[itemsize(family, dtype)][0]
    out.append(f"XBLOCK={x},R0_BLOCK={r},num_warps={w},num_stages=2")  # pipelined default tile
    return out


def odd_launches(shape: tuple) -> list[str]:
    """Launch strings of :data:`ODD_PLAN` for one shape (RSPLIT 1 and 2 where the columns alone fill a wave)."""
    tiles, per_sm = ODD_PLAN[shape]
    rows, cols = shape[2], shape[3]
    out = []
    for xblock, rblock, warps in tiles:
        col_blocks, row_blocks = -(-cols // xblock), -(-rows // rblock)
        rsplits = sorted({max(1, min(row_blocks, p * NUM_SMS // col_blocks)) for p in per_sm}
                         | ({1, 2} if col_blocks >= NUM_SMS else set()))
        out += [f"XBLOCK={xblock},R0_BLOCK={rblock},RSPLIT={r},num_warps={warps},num_stages=1" for r in rsplits]
    return out


def _warm(item) -> str:
    """Pool worker: compile one variant (fills the on-disk caches)."""
    (family, dtype, rows, cols), launch, dynamic_rows = item
    import os

    os.environ["TORCHINDUCTOR_COMPILE_THREADS"] = "1"  # the pool is the parallelism; no nested compile pools
    import torch

    import reduction_transpose_fusion  # noqa: F401
    from benchmarks import harness
    from reduction_transpose_fusion_testing import families

    case = families.CASES[family]
    inputs = case.inputs(rows, cols, families.DTYPES[dtype], device="cuda")
    torch._dynamo.reset()
    options = harness.FORCED | {"reduction_transpose_fusion_launch_config": launch}  # as the timing loop compiles
    try:
        harness.compile_fn(case.fn, inputs, options, case.row_dims() if dynamic_rows else None)
        return "ok"
    except Exception as e:  # a launch that does not compile is a result, not a crash
        return f"{type(e).__name__}: {str(e)[:200]}"


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=pathlib.Path, required=True)
    parser.add_argument("--workers", type=int, default=12)
    parser.add_argument("--dynamic-rows", action="store_true", help="compile with N dynamic (harness.compile_fn)")
    parser.add_argument("--shapes", default="large",
                        choices=["large", "small", "f5", "two", "waves", "odd", "onetile", "spin", "tree",
                                 *FIXED_PLANS],
                        help="SHAPES, SMALL_SHAPES, F5_SHAPES, TWO_REDUCTION_SHAPES, the cases of WAVES_FILE, "
                             "ODD_PLAN, the onetile, spin or tree plan (from WAVES_FILE), or a plan of FIXED_PLANS")
    args = parser.parse_args(argv)
    if args.shapes == "waves":
        plan = wave_launches()
    elif args.shapes in ("onetile", "spin"):
        shape_launches = ONETILE_LAUNCHES if args.shapes == "onetile" else SPIN_LAUNCHES
        extra = [*ONETILE_EXTRA, *(SPIN_EXTRA if args.shapes == "spin" else [])]
        plan = {shape: shape_launches for shape in [*wave_launches(), *extra]}
    elif args.shapes == "tree":
        shapes = [*wave_launches(), *ONETILE_EXTRA, *SPIN_EXTRA]
        plan = {shape: TREE_LAUNCHES for shape in shapes
                if shape[0] not in TREE_MULTI_REDUCTION and shape[0] != "F2-gelu-backward"}
    elif args.shapes == "odd":
        plan = {shape: ["", *odd_launches(shape)] for shape in ODD_PLAN}  # "": the heuristic's own launch
    elif args.shapes in FIXED_PLANS:
        plan = FIXED_PLANS[args.shapes]
    else:
        shapes = {"large": SHAPES, "small": SMALL_SHAPES, "f5": F5_SHAPES, "two": TWO_REDUCTION_SHAPES}[args.shapes]
        plan = {shape: launches(*shape) for shape in shapes}
    items = [(shape, launch) for shape, shape_launches in plan.items() for launch in shape_launches]
    with multiprocessing.get_context("spawn").Pool(args.workers) as pool:
        warm = dict(zip(items, pool.map(_warm, [(*item, args.dynamic_rows) for item in items], chunksize=1)))

    import pandas as pd
    import torch
    from tqdm import tqdm

    import reduction_transpose_fusion  # noqa: F401
    from benchmarks import harness
    from reduction_transpose_fusion_testing import families

    rows = []
    for shape, shape_launches in tqdm(plan.items(), desc="shapes"):
        family, dtype, n, c = shape
        case = families.CASES[family]
        inputs = case.inputs(n, c, families.DTYPES[dtype], device="cuda")
        row_dims = case.row_dims() if args.dynamic_rows else None
        stock_fn, stock_kernels, _, _ = harness.compile_fn(case.fn, inputs, harness.STOCK, row_dims)
        stock_out = stock_fn(*inputs)
        moved = harness.nbytes(inputs) + harness.nbytes(stock_out)
        sol, stock = harness.copy_sol_ms(moved), harness.bench(lambda: stock_fn(*inputs))
        for launch in shape_launches:
            row = dict(family=family, dtype=dtype, rows=n, cols=c, launch=launch, copy_sol_ms=sol, stock_ms=stock,
                       kernels_stock=stock_kernels)
            if warm[(shape, launch)] != "ok":
                rows.append(row | dict(error=warm[(shape, launch)]))
                continue
            options = harness.FORCED | {"reduction_transpose_fusion_launch_config": launch}
            loaded = harness.loaded_modules()
            fused_fn, kernels, seconds, _ = harness.compile_fn(case.fn, inputs, options, row_dims)
            regs, spills = harness.registers_since(loaded)
            ms = harness.bench(lambda: fused_fn(*inputs))
            err, exact = harness.check(case, inputs, fused_fn(*inputs), stock_out)
            rows.append(row | dict(kernels=kernels, fused_ms=ms, fused_over_sol=ms / sol, speedup=stock / ms,
                                   compile_s=seconds, max_rel_err=err, transposed_bit_exact=exact,
                                   registers=regs, n_spills=spills))
        torch.cuda.empty_cache()
        frame = pd.DataFrame(rows)  # written after every shape, so a run cut short keeps what it measured
        args.out.mkdir(parents=True, exist_ok=True)
        name = args.shapes if not args.dynamic_rows or "dynamic" in args.shapes else f"{args.shapes}-dynamic"
        frame.to_csv(args.out / f"sweep-{name}.csv", index=False)
    ok = frame.dropna(subset=["fused_ms"]) if "fused_ms" in frame else frame
    for key, group in ok.groupby(["family", "dtype", "rows", "cols"], sort=False):
        print(key, f"SOL {group.copy_sol_ms.iloc[0]:.4f} ms, stock {group.stock_ms.iloc[0]:.4f} ms")
        print(group.sort_values("fused_ms").head(5)[["launch", "fused_ms", "fused_over_sol", "speedup"]]
              .to_string(index=False))


if __name__ == "__main__":
    main()
