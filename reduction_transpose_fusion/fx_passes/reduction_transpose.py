"""Find reduction–transpose sites in a post-grad FX graph and mark the ones to fuse.

A *site* is a transposed contiguous copy ``clone(permute(v, [1, 0]), memory_format=contiguous)`` of a 2-D tensor
``v [N, C]`` together with every reduction of a tensor ``u`` over all of its leading dims (``u [..., C] -> [C]``:
``sum``, ``amax``, ``amin``, ``mean``) such that ``u`` and ``v`` are computed elementwise from a common full-size
tensor ``x`` (``numel(x) == N * C``), walking back through pointwise ops and row-major reshapes only.  Such a pair
reads ``x`` with the same flat index, so one kernel over ``(numel=C, rnumel=N)`` can read it once (families F1–F5:
a plain copy, a pointwise producer, several reductions, flattened leading dims, cast outputs).

This pass only *marks*: it stores a :class:`Site` in ``node.meta[META_KEY]`` of each reduction to fuse.  Inductor's
own scheduler still decides whether the nodes fuse (a wrong guess here costs speed, never correctness); the marks
are read by :class:`reduction_transpose_fusion.choices.ReductionTransposeChoices` at lowering (no split) and at
kernel creation (launch configuration).

It runs as the CUDA backend's ``device_custom_pass`` (``fx_passes/post_grad.py:232``), so its :meth:`uuid`, which
hashes the package's source files, joins the FX-graph cache key.  :class:`ConfigCheckPass`, the CPU backend's, only
checks the switches and marks nothing.
"""

from __future__ import annotations

import collections
import dataclasses
import functools
import logging
import math
import pathlib
from typing import Iterable, Optional

import sympy
import torch
import torch._inductor.config as inductor_config
from torch._inductor.custom_graph_pass import CustomGraphModulePass, get_hash_for_files
from torch._inductor.runtime.hints import DeviceProperties
from torch._inductor.virtualized import V
from torch._logging import trace_structured
from torch.fx.experimental.symbolic_shapes import statically_known_true

from .. import _torch_private, config
from ..runtime.triton_heuristics import (TRANSCENDENTAL, LaunchBoundError, LaunchConfig, column_tile,
                                        launch_config, wide_fp8_cast)
from . import profitability, realize_scales, saturating_casts

log = logging.getLogger(__name__)
aten = torch.ops.aten

META_KEY = "reduction_transpose_fusion"
# Set on the transposed copy (the clone) of each marked site, to its reduction's name: the scheduler keeps such a copy
# out of loop-index inversion (scheduler.keeps_its_loops)
COPY_META_KEY = "reduction_transpose_fusion_copy"

# Reductions whose leading-dim form the fused kernel computes (the cooperative finish handles each of them).
REDUCTIONS = {aten.sum.dim_IntList, aten.amax.default, aten.amin.default, aten.mean.dim}
# Views that keep the row-major flat index of a contiguous input (F4 flattens [B, T, C] to [B*T, C]).
ROW_MAJOR_VIEWS = {aten.view.default, aten.reshape.default, aten._unsafe_view.default}
VIEW_OPS = frozenset(op.overloadpacket.__name__ for op in ROW_MAJOR_VIEWS)  # their names in Site.copy_ops
# Views through which a reduction's [C] result reaches a full-size op (full_size_reader)
BROADCAST_VIEWS = ROW_MAJOR_VIEWS | {aten.expand.default, aten.unsqueeze.default, aten.squeeze.dim}


@dataclasses.dataclass(frozen=True)
class Site:
    """One transposed copy and one leading-dim reduction that read the same tensor.

    Attributes:
        transpose: FX name of the ``clone`` that writes ``v.T`` contiguous, shape [C, N].
        reduction: FX name of the reduction, output [C] (or [1, C] / [1, 1, C] with keepdim).
        source: FX name of the shared full-size tensor ``x`` (numel N * C).
        rows: N, the reduced extent (rnumel of the fused kernel), a sympy expression.
        cols: C, the kept extent (numel of the fused kernel), a sympy expression.
        hints: (N, C) from size hints (dynamic shapes: no guard added), or None when a size is unbacked.
        itemsize: bytes per element of ``v``.
        producer_ops: names of the pointwise ops between ``x`` and ``u`` or ``v`` (e.g. ``{"mul", "add"}``).
        dtype: dtype of ``v`` (e.g. "bfloat16").
        copy_ops: names of the ops between ``x`` and ``v`` alone (views included; empty when ``v`` is ``x``).
        inner_reads: full-size tensors ``u`` is computed from that are contiguous along a reduced dim (e.g. ``a.t()``
            of a contiguous ``a``); Inductor calls such a read "inner" (``ir.py:1433``).
        outer_reads: the other full-size tensors ``u`` is computed from (row-major, the usual case), broadcast ones
            (``expand``) not counted, as Inductor does not count them.
        device: the device of ``v`` (e.g. "cuda:0").
        scan_source: whether a full-size tensor ``u`` or ``v`` is computed from is a scan's output (``cumsum``, ...).
        result_reader: FX name of a full-size pointwise op that reads the reduction's result (through ops on
            smaller tensors: a scale, a mean), or "" if none does (:func:`full_size_reader`).
        copy_reads_reduction: FX name of a leading-dim reduction whose result ``v`` is computed from (rowwise fp8's
            per-column scales), or "" (:func:`column_reduction_read`).
        u_bytes, v_bytes, shared_bytes: bytes an element of the full-size tensors ``u`` is computed from, ``v`` is
            computed from, and both are (F2's ``a * b + 1`` in bf16: 4, 4, 4).
        op_count: the pointwise ops walked from ``x`` to ``u`` and ``v`` (views included).
        narrowest, widest: the smallest and largest element sizes of ``v`` and the full-size tensors ``u`` and ``v``
            are computed from.
        stores: the element sizes of the full-size tensors computed on the way to ``u`` and ``v`` that a node outside
            the sites sharing the transposed copy reads (a graph output, another kernel's operand: Float8's ``q``,
            which its GEMM reads too), so stored row-major fused or not (:func:`_with_kernel_tensors`).
        reads: the full-size tensors the kernel of the sites sharing the transposed copy reads (the distinct leaves
            of their ``u`` and ``v``: F3's LayerNorm backward, ``g`` and ``h``, 2 for both its sites).
    """

    transpose: str
    reduction: str
    source: str
    rows: sympy.Expr
    cols: sympy.Expr
    hints: Optional[tuple[int, int]]
    itemsize: int
    producer_ops: frozenset = frozenset()
    dtype: str = ""
    copy_ops: frozenset = frozenset()
    inner_reads: int = 0
    outer_reads: int = 1
    device: str = "cuda"
    scan_source: bool = False
    result_reader: str = ""
    copy_reads_reduction: str = ""
    u_bytes: int = 0
    v_bytes: int = 0
    shared_bytes: int = 0
    op_count: int = 0
    narrowest: int = 4
    widest: int = 4
    stores: tuple[int, ...] = ()
    reads: int = 1

    @property
    def nbytes(self) -> Optional[int]:
        """Bytes of the transposed tensor ``v`` (from size hints), or None if unbacked."""
        return None if self.hints is None else self.hints[0] * self.hints[1] * self.itemsize

    @property
    def row_bytes(self) -> Optional[tuple[int, int]]:
        """(bytes of a row of ``v``, bytes of a row of ``v.T``) from size hints, or None if unbacked."""
        return None if self.hints is None else (self.hints[1] * self.itemsize, self.hints[0] * self.itemsize)

    def describe(self) -> str:
        """``"clone + sum_1 (x=arg0_1, bfloat16, N=4096, C=1024, 8388608 bytes)"``, for the decision log."""
        return (f"{self.transpose} + {self.reduction} (x={self.source}, {self.dtype}, N={self.rows}, C={self.cols}, "
                f"{self.nbytes} bytes)")


class ReductionTransposePass(CustomGraphModulePass):
    """The CUDA backend's custom post-grad pass: checks the switches (:func:`..config.validate`), then, when
    ``config.reduction_transpose_fusion`` is on, drops the clamps the GPU's fp8 conversion makes redundant
    (``reduction_transpose_fusion_saturating_casts``, :mod:`.saturating_casts`; first, so that the sites are found
    on the ops that will run), marks sites and (``reduction_transpose_fusion_realize_scales``) has the broadcast
    scales of fp8 casts computed once (:mod:`.realize_scales`).

    Args:
        choices_cls: the ``InductorChoices`` subclass that keeps marked reductions unsplit; a site fuses only while
            this thread's choices handler is one, or (torch 2.15) one made from several classes sends that class's
            methods to it (:func:`.._torch_private.active_choices`, :func:`.._torch_private.foreign_choices`).
    """

    def __init__(self, choices_cls: type) -> None:
        self.choices_cls = choices_cls

    def __call__(self, gm: torch.fx.GraphModule) -> None:
        config.validate()  # a bad value raises for every graph, with the flag on or off, not only at a site
        if config.enabled():
            handler = _torch_private.active_choices(self.choices_cls)
            foreign = _torch_private.foreign_choices(handler, self.choices_cls)
            if config.saturating_casts():
                saturating_casts.drop_saturating_clamps(gm.graph)
            mark_sites(gm.graph, foreign)
            if config.realize_scales():
                realize_scales.realize_broadcast_values(gm.graph)

    def uuid(self) -> bytes:
        """Hash of every source file of the package: changing the package never reuses a compiled graph."""
        return _package_hash()


class ConfigCheckPass(CustomGraphModulePass):
    """The CPU backend's custom post-grad pass: checks the switches for a graph compiled for the CPU as the CUDA
    pass does for CUDA graphs (the same errors, whatever the device), and with the fusion on says, once a graph,
    that it changes nothing there.  It never changes the graph."""

    def __call__(self, gm: torch.fx.GraphModule) -> None:
        config.validate()
        if config.enabled() and "cuda" not in _torch_private.graph_devices(gm):  # the CUDA pass handles those
            log.info("reduction_transpose_fusion is on, but this graph is compiled for %s, not CUDA: the fusion "
                     "applies to CUDA graphs only, so it changes nothing here",
                     ", ".join(sorted(_torch_private.graph_devices(gm))))

    def uuid(self) -> bytes:
        """The package's hash, as the CUDA pass's: the checks are part of the package's code."""
        return _package_hash()


def package_hash() -> bytes:
    """Hash of the package's ``*.py`` files (Inductor's ``get_hash_for_files``): the FX-graph cache key part, and the
    benchmarks' record of which code ran."""
    return _package_hash()


@functools.cache
def _package_hash() -> bytes:
    root = pathlib.Path(__file__).resolve().parents[1]
    files = tuple(str(p) for p in sorted(root.rglob("*.py")))
    return get_hash_for_files(files)


def mark_sites(graph: torch.fx.Graph, foreign_choices: Optional[type] = None) -> list[Site]:
    """Find every site in ``graph``, log each candidate with its decision, and mark the sites to fuse.

    Every transposed copy and every leading-dim reduction gets one INFO record under
    ``TORCH_LOGS=reduction_transpose_fusion``: "candidate ..." (marked; :mod:`..choices` then logs "fused ...") or
    "skip ...: why" (:func:`skip_reason`, or "not a site" for a copy or reduction without a partner).  The same
    decisions go to ``TORCH_TRACE`` as the JSON artifact ``reduction_transpose_fusion_sites`` (for tlparse).

    Args:
        graph: the post-grad graph.
        foreign_choices: the class of Inductor's choices handler when it is not the package's (every site is then
            skipped: nothing would keep its reduction unsplit); None otherwise.

    Returns:
        The sites marked for fusion.
    """
    marked, decisions = [], []
    sites = find_sites(graph)
    reductions_of = collections.Counter(site.transpose for site in sites)  # LayerNorm backward: 2 a copy
    reasons = [skip_reason(site, expects_row_tiles(graph, site, reductions_of[site.transpose]),
                           reductions_of[site.transpose]) for site in sites]
    # the cost model judges each reduction of a copy alone; one it leaves to stock still reads x in its own kernels,
    # so fusing the copy's others would save no read of x (LayerNorm backward bf16[561, 547], one sum fused: 0.89x)
    unprofitable = {site.transpose: site.reduction for site, reason in zip(sites, reasons)
                    if reason and reason.startswith(COST_MODEL_SKIP)}
    for site, reason in zip(sites, reasons):
        node = _node(graph, site.reduction)
        sibling = unprofitable.get(site.transpose)
        if reason is None and sibling not in (None, site.reduction):
            reason = (f"its transposed copy's other reduction {sibling} is left to stock by the cost model, and it would "
                      "read x again in its own kernels: no read of x saved")
        if reason is None and foreign_choices is not None:
            reason = (f"Inductor's choices handler is a {foreign_choices.__qualname__} (config.inductor_choices_class),"
                      " not the package's ReductionTransposeChoices, so the reduction would still be split")
        if reason is None and META_KEY in node.meta:
            reason = (f"not a site of its own: the reduction already pairs with {node.meta[META_KEY].transpose} "
                      "(Inductor may still fuse this copy into that kernel)")
        decisions.append((site.describe(), reason))
        if reason is None:
            node.meta[META_KEY] = site
            _node(graph, site.transpose).meta.setdefault(COPY_META_KEY, site.reduction)
            marked.append(site)
    decisions += [(f"{name}", f"not a site: {why}") for name, why in _unpaired(graph, sites)]
    for where, reason in decisions:
        if reason:
            log.info("skip %s: %s", where, reason)
        else:
            log.info("candidate %s: reduction will not be split", where)
    if decisions:
        trace_structured(
            "artifact",
            metadata_fn=lambda: {"name": "reduction_transpose_fusion_sites", "encoding": "json"},
            payload_fn=lambda: [{"site": where, "decision": reason or "candidate"} for where, reason in decisions],
        )
    return marked


def _unpaired(graph: torch.fx.Graph, sites: list[Site]) -> list[tuple[str, str]]:
    """(node, why) for each transposed copy and each reduction over leading dims that is in no site."""
    in_site = {s.transpose for s in sites} | {s.reduction for s in sites}
    out = []
    for n in graph.nodes:
        if n.name in in_site:
            continue
        v, why = _transposed_copy(n)
        if v is not None:
            why = ("no sum, mean, amax or amin over the leading dims reads the same tensor (other reductions, "
                   "e.g. prod, var or max with indices, are not matched)")
        elif n.op == "call_function" and n.target in REDUCTIONS:
            u, why = _leading_dim_operand(n)
            if u is not None:
                why = _transposed_view(graph, u) or (
                    "no transposed contiguous copy clone(permute(v)) of the same tensor (not matched: a copy with a "
                    "cast or pointwise op between the permute and the clone, or written another way, e.g. copy_ "
                    "into a new buffer; a transposed view passed to a matmul is no copy)")
            if why.startswith(_NOT_LEADING):
                why = ""  # a row or middle-dim reduction: not a candidate at all
        if why:
            out.append((_describe(n), why))
    return out


def _transposed_view(graph: torch.fx.Graph, u: torch.fx.Node) -> str:
    """Why a reduction of ``u`` has no transposed copy when the graph transposes a tensor ``u`` is computed from
    and that transpose is a view: ``x.t()`` of an ``x [N, C]`` with N = 1 or C = 1 is already contiguous, so
    ``.contiguous()`` is a no-op and the graph holds ``permute`` with no ``clone``.  "" where no such view is found."""
    numel = _numel(u)
    leaves = set(_producers(u, numel)[0])
    for n in graph.nodes:
        if n.op != "call_function" or n.target is not aten.permute.default:
            continue
        v = n.args[0]
        if not isinstance(v, torch.fx.Node) or "val" not in v.meta or len(_shape(v)) != 2:
            continue
        if any(_known_eq(d, 1) for d in _shape(v)) and leaves & set(_producers(v, numel)[0]):
            rows, cols = _shape(v)
            return (f"the transposed copy of the [{rows}, {cols}] tensor is a view: with a dim of size 1, x.t() is "
                    "already contiguous, so .contiguous() copies nothing and there is no copy to fuse")
    return ""


def _describe(n: torch.fx.Node) -> str:
    val = n.meta.get("val")
    return f"{n.name} {str(val.dtype).removeprefix('torch.')}{list(val.shape)}" if val is not None else n.name


# A wide C (stock's one unsplit kernel) with a producer of u or v fused slower below this N (fp16[388, 12865]
# a * b + 1 at 0.85x of stock, random sites of seed 1243628023) and faster from N = 2048 up (1.25-1.74x, seven
# corpus and held-out cases of 2048-32768 rows); the boundary between is not measured.  Below it a wide site whose
# launch splits N (RSPLIT > 1) is left to stock too: on the random sites of 2026-12-01/02 the three such fused
# kernels with one reduction ran at 0.72-0.85x (f32[291, 27080] RSPLIT 5, bf16[408, 10188] RSPLIT 3, the a * b + 1
# above RSPLIT 2), while the unsplit ones (RSPLIT 1: bf16[88, 32002], f32[67, 16124], GELU backward bf16[1350,
# 22513]) and f32[2114, 31084] (RSPLIT 34) gained 1.08-2.17x.
WIDE_PRODUCER_MIN_ROWS = 1024
# The most reductions one transposed copy's kernel may hold.  A looped reduction keeps an [XBLOCK, R0_BLOCK]
# accumulator in registers, up to 32 elements a thread with the launch rules' tiles: four are 128 registers, half of
# what a thread may hold before it spills.  The measured kernels hold one or two (LayerNorm backward, amax + sum);
# a ViT-B/16 backward paired one copy of its residual stream with 72 LayerNorm and bias gradients.
MAX_COPY_REDUCTIONS = 4
COST_MODEL_SKIP = "the cost model predicts no clear gain"  # how skip_reason's cost-model reasons start
# The ops of a scaled cast to fp8, q = (g * s).to(float8), as the post-grad graph has them.
FP8_CAST_OPS = frozenset({"mul", "convert_element_type"})


def skip_reason(site: Site, row_tiles: bool = False, reductions: int = 1) -> Optional[str]:
    """Why ``site`` is left to stock Inductor, or None to fuse it.  ``row_tiles``: whether its kernel is expected to
    launch one program per row tile (:func:`expects_row_tiles`); ``reductions``: the sites sharing its transposed copy
    (LayerNorm backward: 2).  The rules, in order:

    0. ``torch.use_deterministic_algorithms(True)`` asks for no atomics, and the split launch's last-program finish
       takes an atomic ticket (its result is bitwise reproducible either way; stock's split reduction uses no
       atomics): only the column tile, which has none, may fuse the site (:func:`atomics_allowed`; the separate
       finish has no ticket either but is not used there: not measured as a launch of its own at the sizes the tile
       leaves); and
       ``triton.use_block_ptr``: Inductor's block pointers start every program of a cooperative row split at row 0
       instead of its own chunk, so the fused kernel would be wrong (found by a fresh-user review, 2026-11-30);
    1. a size is unbacked (no hint), so nothing can be decided without a guard; the tensor is empty; Inductor
       lowers the reduction as an inner one, with its own split (C = 1, or most full-size reads contiguous along N,
       ``ir.py:1433``); or N is so small that Inductor unrolls the reduction into pointwise code (no reduction
       kernel to fuse into); or a full-size tensor the site computes from is a scan's output (``cumsum``, ...:
       Inductor would fuse the unsplit reduction into its split-scan kernel, which cannot hold one).  Sizes with
       hints (dynamic shapes) are decided on the hints, without a guard: one compiled graph serves every size;
    2. the size gate: fewer than ``reduction_transpose_fusion_min_bytes`` bytes transposed (default 2 KiB, about
       the smallest site stock splits that was measured; above it stock's split and the cost model decide);
    3. with ``reduction_transpose_fusion_profitability`` on (the default), the measured cases without a gain:

       a. stock does not split the reduction and C is not wide (:func:`stock_split_factor` is 1: N <= 128 at these
          sizes, or ``split_reductions`` off), so it already emits one kernel that holds the transposed copy: every
          such site measured (all with N <= 128) ran slower fused,
          0.79-0.88x from 8 KB to 455 KB (``2026-11-30-h200-corpus-forced-small-run{1,2}.csv``) and 0.82-0.96x from
          768 KB to 2 MiB (``sweeps/2026-11-30-h200-sweep-gate-run{1,2}.csv``), while every site stock splits, down
          to 8 KB, ran faster fused: 1.04-1.20x under 1 MiB (the gate sweep, two runs) and 1.58-1.61x for
          fp16[8192, 48] (all with torch 2.11).  torch 2.15's stock takes an fp8 cast's transposed copy out of that
          kernel (loop-index inversion: two kernels); such a site is left to stock there too, not yet measured;
       b. stock already emits one unsplit kernel because C is wide (the fusion only changes its tile), ``v`` is a
          scaled fp8 cast of ``x`` (views, ``mul``, ``convert_element_type``; :attr:`Site.copy_ops`) with rows not
          8-byte aligned, and its kernel is not expected to launch one program per row tile (``row_tiles``: the cpp
          wrapper, AOTInductor, an odd N, a cast from 16-bit, ...).  fp32 -> fp8 [4096, 30522] ran at 0.99x of stock
          fused on one wave, and 1.18x and 2.02x faster on the row-tile grid with N static and dynamic
          (``sweeps/2026-12-01-h200-sweep-{staticgrid,dynamicfp8}.csv``).  The rule's other half, a plain copy of
          4-byte elements in rows not 8-byte aligned (f32[2048, 50257] fused at 0.96x of stock with the kernels of
          2026-11-29, ``sweeps/2026-11-29-h200-sweep-tune.csv``), was dropped on 2026-12-01: in the same
          sweeps such copies ran 1.11x and 1.28x faster fused with N static ([2048, 50257], [4096, 30521]), 1.31x
          and 1.35x with N dynamic, and LayerNorm backward over them 1.005x and 0.995x (a tie) with N static, 1.12x
          and 1.10x with N dynamic;
       c. ``v`` is f32 with an odd C and N is dynamic and not vectorizable (:func:`vector_rows`), so every access of
          the fused kernel is a scalar both ways, and the kernel is not expected to launch one program per row tile
          (``row_tiles``; AOTInductor, the cpp wrapper, several reductions, ...): f32[25229, 3067] with N dynamic
          ran at 0.92-0.95x of stock with one wave and 1, 2 or 4 looped row tiles a program
          (``sweeps/2026-11-30-h200-sweep-dynamic{,2}.csv``) and 0.93-0.96x in three corpus runs (``superseded/2026-11-30-h200-corpus-dynamic-*.csv``), while with one
          program per row tile it ran 1.11x faster (1.62x and 1.63x copy SOL against stock's 1.81x,
          ``sweeps/2026-11-30-h200-sweep-dynamic5.csv``); bf16[8191, 1021] (odd C and N) ran 1.55-1.64x faster fused
          and f32[8191, 4096] (odd N only) 1.16x.  Not for one reduction under a transcendental producer, which
          makes stock's own kernel slow: the GELU backward of f32[9999, 777] ran at 1.88x of stock fused (1.82x copy
          SOL against 3.42x, twice; ``sweeps/2026-12-01-h200-sweep-holdoutsmalln-dynamic.csv``), a site of the
          held-out suite this rule had left to stock.
    """
    if site.hints is None:
        return "a size has no hint (unbacked), so the gate cannot be decided"
    if not atomics_allowed() and not column_tile_allowed(site):
        return ("torch.use_deterministic_algorithms(True): the split launch's finish takes an atomic ticket, and the "
                "column tile, which takes none, does not apply (column_tile_allowed: a dynamic N, more rows than the "
                "tile holds, a reduction stock does not split, or an expert launch); the separate finish, with no "
                "ticket either, is not used there")
    if inductor_config.triton.use_block_ptr:
        return ("triton.use_block_ptr: Inductor's block pointers would start every program of the fused kernel's row "
                "split at row 0")
    if site.scan_source:
        return ("a full-size input of the site is a scan's output (cumsum, ...): Inductor would put the unsplit "
                "reduction in its split-scan kernel, which cannot hold a reduction")
    if site.nbytes == 0:
        return EMPTY
    two_pass_tile = bool(site.result_reader or site.copy_reads_reduction) and column_tile_allowed(site)
    if site.result_reader and not two_pass_tile:
        return (f"its result is read by the full-size {site.result_reader} (a scale or a centering): one kernel "
                "would need a grid barrier between a reduction pass and a second pass over x, measured at half of "
                "stock's speed (the rowwise fp8 cast's column amax, x - x.mean(0)), and the column tile, which holds "
                "all N rows and needs no second pass, does not apply (column_tile_allowed: a dynamic N, more rows "
                "than the tile holds, or a reduction stock does not split); left to stock's split reduction")
    if site.copy_reads_reduction and not two_pass_tile:
        return (f"the transposed copy is computed from {site.copy_reads_reduction}, a reduction of x over its leading "
                "dims, so it is a second pass over x in any kernel, and stock's split kernel computes this reduction "
                "in the first pass beside that one: fusing saves no read (random sites: 0.74-1.00x fused; the "
                "column tile, which would save it, does not apply: column_tile_allowed)")
    if reductions > MAX_COPY_REDUCTIONS:
        return (f"its transposed copy pairs with {reductions} reductions, more than the {MAX_COPY_REDUCTIONS} one "
                "kernel may hold (each keeps an accumulator tile in registers; MAX_COPY_REDUCTIONS)")
    if 2 * site.shared_bytes < site.u_bytes:
        return (f"x is {site.shared_bytes} of the {site.u_bytes} bytes an element the reduction is computed from: "
                "fusing would save one read of a minor input and pull the reduction's other inputs into the copy's "
                "kernel (a residual stream's gradient, reached through a chain of adds, paired one copy with every "
                "block's LayerNorm and bias gradients in a ViT-B/16 backward: one kernel of 72 reductions)")
    if site.hints[1] == 1:
        return ("C=1: the reduction is over every element, which Inductor lowers as an inner reduction with its own "
                "split, not a column reduction the transposed copy can share")
    if site.inner_reads > site.outer_reads:
        return (f"{site.inner_reads} of the {site.inner_reads + site.outer_reads} full-size reads of the reduction "
                "are contiguous along N (transposed inputs), so Inductor lowers it as an inner reduction; only column "
                "(outer) reductions are fused")
    if site.rows.is_number and site.hints[0] < inductor_config.unroll_reductions_threshold:  # ir.py:1580
        return (f"N={site.hints[0]} < unroll_reductions_threshold ({inductor_config.unroll_reductions_threshold}): "
                "Inductor computes the reduction as pointwise code")
    gate = config.min_bytes()
    if site.nbytes < gate:
        return f"{site.nbytes} bytes transposed < gate {gate} (reduction_transpose_fusion_min_bytes)"
    if not config.profitability():
        return None
    wide = _wide(site)
    if not wide and stock_split_factor(site) == 1:
        hint = "" if site.rows.is_number else " (size hint)"
        why = f"N={site.hints[0]}{hint}" if inductor_config.split_reductions else "split_reductions=False"
        return (f"stock already emits one unsplit kernel ({why}: its split factor is 1; "
                "measured slower fused; reduction_transpose_fusion_profitability=False overrides)")
    short_producer = not site.producer_ops <= VIEW_OPS | FP8_CAST_OPS and site.hints[0] < WIDE_PRODUCER_MIN_ROWS
    if wide and (reductions > 1 or short_producer):
        what = (f"{reductions} reductions" if reductions > 1 else
                f"a producer ({', '.join(sorted(site.producer_ops))}) over N={site.hints[0]} < {WIDE_PRODUCER_MIN_ROWS}")
        return (f"stock already emits one unsplit kernel that reads x once (C={site.hints[1]} is wide), so the fusion "
                f"would change only its launch, which with {what} ran slower (random sites: 0.37-0.90x; "
                "reduction_transpose_fusion_profitability=False overrides)")
    try:
        launch = predicted_launch(site, reductions, row_tiles)
    except LaunchBoundError as e:
        if e.from_override:
            raise
        return f"its launch would exceed a bound of the fused kernel: {e}"
    if wide and launch.RSPLIT > 1 and site.hints[0] < WIDE_PRODUCER_MIN_ROWS:
        return (f"stock already emits one unsplit kernel that reads x once (C={site.hints[1]} is wide), and the fused "
                f"launch would split N={site.hints[0]} < {WIDE_PRODUCER_MIN_ROWS} rows over RSPLIT={launch.RSPLIT} "
                "programs, whose partials and finish cost more than the split gains (random sites: 0.72-0.85x; "
                "reduction_transpose_fusion_profitability=False overrides)")
    if not wide:
        guess = predicted_estimate(site, reductions, row_tiles, launch)
        if guess.speedup < profitability.MIN_PREDICTED_SPEEDUP:
            overridden = (", and fuses it with reduction_transpose_fusion_launch_config's launch"
                          if config.launch_override() else "")
            return (f"{COST_MODEL_SKIP}: {guess.describe()} < "
                    f"{profitability.MIN_PREDICTED_SPEEDUP}x (fx_passes/profitability.py; "
                    f"reduction_transpose_fusion_profitability=False overrides{overridden})")
    transcendental = reductions == 1 and bool(site.producer_ops & TRANSCENDENTAL)
    if (site.itemsize == 4 and site.hints[1] % 2 and not site.rows.is_number and not transcendental
            and not vector_rows(site.rows, site.hints[0]) and not row_tiles):
        return (f"f32 with odd C={site.hints[1]} and a dynamic N whose size hint {site.hints[0]} is not a multiple of "
                "16, without one program per row tile: every access is a scalar, measured slower fused "
                "(reduction_transpose_fusion_profitability=False overrides)")
    fp8_cast = site.itemsize == 1 and site.copy_ops <= VIEW_OPS | FP8_CAST_OPS and not row_tiles
    if fp8_cast and site.row_bytes[0] % 8 and wide:
        return (f"stock already emits one unsplit kernel for an fp8 cast with rows of {site.row_bytes[0]} bytes, and "
                "the fused kernel would not launch one program per row tile (measured no faster fused; "
                "reduction_transpose_fusion_profitability=False overrides)")
    return None


def _moved(site: Site) -> int:
    """Bytes an element of ``site``'s ``x`` moves in the fused kernel: the full-size inputs of ``u`` and ``v``, each
    read once (a shared one once for both), ``v.T`` written, and the tensors stored row-major (``Site.stores``, which
    stock stores too; the cost model's fits counted them: the harness's bytes)."""
    return site.u_bytes + site.v_bytes - site.shared_bytes + site.itemsize + sum(site.stores)


def predicted_launch(site: Site, reductions: int, row_tiles: bool) -> LaunchConfig:
    """The launch :func:`launch_config` would choose for ``site``'s kernel as far as the graph tells (``choices``
    computes the real one from Inductor's kernel).  Raises :class:`LaunchBoundError` as it does."""
    rows, cols = site.hints
    moved = _moved(site)
    static_rows, static_cols = site.rows.is_number, site.cols.is_number
    # UNSPLIT=1 comes alone; SEPARATE_FINISH changes the finish, not the launch
    override = {k: v for k, v in config.launch_override().items()
                if k not in ("UNSPLIT", "SEPARATE_FINISH", "COLUMN_TILE")}
    return launch_config(
        cols, rows, site.narrowest, site.widest, DeviceProperties.create(_device(site)).multi_processor_count,
        override, site.op_count, reductions, site.producer_ops, static_rows, moved, static_cols,
        vector_rows=static_rows or vector_rows(site.rows, rows),
        vector_cols=static_cols or sympy.Mod(site.cols, VECTOR_MULTIPLE) == 0, row_tile_grid=row_tiles)


def predicted_estimate(site: Site, reductions: int, row_tiles: bool,
                       launch: Optional[LaunchConfig] = None) -> profitability.Estimate:
    """The cost model's estimate (:mod:`.profitability`) for ``site``, with ``launch`` (default: its
    :func:`predicted_launch`)."""
    rows, cols = site.hints
    moved = _moved(site)
    launch = launch or predicted_launch(site, reductions, row_tiles)
    stock_bytes = (site.u_bytes + site.v_bytes + site.itemsize + sum(site.stores)) * rows * cols
    override = config.launch_override()
    unsplit = bool(override.get("UNSPLIT"))  # the expert's walk, the only launch the model prices for it
    # a second pass over x (a result read by a full-size op): the column tile holds it, any other launch needs a
    # grid barrier or a second read (measured at half of stock's speed); with no atomics allowed, the tile is the
    # only launch too
    tile_alone = bool(site.result_reader or site.copy_reads_reduction) or not atomics_allowed()
    tile = site_column_tile(site)
    tile_us = predicted_column_tile_us(site, tile[0]) if tile else math.inf
    if override.get("COLUMN_TILE") and tile or tile_alone:
        return profitability.estimate(rows, cols, reductions, stock_bytes, moved * rows * cols, launch.RSPLIT,
                                      launch.XBLOCK, split=False, tile_us=tile_us)
    return profitability.estimate(rows, cols, reductions, stock_bytes, moved * rows * cols, launch.RSPLIT,
                                  launch.XBLOCK, walk=unsplit, split=not unsplit,
                                  separate=separate_allowed(row_tiles), tile_us=tile_us)


def predicted_column_tile_us(site: Site, xblock: int) -> float:
    """The cost model's µs for ``site``'s column tile of ``xblock`` columns a program (:func:`.profitability.
    column_tile_us`, as :func:`predicted_estimate` prices it), whether or not the model would offer it: the fused
    kernel's bytes and the row-major stores (``Site.stores``), the sectors they leave unused, and the row-major
    tensors a program walks (``Site.reads`` and the stores)."""
    rows, cols = site.hints
    moved = _moved(site)
    loaded = moved - site.itemsize - sum(site.stores)
    unused = profitability.unused_sector_bytes(rows * cols, xblock, loaded, site.widest, site.stores)
    return profitability.column_tile_us(rows, moved * rows * cols, unused, site.reads + len(site.stores))


def separate_allowed(row_tiles: bool = False) -> bool:
    """Whether the fused kernel may take the separate finish (``codegen/triton.py``: its partials combined by a
    second kernel, with no ticket and no semaphores): the expert's ``SEPARATE_FINISH=1``, or no expert launch at all;
    not for a kernel on the row-tile grid (its partials are flagged words); only with the Python wrapper and
    without Inductor's multi-kernel (the two calls are emitted by the package's ``call_kernel``, which neither of
    those uses).  ``choices`` also needs one reduction loop and more than one program a column block; a launch of one
    row tile a program then loops once (the persistent kernel has no loop for the finish kernel to drop), as the
    separate finish's constants were measured."""
    override = config.launch_override()
    if override.get("SEPARATE_FINISH", not override) == 0 or row_tiles or inductor_config.triton.multi_kernel:
        return False
    return row_tile_grid_available()


def atomics_allowed() -> bool:
    """False under ``torch.use_deterministic_algorithms(True)``, which asks for no atomics: a site then fuses only
    with the column tile (Inductor's persistent reduction: one program a column block, no ticket), and ``choices``
    emits the tile or Inductor's own launch of the unsplit reduction, never a split launch."""
    return not torch.are_deterministic_algorithms_enabled()


def column_tile_allowed(site: Site) -> bool:
    """Whether ``site``'s kernel may take the column tile (``runtime.triton_heuristics.column_tile``: all N rows of
    a few columns in one program's registers, so no second pass over x for a result read by a full-size op): no
    expert launch but ``COLUMN_TILE=1`` (with its ``XBLOCK`` and ``num_warps``), a static N (the tile is all of
    it), a reduction stock splits (where stock emits one unsplit kernel the tile was not measured against it), and
    rows that fit the tile.  ``choices`` emits it where the cost model predicts it fastest, or where asked."""
    return site_column_tile(site) is not None


def site_column_tile(site: Site) -> Optional[tuple[int, int]]:
    """``(XBLOCK, num_warps)`` of ``site``'s column tile where :func:`column_tile_allowed`, else None."""
    override = config.launch_override()
    if (override and not override.get("COLUMN_TILE")) or site.hints is None or not site.rows.is_number:
        return None
    if _wide(site) or stock_split_factor(site) == 1:
        return None
    return column_tile(site.hints[1], site.hints[0], site.widest, heavy_producer(site), override)


def heavy_producer(site: Site) -> bool:
    """Whether a transcendental op computes ``u`` or ``v`` (a GELU backward): the column tile then gives each thread
    fewer elements."""
    return bool(site.producer_ops & TRANSCENDENTAL)


def expects_row_tiles(graph: torch.fx.Graph, site: Site, reductions: int) -> bool:
    """Whether the fused kernel of ``site`` will launch one program per row tile, as far as the graph tells before
    Inductor builds the kernel; ``choices`` decides on the kernel (``_no_row_tile_grid``, ``launch_config``), and
    where it does not take the grid the kernel is slower than expected, never wrong.  Needed: N dynamic and at least 1
    in its value range (under ``backed_size_oblivious`` it may be 0, and a grid of no programs writes no result), or
    N static for a 1-byte copy (or ``ROW_TILE_GRID=1`` in the launch override); ``reductions``, the sites pairing a
    reduction with the site's copy, is 1; that reduction's result is fp32, bf16 or fp16 (flagged fp32 partials) and read by no full-size op (which could put it in
    a later loop of the kernel, with the grid-barrier finish); no transcendental producer (a heavy kernel keeps one
    wave); a Python wrapper (:func:`row_tile_grid_available`); for a 1-byte copy (an fp8 cast), the launch's own
    conditions (``runtime.triton_heuristics.wide_fp8_cast``): from f32, wide, more than one row tile, an even static C
    or a dynamic one known to be a multiple of 16, and an even static N or a dynamic one that can be vectorized."""
    if reductions != 1 or site.hints is None or not row_tile_grid_available():
        return False
    static = site.rows.is_number
    if static and not config.launch_override().get("ROW_TILE_GRID", site.itemsize == 1):
        return False
    reduction, source = _node(graph, site.reduction), _node(graph, site.source)
    if getattr(reduction.meta.get("val"), "dtype", None) not in FLAGGED_DTYPES:
        return False
    full = site.hints[0] * site.hints[1]
    if any(_numel_hint(user) >= full for user in reduction.users):
        return False
    if site.producer_ops & TRANSCENDENTAL or (not static and _lower_bound(source, site.rows) < 1):
        return False
    if site.itemsize != 1:
        return True
    rows, cols = site.hints
    sms = DeviceProperties.create(_device(site)).multi_processor_count
    aligned_rows = rows % 2 == 0 if static else vector_rows(site.rows, rows)
    # a dynamic C is taken as odd unless known a multiple of 16 (choices._vector_cols), and an odd C keeps one wave
    aligned_cols = site.cols.is_number or sympy.Mod(site.cols, VECTOR_MULTIPLE) == 0
    return (aligned_rows and aligned_cols
            and wide_fp8_cast(cols, rows, 1, source.meta["val"].dtype.itemsize, reductions, sms))


def _numel_hint(node: torch.fx.Node) -> int:
    """Elements of ``node``'s value from size hints (0 where it has no tensor value)."""
    val = node.meta.get("val")
    return _torch_private.size_hint(val.numel()) if isinstance(val, torch.Tensor) else 0


def _lower_bound(node: torch.fx.Node, expr: sympy.Expr) -> float:
    """The least value of the dynamic size ``expr`` of ``node``'s tensor in its shape environment's value ranges; 0
    where none is found."""
    for size in getattr(node.meta.get("val"), "shape", ()):
        if isinstance(size, torch.SymInt):
            return size.node.shape_env.bound_sympy(expr).lower
    return 0


# The dtypes whose sums, maxima and minima accumulate in fp32 in Inductor's Triton code, so their partials can be
# flagged fp32 words: what one program per row tile needs (choices._no_row_tile_grid; the pass's expects_row_tiles).
FLAGGED_DTYPES = (torch.float32, torch.bfloat16, torch.float16)


def row_tile_grid_available() -> bool:
    """True if a fused kernel with a dynamic N may launch one program per row tile (``RowTileGrid``): the compiled
    graph's wrapper is Python (the grid was not tried under AOTInductor or the cpp wrapper).  ``choices`` also needs
    the kernel's partials all flagged (one sum, max or min with fp32 partials)."""
    return not (V.aot_compilation or inductor_config.cpp_wrapper)


# Triton vectorizes accesses along a dynamic N only if each of the kernel's size arguments in their addresses is
# marked divisible by 16, which Inductor does only where the graph's shapes prove it (choices._vector_rows).
VECTOR_MULTIPLE = 16


def row_symbol(rows: sympy.Expr) -> Optional[sympy.Symbol]:
    """The symbol ``s`` of a dynamic N that is ``c * s`` (``c`` a positive integer: F4's ``[2, T, C]`` has N = 2 T);
    None for any other N (``s0 * s1``, ``s - 1``), whose kernel arguments no single guard can make divisible."""
    coeff, rest = rows.as_coeff_Mul()
    return rest if isinstance(rest, sympy.Symbol) and coeff.is_Integer and coeff > 0 else None


def vector_rows(rows: sympy.Expr, hint: int) -> bool:
    """True if the fused kernel's accesses along a dynamic N (``rows``, whose size hint is ``hint``) can be vectors:
    N is ``16 k * s``, or ``c * s`` with ``s``'s hint a multiple of 16 (then guarded to stay one, under torch.compile;
    ``choices._vector_rows``)."""
    symbol = row_symbol(rows)
    if symbol is None:
        return False
    coeff = rows / symbol
    return coeff % VECTOR_MULTIPLE == 0 or (hint // coeff) % VECTOR_MULTIPLE == 0


def _device(site: Site) -> torch.device:
    """The site's CUDA device (whose SM count stock's split uses); the current one if the graph names none (the
    pass runs for the CUDA backend only; tests trace graphs on the CPU)."""
    device = torch.device(site.device)
    if device.type == "cuda" and device.index is not None:
        return device
    return torch.device("cuda", torch.cuda.current_device())


def _wide(site: Site) -> bool:
    """True if C alone gives stock enough outputs not to split (``Reduction.num_splits``, ``ir.py:1374``: no split
    once ``numel_hint >= num_sm * 2 * 32``)."""
    return site.hints[1] >= DeviceProperties.create(_device(site)).multi_processor_count * 2 * 32


def stock_split_factor(site: Site) -> int:
    """How many ways stock Inductor splits the column (outer) reduction of ``site`` (1: one unsplit kernel, which
    already holds the transposed copy), as ``Reduction.num_splits`` decides it (``ir.py:1291``): 1 with
    ``config.split_reductions`` off, for N <= 32 and for a wide C (``numel_hint >= num_sm * 2 * 32``), else stock's
    ``InductorChoices.reduction_split_factor(..., inner_reduction=False)`` (``choices.py:421``; the stock class, not
    a user's handler), which is ceil(N / 128) below 32 * SMs * 2048 elements (8.65M on an H200), so 1 for N <= 128.
    Sites whose reduction Inductor lowers as an inner one (C = 1, transposed inputs) are skipped before this is
    asked (:func:`skip_reason`, rule 1)."""
    rows, cols = site.hints
    if not inductor_config.split_reductions or rows <= 32 or _wide(site):
        return 1
    return _torch_private.stock_reduction_split_factor(_device(site), rows, cols, inner_reduction=False)


def find_sites(graph: torch.fx.Graph) -> list[Site]:
    """All (transposed copy, leading-dim reduction) pairs of ``graph`` that share a full-size source."""
    copies = [(n, _transposed_operand(n)) for n in graph.nodes]
    copies = [(n, v) for n, v in copies if v is not None]
    # walked[i]: the nodes computed on the way to sites[i]'s u and v, and their full-size leaves
    sites, walked = [], []
    for red in graph.nodes:
        if red.op != "call_function" or red.target not in REDUCTIONS:
            continue
        u, reason = _leading_dim_operand(red)
        if u is None:
            if copies:
                log.debug("not a site %s: %s", red.name, reason)
            continue
        u_shape = _shape(u)
        rows, cols = _prod(u_shape[:-1]), u_shape[-1]
        u_leaves, u_ops = _producers(u, rows * cols)
        for copy, v in copies:
            n, c = _shape(v)
            if not (_known_eq(n, rows) and _known_eq(c, cols)):
                continue
            v_leaves, v_ops = _producers(v, rows * cols)
            shared = [leaf for leaf in v_leaves if leaf in u_leaves]
            if not shared:
                log.debug("not a site %s + %s: no shared source", copy.name, red.name)
                continue
            val = v.meta["val"]
            kinds = [_read_kind(leaf, u_shape) for leaf in u_leaves]
            sites.append(Site(copy.name, red.name, shared[0].name, _expr(rows), _expr(cols), _hints((n, c)),
                              val.element_size(), u_ops | v_ops, str(val.dtype).removeprefix("torch."), v_ops,
                              kinds.count("inner"), kinds.count("outer"), str(val.device),
                              any(map(_is_scan, [*u_leaves, *v_leaves])), full_size_reader(red, rows * cols),
                              column_reduction_read(v, shared[0], rows * cols), _itembytes(u_leaves), _itembytes(v_leaves),
                              _itembytes(shared), _op_count(u, rows * cols) + _op_count(v, rows * cols),
                              *_itemsize_range([v, *u_leaves, *v_leaves])))
            walked.append(({n for root in (u, v) for n, inputs in _walk(root) if inputs is not None},
                           {*u_leaves, *v_leaves}))
    return _with_kernel_tensors(sites, walked, graph)


def _with_kernel_tensors(sites: list[Site], walked: list[tuple[set, set]], graph: torch.fx.Graph) -> list[Site]:
    """``sites`` with their ``Site.stores`` and ``Site.reads``, each the same for the sites sharing a transposed copy
    (one fused kernel): the element sizes of the full-size tensors computed (not viewed) on the way to their ``u``
    and ``v`` that a node other than those sites' ops reads, directly or through row-major views (Inductor stores
    them row-major whatever it fuses), and the number of distinct full-size leaves of all their ``u`` and ``v``."""
    nodes = {n.name: n for n in graph.nodes}
    own, computed, leaves = (collections.defaultdict(set) for _ in range(3))  # by the copy's name
    for site, (site_computed, site_leaves) in zip(sites, walked):
        copy = nodes[site.transpose]
        own[site.transpose] |= site_computed | {nodes[site.reduction], copy, copy.args[0]}  # clone(permute(v))
        computed[site.transpose] |= site_computed
        leaves[site.transpose] |= site_leaves

    def readers(node: torch.fx.Node) -> Iterable[torch.fx.Node]:
        for user in node.users:
            yield from readers(user) if user.target in ROW_MAJOR_VIEWS else (user,)

    def stored(copy: str) -> tuple[int, ...]:
        numel = _numel(nodes[copy])
        return tuple(sorted(n.meta["val"].element_size() for n in computed[copy]
                            if n.target not in ROW_MAJOR_VIEWS and _known_eq(_numel(n), numel)
                            and any(user not in own[copy] for user in readers(n))))

    stores = {copy: stored(copy) for copy in computed}
    return [dataclasses.replace(site, stores=stores[site.transpose], reads=len(leaves[site.transpose]))
            for site in sites]


def _itemsize_range(nodes: list[torch.fx.Node]) -> tuple[int, int]:
    sizes = [n.meta["val"].element_size() for n in nodes]
    return min(sizes), max(sizes)


def _itembytes(nodes: Iterable[torch.fx.Node]) -> int:
    return sum(n.meta["val"].element_size() for n in nodes)


def _op_count(node: torch.fx.Node, numel) -> int:
    """The ops :func:`_producers` walks through from ``node`` back to its leaves."""
    return sum(inputs is not None for _, inputs in _walk(node))


def column_reduction_read(v: torch.fx.Node, source: torch.fx.Node, numel) -> str:
    """The FX name of a reduction of ``source`` over its leading dims whose result ``v`` is computed from, through
    pointwise ops, views and the small ops after the reduction (``q = (g * (448 / g.abs().amax(0))).to(fp8)``: the
    ``amax``); "" if there is none.  A copy of such a ``v`` needs that reduction finished first: a second pass over
    ``source``, whatever kernel holds the copy."""
    stack, seen = [v], set()
    while stack:
        n = stack.pop()
        if n in seen or n.op != "call_function" or not isinstance(n.target, torch._ops.OpOverload):
            continue
        seen.add(n)
        if n.target in REDUCTIONS:
            u, _ = _leading_dim_operand(n)
            if u is not None and source in _producers(u, numel)[0]:
                return n.name
            continue
        full = _known_eq(_numel(n), numel) if "val" in n.meta else True
        if n.target in BROADCAST_VIEWS or torch.Tag.pointwise in n.target.tags or not full:
            stack.extend(_tensor_args(n))
    return ""


def full_size_reader(reduction: torch.fx.Node, numel) -> str:
    """The FX name of a pointwise op of ``numel`` elements that reads ``reduction``'s result, walking forward through
    pointwise ops and views of fewer elements (``amax -> clamp -> reciprocal -> mul(g, scale)``: the ``mul``); ""
    if there is none.  Inductor fuses such an op into the reduction's kernel as a second loop over the same
    ``(C, N)`` iteration space, which with a split row range needs a grid barrier between the loops."""
    stack, seen = list(reduction.users), set()
    while stack:
        n = stack.pop()
        if n in seen or n.op != "call_function" or not isinstance(n.target, torch._ops.OpOverload):
            continue
        seen.add(n)
        if n.target in BROADCAST_VIEWS:  # a view or broadcast of the result: look at what reads it
            stack.extend(n.users)
        elif torch.Tag.pointwise in n.target.tags:
            if _known_eq(_numel(n), numel):
                return n.name
            stack.extend(n.users)
    return ""


# Ops Inductor lowers as scans; a reduction left unsplit over a scan's output is fused into its split-scan kernel,
# which cannot hold one ("NYI TritonSplitDimKernel reductions"; found by a fresh-user review, 2026-12-01)
SCAN_OPS = frozenset({"cumsum", "cumprod", "logcumsumexp", "cummax", "cummin", "_cummax_helper", "_cummin_helper"})


def _is_scan(node: torch.fx.Node) -> bool:
    """Whether ``node`` is a scan: one of :data:`SCAN_OPS` or a scan higher-order op."""
    packet = getattr(node.target, "overloadpacket", None)
    name = getattr(packet, "__name__", None) or getattr(node.target, "__name__", "")
    return node.op == "call_function" and (name in SCAN_OPS or "scan" in name)


def _read_kind(leaf: torch.fx.Node, shape: tuple) -> Optional[str]:
    """How Inductor's ``Reduction.num_splits`` counts the read of ``leaf`` (read at ``u``'s own index, ``shape``
    [..., C]; ``ir.py:1433``): "inner" if it has stride 1 along a leading (reduced) dim of size > 1, "outer"
    otherwise, None if it is broadcast (stride 0 along a dim of size > 1: its index misses a loop variable, and
    Inductor does not count such reads).  A leaf of another shape was reached through row-major views: "outer".
    Unknown strides count as "outer"."""
    val = leaf.meta["val"]
    if tuple(val.shape) != tuple(shape):
        return "outer"
    strides = [stride for size, stride in zip(val.shape, val.stride()) if not _known_eq(size, 1)]
    if any(_known_eq(stride, 0) for stride in strides):
        return None
    leading = [stride for size, stride in zip(val.shape[:-1], val.stride()[:-1]) if not _known_eq(size, 1)]
    return "inner" if any(_known_eq(stride, 1) for stride in leading) else "outer"


def _transposed_operand(node: torch.fx.Node) -> Optional[torch.fx.Node]:
    """``v`` if ``node`` is ``clone(permute(v, [1, 0]))`` writing ``v.T`` row-major from a row-major ``v``."""
    v, _ = _transposed_copy(node)
    return v


def _transposed_copy(node: torch.fx.Node) -> tuple[Optional[torch.fx.Node], str]:
    """(v, "") for a transposed copy of a row-major 2-D ``v``; (None, why not) for another ``clone(permute(...))``;
    (None, "") for any other node."""
    if node.op != "call_function" or node.target is not aten.clone.default:
        return None, ""
    perm = node.args[0]
    if not isinstance(perm, torch.fx.Node) or perm.target is not aten.permute.default:
        return None, ""
    v = perm.args[0]
    if len(_shape(v)) != 2 or [d % 2 for d in perm.args[1]] != [1, 0]:
        return None, f"permute {list(perm.args[1])} of a {len(_shape(v))}-d tensor is not a 2-D transpose"
    if not _row_major(v):
        return None, f"the transposed tensor is not row-major (strides {list(v.meta['val'].stride())})"
    if not _row_major(node):
        return None, "the copy is not written row-major"
    return v, ""


_NOT_LEADING = "reduces dims"
EMPTY = "empty tensor (N * C == 0)"  # the reason for a site and for a reduction of no elements alike


def _leading_dim_operand(red: torch.fx.Node) -> tuple[Optional[torch.fx.Node], str]:
    """(u, "") if ``red`` reduces ``u`` over all dims but the last, else (None, why not)."""
    u = red.args[0]
    if not isinstance(u, torch.fx.Node) or "val" not in u.meta:
        return None, "operand is not a tensor node"
    ndim = len(_shape(u))
    dims = red.args[1] if len(red.args) > 1 else red.kwargs.get("dim")
    if ndim < 2 or dims is None:
        return None, f"{_NOT_LEADING} {dims} of a {ndim}-d tensor"
    if sorted(d % ndim for d in dims) != list(range(ndim - 1)):
        return None, f"{_NOT_LEADING} {list(dims)} are not all leading dims of a {ndim}-d tensor"
    if _known_eq(_numel(u), 0):  # before the layout: an empty tensor's strides say nothing
        return None, EMPTY
    if not _row_major(u):
        return None, "operand is not row-major"
    return u, ""


def _producers(node: torch.fx.Node, numel) -> tuple[list[torch.fx.Node], frozenset]:
    """(leaves of ``numel`` elements, names of the ops walked through) of what ``node`` is computed from.

    Walks back through pointwise ops (only through operands of the op's own shape, so a leaf is read at ``node``'s
    own row-major flat index) and row-major views; any other node is a leaf.
    """
    leaves, ops = [], set()
    for n, inputs in _walk(node):
        if inputs is not None:
            ops.add(n.target.overloadpacket.__name__)
        elif "val" in n.meta and _known_eq(_numel(n), numel):
            leaves.append(n)
    return leaves, frozenset(ops)


def _walk(node: torch.fx.Node) -> Iterable[tuple[torch.fx.Node, Optional[list[torch.fx.Node]]]]:
    """Each node ``node`` is computed from, once, with its :func:`_aligned_inputs` (None for a leaf), walking back
    through those inputs only."""
    stack, seen = [node], set()
    while stack:
        n = stack.pop()
        if n in seen:
            continue
        seen.add(n)
        inputs = _aligned_inputs(n)
        yield n, inputs
        stack.extend(inputs or ())


def _aligned_inputs(n: torch.fx.Node) -> Optional[list[torch.fx.Node]]:
    """Inputs of ``n`` read at ``n``'s own flat index, or None if ``n`` is a leaf."""
    if n.op != "call_function" or not isinstance(n.target, torch._ops.OpOverload):
        return None
    if n.target in ROW_MAJOR_VIEWS:
        src = n.args[0]
        return [src] if isinstance(src, torch.fx.Node) and _row_major(src) else None
    if torch.Tag.pointwise not in n.target.tags or n.target is aten.clone.default:
        return None
    shape = _shape(n)
    return [a for a in _tensor_args(n) if _same_shape(_shape(a), shape)]


def _tensor_args(n: torch.fx.Node) -> Iterable[torch.fx.Node]:
    for a in (*n.args, *n.kwargs.values()):
        if isinstance(a, torch.fx.Node) and isinstance(a.meta.get("val"), torch.Tensor):
            yield a


# ---- shape helpers: compare sizes without adding guards (dynamic shapes must not recompile per size) ----


def _shape(n: torch.fx.Node) -> tuple:
    return tuple(n.meta["val"].shape)


def _numel(n: torch.fx.Node):
    return _prod(_shape(n))


def _prod(sizes) -> object:
    return math.prod(sizes, start=1)


def _known_eq(a, b) -> bool:
    return bool(statically_known_true(a == b))


def _same_shape(a: tuple, b: tuple) -> bool:
    return len(a) == len(b) and all(_known_eq(x, y) for x, y in zip(a, b))


def _row_major(n: torch.fx.Node) -> bool:
    """True if ``n``'s tensor is contiguous row-major (size-1 dims ignored), provably without a guard."""
    val = n.meta.get("val")
    if not isinstance(val, torch.Tensor):
        return False
    expected = 1
    for size, stride in reversed(list(zip(val.shape, val.stride()))):
        if not _known_eq(size, 1) and not _known_eq(stride, expected):
            return False
        expected = expected * size
    return True


def _expr(size) -> sympy.Expr:
    return size.node.expr if isinstance(size, torch.SymInt) else sympy.Integer(size)


def _hints(sizes) -> Optional[tuple[int, ...]]:
    """Size hints (no guard is added), or None if a size is unbacked and has no hint."""
    if not all(not isinstance(s, torch.SymInt) or _torch_private.has_size_hint(s) for s in sizes):
        return None
    return tuple(_torch_private.size_hint(s) for s in sizes)


def _node(graph: torch.fx.Graph, name: str) -> torch.fx.Node:
    return next(n for n in graph.nodes if n.name == name)
