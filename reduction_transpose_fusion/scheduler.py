"""Scheduler-level rules for marked sites: which scheduler nodes hold one, keeping those out of combo kernels, and
keeping a marked transposed copy's loops as they are.

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

from . import config
from .fx_passes.reduction_transpose import COPY_META_KEY, META_KEY, Site

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
