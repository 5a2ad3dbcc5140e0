"""The cost model behind the fuse-or-skip decision: the fused kernel against what stock Inductor emits for a site.

For a site ``x [N, C]`` whose column reduction stock splits (``reduction_transpose.stock_split_factor`` > 1), stock
emits ``2 + R`` kernels for ``R`` reductions sharing one transposed copy: the split reductions' first stage (one
kernel, reading what ``u`` is computed from), a second stage per reduction, and the transposed copy (reading what
``v`` is computed from, writing ``v.T``).  The fused kernel reads every full-size input once and writes ``v.T``.
Times in µs, bytes in MB (10**6), on an H200:

    stock = (2 + R) * stock_launch_us + stock_bytes / stock_mb_per_us
    fused = finish_us_per_partial * RSPLIT * R
            + max(fused_fixed_us + fused_bytes / fused_mb_per_us, row_us * R * ceil(N / RSPLIT))

``RSPLIT`` is the fused launch's (:func:`..runtime.triton_heuristics.launch_config`).  The fixed term holds the
launch and the last program's finish after every other program, the bytes term the kernel's traffic; the finish
term is the last program's read of every program's partials.  The row term is one program's walk down its rows,
per reduction: it bounds a launch of few programs over many rows, and a short walk hides under the fixed cost
(two reductions over C <= 64 keep one wave of RSPLIT = 64: bf16[84926, 15] walked 1327 rows a program in 15.5 µs,
0.66x of stock's 10.2 µs, where the sites of two reductions and at most 128 rows a program ran 1.02-1.55x; random
seed 502739194).

The constants are a least-squares fit (log of time) to 184 sites measured on one H200 (torch 2.11.0, triton 3.6.0)
where stock splits and the site was fused: the 122 such random sites of seeds 365187048, 1935768610, 1750778643 and
502739194 with every site fused (packages ``417c3e7f`` and ``ec42b8b0``, each site's calls captured in a CUDA graph
that fills the semaphores buffer at each call, as this package's graphs do;
``benchmarks/results/2026-12-03-h200-random-<seed>.csv``, ``stock_us`` against
``forced_us``) and the 62 fused cases of 30 µs or more of the corpus, held-out and main suites
(``benchmarks/results/2026-12-01-h200-{corpus,holdout,main}.csv``).  ``python -m benchmarks.fit_cost_model`` refits
them and prints the accuracy: rms error of the log time 0.18 fused and 0.21 stock, rank correlation of the times
0.99 and 0.99, of the speedups 0.57.  At the threshold it fuses 155 of the 184 and keeps one loss (F1-t
fp16[19320, 77], 0.94x, predicted 1.11x).  Fit on three seeds and the suites and applied to the fourth, it fused 92
of the 122 random split sites, 4 of them slower than stock by more than 3% (narrow sites of about 4 µs).

An earlier fit (seed 1243628023, package ``e4913d64``, with the launches of that day) had a fixed cost of 5.3 µs
and a bandwidth that fell below about two programs an SM; on the current kernels the fit took that term to nothing
(saturation at 1.7 programs), so it was removed.  The model sorts sites into clear losses and the
rest, not close calls: a site fuses where it predicts at least :data:`MIN_PREDICTED_SPEEDUP`.
"""

from __future__ import annotations

import dataclasses
import math


@dataclasses.dataclass(frozen=True)
class Model:
    """The constants of the formula above (µs, MB per µs); the defaults are the fit described there."""

    stock_launch_us: float = 1.61
    stock_mb_per_us: float = 2.98
    fused_fixed_us: float = 4.42
    fused_mb_per_us: float = 3.03
    finish_us_per_partial: float = 4.24e-3
    row_us: float = 7.0e-3


MODEL = Model()
# a site fuses where the model predicts at least this speedup (fit_cost_model: 1 loss in 184 sites at 1.1, 7 at 1.0)
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
        rsplit, xblock: the fused launch's ``RSPLIT`` and ``XBLOCK`` (its programs, for :meth:`Estimate.describe`).
        model: the constants (``benchmarks.fit_cost_model`` fits others).
    """
    programs = rsplit * -(-cols // xblock)
    stock_kernels = 2 + reductions
    stock = stock_kernels * model.stock_launch_us + stock_bytes / 1e6 / model.stock_mb_per_us
    fused = (model.finish_us_per_partial * rsplit * reductions
             + max(model.fused_fixed_us + fused_bytes / 1e6 / model.fused_mb_per_us,
                   model.row_us * reductions * math.ceil(rows / rsplit)))
    return Estimate(stock, fused, stock_kernels, stock_bytes / 1e6, fused_bytes / 1e6, programs)
