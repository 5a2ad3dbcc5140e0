"""The cost model behind the fuse-or-skip decision: the fused kernel's launches against what stock Inductor emits.

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

The constants are a least-squares fit (log of time) to 224 sites measured on one H200 (torch 2.11.0, triton 3.6.0)
where stock splits and the site was fused with the split: the 122 such random sites of seeds 365187048, 1935768610,
1750778643 and 502739194 with every site fused (packages ``417c3e7f`` and ``ec42b8b0``, each site's calls captured in
a CUDA graph that fills the semaphores buffer at each call, as this package's graphs do;
``benchmarks/results/2026-12-03-h200-random-<seed>.csv``, ``stock_us`` against ``forced_us``), the 40 small sites of
seed 54490917 (N in [128, 8192], C in [8, 4096], at most 8 MB; ``results/lab/2026-12-04-h200-random-54490917-walk.csv``,
``forced_rules_us``) and the 62 fused cases of 30 µs or more of the corpus, held-out and main suites
(``benchmarks/results/2026-12-01-h200-{corpus,holdout,main}.csv``).  ``python -m benchmarks.fit_cost_model`` refits
them and prints the accuracy: rms error of the log time 0.19 fused and 0.22 stock, rank correlation of the times
0.98 and 0.98, of the speedups 0.65.  At the threshold it fuses 158 of the 224 with the split and keeps 3 losses
(small sites of 5-7 µs).

The walk.  Inductor's own launch of the unsplit reduction (the fused kernel with stock's launch: one program per few
columns walks all N rows, no partials, no finish, no semaphores), the expert's ``UNSPLIT=1``, is priced as

    walk = walk.fixed_us + walk.iteration_us * ceil(N / walk_rows(C)) + fused_bytes / walk.mb_per_us

where :func:`walk_rows` is the rows an iteration of Inductor's one outer-reduction config covers.  Fit to 169 walks:
the 40 of the small-site run above (``forced_unsplit_us``) and every site of the random runs of 2026-12-03 and -04
that stock emitted as one unsplit kernel (its own walk); rms error of the log time 0.22, rank correlation 0.99,
measured / predicted 0.56-1.85.  The model no longer chooses it for a site on its own: on the 25 sites of the column
tile's first two labs (below) where it had chosen the walk, the column tile ran 1.06-1.84x faster than the walk
(geomean 1.29x), and on 672 random sites decided for the fake H200 (2026-12-04, four seeds of N in [64, 131072],
three of N in [64, 4096]) it chose the walk on one once it priced the tile, a near tie (LayerNorm backward
f32[181, 5082]: walk 7.0 µs, tile 7.2 µs).  It stays a launch candidate timed at compile (``STOCK_LAUNCH``).

The separate finish.  The split's kernel can leave its partials to a second, tiny kernel (one program a column
block combines them in the same order; ``codegen/triton.py``): no ticket, and no semaphores, so the graph has no fill
to run.  It is the split's formula with its own fixed cost and bandwidth:

    separate = finish_us_per_partial * RSPLIT * R
               + max(separate_fixed_us + fused_bytes / separate_mb_per_us, row_us * R * ceil(N / RSPLIT))

fit to 62 sites fused both ways (random sites of seeds 83190415 and 290571133 with N in [128, 65536], C in [8, 4096],
at most 16 MB, package ``4ee55e5d``, whose kernels are ``e6d08798``'s;
``results/lab/2026-12-04-h200-random-<seed>-separate.csv``, ``forced_separate_us``): rms error of the log time
0.28, rank correlation 0.89.  Its fixed cost is 0.7 µs below the split's, but its fused kernel ran 10-20% slower
than the ticketed one on some sites past a few MB (a GELU backward bf16[3519, 1517] 24.1 against 21.7 µs, LayerNorm
backward bf16[22010, 345] 31.4 against 26.1, by the profiler; the cause was not found: the two kernels differ only
in the ticket, and their registers by at most 5%), which the fit puts in its bandwidth.  So it is taken below
about 1-2 MB moved, where it predicts a gain of at least :data:`SEPARATE_MIN_GAIN` over the split: on the lab's
sites (in-sample), 54 of 62 fused at the threshold, 23 with the separate finish, geomean 1.12x against 1.05x for the
split alone, 6 slower than stock by more than 3% either way.

The column tile.  A site of at most a few thousand rows (static) fits all N rows of a few columns in one program's
registers: Inductor's persistent reduction, unsplit (``runtime.triton_heuristics.column_tile``: XBLOCK one 32-byte
sector of a row, narrower where N needs it, at most 16384 elements a program).  It reads x once, writes ``v.T`` from
the same registers, and has one launch with no partials, no finish and no semaphores; and a reduction whose result a
full-size op reads (a centering, a rowwise fp8 cast's column scale), which any other launch must finish before a
second pass over x, is finished in the program's registers.  Its time is a launch, the bytes (the row-major ones
counted again for the part of each 32-byte sector a program does not use) and a row of each row-major tensor:

    column_tile = column_tile.fixed_us + column_tile.row_us * N * tensors
                  + (fused_bytes + column_tile.sector_waste * unused_bytes) / column_tile.mb_per_us
    unused_bytes = N * C * sum over the row-major loads and stores a of max(0, 32 / XBLOCK - itemsize(a))

(:func:`unused_sector_bytes`): a program's row of ``XBLOCK`` elements covers ``XBLOCK * itemsize`` bytes of a 32-byte
sector; the loads are counted at the widest element size (their bytes over it), the stores at their own.  ``tensors`` counts the full-size tensors the kernel loads (``Site.reads``: F3's LayerNorm backward, 2) and
those it stores row-major besides ``v.T`` (``Site.stores``: a Float8 cast's ``q``, which its GEMM reads too, whose
rows of one byte an element leave three quarters of a sector unused at XBLOCK 8); ``fused_bytes`` counts the latter
too.  Fit to the 252 tiles of at most 16384
elements (4096 under a transcendental producer) measured in the tile's H200 labs with the warps the package gives
them, 137 tiles of sites stock splits: random seeds 2117554925 and 1444571567 (N in [128, 4096], C in [8, 8192], at
most 8 MB, each site on 4, 8 and 16 warps; package ``d00ae449``) and 640289596 (N in [1024, 16384], C in [8, 4096],
XBLOCK 8, 4 and 2; package ``57bfef61``), ``results/lab/*-column-tile*.csv``: rms error of the log time 0.175 (0.17
for one sector a row, 0.195 for XBLOCK 2), rank correlation 0.950; on the 382 tiles of the launch-candidate tables
(``results/2026-12-06-*-launch-candidates-rebuilt.csv``, H200 and H100, not fit to) 0.211.  The stores and the row of
each tensor were added on 2026-12-06 (before: one row term, the loads' sectors only; 0.206 and 0.217): the tile of a
Float8 cast-transpose-dbias (q, q.T and the bias gradient) had been priced at 0.68x of its time (median of 14 timed
on the H200), the kernels of two inputs 13-17% low (docs/profitability.md, "2026-12-06").  Tiles of one sector ran 1.10-3.14x faster than stock
(geomean 2.09x on the first lab's 64 sites that take one); tiles of part of a sector 0.70-2.19x, faster than
a sector's where C is narrow (more programs) and slower where it is wide.  Where it is allowed
(``reduction_transpose.column_tile_allowed``: static N, a reduction stock splits, N fits the tile) it is one more
launch of the model, and the launch candidates timed at compile include it; for a site with a second pass over x it
is the only launch the model prices (the candidates timed at compile may still find Inductor's own launch faster).

An earlier fit (seed 1243628023, package ``e4913d64``, with the launches of that day) had a fixed cost of 5.3 µs
and a bandwidth that fell below about two programs an SM; on the current kernels the fit took that term to nothing
(saturation at 1.7 programs), so it was removed.  The model sorts sites into clear losses and the
rest, not close calls: a site fuses where it predicts at least :data:`MIN_PREDICTED_SPEEDUP`.
"""

from __future__ import annotations

import dataclasses
import math

from torch._inductor.runtime.runtime_utils import next_power_of_2

from ..runtime.triton_heuristics import COLUMN_TILE_ROW_BYTES


@dataclasses.dataclass(frozen=True)
class Model:
    """The constants of the formula above (µs, MB per µs); the defaults are the fit described there."""

    stock_launch_us: float = 1.52
    stock_mb_per_us: float = 2.94
    fused_fixed_us: float = 4.46
    fused_mb_per_us: float = 3.02
    finish_us_per_partial: float = 4.68e-3
    row_us: float = 6.96e-3
    # the separate finish (module docstring): two launches, no ticket and no semaphore fill; its fused kernel's
    # bandwidth
    separate_fixed_us: float = 3.75
    separate_mb_per_us: float = 1.46


MODEL = Model()
# a site fuses where the model predicts at least this speedup (fit_cost_model: 3 losses in 224 sites at 1.1, 18 at 1.0)
MIN_PREDICTED_SPEEDUP = 1.1
# The separate finish is taken where it predicts at least this gain over the split: the spread of CUDA-graph replay on
# sites of a few µs (as select_algorithm.AUTOTUNE_MARGIN).  Its fixed cost is all it saves, so large sites,
# whose launches the sweeps tuned with the last-program finish, keep it.
SEPARATE_MIN_GAIN = 0.03


@dataclasses.dataclass(frozen=True)
class WalkModel:
    """The constants of the walk's formula (module docstring; µs, MB per µs); the defaults are its fit."""

    fixed_us: float = 0.91
    iteration_us: float = 0.40
    mb_per_us: float = 3.01


WALK = WalkModel()


@dataclasses.dataclass(frozen=True)
class ColumnTileModel:
    """The constants of the column tile's formula (module docstring; µs, MB per µs, a fraction, µs per row); the
    defaults are its fit."""

    fixed_us: float = 1.78
    mb_per_us: float = 2.10
    sector_waste: float = 0.201
    row_us: float = 0.452e-3  # a row of one row-major tensor


COLUMN_TILE = ColumnTileModel()


def unused_sector_bytes(elements: int, xblock: int, load_bytes: int, widest: int, stores: tuple[int, ...] = ()
                        ) -> float:
    """Bytes of the 32-byte sectors that the column tile's row-major accesses over ``elements`` elements of ``x``
    fetch or write but do not use (module docstring): a program covers ``xblock`` elements of a row, ``xblock * s``
    bytes of a sector for a tensor of ``s`` bytes an element.  ``load_bytes`` bytes an element are loaded, at the
    widest element size ``widest``; ``stores`` are the element sizes of the full-size tensors stored row-major (a
    Float8 cast's ``q``, which its GEMM reads too; ``Site.stores``).  The transposed copy's rows run along N, whole
    sectors."""
    def unused(itemsize: int) -> float:
        return max(0.0, COLUMN_TILE_ROW_BYTES / xblock - itemsize)

    return elements * (load_bytes / widest * unused(widest) + sum(map(unused, stores)))


def column_tile_us(rows: int, fused_bytes: int, unused_bytes: float, tensors: int = 1,
                   model: ColumnTileModel = COLUMN_TILE) -> float:
    """Predicted µs of the column tile (module docstring) over ``rows`` rows of ``tensors`` full-size tensors
    accessed row-major (loaded, or stored besides ``v.T``), moving ``fused_bytes`` (the row-major stores included)
    and touching ``unused_bytes`` more of their sectors (:func:`unused_sector_bytes`)."""
    return (model.fixed_us + (fused_bytes + model.sector_waste * unused_bytes) / 1e6 / model.mb_per_us
            + model.row_us * rows * tensors)


def walk_rows(cols: int) -> int:
    """Rows a loop iteration of the walk covers: the ``R0_BLOCK`` of Inductor 2.11's one config for an outer
    reduction of static sizes (``runtime/triton_heuristics.py``, ``_reduction_configs``' ``outer_config_opt``; its
    ``XBLOCK`` is 2-8 columns up to 1024 and 16 up to 32768, by the next power of two of C, and at most 8 rows a
    step beyond, for a kernel of fewer than 4 loads)."""
    c = next_power_of_2(cols)
    return 64 if c <= 1024 else 32 if c // 4096 <= 8 else 8


def walk_us(rows: int, cols: int, fused_bytes: int, model: WalkModel = WALK) -> float:
    """Predicted µs of the walk (module docstring) over ``x [rows, cols]`` moving ``fused_bytes``."""
    return model.fixed_us + model.iteration_us * math.ceil(rows / walk_rows(cols)) + fused_bytes / 1e6 / model.mb_per_us


@dataclasses.dataclass(frozen=True)
class Estimate:
    """Predicted µs of stock's kernels and of the fused kernel's launches for one site: the split (``RSPLIT``
    programs a column block and the last-program finish), the same split with the separate finish, and the walk
    (``inf`` where one is not a choice).  :attr:`fused_us` is the fastest, :attr:`launch` its name, :attr:`speedup`
    stock / fused."""

    stock_us: float
    split_us: float
    walk_us: float
    stock_kernels: int
    stock_mb: float
    fused_mb: float
    programs: int
    separate_us: float = math.inf
    column_tile_us: float = math.inf

    @property
    def launches(self) -> dict[str, float]:
        """{launch: predicted µs}, in the order a tie goes (the split, the separate finish, the walk, the column
        tile)."""
        return {"split": self.split_us, "separate finish": self.separate_us, "walk": self.walk_us,
                "column tile": self.column_tile_us}

    @property
    def launch(self) -> str:
        """The launch predicted fastest: ``"split"``, ``"separate finish"``, ``"walk"`` or ``"column tile"``."""
        return min(self.launches, key=self.launches.get)

    @property
    def fused_us(self) -> float:
        return self.launches[self.launch]

    @property
    def walk(self) -> bool:
        """True if the walk is predicted the fastest launch."""
        return self.launch == "walk"

    @property
    def separate(self) -> bool:
        """True if the split with the separate finish is predicted the fastest launch."""
        return self.launch == "separate finish"

    @property
    def column_tile(self) -> bool:
        """True if the column tile is predicted the fastest launch."""
        return self.launch == "column tile"

    @property
    def speedup(self) -> float:
        return self.stock_us / self.fused_us

    def describe(self) -> str:
        programs = "" if self.walk or self.column_tile else f" ({self.programs} programs)"
        others = "".join(f", {name} {us:.1f} us" for name, us in self.launches.items()
                         if name != self.launch and us != math.inf)
        return (f"predicted fused the {self.launch} {self.fused_us:.1f} us{programs} ({self.fused_mb:.2f} MB{others}) "
                f"against stock's {self.stock_us:.1f} us ({self.stock_kernels} kernels, {self.stock_mb:.2f} MB): "
                f"{self.speedup:.2f}x")


def estimate(rows: int, cols: int, reductions: int, stock_bytes: int, fused_bytes: int, rsplit: int,
             xblock: int, model: Model = MODEL, walk: bool = False, walk_model: WalkModel = WALK,
             split: bool = True, separate: bool = False, tile_us: float = math.inf) -> Estimate:
    """The model above for a site stock splits.

    Args:
        rows, cols: N and C (size hints).
        reductions: R, the reductions sharing the transposed copy (LayerNorm backward: 2).
        stock_bytes: bytes stock's kernels move: the full-size inputs of ``u`` and of ``v`` (each read by its own
            kernel) and ``v.T`` written.
        fused_bytes: bytes the fused kernel moves: each full-size input once and ``v.T``.
        rsplit, xblock: the fused launch's ``RSPLIT`` and ``XBLOCK`` (its programs, for :meth:`Estimate.describe`).
        model: the constants (``benchmarks.fit_cost_model`` fits others).
        walk: whether the walk is a choice (the expert's ``UNSPLIT=1``).
        walk_model: the walk's constants.
        split: whether the split is a choice (not under the expert's ``UNSPLIT=1``; then ``split_us`` is ``inf``).
        separate: whether the separate finish is a choice (``reduction_transpose.separate_allowed``; more than one
            program a column block).
        tile_us: the column tile's predicted µs (:func:`column_tile_us`); ``inf`` where the tile is not a choice
            (``reduction_transpose.column_tile_allowed``).
    """
    programs = rsplit * -(-cols // xblock)
    stock_kernels = 2 + reductions
    stock = stock_kernels * model.stock_launch_us + stock_bytes / 1e6 / model.stock_mb_per_us

    def split_us(fixed_us: float, mb_per_us: float) -> float:
        return (model.finish_us_per_partial * rsplit * reductions
                + max(fixed_us + fused_bytes / 1e6 / mb_per_us, model.row_us * reductions * math.ceil(rows / rsplit)))

    split_time = split_us(model.fused_fixed_us, model.fused_mb_per_us) if split else math.inf
    separate_time = (split_us(model.separate_fixed_us, model.separate_mb_per_us) if split and separate and rsplit > 1
                     else math.inf)
    if separate_time * (1 + SEPARATE_MIN_GAIN) > split_time:  # a gain within the timing noise: keep the measured split
        separate_time = math.inf
    walk_time = walk_us(rows, cols, fused_bytes, walk_model) if walk else math.inf
    return Estimate(stock, split_time, walk_time, stock_kernels, stock_bytes / 1e6, fused_bytes / 1e6, programs,
                    separate_time, tile_us)


# The launch candidates' ranking.  The candidates timed at compile (select_algorithm.CANDIDATES_BY_DTYPE) are ranked
# by this model, and only the baseline and the model's first select_algorithm.TIMED_CANDIDATES are timed (none where
# it prices the baseline fastest by UNTIMED_MARGIN).  A candidate of another kind than the split takes the formula
# of its kind above (the walk, the column tile; the rules' own launch the model's fastest of its kinds); a split
# launch ``c`` other than the rules' own split launch ``r`` is priced relative to it:
#
#     split(c) = split(r) * exp(sum_i w_i * (f_i(c) - f_i(r)))
#
# over the terms f_i of :func:`candidate_terms`: one row tile a program (with a max or min reduction, with a 1-byte
# tensor, under a heavy producer), the prefetched row loop (and its log row tiles a program), the log row tiles a
# program T = ceil(ceil(N / R0_BLOCK) / RSPLIT) (1 for one tile a program), the log programs P = RSPLIT * ceil(C / XBLOCK)
# (and times the log MB moved).  The weights are a least-squares fit of log time, each kernel's launches centred on
# their mean (so only the differences between one kernel's launches are fit), to the 1176 split launches timed at
# compile by CUDA-graph replay on 331 kernels of 15 random-site runs of 2026-12-03 and -04 (packages 0a0b688a to
# c39f2ea8; benchmarks/results/2026-12-04-h200-launch-candidates.csv, each candidate's launch and prices rebuilt
# with this package: benchmarks/launch_candidates.py).  ``python -m benchmarks.fit_launch_model`` refits them and
# reports the ranking's accuracy with each seed left out of the fit in turn, over every kind of candidate timed: the
# candidate priced fastest within 5% of the fastest on 80% of the 331 kernels, the first pick (which keeps the rules'
# launch unless another is priced select_algorithm.FIRST_PICK_MARGIN faster) on 82% (the rules' own launch: 60% of the
# 248 where the table knows it); the fastest of the baseline and the model's first two within 5% on 98% of those 248,
# timing 2.4 distinct launches a kernel instead of 3.7, 0.3% slower than the fastest of all (geomean), and 1.7 with
# none timed where the baseline is priced fastest by select_algorithm.UNTIMED_MARGIN and those priced within
# select_algorithm.TIMED_BAND of the first timed too (98%); mean rank correlation
# of predicted and measured times within a kernel 0.81.  The largest term says what the sweeps had not: other terms
# equal, one row tile a program takes exp(-0.204) = 0.82x the time of a looped launch, but exp(0.727 - 0.204) =
# 1.69x where a reduction is a max or a min (an fp8 cast's amax; on the F3-amax kernels timed, one tile took 1.70x
# the rules' launch, median).


@dataclasses.dataclass(frozen=True)
class CandidateModel:
    """The weights ``w_i`` of the ranking above, one per term of :func:`candidate_terms` (log µs per unit)."""

    one_tile: float = -0.202
    one_tile_max: float = 0.726
    one_tile_one_byte: float = 0.102
    one_tile_heavy: float = 0.116
    prefetch: float = -0.069
    prefetch_log_tiles: float = -0.062
    log_tiles: float = 0.029
    log_programs: float = -0.167
    log_programs_log_mb: float = 0.024


CANDIDATES = CandidateModel()


def candidate_terms(rows: int, cols: int, xblock: int, rblock: int, rsplit: int, tiles_per_program: int,
                    prefetch: bool, max_reduction: bool, narrowest: int, heavy: bool, moved_bytes: int
                    ) -> dict[str, float]:
    """The terms ``f_i`` of the ranking above for a split launch over ``x [rows, cols]`` (its ``XBLOCK``,
    ``R0_BLOCK``, ``RSPLIT``, ``tiles_per_program`` (1: one row tile a program, also on the row-tile grid) and
    ``prefetch``), ``max_reduction`` where one of its reductions is a max or a min, whose narrowest full-size tensor
    has ``narrowest``-byte elements, ``heavy`` for a heavy kernel (``runtime.triton_heuristics.heavy_kernel``),
    moving ``moved_bytes`` bytes.  Keys are :class:`CandidateModel`'s fields."""
    one_tile = float(tiles_per_program == 1)
    tiles = 1 if one_tile else math.ceil(math.ceil(rows / rblock) / rsplit)
    log_programs = math.log(rsplit * math.ceil(cols / xblock))
    return dict(one_tile=one_tile, one_tile_max=one_tile * max_reduction,
                one_tile_one_byte=one_tile * (narrowest == 1), one_tile_heavy=one_tile * heavy,
                prefetch=float(prefetch), prefetch_log_tiles=float(prefetch) * math.log(tiles),
                log_tiles=math.log(tiles), log_programs=log_programs,
                log_programs_log_mb=log_programs * math.log(max(moved_bytes, 1) / 1e6))


def split_candidate_us(rules_split_us: float, terms: dict[str, float], rules_terms: dict[str, float],
                       model: CandidateModel = CANDIDATES) -> float:
    """Predicted µs of a split launch with :func:`candidate_terms` ``terms``, from the rules' own split launch's
    predicted µs and terms (the ranking above)."""
    return rules_split_us * math.exp(sum(getattr(model, k) * (terms[k] - rules_terms[k]) for k in terms))
