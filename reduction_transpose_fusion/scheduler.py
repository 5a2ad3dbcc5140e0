"""Scheduler-level rules for marked sites: which scheduler nodes hold one, keeping those out of combo kernels, and
keeping a marked transposed copy's loops as they are; and which of Inductor's own reduction kernels store transposed
(tuned by coordinate descent: :func:`tuned_by_coordinate_descent`).

With ``config.combo_kernels`` Inductor packs independent kernels into one combo kernel, whose sub-kernels keep
Inductor's own launch: a marked reduction there runs unsplit on ``C / XBLOCK`` programs, slower than stock's split
reduction, and never reaches ``ReductionTransposeChoices.triton_kernel_kwargs`` (no wide launch, nothing logged).
Inductor's request for the groups is wrapped (``_torch_private.filter_combo_kernel_groups``, whatever group algorithm
is set) so that nodes holding a marked reduction are left out of every combo group; the other nodes are grouped as
before.
"""

from __future__ import annotations

import logging
from typing import Iterable

import torch
import torch._inductor.config as inductor_config

from . import _torch_private, config
from .fx_passes.reduction_transpose import COPY_META_KEY, META_KEY, Site
from .select_algorithm import AUTOTUNE_MARGIN

log = logging.getLogger(__name__)


def sites_in(nodes: Iterable) -> list[Site]:
    """Sites of the marked reductions among ``nodes`` (``SchedulerNode``s, in order)."""
    out = []
    for node in nodes:
        if node.is_reduction():
            out.extend(o.meta[META_KEY] for o in origins(node) if META_KEY in o.meta)
    return out


def origins(node) -> list[torch.fx.Node]:
    """The FX nodes a ``SchedulerNode`` was lowered from."""
    return list(getattr(node.node, "origins", ()) or ())


def may_join_combo_kernel(node) -> bool:
    """False for a fused node holding a marked reduction while the fusion is on (logged); True otherwise."""
    sites = sites_in(node.get_nodes())  # marked by the CUDA pass only
    if not sites or not config.enabled():
        return True
    log.info("%s: kept out of combo kernels (config.combo_kernels), for its own wide launch",
             ", ".join(sorted({s.reduction for s in sites})))
    return False


def keeps_its_loops(node) -> bool:
    """True for a scheduler node holding a marked site's transposed copy while the fusion is on: Inductor must not
    invert its loop indexing to fuse it elsewhere (``_torch_private.keep_out_of_index_inversion``), as it would on
    torch 2.15 with F5's fp8 copy, which then leaves the reduction's kernel.  The copy fuses with its reduction on the
    loops it has: ``(C, N)``, the reduction's."""
    if not config.enabled():
        return False
    return any(COPY_META_KEY in o.meta for n in node.get_nodes() for o in origins(n))


# what the decision log says of a kernel that tuned_by_coordinate_descent picks (codegen/triton.py writes it; the
# random-site harness reads it)
TUNED_LOG = "tuned by coordinate descent"
# Bytes the kernel's nodes that store transposed must read and write (Inductor's count) for coordinate descent
# to tune it.  Below, the kernel runs in 1.5-3.6 µs, mostly launch, and the configs coordinate descent compares differ
# by less than its benchmark resolves: on the four H100 seeds of 2026-12-05 and -06 (results/*-random-*.csv, package
# c7d9ba4b and later), the 18 sites tuned by the rule alone with inputs of at most 0.8 MB (a transposed copy moving
# at most 1.6 MB) ran 0.85-1.24x over stock (geomean 1.02x; 4 of them 0.85-0.96x, each 0.99-1.00x untuned in the
# same run's first_pick variant), the 18 of 3.7 MB and more 0.97-1.40x (geomean 1.11x).  Such small kernels keep
# stock's config.
TUNED_MIN_BYTES = 4 << 20


def tuned_by_coordinate_descent(nodes: Iterable) -> bool:
    """True for a kernel of ``nodes`` (its ``SchedulerNode``s) that is one of Inductor's own reductions, holding no
    marked site, and stores a tensor transposed (:func:`_stores_transposed`), while the fusion and ``config.autotune``
    are on and Inductor's deterministic mode (which bans benchmarking) is off, and those stores' nodes move at least
    :data:`TUNED_MIN_BYTES`.  ``codegen.triton`` then turns on
    Inductor's coordinate descent for that kernel alone: at its first call, after the autotuning of Inductor's
    reduction configs, it walks the kernel's block sizes and warps from the fastest of them; the walk's config and
    Inductor's are then timed by CUDA-graph replay (:func:`keep_faster_tuning`), and the autotune cache keeps the
    launcher kept.

    Why: Inductor's reduction configs tile for the loads; a transposed store (a rowwise fp8 recipe's transposed copy,
    whose scales the same kernel reduces first, so no split launch can hold it) runs contiguous along another loop.
    Evidence (docs/profitability.md, "2026-12-05, evening"): coordinate descent on for every kernel of the rowwise
    Float8 MLP 8192x4096x14336 step on the H200, package ``189508c9``, against that package's default run: its two
    reductions with ``clone`` (a transposed copy) in their names ran 13% and 27% faster (the GELU gradient's 927 ->
    809 µs), stock's three 14-23%; of the reductions without, one 36% faster and two within 4%.  The rule itself, on
    an H100 (package ``c7d9ba4b``): that step 1.117x -> 1.171x over stock, compile 28 s against stock's 13; the other
    Float8 steps within their noise; 12 of a fresh seed's 48 random sites tuned only, 1.080x geomean.  Inductor's
    ``coordinate_descent_tuning`` (``mode="max-autotune"``) tunes every kernel at its first call; this rule spends
    that time on the reduction-transpose kernels only."""
    if not (config.enabled() and config.autotune()) or inductor_config.deterministic:
        return False
    nodes = list(nodes)
    transposed = [n for n in nodes if not n.is_reduction() and _stores_transposed(n)]
    if sites_in(nodes) or not any(n.is_reduction() for n in nodes) or not transposed:
        return False
    moved = sum(map(_torch_private.read_write_bytes, transposed))
    if moved < TUNED_MIN_BYTES:
        log.debug("%s: Inductor's own reduction stores transposed, not tuned: its transposed stores move %d bytes, "
                  "under TUNED_MIN_BYTES (%d)", nodes[0].get_name(), moved, TUNED_MIN_BYTES)
        return False
    return True


def keep_faster_tuning(name: str, start, others: list, ms) -> object | None:
    """The launcher to keep for a kernel that :func:`tuned_by_coordinate_descent` picks, after Inductor's coordinate
    descent: of ``start`` (the one of Inductor's configs that its benchmark timed fastest, where the walk started)
    and ``others`` (the walk's config and Inductor's other configs), the one ``ms`` (one launch's milliseconds by
    CUDA-graph replay on copies of the call's arguments, ``_torch_private.check_coordinate_descent``) times fastest,
    if it beats ``start`` by ``select_algorithm.AUTOTUNE_MARGIN``, as a launch candidate must beat the baseline;
    else ``start``.  None (Inductor's choice stands) where ``start`` cannot be timed; a launcher of ``others`` that
    cannot be timed is left out.  Logged.

    Why: both of Inductor's choices here rest on its benchmark, one launch between CUDA events after an L2 clear: the
    fastest of its configs, and each step of the walk, which keeps a config timed 0.1% faster.  That benchmark and a
    graph's replay disagree: Inductor's log timed a walk's config of the F3-amax fp16[545, 23471] kernel 1.12x faster
    than its start, and the site ran 1.00x and, in another compile, 0.82x of stock's speed; a walk's config of an
    F5-rowwise fp32[181, 27603] kernel replayed at 29.6 µs against its start's 19.1.  The sites tuned this way and
    nothing else ran 0.62-0.93x of stock's speed in one random seed (1060201589) where the walk's config was checked
    against its start alone.  With every config timed, the twelve tuned-only sites that had lost or gained most in
    earlier runs ran 1.00-1.33x (one at 0.92x within its 13% noise; geomean 1.13x), and the rowwise Float8 MLP steps,
    whose gains come from such kernels, kept them (1.118x and 1.169x over stock).  One H100, 2026-12-07, package
    ``81c048bf`` (results/2026-12-07-nvidia-h100-80gb-hbm3-random-picked-034642f1-81c048bf.csv,
    -models-rowwise-81c048bf.csv; the timings of each kernel's configs in lab/*-lab-coordesc-every-config-*.txt)."""
    timed = []
    for launcher in (start, *others):
        try:
            timed.append((ms(launcher), launcher))
        except Exception as error:  # a failed capture or launch
            log.info("%s: %s not timed (%s: %s)", name, _config_text(launcher.config), type(error).__name__, error)
            if launcher is start:
                return None  # Inductor's choice stands
    start_ms = timed[0][0]
    best_ms, best = min(timed, key=lambda item: item[0])
    chosen = best if best_ms < start_ms * (1 - AUTOTUNE_MARGIN) else start
    log.info("%s: by CUDA-graph replay, coordinate descent's start %s %.1f us, %s; kept %s", name,
             _config_text(start.config), start_ms * 1e3,
             ", ".join(f"{_config_text(one.config)} {us * 1e3:.1f} us" for us, one in timed[1:]),
             "the start" if chosen is start else _config_text(chosen.config))
    return chosen


def _config_text(config) -> str:
    """A Triton config as ``XBLOCK=8,R0_BLOCK=512,num_warps=16``."""
    return ",".join([f"{k}={v}" for k, v in config.kwargs.items()] + [f"num_warps={config.num_warps}"])


def _stores_transposed(node) -> bool:
    """A pointwise scheduler node whose full-size loads run contiguous along its innermost loop and whose full-size
    stores along another, or the reverse (:func:`.._torch_private.contiguous_runs`): a transposed copy, in whichever
    loop order Inductor gave it.  A flip or a strided slice (no unit stride) is not one."""
    reads, writes = _torch_private.contiguous_runs(node)
    return ("innermost" in reads and "other" in writes) or ("other" in reads and "innermost" in writes)
