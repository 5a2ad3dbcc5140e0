"""The cost model behind the fuse-or-skip decision: the fused kernel against what stock Inductor emits for a site.

For a site ``x [N, C]`` whose column reduction stock splits (``reduction_transpose.stock_split_factor`` > 1), stock
emits ``2 + R`` kernels for ``R`` reductions sharing one transposed copy: the split reductions' first stage (one
kernel, reading what ``u`` is computed from), a second stage per reduction, and the transposed copy (reading what
``v`` is computed from, writing ``v.T``).  The fused kernel reads every full-size input once and writes ``v.T``.
Times in µs, bytes in MB (10**6), on an H200:

    stock = (2 + R) * stock_launch_us + stock_bytes / stock_mb_per_us
    fused = fused_fixed_us + finish_us_per_partial * RSPLIT * R + fused_bytes / fused_mb_per_us

``RSPLIT`` is the fused launch's (:func:`..runtime.triton_heuristics.launch_config`).  The fixed term holds the
launch and the last program's finish after every other program; the finish term is its read of every program's
partials.

The constants are a least-squares fit (log of time) to 122 sites measured on one H200 (torch 2.11.0, triton 3.6.0)
where stock splits and the site was fused: the 60 such random sites of seeds 365187048 and 1935768610 with every site
fused (package ``417c3e7f``, whose semaphores buffer is kept zeroed rather than filled at each call;
``benchmarks/results/2026-12-03-h200-random-{365187048,1935768610}.csv``, ``stock_us`` against ``forced_us``) and the
62 fused cases of 30 µs or more of the corpus, held-out and main suites (``benchmarks/results/2026-12-01-h200-{corpus,
holdout,main}.csv``).  ``python -m benchmarks.fit_cost_model`` refits them and prints the accuracy: rms error of the
log time 0.18 fused and 0.20 stock, rank correlation of the times 0.99 and 0.99, of the speedups 0.56.  Fit on one
of the two seeds (and the suites) and applied to the other, it fused 25 of 33 and 16 of 27 split sites at the
threshold, none slower than stock by more than 3%.

An earlier fit (seed 1243628023, package ``e4913d64``) had a fixed cost of 5.3 µs, a bandwidth that fell below
about two programs an SM, and a row walk per program; on the current kernels, with no fill and launches that fill
the GPU, the fit took both of those terms to nothing (saturation at 1.7 programs, 3 ns a row), so they were
removed.  The model sorts sites into clear losses (a fixed cost the saved read cannot pay back) and the rest, not
close calls: a site fuses where it predicts at least :data:`MIN_PREDICTED_SPEEDUP`.
"""

from __future__ import annotations

import dataclasses


@dataclasses.dataclass(frozen=True)
class Model:
    """The constants of the formula above (µs, MB per µs); the defaults are the fit described there."""

    stock_launch_us: float = 1.55
    stock_mb_per_us: float = 3.15
    fused_fixed_us: float = 4.43
    fused_mb_per_us: float = 3.14
    finish_us_per_partial: float = 3.5e-3


MODEL = Model()
# a site fuses where the model predicts at least this speedup (fit_cost_model: 0 losses in 122 sites at 1.1, 4 at 1.0)
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
        rows, cols: N and C (size hints; N is not in the formula, kept for the callers' records).
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
    fused = (model.fused_fixed_us + model.finish_us_per_partial * rsplit * reductions
             + fused_bytes / 1e6 / model.fused_mb_per_us)
    return Estimate(stock, fused, stock_kernels, stock_bytes / 1e6, fused_bytes / 1e6, programs)
