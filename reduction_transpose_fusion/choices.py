"""Inductor heuristics for reduction–transpose sites (``InductorChoices`` subclass).

Two decisions differ from stock, and only for reductions that the post-grad pass
(:mod:`reduction_transpose_fusion.fx_passes.reduction_transpose`) marked:

* ``reduction_split_factor`` returns 1.  Stock splits a column reduction over ``N`` into two kernels
  (``ir.py:1291``), and the first stage's loops ``[C, split] x [N / split]`` never match the transposed copy's
  ``[C, N]``, so the two cannot fuse (``can_fuse``: "no shared data").  Unsplit, Inductor's own scheduler fuses
  the reduction, its pointwise producers and the transposed copy into one kernel over ``(numel=C, rnumel=N)``.
* ``triton_kernel_kwargs`` gives that kernel back the parallelism the split provided: a cooperative reduction
  over ``RSPLIT`` programs with a fixed launch (:func:`..runtime.triton_heuristics.launch_config`) and the
  last-program finish of :class:`..codegen.triton.ReductionTransposeTritonKernel`.  Where that finish is not safe
  (a reduction result read inside a later loop of the same kernel) it keeps Inductor's grid-barrier finish with
  ``RSPLIT`` capped at one program per SM over the column blocks, which is always co-resident; where that cap is 1
  (the column blocks alone fill the GPU) there is no barrier and the launch is an ordinary one.

Everything else is ``InductorChoices``' default.  Each decision is logged under ``TORCH_LOGS=reduction_transpose_fusion``.
"""

from __future__ import annotations

import dataclasses
import logging
import math
from typing import Any, Optional

import sympy
from torch._inductor.choices import InductorChoices
from torch._inductor.runtime.hints import DeviceProperties

from . import _torch_private, config
from ._torch_private import DisableReduction, EnableReduction, FixedTritonConfig, V
from .codegen.triton import FINISH_COMBINE, ReductionTransposeTritonKernel
from .fx_passes.reduction_transpose import (FLAGGED_DTYPES, META_KEY, VECTOR_MULTIPLE, Site, atomics_allowed,
                                           heavy_producer, package_hash, predicted_column_tile_us, predicted_estimate,
                                           row_symbol, row_tile_grid_available, separate_allowed, vector_rows)
from .fx_passes import profitability
from .runtime.triton_heuristics import (MAX_RSPLIT, LaunchBoundError, LaunchConfig, changed_overrides, column_tile,
                                        even_rsplit, heavy_kernel, launch_config, wide_fp8_cast)
from .select_algorithm import (STOCK_LAUNCH, autotune_candidates, candidate_override, prediction_wanted,
                               record_prediction)
from .scheduler import origins, sites_in

log = logging.getLogger(__name__)

# CUDA's gridDim.y limit; the column blocks are the cooperative grid's dim 1 (Inductor's own reduction grid puts them
# in dim 0, whose limit is 2**31 - 1)
MAX_GRID_Y = 65535


class ReductionTransposeChoices(InductorChoices):
    """``InductorChoices`` that fuses marked reduction–transpose sites; stock behaviour everywhere else."""

    def uuid(self) -> tuple[str, str]:
        """The handler's part of the FX-graph cache key: the package's source hash.  torch 2.15 asks it of every
        configured or registered choices class (``inductor_choices_cache_key``) and fails each compile with caches on
        without it; torch 2.11 does not ask."""
        return ("reduction_transpose_fusion", package_hash().hex())

    def reduction_split_factor(self, device, reduction_numel_hint, numel_hint, inner_reduction) -> int:
        node = V.graph.current_node
        if not inner_reduction and node is not None and META_KEY in node.meta and config.enabled():
            return 1
        return super().reduction_split_factor(device, reduction_numel_hint, numel_hint, inner_reduction)

    def triton_kernel_kwargs(self, kernel_cls, features, groups, kernel_kwargs) -> dict[str, Any]:
        kwargs = super().triton_kernel_kwargs(kernel_cls, features, groups, kernel_kwargs)
        sites = sites_in(features.scheduler_nodes())  # marked by the CUDA pass only: other devices stop here
        if not sites or not config.enabled():
            return kwargs
        site = sites[0]
        names = ", ".join(sorted({s.reduction for s in sites}))
        sizes = V.graph.sizevars
        if not (sizes.statically_known_equals(features.numel, site.cols)
                and sizes.statically_known_equals(features.reduction_numel, site.rows)):
            log.info("skip %s: its kernel iterates (%s, %s), not (C=%s, N=%s)", names,
                     features.numel, features.reduction_numel, site.cols, site.rows)
            return kwargs
        if not issubclass(kernel_cls, ReductionTransposeTritonKernel):
            log.info("skip %s: kernel class %s is not ours (scan or custom backend)", names, kernel_cls.__name__)
            return kwargs
        # the expert override, and over it the launch candidate being timed or emitted (codegen/triton.py)
        override = {**config.launch_override(), **candidate_override()}
        cols = V.graph.sizevars.optimization_hint(features.numel)
        rows = V.graph.sizevars.optimization_hint(features.reduction_numel)
        if override.get("UNSPLIT"):
            why = ("the launch candidate timed fastest" if candidate_override() == STOCK_LAUNCH
                   else "reduction_transpose_fusion_launch_config")
            _log_decision(sites, _fused_copies(features, sites), names,
                          f"Inductor's own launch of the unsplit reduction ({why})", None)
            _record_prediction(features, sites, names, cols, rows, "walk")
            return kwargs
        if override.get("COLUMN_TILE"):
            why = ("the launch candidate timed fastest" if candidate_override().get("COLUMN_TILE")
                   else "reduction_transpose_fusion_launch_config")
            if _column_tile(kwargs, sites, names, features, cols, rows, override, why):
                _record_prediction(features, sites, names, cols, rows, "column tile")
                return kwargs
            override = {}
        if not atomics_allowed():  # the pass fused the site for the column tile alone
            if not _column_tile(kwargs, sites, names, features, cols, rows, override,
                                "torch.use_deterministic_algorithms(True): no atomic ticket"):
                log.info("%s: Inductor's own launch of the unsplit reduction (torch.use_deterministic_algorithms(True) "
                         "allows no atomic ticket, and the column tile does not fit this kernel)", names)
            return kwargs
        kernel = _kernel_inputs(features, sites)
        copies, reductions, static_rows = kernel.copies, kernel.reductions, kernel.static_rows
        override.pop("UNSPLIT", None)  # 0 here: the package's launch
        separate_asked = override.pop("SEPARATE_FINISH", None)  # not a key of the launch rules
        tile_asked = override.pop("COLUMN_TILE", None)  # 0 here (1 was taken above): the package's launch
        if separate_asked:
            kernel = dataclasses.replace(kernel, vector=kernel.vector | {"row_tile_grid": False})  # flagged words
        try:
            launch = _launch(names, features, kernel, cols, rows, override)
        except LaunchBoundError as e:
            if e.from_override:
                raise
            log.info("skip %s: %s; Inductor's own launch of the unsplit reduction", names, e)
            return kwargs
        last_block = _single_loop(features)
        # the cost model chooses the launch (the split, the separate finish or the column tile) with no launch override
        model_chooses = not override and separate_asked is None and tile_asked is None
        guess = predicted_estimate(site, reductions, launch.row_tile_grid, launch) if model_chooses else None
        if guess and guess.column_tile:
            if _column_tile(kwargs, sites, names, features, cols, rows, {}, f"the cost model: {guess.describe()}"):
                _record_prediction(features, sites, names, cols, rows, "rules")
                return kwargs
            if not last_block:  # a result read in a later loop: Inductor's own launch rather than a grid barrier
                log.info("%s: Inductor's own launch of the unsplit reduction (its kernel reads a reduction in a "
                         "later loop, and the column tile the pass priced for it does not fit this kernel)", names)
                return kwargs
        if not _grid_y_fits(features.numel, launch.XBLOCK):
            log.info("skip %s: C=%s in blocks of %d may exceed CUDA's grid y limit (%d blocks); Inductor's own "
                     "launch of the unsplit reduction", names, features.numel, launch.XBLOCK, MAX_GRID_Y)
            return kwargs
        # may guard N >= R0_BLOCK: after the grid-y check, so that a skipped site takes no guard
        shift = launch.shift_last_tile and _rows_fill_a_tile(features.reduction_numel, launch.R0_BLOCK)
        launch = changed_overrides(override, launch, dataclasses.replace(launch, shift_last_tile=shift),
                                   f"N={features.reduction_numel} may be fewer rows than one tile of {launch.R0_BLOCK}")
        separate = _separate_finish(names, launch, last_block, separate_asked, guess)
        _log_decision(sites, copies, names, launch, last_block, separate)
        for note in launch.notes:
            log.info("%s: launch override %s", names, note)
        # One row tile a program is Inductor's persistent cooperative reduction: no loop, so no [XBLOCK, R0_BLOCK]
        # accumulator (the kernel computes R0_BLOCK from RSPLIT, which is ceil(N / R0_BLOCK) here, and takes no
        # R0_BLOCK argument).  That R0_BLOCK is a constexpr, so N must be static.
        persistent = (launch.tiles_per_program == 1 and last_block and static_rows and not launch.row_tile_grid
                      and not separate)  # the finish kernel is the looped kernel without its loop
        fixed = {k: v for k, v in launch.as_dict().items() if not (persistent and k == "R0_BLOCK")}
        kwargs.update(
            override_cooperative_reduction=True,
            override_persistent_reduction=persistent,
            fixed_config=FixedTritonConfig(fixed),
            last_block_finish=last_block,
            ordinary_launch=launch.RSPLIT == 1,  # no barrier to wait on (the last-program finish implies it too)
            chunked_finish=launch.chunked_finish,
            # several reductions keep the ticket: flagged partials were no faster for them, with the one-level finish
            # or the two-level one (codegen/triton.py; sweeps/2026-11-30-h200-sweep-several.csv)
            flagged_partials=launch.chunked_finish and reductions == 1,
            finish_group=launch.finish_group,
            prefetch=launch.prefetch,
            row_tile_grid=launch.row_tile_grid,  # off for a grid-barrier finish (_co_resident)
            shift_last_tile=launch.shift_last_tile,
            int32_sizes=launch.int32_sizes,
            evict_first=launch.evict_first,
            separate_finish=separate,
        )
        _record_prediction(features, sites, names, cols, rows,
                           "rules" if model_chooses else "separate finish" if separate else "split", launch)
        return kwargs


def _record_prediction(features, sites: list[Site], names: str, cols: int, rows: int, kind: str,
                       launch: Optional[LaunchConfig] = None) -> None:
    """Where codegen ranks the launch candidates (``select_algorithm.recording_prediction``), record the
    predicted µs of the launch just given (:func:`_predicted_us`), or the error that kept the model from pricing it:
    codegen then logs it and times the candidate rather than rank it."""
    if not prediction_wanted():
        return
    try:
        record_prediction(_predicted_us(features, sites, names, cols, rows, kind, launch))
    except Exception as e:  # noqa: BLE001  a ranking hint only
        record_prediction(e)


def _predicted_us(features, sites: list[Site], names: str, cols: int, rows: int, kind: str,
                  launch: Optional[LaunchConfig]) -> float:
    """The cost model's µs for a launch of kind ``kind`` ("rules": the model's own choice among its kinds, "walk",
    "column tile", "separate finish", "split") of this kernel, ``launch`` its split launch where it has one
    (:mod:`..fx_passes.profitability`, "The launch candidates' ranking"): a split launch priced relative to the
    rules' own split launch of the same kernel."""
    guess, rules, terms = _pricing(features, sites, names, cols, rows)
    if kind == "rules":
        return guess.fused_us
    if kind == "walk":
        return profitability.walk_us(rows, cols, int(guess.fused_mb * 1e6))
    if kind == "column tile":
        return _column_tile_price(sites, cols, rows)
    if kind == "separate finish" and guess.separate_us < math.inf:
        return guess.separate_us
    return profitability.split_candidate_us(guess.split_us, terms(launch), terms(rules))


def _column_tile_price(sites: list[Site], cols: int, rows: int) -> float:
    """The cost model's µs for the column tile :func:`_column_tile` gives this kernel (``inf`` where none fits),
    also where the model would not offer it (a wide C, which stock emits unsplit)."""
    widest, heavy = max(s.widest for s in sites), any(heavy_producer(s) for s in sites)
    tile = column_tile(cols, rows, widest, heavy, config.launch_override())
    return predicted_column_tile_us(sites[0], tile[0]) if tile else math.inf


def _pricing(features, sites: list[Site], names: str, cols: int, rows: int):
    """(the cost model's estimate with the rules' own launch, that launch, a function from a split launch to its
    :func:`..fx_passes.profitability.candidate_terms`) for a fused kernel."""
    kernel = _kernel_inputs(features, sites)
    rules = _launch(names, features, kernel, cols, rows, {})
    guess = predicted_estimate(sites[0], kernel.reductions, rules.row_tile_grid, rules)
    heavy = heavy_kernel(kernel.ops, kernel.producer_ops)
    max_reduction = bool(_reduction_types(features) & {"max", "min"})

    def terms(launch: LaunchConfig) -> dict[str, float]:
        return profitability.candidate_terms(rows, cols, launch.XBLOCK, launch.R0_BLOCK, launch.RSPLIT,
                                             launch.tiles_per_program, launch.prefetch, max_reduction,
                                             kernel.narrowest, heavy, int(guess.fused_mb * 1e6))

    return guess, rules, terms


def _column_tile(kwargs: dict[str, Any], sites: list[Site], names: str, features, cols: int, rows: int,
                 override: dict[str, int], why: str) -> bool:
    """Give ``kwargs`` the column tile (``runtime.triton_heuristics.column_tile``: Inductor's persistent reduction,
    unsplit, with the tile's fixed config) and log it with ``why``; False, logged, where the kernel cannot take it:
    a dynamic N (the tile is all N rows, a constexpr) or rows that do not fit the tile."""
    if not features.reduction_numel.is_number:
        log.info("%s: no column tile (N=%s is dynamic); the package's launch", names, features.reduction_numel)
        return False
    # the pass's element size and producers (column_tile_allowed), so that both see the same tile
    widest, heavy = max(s.widest for s in sites), any(heavy_producer(s) for s in sites)
    tile = column_tile(cols, rows, widest, heavy, override)
    if tile is None:
        asked = ", ".join(f"{k}={override[k]}" for k in ("XBLOCK", "num_warps") if k in override)
        log.info("%s: no column tile (N=%d rows of %d-byte elements do not fit it%s); the package's launch",
                 names, rows, widest, f" with {asked}" if asked else "")
        return False
    config = {"XBLOCK": tile[0], "num_warps": tile[1], "num_stages": 1}
    _log_decision(sites, _fused_copies(features, sites), names,
                  f"the column tile, Inductor's persistent reduction unsplit ({why}; {config})", None)
    kwargs.update(override_persistent_reduction=True, override_cooperative_reduction=False,
                  fixed_config=FixedTritonConfig(config))
    return True


def _separate_finish(names: str, launch: LaunchConfig, last_block: bool, asked: Optional[int],
                     guess: Optional[Any]) -> bool:
    """Whether the fused kernel takes the separate finish: asked by ``SEPARATE_FINISH`` (the expert's or a launch
    candidate's) or, with no launch override, the cost model's fastest launch (``guess``, an
    :class:`..fx_passes.profitability.Estimate`), where the kernel allows it: one reduction loop (the last-program
    finish), more than one program a column block, no row-tile grid, and the Python wrapper without multi-kernel
    (:func:`..fx_passes.reduction_transpose.separate_allowed`)."""
    wanted = bool(asked) if asked is not None else bool(guess and guess.separate)
    if not wanted:
        return False
    why = ("a reduction result is read in a later loop" if not last_block else
           "one program a column block has no partials to combine" if launch.RSPLIT < 2 else
           "the row-tile grid's partials are flagged words" if launch.row_tile_grid else
           None if separate_allowed() else "the cpp wrapper, AOTInductor or multi-kernel")
    if why:
        log.info("%s: no separate finish (%s); the finish stays in the fused kernel", names, why)
    return why is None


@dataclasses.dataclass(frozen=True)
class _Kernel:
    """What :func:`launch_config` reads of a fused kernel besides its sizes and the override (its arguments of the
    same names; ``vector`` its keyword ones), and ``no_grid``, why it may not take the row-tile grid (None: it may)."""

    num_sms: int
    narrowest: int
    widest: int
    moved: int
    ops: int
    reductions: int
    producer_ops: frozenset
    static_rows: bool
    static_cols: bool
    no_grid: Optional[str]
    vector: dict
    copies: list[str]  # the transposed copies fused into the kernel (_fused_copies)

    def launch(self, cols: int, rows: int, override: dict[str, int]) -> LaunchConfig:
        return launch_config(cols, rows, self.narrowest, self.widest, self.num_sms, override, self.ops,
                             self.reductions, self.producer_ops, self.static_rows, self.moved, self.static_cols,
                             **self.vector)


def _kernel_inputs(features, sites: list[Site]) -> _Kernel:
    """The :class:`_Kernel` of a fused kernel.  May guard N (``_no_row_tile_grid``): call it before the launch,
    which depends on it."""
    site = sites[0]
    narrowest, widest, moved, widest_load = _itemsizes(features, site)
    no_grid = _no_row_tile_grid(features)
    copies = _fused_copies(features, sites)
    return _Kernel(
        num_sms=DeviceProperties.create(V.graph.get_current_device_or_throw()).multi_processor_count,
        narrowest=narrowest, widest=widest,
        # the bytes moved only for a kernel that holds the transposed copy (the wider tile was measured on those)
        moved=moved if copies else 0,
        ops=_arithmetic_ops(features), reductions=sum(1 for n in features.scheduler_nodes() if n.is_reduction()),
        producer_ops=frozenset().union(*(s.producer_ops for s in sites)),
        static_rows=bool(features.reduction_numel.is_number), static_cols=bool(features.numel.is_number),
        no_grid=no_grid,
        vector=dict(vector_rows=_vector_rows(features.reduction_numel), vector_cols=_vector_cols(features.numel),
                    row_tile_grid=no_grid is None, widest_load=widest_load),
        copies=copies)


def _launch(names, features, kernel: _Kernel, cols, rows, override) -> LaunchConfig:
    """The launch for the fused kernel: :func:`launch_config`'s, then the kernel's constraints (a finish in
    chunks only for one reduction loop of sum, max or min; a grid-barrier finish's co-residency).  Raises
    :class:`LaunchBoundError` as :func:`launch_config` does."""
    no_grid, static_rows = kernel.no_grid, kernel.static_rows
    launch = kernel.launch(cols, rows, override)
    if no_grid and launch.tiles_per_program and not static_rows:
        log.info("%s: no row-tile grid with the dynamic N=%s: %s; %d looped row tiles a program", names,
                 features.reduction_numel, no_grid, launch.tiles_per_program)
    elif no_grid and static_rows and (override.get("ROW_TILE_GRID") or wide_fp8_cast(
            cols, rows, kernel.narrowest, kernel.widest, kernel.reductions, kernel.num_sms)):
        log.info("%s: no row-tile grid with the static N=%s: %s; %s", names, rows, no_grid, launch)
    last_block = _single_loop(features)
    if launch.chunked_finish and not (last_block and _reduction_types(features) <= FINISH_COMBINE.keys()):
        log.info("%s: one-wave launch instead of %s: only the last-program finish combines partials in chunks, "
                 "and only those of sum, max and min", names, launch)
        wave = kernel.launch(cols, rows, {**override, "TILES_PER_PROGRAM": 0})
        launch = changed_overrides(override, launch, dataclasses.replace(wave, RSPLIT=min(wave.RSPLIT, MAX_RSPLIT)),
                                   f"this kernel takes one wave of at most {MAX_RSPLIT} programs a column block "
                                   "(a finish in chunks is for one reduction loop of sum, max or min only)")
    if not last_block:
        launch = changed_overrides(override, launch, _co_resident(launch, cols, kernel.num_sms),
                                   "a reduction result is read in a later loop of this kernel, so it keeps "
                                   "Inductor's grid-barrier finish, whose programs must all be resident: RSPLIT "
                                   "at most one program per SM over the column blocks, no row tiles, Inductor's "
                                   "own hints")
    return launch


def _reduction_types(features) -> set[str]:
    """Inductor's reduction types (``sum``, ``max``, ``welford_reduce``, ...) of the kernel's nodes."""
    return {n.node.get_reduction_type() for n in features.scheduler_nodes() if n.is_reduction()}


def _no_row_tile_grid(features) -> Optional[str]:
    """Why a kernel with a dynamic N may not launch one program per row tile (``RowTileGrid``), or None if it may.
    It needs its partials all flagged words, whose buffer the kernel sizes from N (one sum, max or min whose partials
    are fp32: of fp32, bf16 or fp16 values; a ticketed workspace is sized by the config's RSPLIT), a Python wrapper
    (the grid was not tried in the cpp wrapper or AOTInductor), and N at least 1 (under ``backed_size_oblivious`` N
    may be 0, and a grid of no programs writes no result: found by a review, 2026-11-30).  The pass predicts this for
    its rules (``expects_row_tiles``)."""
    reductions = [n.node for n in features.scheduler_nodes() if n.is_reduction()]
    if len(reductions) != 1:
        return f"{len(reductions)} reductions (their partials take the ticket)"
    reduction_type, src_dtype = reductions[0].get_reduction_type(), getattr(reductions[0].data, "src_dtype", None)
    if reduction_type not in FINISH_COMBINE or src_dtype not in FLAGGED_DTYPES:
        return f"a {reduction_type} of {src_dtype} (its partials are not flagged fp32 words)"
    if not row_tile_grid_available():
        return "the cpp wrapper or AOTInductor (the grid was tried with the Python wrapper only)"
    if V.graph.sizevars.shape_env.bound_sympy(features.reduction_numel).lower < 1:
        return "N may be 0 (a grid of no programs would write no result)"
    return None


def _single_loop(features) -> bool:
    """True if no node runs in a second reduction loop (one that could read a finished reduction)."""
    seen_disable = disabled = False
    for entry in features.node_schedule:
        if entry is DisableReduction:
            seen_disable = disabled = True
        elif entry is EnableReduction:
            disabled = False
        elif seen_disable and not disabled:
            return False
    return True


_NOT_ARITHMETIC = {"load", "store", "store_reduction", "reduction", "output", "constant", "index_expr", "get_index"}


def launch_candidates(features, sites: list[Site], wide: bool, every_class: bool = False
                      ) -> tuple[dict[str, int], ...]:
    """The launch candidates of the fused kernel of ``features`` (holding ``sites``): its dtype class's
    (:data:`.select_algorithm.CANDIDATES_BY_DTYPE`, from the element sizes of its full-size buffers), every class's
    (``AUTOTUNE_CANDIDATES``) where ``every_class``, every one where ``wide`` (``max_autotune``); the narrow-C tile
    only where C is narrow but under ``max_autotune`` (:func:`.select_algorithm.autotune_candidates`)."""
    narrowest, widest, _, _ = _itemsizes(features, sites[0])
    cols = V.graph.sizevars.optimization_hint(features.numel)
    return autotune_candidates(narrowest, widest, cols, wide, every_class)


def holds_copy(features, sites: list[Site]) -> bool:
    """Whether Inductor fused one of ``sites``' transposed copies into the kernel of ``features`` (else the
    reductions run alone: "was not fused with its transposed copy")."""
    return bool(_fused_copies(features, sites))


def _arithmetic_ops(features) -> int:
    """Ops per element over the kernel's nodes (Inductor's op counts), loads, stores and constants left out."""
    return sum(n for op, n in features.op_counts().items() if op not in _NOT_ARITHMETIC)


def _itemsizes(features, site: Site) -> tuple[int, int, int, int]:
    """(narrowest, widest, moved, widest_load): element sizes in bytes of the full-size (N * C) buffers of the
    kernel's nodes, the sum of those the kernel reads from or writes to memory, the bytes an element of ``x`` moves (a
    bf16 copy: 4; ``a * b + 1`` in bf16: 6), and the largest of those it loads from memory (a GELU backward of bf16
    inputs computed through an f32 buffer: widest 4, widest_load 2).  A buffer one of its nodes writes is read in
    registers, and one that no node outside the kernel reads is never stored
    (``_torch_private.removed_by_fusion``): neither moves."""
    full = site.rows * site.cols
    sizes = V.graph.sizevars
    nodes = list(features.scheduler_nodes())
    names = {node.get_name() for node in nodes}
    written = {dep.name for node in nodes for dep in node.read_writes.writes}
    itemsizes, moved, loaded = {}, {}, {}
    for node in nodes:
        for dep in (*node.read_writes.reads, *node.read_writes.writes):
            numel: Optional[sympy.Expr] = getattr(dep, "get_numel", lambda: None)()
            if numel is None or not sizes.statically_known_equals(numel, full):
                continue
            itemsizes[dep.name] = V.graph.get_dtype(dep.name).itemsize
            if dep.name not in written:
                loaded[dep.name] = itemsizes[dep.name]
            if dep.name not in written or not _torch_private.removed_by_fusion(dep.name, names):
                moved[dep.name] = itemsizes[dep.name]
    if not itemsizes:
        return 4, 4, 0, 4
    widest = max(itemsizes.values())
    return min(itemsizes.values()), widest, sum(moved.values()), max(loaded.values(), default=widest)


def _grid_y_fits(cols: sympy.Expr, xblock: int) -> bool:
    """True if ``ceil(C / XBLOCK)`` column blocks fit CUDA's gridDim.y at every C the graph runs at.

    A static C is checked; a dynamic C is bounded by a guard under torch.compile (a larger C recompiles, and that
    graph keeps Inductor's launch), and must be bounded by its value range under AOTInductor, which cannot
    recompile (``torch.export.Dim(..., max=...)``).
    """
    fits = sympy.Le(cols, MAX_GRID_Y * xblock)
    sizes = V.graph.sizevars
    if sizes.statically_known_true(fits):
        return True
    return not cols.is_number and not V.graph.aot_mode and sizes.guard_or_false(fits)


# Inductor tells Triton that a size argument is a multiple of 16 (``tt.divisibility``) only where the graph's shapes
# prove it, and Triton vectorizes the accesses along a dynamic N only then: without it every transposed store is a
# scalar with its own mask.  On the H200, with N dynamic and no guard (benchmarks/results/superseded/2026-11-30-h200-
# corpus-dynamic-noguard.csv) the fused kernels ran up to 4.0x slower than with N static, and slower than stock on
# five corpus cases (huge/F1 0.40x, gpt2/F1-vocab 0.45x); with the guard the worst was 0.91x (-guard-both.csv), then
# 0.96x with the tiles of DYNAMIC_TILES_PER_PROGRAM (-tiles.csv), and 0.99x with profitability rule 3c
# (superseded/2026-11-30-h200-corpus-dynamic-run13.csv).  Only N is guarded: its guard costs at most one
# recompile (the first N that breaks it), and C, a hidden size, is seldom dynamic.


def _vector_rows(rows: sympy.Expr) -> bool:
    """True if Triton may vectorize accesses along N: a static N (its parity decides, as before), a dynamic one known
    to be a multiple of 16 (an AOTInductor ``Dim`` such as ``16 * k``), or ``c * s`` whose ``s`` has a size hint that
    is a multiple of 16 (:func:`..fx_passes.reduction_transpose.vector_rows`) and which this guards to stay one,
    under torch.compile (AOTInductor cannot recompile).  Both ``s`` and N are guarded, so that Inductor marks every
    size argument of the transposed store's address and mask divisible.  A call whose N breaks the guard recompiles,
    once: its N is then the hint, and that graph's kernel takes the scalar tile.  False where no guard can be
    installed (``backed_size_oblivious``; a size range the user declared, which a guard that narrows it would fail:
    :func:`_torch_private.guard_true`), or for another N (``s0 * s1``, ``s - 1``)."""
    sizes = V.graph.sizevars
    if rows.is_number or sizes.statically_known_multiple_of(rows, VECTOR_MULTIPLE):
        return True
    if V.graph.aot_mode or not vector_rows(rows, sizes.optimization_hint(rows)):
        return False
    multiple = lambda e: _torch_private.is_multiple(e, VECTOR_MULTIPLE)  # noqa: E731
    guarded = (_torch_private.guard_true(sizes, multiple(row_symbol(rows)))
               and _torch_private.guard_true(sizes, multiple(rows)))
    if guarded:
        log.info("guard: N=%s stays a multiple of %d (vector stores); a call with another N recompiles once",
                 rows, VECTOR_MULTIPLE)
    return guarded


def _rows_fill_a_tile(rows: sympy.Expr, rblock: int) -> bool:
    """True if a dynamic N is at least ``rblock`` rows (the row-tile grid kernel's R0_BLOCK), so that its last tile
    can be shifted to end at row N and no load or store needs the row mask (``codegen/triton.py``,
    ``shift_last_tile``): known from N's value range, or guarded where N's hint holds it (a call with fewer rows
    recompiles).  With :func:`_vector_rows`'s guard that is two guards on N, each decided by the N a graph is
    compiled at, so a sequence of calls can compile up to three graphs more than stock (the last serving every N),
    and only where some N is below ``rblock`` (64-128 rows).  False where no guard can be installed
    (``backed_size_oblivious``, a size range the user declared: :func:`_torch_private.guard_true`) or where the
    hint is below ``rblock`` (a guard then would be ``N < rblock``: found by a fresh-user review, 2026-12-01)."""
    sizes = V.graph.sizevars
    if sizes.shape_env.bound_sympy(rows).lower >= rblock:
        return True
    if sizes.optimization_hint(rows) < rblock:
        return False
    holds = _torch_private.guard_true(sizes, sympy.Ge(rows, rblock))
    if holds:
        log.info("guard: N=%s >= %d (the row-tile grid's last tile ends at row N, with no row mask); a call with "
                 "fewer rows recompiles once", rows, rblock)
    return holds


def _vector_cols(cols: sympy.Expr) -> bool:
    """True if Triton may vectorize accesses along C: a static C (its parity decides) or a dynamic one known to be a
    multiple of 16; a dynamic C is not guarded (one guard, N's, costs at most one recompile)."""
    return cols.is_number or V.graph.sizevars.statically_known_multiple_of(cols, VECTOR_MULTIPLE)


def _co_resident(launch: LaunchConfig, cols: int, num_sms: int) -> LaunchConfig:
    """Cap ``RSPLIT`` at one program per SM over the column blocks, which a cooperative launch can always make
    resident; 1 if the column blocks alone are that many (then the kernel has no barrier: an ordinary launch)."""
    col_blocks = -(-cols // launch.XBLOCK)
    rsplit = even_rsplit(max(1, min(launch.RSPLIT, num_sms // col_blocks)))  # bf16[8192, 256]: 195 registers at 33
    return dataclasses.replace(launch, RSPLIT=rsplit, tiles_per_program=0, row_tile_grid=False, shift_last_tile=False,
                               evict_first=True)  # Inductor's own kernel, hints and all


def _fused_copies(features, sites: list[Site]) -> list[str]:
    """Names of the sites' transposed copies (FX nodes) that Inductor fused into this kernel."""
    fx_names = {o.name for node in features.scheduler_nodes() for o in origins(node)}
    return sorted({s.transpose for s in sites} & fx_names)


def _log_decision(sites: list[Site], copies: list[str], names: str, launch: LaunchConfig | str,
                  last_block: bool | None, separate: bool = False) -> None:
    """The decision record of a site that reaches codegen ("fused ..." where its copy is in the kernel); ``launch``
    is the package's launch or, with ``last_block`` None, a description of Inductor's own (whose finish it keeps)."""
    finish = ("Inductor's own finish" if last_block is None else
              "separate finish (a second kernel combines the partials)" if separate else
              "last-program finish" if last_block else
              "grid-barrier finish (a reduction result is read in a later loop)")
    if copies:
        log.info("fused %s with transposed copy %s into one kernel (C=%s, N=%s); %s; %s",
                 names, ", ".join(copies), sites[0].cols, sites[0].rows, launch, finish)
    else:
        log.info("%s was not fused with its transposed copy %s (Inductor kept them apart); "
                 "the reduction runs alone, unsplit; %s; %s",
                 names, ", ".join(sorted({s.transpose for s in sites})), launch, finish)
