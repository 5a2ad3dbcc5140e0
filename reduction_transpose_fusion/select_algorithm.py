"""Choosing the fused kernel's launch among candidates, as Inductor's ``select_algorithm`` chooses among a template's
choices: the candidates (each an override over the rules' launch, :mod:`.runtime.triton_heuristics`), the cost
model's ranking of them (:mod:`.fx_passes.profitability`, "The launch candidates' ranking"), which of them are timed,
and which is emitted.  ``codegen/triton.py`` generates and times them; ``choices`` builds each one's launch and prices
it.
"""

from __future__ import annotations

import contextlib
import contextvars
import math

# Launch candidates generated at compile on the GPU and ranked by the cost model, the first of them timed
# (codegen/triton.py; switch ``reduction_transpose_fusion_autotune``), each an override over the rules' launch, the
# first ({}) the rules' own: one row tile a program and the prefetched row loop each beat the rules' launch on some of
# the random-site losses (sweeps/2026-12-02-h200-sweep-losses.csv), one wave is there for sites the rules give one tile
# a program, the column tile where N fits it, and STOCK_LAUNCH, Inductor's own launch of the unsplit reduction
# (stock's time where stock emits that kernel anyway: N <= 128 or a wide C).  ``max_autotune`` adds the other launches
# of that sweep and the separate finish (which the cost model proposes as the rules' launch by default on small
# sites).  Sources alike are one candidate; docs/launch.md, "Launch candidates timed at compile time" and "The
# candidates ranked by the cost model".
STOCK_LAUNCH = {"UNSPLIT": 1}
ONE_TILE, ONE_WAVE, PREFETCH, COLUMN_TILE = {"TILES_PER_PROGRAM": 1}, {"TILES_PER_PROGRAM": 0}, {"PREFETCH": 1}, {
    "COLUMN_TILE": 1}
# The default candidates of each dtype class (:func:`dtype_class`).  A candidate is left out of a class where, over
# that class's kernels of the 15 CUDA-graph-timed random-site runs of 2026-12-03 and -04 that timed it
# (results/2026-12-04-h200-launch-candidates.csv; ``python -m benchmarks.fit_launch_model`` prints the table), the
# fastest of the others was within 5% of the fastest of all on every kernel: one wave for f32 (89 kernels, the worst
# 1.04x) and 1-byte kernels (39, 1.00x).  The column tile was timed on too few kernels of those classes to leave it out.
# STOCK_LAUNCH stays in each: it is the baseline where stock emits the kernel unsplit.
# A narrow C: one row tile a program on a 32-column tile, a candidate only where C is at most NARROW_COLS (two column
# blocks of the rules' 64-column tile; the data has no wider site).  On the ten narrow-C sites of the random-site
# losses and gains of 2026-12-03 to -05 (C 15-123, N 4943-116828; sweeps/2026-12-05-h200-sweep-narrow.csv) it beat the
# fastest default candidate timed there by 1.07-1.28x on the four that were losses or ties (GELU backward
# bf16[116828, 80]: 1.15x over stock against 0.90x), ran up to 1.12x slower on the four others and 1.9-2.1x slower on
# the two with a max reduction (F3-amax), which the model prices so (one tile a program with a max reduction).
NARROW_TILE = {"XBLOCK": 32, "TILES_PER_PROGRAM": 1}
NARROW_COLS = 128
CANDIDATES_BY_DTYPE: dict[str, tuple[dict[str, int], ...]] = {
    "16-bit": ({}, ONE_TILE, ONE_WAVE, PREFETCH, COLUMN_TILE, NARROW_TILE, STOCK_LAUNCH),
    "f32": ({}, ONE_TILE, PREFETCH, COLUMN_TILE, NARROW_TILE, STOCK_LAUNCH),
    "f32 to 16-bit": ({}, ONE_TILE, ONE_WAVE, PREFETCH, COLUMN_TILE, NARROW_TILE, STOCK_LAUNCH),
    "1-byte": ({}, ONE_TILE, PREFETCH, COLUMN_TILE, NARROW_TILE, STOCK_LAUNCH),
}
# every class's, in the order above
AUTOTUNE_CANDIDATES: tuple[dict[str, int], ...] = ({}, ONE_TILE, ONE_WAVE, PREFETCH, COLUMN_TILE, NARROW_TILE,
                                                   STOCK_LAUNCH)
MAX_AUTOTUNE_CANDIDATES = AUTOTUNE_CANDIDATES + (
    {"num_warps": 8}, {"TILES_PER_PROGRAM": 2}, {"TILES_PER_PROGRAM": 4}, {"XBLOCK": 32, "R0_BLOCK": 64},
    {"SEPARATE_FINISH": 1},
)


def dtype_class(narrowest: int, widest: int) -> str:
    """The dtype class of a kernel whose full-size tensors' element sizes span ``narrowest``..``widest`` bytes (the
    sites' ``narrowest`` and ``widest``): ``1-byte`` (an fp8 tensor), ``16-bit``, ``f32 to 16-bit`` (a cast) or
    ``f32``."""
    if narrowest == 1:
        return "1-byte"
    if widest <= 2:
        return "16-bit"
    return "f32 to 16-bit" if narrowest == 2 else "f32"


def autotune_candidates(narrowest: int, widest: int, cols: int, wide: bool = False, every_class: bool = False
                        ) -> tuple[dict[str, int], ...]:
    """The launch candidates of a kernel of that dtype class (:data:`CANDIDATES_BY_DTYPE`), every class's
    (:data:`AUTOTUNE_CANDIDATES`) where ``every_class``, over ``cols`` columns (C; its size hint): :data:`NARROW_TILE`
    only where C is at most :data:`NARROW_COLS`; ``wide`` (``max_autotune``): every candidate at any C,
    :data:`MAX_AUTOTUNE_CANDIDATES`."""
    if wide:
        return MAX_AUTOTUNE_CANDIDATES
    table = AUTOTUNE_CANDIDATES if every_class else CANDIDATES_BY_DTYPE[dtype_class(narrowest, widest)]
    return narrow_c_only(table, cols)


def narrow_c_only(candidates: tuple[dict[str, int], ...], cols: int) -> tuple[dict[str, int], ...]:
    """``candidates`` without :data:`NARROW_TILE` where ``cols`` (C) is more than :data:`NARROW_COLS`."""
    return tuple(c for c in candidates if c != NARROW_TILE or cols <= NARROW_COLS)


# Of the candidates, the baseline (below) and the TIMED_CANDIDATES the cost model predicts fastest are timed
# (fx_passes/profitability.py, "The launch candidates' ranking"), and any it could not price; max_autotune times every
# candidate.  On the 331 kernels whose candidates were all timed in the random-site runs of 2026-12-03 and -04, the
# fastest of the baseline and the model's first two was within 5% of the fastest of all on 98% of the 248 whose
# baseline is known (the model fit with each seed left out in turn; 2.4 distinct launches timed a kernel instead of
# 3.7).
TIMED_CANDIDATES = 2
# ... and every other candidate priced within this factor of the fastest priced: about twice the ranking's error
# (rms 0.18 in log time, each seed left out of the fit: e**0.36 = 1.43), so the model cannot tell them from the first.
# On the LayerNorm backward fp16[58171, 108] (random seed 1224050316; an H100, 2026-12-07,
# results/2026-12-07-*-random-picked-9416a98d.csv) the model's first two were one row tile a program, on the rules'
# tile and on the 32-column one (priced 11.3 and 10.7 µs, timed 40.6 and 41.4), so the rules' launch (36.0) was
# emitted: 1.05x stock's speed.  The prefetched loop, priced 13.8 and third, timed 26.2 where every candidate was
# timed, and ran at 1.60x.  Over the kernels whose candidates were all timed, each seed left out of the fit
# (``python -m benchmarks.fit_launch_model``), the emitted launch was within 5% of the fastest on 98.3% of 401 H200
# kernels (97.3% without the band) and 96.8% of 284 H100 kernels (95.4%), timing 0.12 and 0.20 more launches a
# kernel; a factor of 1.5 gave 98.8% and 97.5% for 0.15 and 0.24 more.
TIMED_BAND = 1.4
# ... and none where the model prices the baseline fastest by this much: on those 248 kernels, 94 (38%), where the
# baseline was within 5% of the fastest candidate on 99% (the worst 1.12x, 0.1% geomean), with the model fit without
# the kernel's seed (a margin of 0.1: 110 kernels, 96%, the worst 1.15x; 0.3: 84, 99%).
UNTIMED_MARGIN = 0.2
# A candidate replaces the baseline (the rules' launch; stock's where stock emits the kernel unsplit) only when this
# much faster: CUDA-graph replay repeats within 0.2-0.4% on the median random site, up to about 5% on sites of a few µs.
AUTOTUNE_MARGIN = 0.03
# Untimed (autotune off), another candidate replaces the rules' launch only where the model prices it this much
# faster: the ranking's price of one launch against another of the same kernel errs by 10% (median; rms 0.18 in log
# time, each seed left out of the fit), and the rules' launch came from sweeps.  Over the 401 kernels of 20 H200 seeds
# whose rules' launch is known (results/2026-12-05-h200-launch-candidates.csv, the same fits), the pick was within 5%
# of the fastest candidate on 87% with this margin against 85% without, 1.023x the fastest (geomean) against 1.028x,
# over 1.2x on 15 kernels against 20; chosen on the other 19 seeds for each seed in turn, the margin was this one 18
# times and 0.1 twice (86.8%).  On the 295 kernels of 10 later seeds, outside the fit (9 H100 seeds and 1 H200 seed,
# results/2026-12-06-*-launch-candidates-later.csv): 85.1% against 83.7%.  docs/launch.md, "The first pick keeps
# the rules' launch within 7.5%".
FIRST_PICK_MARGIN = 0.075

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


_PREDICTIONS: contextvars.ContextVar[list[float | Exception] | None] = contextvars.ContextVar("launch_predictions",
                                                                                             default=None)


@contextlib.contextmanager
def recording_prediction():
    """Within the block, ``choices`` records the cost model's µs for each launch it gives (:func:`record_prediction`)
    into the list this yields; codegen ranks the launch candidates by it (:func:`candidates_to_time`)."""
    recorded: list[float | Exception] = []
    token = _PREDICTIONS.set(recorded)
    try:
        yield recorded
    finally:
        _PREDICTIONS.reset(token)


def prediction_wanted() -> bool:
    """True inside :func:`recording_prediction`."""
    return _PREDICTIONS.get() is not None


def record_prediction(us: float | Exception) -> None:
    """Record a launch's predicted µs, or the error that kept the model from pricing it, where
    :func:`recording_prediction` asks for it (else nothing)."""
    recorded = _PREDICTIONS.get()
    if recorded is not None:
        recorded.append(us)


def candidates_to_time(predicted: list[float | None], baseline: int | None, count: int = TIMED_CANDIDATES,
                       sure: float = UNTIMED_MARGIN, band: float = TIMED_BAND) -> list[int]:
    """The indices of ``predicted`` (one candidate's predicted µs each, None where the model could not price it) to
    time, in order: the baseline's (``baseline``, None where no candidate is the baseline), the ``count`` predicted
    fastest (ties to the earlier), every one priced within ``band`` times the fastest price where ``count`` is not 0
    (``count`` 0: the baseline alone; ``band`` 0: none more), and every one without a prediction; none where the model
    prices the baseline fastest by ``sure`` or more (every other candidate priced, at ``1 + sure`` times the
    baseline's µs or more)."""
    if baseline is not None and all(us is not None for us in predicted) and predicted[baseline] < math.inf and all(
            us >= (1 + sure) * predicted[baseline] for i, us in enumerate(predicted) if i != baseline):
        return []
    priced = sorted((us, i) for i, us in enumerate(predicted) if us is not None)
    chosen = {baseline} if baseline is not None else set()
    chosen |= {i for _, i in priced[:count]} | {i for i, us in enumerate(predicted) if us is None}
    if count:
        chosen |= {i for us, i in priced if us <= band * priced[0][0]}
    return sorted(chosen)


def first_pick(predicted: list[float | None], baseline: int | None, margin: float | None = None) -> int | None:
    """The index of the candidate to emit untimed, of ``predicted`` (one candidate's predicted µs each, None where the
    model could not price it): the one priced fastest (ties to the earlier), unless ``baseline`` (the rules' own
    launch's index; None where it is not among them) is priced and that one is not at least ``margin`` (default
    :data:`FIRST_PICK_MARGIN`) faster, then ``baseline``.  None where no candidate is priced."""
    margin = FIRST_PICK_MARGIN if margin is None else margin
    priced = [(us, i) for i, us in enumerate(predicted) if us is not None]
    if not priced:
        return None
    fastest_us, fastest = min(priced)
    if baseline is not None and predicted[baseline] is not None and fastest_us > (1 - margin) * predicted[baseline]:
        return baseline
    return fastest


def describe(candidate: dict[str, int]) -> str:
    """A candidate's name in the log: its override as ``KEY=value,...``, ``rules`` for the rules' own (``{}``)."""
    return ",".join(f"{k}={v}" for k, v in candidate.items()) or "rules"


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
