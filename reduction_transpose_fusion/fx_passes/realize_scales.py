"""Compute a small value once before a large elementwise op broadcasts it, instead of once per element.

FP8 training's casts scale a tensor by a value derived from its amax: one value per row or per column in torchao's
rowwise recipe, ``scale = exp2(floor(log2(448 / clamp(amax.double(), min=1e-12))))``, and the GEMM's output is
rescaled by ``1 / (scale_a * scale_b)``.  Inductor inlines such a chain into the kernel that consumes it, so every
element of a ``[N, C]`` cast re-derives its row's (or column's) scale: two float64 divisions, a log2, a floor, an
exp2 and a float32 division an element in the rowwise GEMM rescale.  On the H200 those kernels are bound by
instruction issue, not memory: Nsight Compute gave 80-85% of issue slots busy and 8-30% of DRAM bandwidth for the
rowwise MLP step's casts and rescales (``benchmarks/results/lab/2026-12-04-h200-lab-ncu-steps.csv``).

This pass marks such a value for realization (Inductor's ``inductor_realize_to_strides`` node hint,
:func:`.._torch_private.realize_node`): Inductor stores it as its own small buffer (usually in the epilogue of the
kernel that computes the amax, so no launch is added) and the large kernel loads one float an element instead of
recomputing the chain.  The bits do not change: only float32 and float64 values are realized, which Inductor
computes in their own precision, so storing and loading them is exact.

A node ``s`` is realized when all of these hold (the thresholds are :data:`BROADCAST_MIN_RATIO`,
:data:`MIN_CHAIN_OPS`, :data:`MIN_RECOMPUTE_OPS`):

* ``s`` is a pointwise op with a float32 or float64 result of more than one element (a scalar is computed once a
  program already, not once an element);
* a pointwise op reads it, directly or through views, over at least ``BROADCAST_MIN_RATIO`` times its elements;
* its chain, the pointwise ops of its own size that it is computed from, holds at least ``MIN_CHAIN_OPS`` ops, and
  the chain's ops times the large op's elements reach ``MIN_RECOMPUTE_OPS`` (below that, recomputing costs less than
  the launch that realizing may add).
"""

from __future__ import annotations

import logging
from typing import Optional

import torch

from .. import _torch_private

log = logging.getLogger(__name__.rsplit(".", 2)[0])
aten = torch.ops.aten

# Realize only values whose large reader has at least this many elements per element of the value: a true broadcast
# (a row or column scale of a [N, C] cast has C or N), not an op over a tensor of similar size.
BROADCAST_MIN_RATIO = 64
# A chain of fewer ops (a lone convert or clamp) costs a large kernel about what the load of a realized value costs.
MIN_CHAIN_OPS = 3
# ops of the chain x elements of the large reader: 2**27 lane-ops are about 4 µs of the H200's instruction issue
# (132 SMs x 4 schedulers x 32 lanes x 1.98 GHz = 33e12 lane-ops/s), above the 2-5 µs launch a realized value may
# add where it does not join the kernel that computes its input.
MIN_RECOMPUTE_OPS = 2**27
REALIZED_DTYPES = (torch.float32, torch.float64)
# Ops a broadcast value passes through on its way to the large op, without computing anything
VIEWS = {aten.view.default, aten.reshape.default, aten._unsafe_view.default, aten.expand.default,
         aten.unsqueeze.default, aten.squeeze.dim, aten.squeeze.default, aten.permute.default, aten.t.default,
         aten.transpose.int}


def realize_broadcast_values(graph: torch.fx.Graph) -> list[torch.fx.Node]:
    """Mark every node of ``graph`` that the module docstring's rules pick for realization; returns them, in graph
    order.  Each is logged (``TORCH_LOGS=reduction_transpose_fusion``) with its size, its chain's ops and its large
    reader.  Never raises on a node it cannot size (unbacked or symbolic sizes are left as Inductor treats them)."""
    realized = []
    for node in graph.nodes:
        numel = _static_numel(node)
        if not _is_pointwise(node) or numel is None or numel < 2 or node.meta["val"].dtype not in REALIZED_DTYPES:
            continue
        reader, reader_numel = _largest_reader(node)
        if reader is None or reader_numel < BROADCAST_MIN_RATIO * numel:
            continue
        ops = _chain_ops(node, numel)
        if ops < MIN_CHAIN_OPS or ops * reader_numel < MIN_RECOMPUTE_OPS:
            continue
        _torch_private.realize_node(node)
        realized.append(node)
        log.info("realize %s (%s, %d elements, a chain of %d ops) once: %s reads it over %d elements",
                 node.name, node.meta["val"].dtype, numel, ops, reader.name, reader_numel)
    return realized


def _is_pointwise(node: torch.fx.Node) -> bool:
    """An elementwise op: tagged pointwise, or a dtype conversion (``_to_copy`` with no other change, as the
    ``.to(torch.float64)`` of a scale is traced before Inductor's decompositions)."""
    if node.op != "call_function" or not isinstance(node.meta.get("val"), torch.Tensor):
        return False
    if node.target is aten._to_copy.default:
        return set(node.kwargs) <= {"dtype"}
    return isinstance(node.target, torch._ops.OpOverload) and torch.Tag.pointwise in node.target.tags


def _static_numel(node: torch.fx.Node) -> Optional[int]:
    """Elements of ``node``'s tensor value, or None where it is not a tensor or its size is symbolic (a value of a
    dynamic size is left inlined, as stock leaves it)."""
    val = node.meta.get("val")
    numel = val.numel() if isinstance(val, torch.Tensor) else None
    return numel if isinstance(numel, int) else None


def _largest_reader(node: torch.fx.Node) -> tuple[Optional[torch.fx.Node], int]:
    """The pointwise op of the most elements that reads ``node`` directly or through :data:`VIEWS`, with its
    elements; ``(None, 0)`` if none does."""
    best, best_numel = None, 0
    frontier, seen = list(node.users), set()
    while frontier:
        user = frontier.pop()
        if user in seen:
            continue
        seen.add(user)
        if user.op == "call_function" and user.target in VIEWS:
            frontier.extend(user.users)
        elif _is_pointwise(user):
            numel = _static_numel(user) or 0
            if numel > best_numel:
                best, best_numel = user, numel
    return best, best_numel


def _chain_ops(node: torch.fx.Node, numel: int) -> int:
    """Pointwise ops of ``numel`` elements that ``node`` is computed from, ``node`` included: what a large reader
    recomputes an element when the chain is inlined.  The walk stops at anything else (a reduction, an input, a
    GEMM) and at nodes already marked for realization."""
    count, frontier, seen = 0, [node], set()
    while frontier:
        n = frontier.pop()
        if n in seen:
            continue
        seen.add(n)
        if not _is_pointwise(n) or _static_numel(n) != numel or (n is not node and _torch_private.is_realized(n)):
            continue
        count += 1
        frontier.extend(a for a in n.all_input_nodes)
    return count
