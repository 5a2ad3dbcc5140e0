"""Lab experiment (H200): a transpose with no layout conversion, written in Gluon (Triton 3.6's layout-explicit
language), against the copy SOL, stock, the package's fused kernel and a plain Triton tile transpose.

Not part of the package.  Triton's coalescing pass gives a load of ``x [N, C]`` a layout whose registers run along C
and the transposed store one whose registers run along N, so every Triton tile transpose (the package's generated
kernel too) converts the tile between them through shared memory.  Gluon states the layout instead: each thread holds
an ``[Sn, Sc]`` block of the tile (``Sc`` elements of a row are one 16-byte load, ``Sn`` elements of a transposed row
one 16-byte store) and the "conversion" between the load's register order and the store's is a renaming of
registers (:func:`tile_layouts`; checked on CPU: no ``st.shared``, no ``shfl`` in the PTX).

Variants, each timed by :func:`benchmarks.harness.bench` (a CUDA-graph replay under ``do_bench``, median ms):

* ``gluon-T``: the pure transpose, one ``[XB, RB]`` tile a program: the floor of this design;
* ``gluon-F1``: the same tile plus its column sums in fp32 (``tile.sum(0)``) added to ``sum(0)`` by ``atomic_add``
  (not deterministic: a lab bound for the reduction's cost, not a candidate finish);
* ``gluon-F1loop``: one wave of programs, each looping over a chunk of row tiles with an ``[XB, RB]`` fp32
  accumulator, one ``atomic_add`` a program at the end;
* ``triton-T``: the plain Triton tile transpose (the tile loaded along C, stored along N) for comparison.

    python -m benchmarks.lab_gluon --out DIR       # writes DIR/lab-gluon.csv

Its results are ``benchmarks/results/lab/2026-12-01-h200-lab-gluon.csv`` (docs/launch.md, "A transpose with no layout
conversion"): the Triton tile transpose was the fastest of the three on every shape.
"""

from __future__ import annotations

import argparse
import os

import pandas as pd
import torch
import triton
import triton.language as tl
from triton.experimental import gluon
from triton.experimental.gluon import language as gl

import reduction_transpose_fusion  # noqa: F401  (registers the config entries the fused compile sets)
from reduction_transpose_fusion_testing import families

from . import harness
from .sweep import NUM_SMS


def _bits(n: int) -> list[int]:
    return [1 << i for i in range(max(n, 1).bit_length() - 1)]


def tile_layouts(spt, tpw, wpc, shape):
    """(load layout, store layout) over an ``[XB, RB]`` tile of ``x [N, C]`` (dim 0 rows n, dim 1 columns c): the
    same elements in the same thread, lane and warp (a Blocked layout of order [1, 0]), with the registers listed
    c first for the load (16-byte vectors along a row) and n first for the transposed store."""
    def vec(d, v):
        return [v, 0] if d == 0 else [0, v]

    cover = [spt[d] * tpw[d] * wpc[d] for d in (0, 1)]  # the elements one pass of the CTA covers along each dim

    def regs(first):
        own = {d: [vec(d, b) for b in _bits(spt[d])] for d in (0, 1)}
        rep = {d: [vec(d, b * cover[d]) for b in _bits(shape[d] // cover[d])] for d in (0, 1)}
        return own[first] + own[1 - first] + rep[first] + rep[1 - first]

    lanes = [vec(1, spt[1] * b) for b in _bits(tpw[1])] + [vec(0, spt[0] * b) for b in _bits(tpw[0])]
    warps = ([vec(1, spt[1] * tpw[1] * b) for b in _bits(wpc[1])]
             + [vec(0, spt[0] * tpw[0] * b) for b in _bits(wpc[0])])
    return tuple(gl.DistributedLinearLayout(reg_bases=regs(first), lane_bases=lanes, warp_bases=warps,
                                            block_bases=[], shape=list(shape)) for first in (1, 0))


@gluon.jit
def _gluon_tile(x_ptr, t_ptr, N, C, row0, col0, LL: gl.constexpr, LS: gl.constexpr, XB: gl.constexpr,
                RB: gl.constexpr):
    n = row0 + gl.arange(0, XB, layout=gl.SliceLayout(1, LL))[:, None]
    c = col0 + gl.arange(0, RB, layout=gl.SliceLayout(0, LL))[None, :]
    mask = (n < N) & (c < C)
    v = gl.load(x_ptr + n.to(gl.int64) * C + c, mask=mask, other=0.0)
    vs = gl.convert_layout(v, LS, assert_trivial=True)
    ns = row0 + gl.arange(0, XB, layout=gl.SliceLayout(1, LS))[:, None]
    cs = col0 + gl.arange(0, RB, layout=gl.SliceLayout(0, LS))[None, :]
    gl.store(t_ptr + cs.to(gl.int64) * N + ns, vs, mask=(ns < N) & (cs < C))
    return v


@gluon.jit
def gluon_transpose(x_ptr, t_ptr, sum_ptr, N, C, LL: gl.constexpr, LS: gl.constexpr, XB: gl.constexpr,
                    RB: gl.constexpr, SUM: gl.constexpr, ORDER: gl.constexpr):
    if ORDER == 0:  # consecutive programs walk down a column block
        row0 = gl.program_id(0) * XB
        col0 = gl.program_id(1) * RB
    else:
        col0 = gl.program_id(0) * RB
        row0 = gl.program_id(1) * XB
    v = _gluon_tile(x_ptr, t_ptr, N, C, row0, col0, LL, LS, XB, RB)
    if SUM:
        c = col0 + gl.arange(0, RB, layout=gl.SliceLayout(0, LL))
        gl.atomic_add(sum_ptr + c, gl.sum(v.to(gl.float32), 0), mask=c < C)


@gluon.jit
def gluon_transpose_loop(x_ptr, t_ptr, sum_ptr, N, C, LL: gl.constexpr, LS: gl.constexpr, XB: gl.constexpr,
                         RB: gl.constexpr, RSPLIT: gl.constexpr):
    sid = gl.program_id(0)
    col0 = gl.program_id(1) * RB
    chunk = gl.cdiv(gl.cdiv(N, XB), RSPLIT) * XB
    start = sid * chunk
    acc = gl.zeros([XB, RB], gl.float32, LL)
    for row0 in range(start, gl.minimum(start + chunk, N), XB):
        acc += _gluon_tile(x_ptr, t_ptr, N, C, row0, col0, LL, LS, XB, RB).to(gl.float32)
    c = col0 + gl.arange(0, RB, layout=gl.SliceLayout(0, LL))
    gl.atomic_add(sum_ptr + c, gl.sum(acc, 0), mask=c < C)


@triton.jit
def triton_transpose(x_ptr, t_ptr, N, C, XB: tl.constexpr, RB: tl.constexpr):
    n = tl.program_id(0) * XB + tl.arange(0, XB)[:, None]
    c = tl.program_id(1) * RB + tl.arange(0, RB)[None, :]
    v = tl.load(x_ptr + n.to(tl.int64) * C + c, mask=(n < N) & (c < C))
    tl.store(t_ptr + c.to(tl.int64) * N + n, v, mask=(n < N) & (c < C))


# (label, dtype, N, C): aligned corpus shapes, then two odd ones (scalar accesses either way)
SHAPES = [
    ("f32[25216,3072]", torch.float32, 25216, 3072),
    ("f32[32768,4096]", torch.float32, 32768, 4096),
    ("bf16[25216,3072]", torch.bfloat16, 25216, 3072),
    ("bf16[32768,14336]", torch.bfloat16, 32768, 14336),
    ("bf16[65536,1024]", torch.bfloat16, 65536, 1024),
    ("fp16[8192,4096]", torch.float16, 8192, 4096),
    ("fp16[25216,768]", torch.float16, 25216, 768),
    ("f32[25229,3067]", torch.float32, 25229, 3067),
    ("bf16[8191,1021]", torch.bfloat16, 8191, 1021),
]

# (spt, tpw, wpc, XB, RB) per element size: spt[1] * size a multiple of 16 bytes (16-byte loads), spt[0] * size the
# transposed store's vector (8 or 16 bytes)
CONFIGS = {
    4: [([4, 4], [8, 4], [1, 4], 64, 64), ([4, 4], [8, 4], [2, 2], 64, 64), ([4, 8], [8, 4], [1, 4], 64, 128),
        ([8, 4], [4, 8], [1, 4], 64, 128), ([4, 4], [8, 4], [1, 8], 64, 128), ([4, 4], [4, 8], [2, 2], 64, 64),
        ([8, 4], [4, 8], [2, 4], 128, 128)],
    2: [([8, 8], [8, 4], [1, 4], 64, 128), ([8, 8], [4, 8], [2, 2], 64, 128), ([8, 8], [8, 4], [1, 8], 64, 256),
        ([8, 8], [4, 8], [2, 4], 64, 256), ([8, 8], [8, 4], [2, 4], 128, 128), ([4, 8], [8, 4], [2, 2], 64, 128)],
}


# The Triton tile transpose's tiles (rows, columns, warps): the first run's three, and a wider search for the floor
TRITON_TILES = [(64, 64, 4), (64, 128, 8), (128, 128, 8)]
TRITON_TILES_WIDE = TRITON_TILES + [(32, 32, 4), (32, 64, 4), (64, 32, 4), (32, 128, 4), (128, 32, 4), (128, 64, 8),
                                    (64, 64, 8), (16, 128, 4), (128, 16, 4), (64, 128, 4)]


def _warps(wpc) -> int:
    return wpc[0] * wpc[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default="out")
    parser.add_argument("--shapes", default="", help="labels separated by ';' (default: all)")
    parser.add_argument("--triton-only", action="store_true",
                        help="only the Triton tile transpose, over TRITON_TILES_WIDE (the floor's search)")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    rows = []
    case = families.CASES["F1-t"]
    for label, dtype, n, c in SHAPES:
        if args.shapes and label not in args.shapes.split(";"):
            continue
        torch.manual_seed(0)
        x = torch.randn(n, c, device="cuda", dtype=dtype)
        want, ref_sum = x.t().contiguous(), x.double().sum(0)
        moved = 2 * x.numel() * x.element_size()
        base = dict(shape=label, dtype=str(dtype).replace("torch.", ""), N=n, C=c,
                    copy_sol_ms=harness.copy_sol_ms(moved), copy_sol_ms_repeat=harness.copy_sol_ms(moved))
        stock, *_ = harness.compile_fn(case.fn, [x], harness.STOCK)
        fused, *_ = harness.compile_fn(case.fn, [x], harness.FUSED)
        for variant, fn in (("stock", lambda: stock(x)), ("inductor-fused", lambda: fused(x)),
                            ("inductor-fused", lambda: fused(x))):
            rows.append({**base, "variant": variant, "ms": harness.bench(fn)})
        t = torch.empty(c, n, device="cuda", dtype=dtype)
        s = torch.zeros(c, device="cuda", dtype=torch.float32)
        for xb, rb, w in TRITON_TILES_WIDE if args.triton_only else TRITON_TILES:
            grid = (triton.cdiv(n, xb), triton.cdiv(c, rb))
            fn = lambda: triton_transpose[grid](x, t, n, c, XB=xb, RB=rb, num_warps=w)  # noqa: E731
            rows.append(_row(base, f"triton-T X{xb} R{rb} w{w}", fn, t, want, None, ref_sum, s))
        for spt, tpw, wpc, xb, rb in [] if args.triton_only else CONFIGS[x.element_size()]:
            ll, ls = tile_layouts(spt, tpw, wpc, (xb, rb))
            tag = f"spt{spt[0]}x{spt[1]} tpw{tpw[0]}x{tpw[1]} wpc{wpc[0]}x{wpc[1]} X{xb} R{rb}"
            for order in (0, 1):
                grid = (triton.cdiv(n, xb), triton.cdiv(c, rb))[::1 if order == 0 else -1]
                for summed in (0, 1):
                    fn = _launch(gluon_transpose, grid, x, t, s, n, c, ll, ls, xb, rb, _warps(wpc),
                                 SUM=summed, ORDER=order)
                    rows.append(_row(base, f"gluon-{'F1' if summed else 'T'} o{order} {tag}", fn, t, want,
                                     summed, ref_sum, s))
            for pps in (2, 4):
                rsplit = max(1, min(triton.cdiv(n, xb), pps * NUM_SMS // triton.cdiv(c, rb)))
                fn = _launch(gluon_transpose_loop, (rsplit, triton.cdiv(c, rb)), x, t, s, n, c, ll, ls, xb, rb,
                             _warps(wpc), RSPLIT=rsplit)
                rows.append(_row(base, f"gluon-F1loop pps{pps} {tag}", fn, t, want, 1, ref_sum, s)
                            | dict(RSPLIT=rsplit))
        df = pd.DataFrame(rows)
        df["over_sol"] = df.ms / df.copy_sol_ms
        df.to_csv(os.path.join(args.out, "lab-gluon.csv"), index=False)
        print(df[df["shape"] == label].sort_values("ms")[["variant", "ms", "over_sol", "bit_exact"]]
              .head(12).to_string(), flush=True)


def _launch(kernel, grid, x, t, s, n, c, ll, ls, xb, rb, warps, **kw):
    return lambda: kernel[grid](x, t, s, n, c, ll, ls, xb, rb, num_warps=warps, **kw)


def _row(base, variant, fn, t, want, summed, ref_sum, s) -> dict:
    t.zero_()
    s.zero_()
    fn()
    torch.cuda.synchronize()
    exact = bool(torch.equal(families.bits(t), families.bits(want)))
    err = float(((s.double() - ref_sum).abs().max() / ref_sum.abs().max()).item()) if summed else float("nan")
    ms = harness.bench(fn)
    return {**base, "variant": variant, "ms": ms, "bit_exact": exact, "sum_rel_err": err}


if __name__ == "__main__":
    main()
