"""The cost model behind the fuse-or-skip decision: the fused kernel against what stock Inductor emits for a site.

For a site ``x [N, C]`` whose column reduction stock splits (``reduction_transpose.stock_split_factor`` > 1), stock
emits ``2 + R`` kernels for ``R`` reductions sharing one transposed copy: the split reductions' first stage (one
kernel, reading what ``u`` is computed from), a second stage per reduction, and the transposed copy (reading what
``v`` is computed from, writing ``v.T``).  The fused kernel reads every full-size input once and writes ``v.T``.
Times in µs, bytes in MB (10**6), on an H200:

    stock = (2 + R) * stock_launch_us + stock_bytes / stock_mb_per_us
    fused = fused_fixed_us + finish_us_per_partial * RSPLIT * R
            + max(fused_bytes / (fused_mb_per_us * min(1, P / fused_saturating_programs)),
                  row_us * ceil(N / RSPLIT))

``P`` is the fused launch's programs (``RSPLIT * ceil(C / XBLOCK)``, :func:`..runtime.triton_heuristics.
launch_config`): a memory-bound kernel needs about two resident programs an SM before its loads fill the memory
pipe.  The fixed term holds the launch and the last program's finish after every other program; the finish term
is its read of every program's partials; the row term is the walk of one program down its rows, which bounds the
kernel when few programs share many rows.

The constants are a least-squares fit (log of time) to 95 sites measured on one H200 (torch 2.11.0, triton 3.6.0)
where stock splits and the site was fused: the 33 such random sites of seed 1243628023 with every site fused
(``benchmarks/results/2026-12-01-h200-random-1243628023.csv``, ``stock_us`` against ``forced_us``) and the 62 fused
cases of 30 µs or more of the corpus, held-out and main suites (``benchmarks/results/2026-12-01-h200-{corpus,
holdout,main}.csv``).  ``python -m benchmarks.fit_cost_model`` refits them and prints the accuracy: rms error of
the log time 0.25 fused and 0.21 stock, rank correlation of the times 0.97 and 0.98, but of the speedups only 0.46.
The model sorts sites into clear losses (too few programs for the bytes; a fixed cost the saved read cannot pay
back) and the rest, not close calls: a site fuses where it predicts at least :data:`MIN_PREDICTED_SPEEDUP`, which
on those 95 sites fuses 75, keeps 1 loss (fused more than 3% slower than stock) and gives a geometric-mean speedup
of 1.31x against 1.31x with every site fused.  Fit on the random sites alone it kept no loss on the 62 suite cases
at 1.0 (fusing 60); fit on the suites alone it kept all 12 random losses: small, under-filled sites are what it
must see to learn.
"""

from __future__ import annotations

import dataclasses
import math


@dataclasses.dataclass(frozen=True)
class Model:
    """The constants of the formula above (µs, MB per µs, programs); the defaults are the fit described there."""

    stock_launch_us: float = 1.66
    stock_mb_per_us: float = 3.25
    fused_fixed_us: float = 5.28
    fused_mb_per_us: float = 3.15
    fused_saturating_programs: float = 278.0  # about 2.1 programs an SM on the H200's 132
    finish_us_per_partial: float = 3.0e-3
    row_us: float = 1.0e-3


MODEL = Model()
# a site fuses where the model predicts at least this speedup (fit_cost_model: 1 loss in 95 sites at 1.1, 4 at 1.0)
MIN_PREDICTED_SPEEDUP = 1.1


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
             xblock: int, model: Model = MODEL) -> Estimate:
    """The model above for a site stock splits.

    Args:
        rows, cols: N and C (size hints).
        reductions: R, the reductions sharing the transposed copy (LayerNorm backward: 2).
        stock_bytes: bytes stock's kernels move: the full-size inputs of ``u`` and of ``v`` (each read by its own
            kernel) and ``v.T`` written.
        fused_bytes: bytes the fused kernel moves: each full-size input once and ``v.T``.
        rsplit, xblock: the fused launch's ``RSPLIT`` and ``XBLOCK``.
        model: the constants (``benchmarks.fit_cost_model`` fits others).
    """
    programs = rsplit * -(-cols // xblock)
    stock_kernels = 2 + reductions
    stock = stock_kernels * model.stock_launch_us + stock_bytes / 1e6 / model.stock_mb_per_us
    fill = min(1.0, programs / model.fused_saturating_programs)
    fused = (model.fused_fixed_us + model.finish_us_per_partial * rsplit * reductions
             + max(fused_bytes / 1e6 / (model.fused_mb_per_us * fill), model.row_us * math.ceil(rows / rsplit)))
    return Estimate(stock, fused, stock_kernels, stock_bytes / 1e6, fused_bytes / 1e6, programs)
