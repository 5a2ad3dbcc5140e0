"""The cost model behind the fuse-or-skip decision: the fused kernel against what stock Inductor emits for a site.

For a site ``x [N, C]`` whose column reduction stock splits (``reduction_transpose.stock_split_factor`` > 1), stock
emits ``2 + R`` kernels for ``R`` reductions sharing one transposed copy: the split reductions' first stage (one
kernel, reading what ``u`` is computed from), a second stage per reduction, and the transposed copy (reading what
``v`` is computed from, writing ``v.T``).  The fused kernel reads every full-size input once and writes ``v.T``.
Times in µs, bytes in MB (10**6), on an H200 with kernels back to back (CUDA-graph replay, as in a training step):

    stock = (2 + R) * STOCK_LAUNCH_US + stock_bytes / STOCK_MB_PER_US
    fused = FUSED_FIXED_US + fused_bytes / (FUSED_MB_PER_US * min(1, P / FUSED_SATURATING_PROGRAMS))
            + FINISH_US_PER_PARTIAL * RSPLIT * R + ROW_US_PER_PROGRAM_ROW * ceil(N / RSPLIT)

``P`` is the fused launch's programs (``RSPLIT * ceil(C / XBLOCK)``, :func:`..runtime.triton_heuristics.
launch_config`): a memory-bound kernel needs about two resident programs an SM before its loads fill the memory
pipe.  The finish term is the last program's read of every program's partials; the row term is the latency of a
program's walk down its rows, which no other program hides when there are few.

The constants are a least-squares fit (log of time) to the 48 random sites of seed 1243628023 with every site
fused (``benchmarks/results/2026-12-01-h200-random-1243628023.csv``, columns ``stock_us`` and ``forced_us``; H200,
torch 2.11.0, triton 3.6.0): rms error of the log time 0.26 fused, 0.24 stock, rank correlation of the times 0.97
and 0.96 (``benchmarks/fit_cost_model.py`` refits them).  Its speedup predictions are far less sure than its times
(rank correlation 0.58 on that seed), so a site fuses only where the model predicts at least
:data:`MIN_PREDICTED_SPEEDUP`: the model guards against the clear losses (too few programs for the bytes, a
fixed cost the saved read cannot pay back), not the close calls.
"""

from __future__ import annotations

import dataclasses
import math

STOCK_LAUNCH_US = 1.39
STOCK_MB_PER_US = 2.38
FUSED_FIXED_US = 1.14
FUSED_MB_PER_US = 2.34
FUSED_SATURATING_PROGRAMS = 283  # about 2.1 programs an SM on the H200's 132
FINISH_US_PER_PARTIAL = 9.85e-3
ROW_US_PER_PROGRAM_ROW = 15.6e-3
# a fused site must be predicted this much faster: the model's speedups are within about +-25% (see above)
MIN_PREDICTED_SPEEDUP = 1.15


@dataclasses.dataclass(frozen=True)
class Estimate:
    """Predicted µs of stock's kernels and of the fused kernel for one site; :attr:`speedup` is stock / fused."""

    stock_us: float
    fused_us: float
    stock_kernels: int
    stock_mb: float
    fused_mb: float
    programs: int

    @property
    def speedup(self) -> float:
        return self.stock_us / self.fused_us

    def describe(self) -> str:
        return (f"predicted fused {self.fused_us:.1f} us ({self.fused_mb:.2f} MB, {self.programs} programs) against "
                f"stock's {self.stock_us:.1f} us ({self.stock_kernels} kernels, {self.stock_mb:.2f} MB): "
                f"{self.speedup:.2f}x")


def estimate(rows: int, cols: int, reductions: int, stock_bytes: int, fused_bytes: int, rsplit: int,
             xblock: int) -> Estimate:
    """The model above for a site stock splits.

    Args:
        rows, cols: N and C (size hints).
        reductions: R, the reductions sharing the transposed copy (LayerNorm backward: 2).
        stock_bytes: bytes stock's kernels move: the full-size inputs of ``u`` and of ``v`` (each read by its own
            kernel) and ``v.T`` written.
        fused_bytes: bytes the fused kernel moves: each full-size input once and ``v.T``.
        rsplit, xblock: the fused launch's ``RSPLIT`` and ``XBLOCK``.
    """
    programs = rsplit * -(-cols // xblock)
    stock_kernels = 2 + reductions
    stock = stock_kernels * STOCK_LAUNCH_US + stock_bytes / 1e6 / STOCK_MB_PER_US
    fill = min(1.0, programs / FUSED_SATURATING_PROGRAMS)
    fused = (FUSED_FIXED_US + fused_bytes / 1e6 / (FUSED_MB_PER_US * fill)
             + FINISH_US_PER_PARTIAL * rsplit * reductions + ROW_US_PER_PROGRAM_ROW * math.ceil(rows / rsplit))
    return Estimate(stock, fused, stock_kernels, stock_bytes / 1e6, fused_bytes / 1e6, programs)
