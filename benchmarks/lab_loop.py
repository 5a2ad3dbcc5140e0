"""Lab experiment (H200): what the fused kernel's row loop costs, and whether a register prefetch helps.

Not part of the package.  A stand-alone Triton kernel with the structure of the generated fused kernel
(``[XBLOCK, R0_BLOCK]`` tiles over ``RSPLIT x C / XBLOCK`` programs, transposed store, column partials in a workspace,
last-program finish by ticket) and three switches, each a candidate change to the generated loop:

* ``ACC``: 0 = Inductor's ``[XBLOCK, R0_BLOCK]`` fp32 accumulator (masked add per tile, summed after the loop);
  1 = reduce each tile to ``[XBLOCK]`` inside the loop; 2 = no accumulation (a pure transpose; the bound).
* ``PREFETCH``: 1 = load the next tile into registers before the current one is converted and stored, so a
  program keeps a load in flight while it transposes (a software pipeline of depth 2 without shared memory).
* ``num_warps`` and programs per SM (``RSPLIT`` = that many programs per SM over the column blocks, rounded down).

For each shape it also times the copy SOL (twice, for the noise), stock ``torch.compile`` and the package's fused
kernel, so the lab kernel's baseline (ACC 0, PREFETCH 0) can be checked against the generated one.

    python -m benchmarks.lab_loop --plan loop|grid|map|ticket|fence --out DIR     # writes DIR/lab-<plan>.csv

The ``map`` plan asks how the programs should be mapped to tiles: ``INTERLEAVE`` gives program ``s`` of a column
block the row tiles ``s, s + RSPLIT, ...`` instead of a contiguous chunk, and :func:`_one_tile_kernel` (one tile a
program, no loop, the mapping of a plain tiled transpose) is timed in three orders, with per-tile partials, with the
ticket and with the last program's looped sum of the partials.  Its results are
``benchmarks/results/lab/2026-11-30-h200-lab-map{1,2}.csv`` (run 1 stored the partials as ``[row tiles, C]``, run 2
in the generated kernel's ``[C, RSPLIT]`` layout); the generated kernel's versions of the same ideas (interleaved
rows; 1, 2 or 4 row tiles a program with a looped finish) are commit ``d0e31c1``, measured in
``sweeps/2026-11-30-h200-sweep-{interleave,tiles}.csv`` and not shipped.

The ``ticket`` plan (:func:`_tile_ticket_kernel`) keeps one to four row tiles a program and asks what the finish costs
once the partials are coalesced (``[programs, C]``) and the last program sums them inside its own branch, with the
ticket after the transposed stores or before the last one.  Its results are
``benchmarks/results/lab/2026-11-30-h200-lab-ticket.csv``; the generated kernel's version (the chunked finish) ships
for odd shapes only (``sweeps/2026-11-30-h200-sweep-{onetile,oddcheck-run1,oddcheck-run2}.csv``).
"""

from __future__ import annotations

import argparse
import os

import pandas as pd
import torch
import triton
import triton.language as tl

from reduction_transpose_fusion.runtime.triton_heuristics import launch_config
from reduction_transpose_fusion_testing import families

from . import harness
from .sweep import NUM_SMS


@triton.jit
def _fused_tile_kernel(x_ptr, q_ptr, t_ptr, ws_ptr, sum_ptr, sem_ptr, scale, N, C,
                       XBLOCK: tl.constexpr, R0_BLOCK: tl.constexpr, RSPLIT: tl.constexpr,
                       RSPLIT_P2: tl.constexpr, ACC: tl.constexpr, PREFETCH: tl.constexpr, FP8: tl.constexpr,
                       INTERLEAVE: tl.constexpr = 0):
    sid = tl.program_id(0)
    xid = tl.program_id(1)
    if INTERLEAVE:  # row tiles sid, sid + RSPLIT, ... (prefetch not supported: its step is one tile)
        start = sid * R0_BLOCK
        end = N
        step = RSPLIT * R0_BLOCK
    else:
        chunk = tl.cdiv(tl.cdiv(N, R0_BLOCK), RSPLIT) * R0_BLOCK
        start = sid * chunk
        end = tl.minimum(start + chunk, N)
        step = R0_BLOCK
    cols1 = xid * XBLOCK + tl.arange(0, XBLOCK)
    cols = cols1[:, None]
    rbase = tl.arange(0, R0_BLOCK)[None, :]
    acc_tile = tl.zeros([XBLOCK, R0_BLOCK], tl.float32)
    acc_row = tl.zeros([XBLOCK], tl.float32)
    nxt = tl.load(x_ptr + cols + C * (start + rbase), (start + rbase) < end, other=0.0,
                  eviction_policy="evict_first")
    for off in tl.range(start, end, step):
        rows = off + rbase
        mask = rows < end
        if PREFETCH:
            cur = nxt
            nxt = tl.load(x_ptr + cols + C * (rows + R0_BLOCK), (rows + R0_BLOCK) < end, other=0.0,
                          eviction_policy="evict_first")
        else:
            cur = tl.load(x_ptr + cols + C * rows, mask, other=0.0, eviction_policy="evict_first")
        f = cur.to(tl.float32)
        if ACC == 0:
            acc_tile = tl.where(mask, acc_tile + f, acc_tile)
        elif ACC == 1:
            acc_row += tl.sum(f, 1)
        if FP8:  # TransformerEngine's cast-transpose: q = fp8(bf16(g * s)) and its transpose
            q = (f * scale).to(tl.bfloat16).to(tl.float8e4nv)
            tl.store(q_ptr + cols + C * rows, q, mask)
            tl.store(t_ptr + rows + N * cols, q, mask)
        else:
            tl.store(t_ptr + rows + N * cols, cur, mask)
    if ACC == 0:
        part = tl.sum(acc_tile, 1)
    else:
        part = acc_row
    tl.store(ws_ptr + cols1 * RSPLIT + sid, part)
    tl.debug_barrier()
    ticket = tl.atomic_add(sem_ptr + xid, 1, sem="acq_rel")
    is_last = ticket == RSPLIT - 1
    if is_last:
        tl.atomic_xchg(sem_ptr + xid, 0, sem="relaxed")
    tl.debug_barrier()
    ks = tl.arange(0, RSPLIT_P2)[None, :]
    peers = tl.load(ws_ptr + cols * RSPLIT + ks, (ks < RSPLIT) & is_last, other=0.0)
    total = tl.sum(peers, 1)
    if is_last:
        tl.store(sum_ptr + cols1, total)


@triton.jit
def _one_tile_kernel(x_ptr, t_ptr, ws_ptr, sum_ptr, sem_ptr, N, C, XBLOCK: tl.constexpr, R0_BLOCK: tl.constexpr,
                     ORDER: tl.constexpr, GROUP: tl.constexpr, PARTIALS: tl.constexpr, FINISH: tl.constexpr,
                     CHUNK: tl.constexpr):
    """One ``[XBLOCK, R0_BLOCK]`` tile a program, no loop: the mapping of a plain tiled transpose.  ORDER 0: row
    tiles fastest (Inductor's pointwise transpose); 1: column blocks fastest; 2: GROUP column blocks fastest, then
    row tiles (a swizzle).  PARTIALS stores the tile's column sums to ``ws [C, row tiles]`` (the generated kernel's
    workspace layout).  FINISH: 0 none; 1 the ticket (``atomic_add``, acq_rel) only; 2 the ticket and the last
    program's sum of the partials, CHUNK row tiles a step; 3 as 2 with a relaxed ticket (not a correct finish: it
    measures what the release costs)."""
    pid = tl.program_id(0)
    row_tiles = tl.cdiv(N, R0_BLOCK)
    col_blocks = C // XBLOCK
    if ORDER == 0:
        rt = pid % row_tiles
        cb = pid // row_tiles
    elif ORDER == 1:
        cb = pid % col_blocks
        rt = pid // col_blocks
    else:
        per_group = GROUP * row_tiles
        first = (pid // per_group) * GROUP
        size = tl.minimum(col_blocks - first, GROUP)
        cb = first + (pid % per_group) % size
        rt = (pid % per_group) // size
    cols1 = cb * XBLOCK + tl.arange(0, XBLOCK)
    cols = cols1[:, None]
    rows = rt * R0_BLOCK + tl.arange(0, R0_BLOCK)[None, :]
    mask = rows < N
    tile = tl.load(x_ptr + cols + C * rows, mask, other=0.0, eviction_policy="evict_first")
    tl.store(t_ptr + rows + N * cols, tile, mask)
    if PARTIALS:
        tl.store(ws_ptr + cols1 * row_tiles + rt, tl.sum(tile.to(tl.float32), 1))
    if FINISH:
        tl.debug_barrier()
        if FINISH == 3:
            ticket = tl.atomic_add(sem_ptr + cb, 1, sem="relaxed")
        else:
            ticket = tl.atomic_add(sem_ptr + cb, 1, sem="acq_rel")
        is_last = ticket == row_tiles - 1
        if is_last:
            tl.atomic_xchg(sem_ptr + cb, 0, sem="relaxed")
        tl.debug_barrier()
        if FINISH >= 2:
            acc = tl.zeros([XBLOCK, CHUNK], tl.float32)
            for k in tl.range(0, row_tiles, CHUNK):
                ks = k + tl.arange(0, CHUNK)[None, :]
                acc += tl.load(ws_ptr + cols * row_tiles + ks, (ks < row_tiles) & is_last, other=0.0)
            if is_last:
                tl.store(sum_ptr + cols1, tl.sum(acc, 1))


@triton.jit
def _tile_ticket_kernel(x_ptr, t_ptr, ws_ptr, sum_ptr, sem_ptr, N, C, XBLOCK: tl.constexpr, R0_BLOCK: tl.constexpr,
                        TILES: tl.constexpr, PARTIALS: tl.constexpr, TICKET: tl.constexpr, CHUNK: tl.constexpr,
                        FLAGGED: tl.constexpr = False):
    """``TILES`` consecutive ``[XBLOCK, R0_BLOCK]`` row tiles a program, row programs fastest (the cooperative
    grid's order, ``(programs, column blocks)``), with a column mask.  PARTIALS stores each program's column sums
    to ``ws [programs, C]`` (coalesced).  TICKET: 0 none; 1 the ticket (``atomic_add``, acq_rel) after every
    transposed store; 2 the last tile's transposed store after the ticket, so the release waits on the partials
    store only.  With a ticket, the last program of a column block sums the partials inside ``if is_last:``, a
    ``[CHUNK, XBLOCK]`` block of ``ws`` a step, so the finish adds few registers and no masked work to the others.

    The ``fence`` plan's tickets differ in memory ordering only: 3 a ``release`` ticket after the transposed stores
    and an ``acquire`` reset of the semaphore inside the last program's branch (what generated code can do);
    4 a ``relaxed`` ticket with no barrier (NOT a correct synchronisation: the round trip's cost alone, the floor);
    5 ``FLAGGED`` partials (``ws`` int64 words, fp32 bits | 1 << 32, zeroed again by the reader) with a relaxed
    ticket and no barrier: the last program spins on each word's flag, so no program waits on a fence;
    6 the ``release`` ticket before the last transposed store."""
    pid = tl.program_id(0)
    cb = tl.program_id(1)
    progs = tl.num_programs(0)
    cols1 = cb * XBLOCK + tl.arange(0, XBLOCK)
    cmask = cols1[:, None] < C
    cols = cols1[:, None]
    acc = tl.zeros([XBLOCK], tl.float32)
    for i in tl.static_range(TILES - 1):
        rows = (pid * TILES + i) * R0_BLOCK + tl.arange(0, R0_BLOCK)[None, :]
        mask = (rows < N) & cmask
        tile = tl.load(x_ptr + cols + C * rows, mask, other=0.0, eviction_policy="evict_first")
        if PARTIALS:
            acc += tl.sum(tile.to(tl.float32), 1)
        tl.store(t_ptr + rows + N * cols, tile, mask)
    rows = (pid * TILES + TILES - 1) * R0_BLOCK + tl.arange(0, R0_BLOCK)[None, :]
    mask = (rows < N) & cmask
    tile = tl.load(x_ptr + cols + C * rows, mask, other=0.0, eviction_policy="evict_first")
    if PARTIALS:
        acc += tl.sum(tile.to(tl.float32), 1)
    if TICKET != 2 and TICKET != 6:
        tl.store(t_ptr + rows + N * cols, tile, mask)
    if FLAGGED:
        word = (acc.to(tl.int32, bitcast=True).to(tl.int64) & 0xFFFFFFFF) | 0x100000000
        tl.store(ws_ptr.to(tl.pointer_type(tl.int64)) + pid * C + cols1, word, cols1 < C)
    elif PARTIALS:
        tl.store(ws_ptr + pid * C + cols1, acc, cols1 < C)
    if TICKET >= 3:
        _fence_ticket(t_ptr, ws_ptr, sum_ptr, sem_ptr, N, C, rows, cols, cols1, tile, mask, cb, progs, TICKET,
                      FLAGGED, XBLOCK, CHUNK)
    elif TICKET:
        tl.debug_barrier()
        ticket = tl.atomic_add(sem_ptr + cb, 1, sem="acq_rel")
        if TICKET == 2:
            tl.store(t_ptr + rows + N * cols, tile, mask)
        if ticket == progs - 1:
            tl.debug_barrier()  # the other threads read the partials after the acquire
            part = tl.zeros([CHUNK, XBLOCK], tl.float32)
            for k in tl.range(0, progs, CHUNK):
                ks = k + tl.arange(0, CHUNK)[:, None]
                part += tl.load(ws_ptr + ks * C + cols1[None, :], (ks < progs) & (cols1[None, :] < C), other=0.0)
            tl.store(sum_ptr + cols1, tl.sum(part, 0), cols1 < C)
            tl.atomic_xchg(sem_ptr + cb, 0, sem="relaxed")


@triton.jit
def _fence_ticket(t_ptr, ws_ptr, sum_ptr, sem_ptr, N, C, rows, cols, cols1, tile, mask, cb, progs,
                  TICKET: tl.constexpr, FLAGGED: tl.constexpr, XBLOCK: tl.constexpr, CHUNK: tl.constexpr):
    """The ``fence`` plan's tickets 3-6 of :func:`_tile_ticket_kernel` and the last program's finish."""
    if TICKET == 3 or TICKET == 6:
        tl.debug_barrier()
        ticket = tl.atomic_add(sem_ptr + cb, 1, sem="release")
    else:
        ticket = tl.atomic_add(sem_ptr + cb, 1, sem="relaxed")
    if TICKET == 6:
        tl.store(t_ptr + rows + N * cols, tile, mask)
    if ticket == progs - 1:
        if TICKET != 5:
            tl.atomic_xchg(sem_ptr + cb, 0, sem="acquire")
        tl.debug_barrier()
        part = tl.zeros([CHUNK, XBLOCK], tl.float32)
        for k in tl.range(0, progs, CHUNK):
            ks = k + tl.arange(0, CHUNK)[:, None]
            m = (ks < progs) & (cols1[None, :] < C)
            if FLAGGED:
                wp = ws_ptr.to(tl.pointer_type(tl.int64)) + ks * C + cols1[None, :]
                word = tl.load(wp, m, other=0x100000000, volatile=True)
                while tl.min((word >> 32).to(tl.int32)) == 0:
                    word = tl.load(wp, m, other=0x100000000, volatile=True)
                part += tl.where(m, (word & 0xFFFFFFFF).to(tl.int32).to(tl.float32, bitcast=True), 0.0)
                tl.store(wp, tl.zeros([CHUNK, XBLOCK], tl.int64), m)
            else:
                part += tl.load(ws_ptr + ks * C + cols1[None, :], m, other=0.0)
        tl.store(sum_ptr + cols1, tl.sum(part, 0), cols1 < C)
        if TICKET == 5:
            tl.atomic_xchg(sem_ptr + cb, 0, sem="relaxed")


def run_tile_ticket(x: torch.Tensor, xblock: int, rblock: int, warps: int, tiles: int, partials: int, ticket: int,
                    chunk: int = 16):
    """(callable, compiled kernel, transposed copy, column sums [C] fp32) of :func:`_tile_ticket_kernel` over
    x [N, C]; the sums are NaN unless ``ticket`` is set."""
    n, c = x.shape
    col_blocks = triton.cdiv(c, xblock)
    progs = triton.cdiv(triton.cdiv(n, rblock), tiles)
    t = torch.empty((c, n), device=x.device, dtype=x.dtype)
    flagged = ticket == 5
    ws = torch.zeros((progs, c), device=x.device, dtype=torch.int64 if flagged else torch.float32)
    total = torch.full((c,), float("nan"), device=x.device, dtype=torch.float32)
    sem = torch.zeros(col_blocks, device=x.device, dtype=torch.int32)
    grid = (progs, col_blocks)
    args = (x, t, ws, total, sem, n, c)
    meta = dict(XBLOCK=xblock, R0_BLOCK=rblock, TILES=tiles, PARTIALS=partials or ticket > 0, TICKET=ticket,
                CHUNK=chunk, FLAGGED=flagged, num_warps=warps, num_stages=1)
    kernel = _tile_ticket_kernel[grid](*args, **meta)
    return (lambda: _tile_ticket_kernel[grid](*args, **meta)), kernel, t, total


# (tiles a program, partials, ticket, chunk): the ``ticket`` plan's variants of :func:`_tile_ticket_kernel`
TICKET_PLAN = [(1, 0, 0, 16), (1, 1, 0, 16), (1, 1, 1, 16), (1, 1, 2, 16), (1, 1, 2, 64), (2, 1, 2, 16),
               (4, 1, 1, 16), (4, 1, 2, 16)]
# the ``fence`` plan: one tile a program, the tickets' memory orderings (see :func:`_tile_ticket_kernel`)
FENCE_PLAN = [(1, 1, 0, 16), (1, 1, 1, 16), (1, 1, 3, 16), (1, 1, 4, 16), (1, 1, 5, 16), (1, 1, 6, 16),
              (2, 1, 3, 16), (2, 1, 5, 16)]


def _col_blocks(c: int, xblock: int) -> int:
    """Column blocks of C; the lab kernels have no column mask, so XBLOCK must divide C (else ValueError)."""
    if c % xblock:
        raise ValueError(f"the lab kernel has no column mask: C={c} must be a multiple of XBLOCK={xblock}")
    return c // xblock


def _max_rel_err(total: torch.Tensor, ref: torch.Tensor) -> float:
    """max |total - ref| / max |ref|, in float64 (``ref`` is float64)."""
    return float(((total.double() - ref).abs().max() / ref.abs().max()).item())


def _bit_exact(t: torch.Tensor, want: torch.Tensor) -> bool:
    return bool(torch.equal(families.bits(t), families.bits(want)))


def run_one_tile(x: torch.Tensor, xblock: int, rblock: int, warps: int, order: int, partials: int, group: int = 8,
                 finish: int = 0, chunk: int = 64):
    """(callable, compiled kernel, transposed copy, partials [C, row tiles] fp32, column sums [C] fp32) of
    :func:`_one_tile_kernel` over x [N, C] (C % XBLOCK == 0); the sums are written only with ``finish`` 2 or 3."""
    n, c = x.shape
    col_blocks = _col_blocks(c, xblock)
    t = torch.empty((c, n), device=x.device, dtype=x.dtype)
    ws = torch.empty((c, triton.cdiv(n, rblock)), device=x.device, dtype=torch.float32)
    total = torch.full((c,), float("nan"), device=x.device, dtype=torch.float32)
    sem = torch.zeros(col_blocks, device=x.device, dtype=torch.int32)
    grid = (triton.cdiv(n, rblock) * col_blocks,)
    args = (x, t, ws, total, sem, n, c)
    meta = dict(XBLOCK=xblock, R0_BLOCK=rblock, ORDER=order, GROUP=group, PARTIALS=partials or finish > 0,
                FINISH=finish, CHUNK=chunk, num_warps=warps, num_stages=1)
    kernel = _one_tile_kernel[grid](*args, **meta)
    return (lambda: _one_tile_kernel[grid](*args, **meta)), kernel, t, ws, total


MAX_LAB_RSPLIT = 256
# (label, corpus family, dtype, N, C): aligned large corpus shapes, the cases that should reach the copy SOL
SHAPES = [
    ("vit-f32", "F1-t", torch.float32, 25216, 3072),
    ("vit-bf16", "F1-t", torch.bfloat16, 25216, 3072),
    ("llama-bf16-14336", "F1-t", torch.bfloat16, 32768, 14336),
    ("llama-fp16-4096", "F1-t", torch.float16, 8192, 4096),
    ("vit-fp16-768", "F1-t", torch.float16, 25216, 768),
    ("llama-f32-4096", "F1-t", torch.float32, 32768, 4096),
    ("fp8-bf16-4096", "F5-fp8-cast-transpose-dbias", torch.bfloat16, 32768, 4096),
]

GRID_SHAPES = [s for s in SHAPES if s[0] != "llama-f32-4096"]
# the ticket plan: the plain-copy grid shapes, and three corpus shapes the aligned tiles do not fit (odd C and N, wide)
TICKET_SHAPES = [s for s in GRID_SHAPES if s[1] == "F1-t"] + [
    ("prime-small-bf16", "F1-t", torch.bfloat16, 8191, 1021),
    ("prime-large-f32", "F1-t", torch.float32, 25229, 3067),
    ("bert-vocab-bf16", "F1-t", torch.bfloat16, 4096, 30522),
]


def run_lab(x: torch.Tensor, fp8: bool, scale: float, xblock: int, rblock: int, warps: int, pps: int,
            acc: int, prefetch: int, tiles_per_program: int = 0, interleave: int = 0):
    """Returns (callable, compiled kernel, outputs, RSPLIT) of one lab variant over x [N, C]: RSPLIT from
    ``pps`` programs per SM, or, if ``tiles_per_program`` is set, ceil(N / R0_BLOCK / tiles_per_program)."""
    n, c = x.shape
    col_blocks = _col_blocks(c, xblock)
    if tiles_per_program:
        rsplit = min(MAX_LAB_RSPLIT, triton.cdiv(triton.cdiv(n, rblock), tiles_per_program))
    else:
        rsplit = max(1, min(64, NUM_SMS * pps // col_blocks, triton.cdiv(n, rblock)))
    t = torch.empty((c, n), device=x.device, dtype=torch.float8_e4m3fn if fp8 else x.dtype)
    q = torch.empty((n, c), device=x.device, dtype=torch.float8_e4m3fn) if fp8 else t
    ws = torch.empty(c * rsplit, device=x.device, dtype=torch.float32)
    total = torch.empty(c, device=x.device, dtype=torch.float32)
    sem = torch.zeros(col_blocks, device=x.device, dtype=torch.int32)
    grid = (rsplit, col_blocks)
    args = (x, q, t, ws, total, sem, scale, n, c)
    meta = dict(XBLOCK=xblock, R0_BLOCK=rblock, RSPLIT=rsplit, RSPLIT_P2=triton.next_power_of_2(rsplit),
                ACC=acc, PREFETCH=prefetch, FP8=fp8, INTERLEAVE=interleave, num_warps=warps, num_stages=1)
    kernel = _fused_tile_kernel[grid](*args, **meta)
    return (lambda: _fused_tile_kernel[grid](*args, **meta)), kernel, (t, total), rsplit


def one_tile_rows(base: dict, x: torch.Tensor, want: torch.Tensor, ref_sum: torch.Tensor,
                  tiles: list[tuple[int, int]]) -> list[dict]:
    """Time :func:`_one_tile_kernel` in each order, with partials and each finish, on 4 and 8 warps."""
    out = []
    plan = [(tile, order, partials, 0) for tile in tiles[:1] for order in (0, 1, 2) for partials in (0, 1)]
    plan += [(tile, order, 1, finish) for tile in tiles for order in (0, 1) for finish in (1, 2, 3)]
    for tile, order, partials, finish in plan:
        for warps in (4, 8):
            fn, kernel, t, _, total = run_one_tile(x, *tile, warps, order, partials, finish=finish)
            torch.cuda.synchronize()
            err = _max_rel_err(total, ref_sum)
            out.append({**base, "variant": f"one-tile X{tile[0]} R{tile[1]} w{warps} order{order} "
                                           f"partials{partials} finish{finish}",
                        "XBLOCK": tile[0], "R0_BLOCK": tile[1], "num_warps": warps, "order": order,
                        "finish": finish, "acc": 3 if partials else 2, "ms": harness.bench(fn),
                        "registers": kernel.n_regs, "n_spills": kernel.n_spills, "sum_rel_err": err,
                        "transposed_bit_exact": _bit_exact(t, want)})
    return out


def ticket_rows(base: dict, x: torch.Tensor, want: torch.Tensor, ref_sum: torch.Tensor, xblock: int, rblock: int,
                warps: int, plan: list[tuple[int, int, int, int]]) -> list[dict]:
    """Time each ``plan`` variant of :func:`_tile_ticket_kernel` (:data:`TICKET_PLAN` or :data:`FENCE_PLAN`) on the
    heuristic's tile, on its warps and on the other of 4 and 8."""
    out = []
    for w in (warps, 12 - warps):
        for tiles, partials, ticket, chunk in plan:
            fn, kernel, t, total = run_tile_ticket(x, xblock, rblock, w, tiles, partials, ticket, chunk)
            torch.cuda.synchronize()
            out.append({**base, "variant": f"tile-ticket X{xblock} R{rblock} w{w} tiles{tiles} partials{partials} "
                                           f"ticket{ticket} chunk{chunk}",
                        "XBLOCK": xblock, "R0_BLOCK": rblock, "num_warps": w, "tiles_per_program": tiles,
                        "acc": 3 if partials or ticket else 2, "finish": ticket, "chunk": chunk,
                        "ms": harness.bench(fn), "registers": kernel.n_regs, "n_spills": kernel.n_spills,
                        "sum_rel_err": _max_rel_err(total, ref_sum) if ticket else float("nan"),
                        "transposed_bit_exact": _bit_exact(t, want)})
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default="out")
    parser.add_argument("--plan", choices=["loop", "grid", "map", "ticket", "fence"], default="loop",
                        help="loop: accumulator and prefetch variants; grid: tiles x programs (incl. 1-4 tiles "
                             "each); map: contiguous against interleaved row tiles, and one tile a program; "
                             "ticket: one to four tiles a program with coalesced partials, the ticket and a "
                             "finish inside the last program's branch; fence: the ticket's memory orderings")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    rows = []
    shapes = {"loop": SHAPES, "ticket": TICKET_SHAPES, "fence": TICKET_SHAPES}.get(args.plan, GRID_SHAPES)
    for label, fam, dtype, n, c in shapes:
        case = families.CASES[fam]
        inputs = case.inputs(n, c, dtype, device="cuda")
        fp8 = fam.startswith("F5")
        x = inputs[0]
        scale = inputs[1].item() if fp8 else 1.0  # a 0-d fp32 tensor in the graph
        moved = x.numel() * x.element_size() + x.numel() * (2 if fp8 else x.element_size())
        sol = [harness.copy_sol_ms(moved) for _ in range(2)]
        stock, *_ = harness.compile_fn(case.fn, inputs, harness.STOCK)
        fused, *_ = harness.compile_fn(case.fn, inputs, harness.FUSED)
        ref = case.fn(*inputs)
        want = ref[1] if fp8 else ref[0]
        ref_sum = x.double().sum(0)
        base = dict(shape=label, dtype=str(dtype).replace("torch.", ""), N=n, C=c, copy_sol_ms=sol[0],
                    copy_sol_ms_repeat=sol[1])
        rows.append({**base, "variant": "stock", "ms": harness.bench(lambda: stock(*inputs))})
        rows.append({**base, "variant": "inductor-fused", "ms": harness.bench(lambda: fused(*inputs))})
        if args.plan in ("map", "ticket", "fence"):  # the generated kernel again: its noise
            rows.append({**base, "variant": "inductor-fused", "ms": harness.bench(lambda: fused(*inputs))})
        width = 1 if fp8 else x.element_size()
        h = launch_config(c, n, width, x.element_size(), NUM_SMS)
        tiles = {(h.XBLOCK, h.R0_BLOCK)}
        if x.element_size() == 2:
            tiles.add((128, 128))
        if args.plan in ("ticket", "fence"):
            plan = []
            rows += ticket_rows(base, x, want, ref_sum, h.XBLOCK, h.R0_BLOCK, h.num_warps,
                                TICKET_PLAN if args.plan == "ticket" else FENCE_PLAN)
        elif args.plan == "loop":
            plan = [(tile, w, pps, acc, pf, 0) for tile in sorted(tiles) for w in (4, 8) for pps in (3, 4, 6)
                    for acc in (0, 1) for pf in (0, 1) if tile == (h.XBLOCK, h.R0_BLOCK) or w == 8]
            plan += [((h.XBLOCK, h.R0_BLOCK), w, 4, 2, 0, 0) for w in (4, 8)]  # the bound: no accumulation
        elif args.plan == "map":
            plan = [((h.XBLOCK, h.R0_BLOCK), w, pps, acc, 0, 0, il) for w in (4, 8) for pps in (4, 8)
                    for acc in (0, 2) for il in (0, 1)]
            if not fp8:  # the one-tile kernel has no cast
                rows += one_tile_rows(base, x, want, ref_sum, sorted(tiles, key=lambda t: t != (h.XBLOCK, h.R0_BLOCK)))
        else:
            wide = x.element_size() == 2
            tiles = [(64, 128, 4), (64, 128, 8), (128, 128, 8), (128, 128, 4)] if wide else \
                [(64, 64, 4), (64, 64, 8), (128, 64, 8), (64, 128, 8)]
            grids = [(3, 0), (4, 0), (8, 0), (0, 1), (0, 2), (0, 4)]
            plan = [((xb, rb), w, pps, acc, pf, g) for xb, rb, w in tiles for pps, g in grids
                    for acc, pf in ((0, 0), (0, 1), (2, 0))]
        for (xb, rb), warps, pps, acc, pf, g, *il in plan:
            il = il[0] if il else 0
            fn, kernel, (t, total), rsplit = run_lab(x, fp8, scale, xb, rb, warps, pps, acc, pf, g, il)
            torch.cuda.synchronize()
            exact = _bit_exact(t, want)
            err = _max_rel_err(total, ref_sum)
            rows.append({**base, "variant": f"X{xb} R{rb} w{warps} pps{pps} g{g} acc{acc} pf{pf} il{il}",
                         "tiles_per_program": g, "interleave": il, "XBLOCK": xb,
                         "R0_BLOCK": rb, "num_warps": warps, "programs_per_sm": pps, "RSPLIT": rsplit, "acc": acc,
                         "prefetch": pf, "ms": harness.bench(fn), "registers": kernel.n_regs,
                         "n_spills": kernel.n_spills, "transposed_bit_exact": exact, "sum_rel_err": err})
        df = pd.DataFrame(rows)
        df["over_sol"] = df.ms / df.copy_sol_ms
        df.to_csv(os.path.join(args.out, f"lab-{args.plan}.csv"), index=False)
        cur = df[df["shape"] == label].sort_values("ms")
        print(cur.reindex(columns=["shape", "variant", "ms", "over_sol", "registers", "RSPLIT", "transposed_bit_exact",
                                   "sum_rel_err"]).head(12).to_string(), flush=True)
        print(cur[cur.variant.isin(["stock", "inductor-fused"])][["variant", "ms", "over_sol"]].to_string(),
              flush=True)
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
