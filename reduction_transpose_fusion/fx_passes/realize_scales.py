"""Compute a scale once before a large elementwise op reads it, instead of once per element of that op.

FP8 training's casts scale a tensor by a value derived from its amax: one value per row or per column in torchao's
rowwise recipe, ``scale = exp2(floor(log2(448 / clamp(amax.double(), min=1e-12))))``, and the GEMM's output is
rescaled by ``1 / (scale_a * scale_b)``.  Inductor inlines such a chain into the kernel that consumes it, so every
element of a ``[N, C]`` cast re-derives its row's (or column's) scale: two float64 divisions, a log2, a floor, an
exp2 and a float32 division an element in the rowwise GEMM rescale.  On the H200 those kernels are bound by
instruction issue, not memory: Nsight Compute gave 80-85% of issue slots busy and 8-30% of DRAM bandwidth for the
rowwise MLP step's casts and rescales (``benchmarks/results/lab/2026-12-04-h200-lab-ncu-steps.csv``).

This pass marks such a value for realization (Inductor's ``inductor_realize_to_strides`` node hint,
:func:`.._torch_private.realize_node`): Inductor stores it as its own small buffer, in the epilogue of the kernel
that computes its reduction (no launch is added there) or, for a float64 chain computed from a graph input, in a
small kernel of its own (one launch), and the large kernel loads one float an element instead of recomputing the
chain.  The second case is the backward of a rowwise fp8 linear: its forward saves the bf16 amax, and the backward's
GEMM rescales re-derived the scale from it in float64 an element (the 8192x4096x14336 MLP step's weight-gradient
rescale: 164 µs at 37% of the copy SOL on the H200, ``results/2026-12-05-h200-models-mlp-rowwise-14336-kernels.csv``).
A float32 chain from an input stays inlined: its kernel, if memory-bound, would hide the recompute and still pay
the launch (``x * exp(sin(w) * 2 + 1)``: one kernel inlined, two realized).

A node ``s`` is realized when all of these hold (thresholds :data:`BROADCAST_MIN_RATIO`, :data:`MIN_CHAIN_OPS`,
:data:`MIN_RECOMPUTE_OPS`):

* ``s`` is a pointwise op on the GPU with a float32 or float64 result of more than one element (a scalar is computed
  once a program already, not once an element; a bf16 or fp16 value would be rounded by the store where Inductor
  keeps it in float32);
* its chain, the pointwise ops of its own size that it is computed from (through views of that size), holds at
  least ``MIN_CHAIN_OPS`` ops and starts from a reduction (an amax, a sum), so the chain joins that reduction's
  kernel, or from a graph input with a float64 op in the chain (a float64 division is a sequence of instructions
  an element);
* a pointwise op reads it, directly or through views, over at least ``BROADCAST_MIN_RATIO`` times its elements;
* if its last op is a multiplication, every op that reads it is a multiplication or division: inlined, an addition
  reading it could contract with that multiplication into one FMA (Inductor lets the compiler contract), and the
  stored value would then round differently;
* the chain's ops times that reader's elements reach ``MIN_RECOMPUTE_OPS``.

Sizes are read through their hints where they are symbolic (a dynamic batch), as Inductor's own heuristics do;
unbacked sizes leave the value inlined.

The scale's bits do not change: it is stored in its own dtype, which Inductor computes in that precision, and read
by the same ops.  Other intermediates may change: Inductor decides whether to store a pointwise value from
the ops inlined into it, so with the scale's ops gone an intermediate bf16 value may be stored (rounded, as eager
rounds it) where stock kept it in float32, or the other way round (``docs/profitability.md``, 2026-12-04).
"""

from __future__ import annotations

import logging
from typing import NamedTuple, Optional

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
# add where it does not join the kernel that computes its reduction.
MIN_RECOMPUTE_OPS = 2**27
REALIZED_DTYPES = (torch.float32, torch.float64)
# A value whose last op is one of these could contract with an addition that reads it into an FMA when inlined
MULTIPLICATIONS = {aten.mul.Tensor, aten.mul.Scalar}
# Readers that cannot contract with a multiplication they read
FACTOR_READERS = {aten.mul.Tensor, aten.mul.Scalar, aten.div.Tensor, aten.div.Scalar}
# Ops a broadcast value passes through on its way to the large op, without computing anything
VIEWS = {aten.view.default, aten.reshape.default, aten._unsafe_view.default, aten.expand.default,
         aten.unsqueeze.default, aten.squeeze.dim, aten.squeeze.dims, aten.squeeze.default, aten.permute.default,
         aten.t.default, aten.transpose.int, aten.alias.default, aten.slice.Tensor, aten.select.int}


def realize_broadcast_values(graph: torch.fx.Graph) -> list[torch.fx.Node]:
    """Mark every node of ``graph`` that the module docstring's rules pick for realization; returns them, in graph
    order.  Each is logged (``TORCH_LOGS=reduction_transpose_fusion``) with its size, its chain's ops and its large
    reader.  Never raises on a node it cannot size (an unbacked size leaves it inlined, as stock has it)."""
    realized = []
    for node in graph.nodes:
        numel = _numel_hint(node)
        if (not _is_pointwise(node) or numel is None or numel < 2
                or node.meta["val"].dtype not in REALIZED_DTYPES or node.meta["val"].device.type != "cuda"):
            continue
        reader, reader_numel, only_factors = _largest_reader(node)
        if reader is None or reader_numel < BROADCAST_MIN_RATIO * numel:
            continue
        if _last_op(node).target in MULTIPLICATIONS and not only_factors:
            continue
        chain = _chain(node, numel)
        if (not (chain.from_reduction or chain.from_input and chain.float64) or chain.ops < MIN_CHAIN_OPS
                or chain.ops * reader_numel < MIN_RECOMPUTE_OPS):
            continue
        _torch_private.realize_node(node)
        realized.append(node)
        log.info("realize %s (%s, %d elements, a chain of %d ops) once: %s reads it over %d elements",
                 node.name, node.meta["val"].dtype, numel, chain.ops, reader.name, reader_numel)
    return realized


def _is_pointwise(node: torch.fx.Node) -> bool:
    """An elementwise op: tagged pointwise, or a dtype conversion (``_to_copy`` with no other change, as the
    ``.to(torch.float64)`` of a scale is traced before Inductor's decompositions)."""
    if node.op != "call_function" or not isinstance(node.meta.get("val"), torch.Tensor):
        return False
    if node.target is aten._to_copy.default:
        return set(node.kwargs) <= {"dtype"}
    return isinstance(node.target, torch._ops.OpOverload) and torch.Tag.pointwise in node.target.tags


def _behind_views(node: torch.fx.Node) -> torch.fx.Node:
    while node.op == "call_function" and node.target in VIEWS and isinstance(node.args[0], torch.fx.Node):
        node = node.args[0]
    return node


def _is_reduction(node: torch.fx.Node) -> bool:
    return (node.op == "call_function" and isinstance(node.target, torch._ops.OpOverload)
            and torch.Tag.reduction in node.target.tags)


def _numel_hint(node: torch.fx.Node) -> Optional[int]:
    """Elements of ``node``'s tensor value, through its size hint where it is symbolic; None where it is not a
    tensor or its size has no hint (unbacked)."""
    val = node.meta.get("val")
    if not isinstance(val, torch.Tensor):
        return None
    numel = val.numel()
    if isinstance(numel, int):
        return numel
    return _torch_private.size_hint(numel) if _torch_private.has_size_hint(numel) else None


def _largest_reader(node: torch.fx.Node) -> tuple[Optional[torch.fx.Node], int, bool]:
    """The pointwise op of the most elements that reads ``node`` directly or through :data:`VIEWS`, with its
    elements (``(None, 0)`` if none does), and whether every reader is one of :data:`FACTOR_READERS`."""
    best, best_numel, only_factors = None, 0, True
    frontier, seen = list(node.users), set()
    while frontier:
        user = frontier.pop()
        if user in seen:
            continue
        seen.add(user)
        if user.op == "call_function" and user.target in VIEWS:
            frontier.extend(user.users)
            continue
        only_factors &= user.op == "call_function" and user.target in FACTOR_READERS
        numel = _numel_hint(user) or 0
        if _is_pointwise(user) and numel > best_numel:
            best, best_numel = user, numel
    return best, best_numel, only_factors


def _last_op(node: torch.fx.Node) -> torch.fx.Node:
    """``node``, or the op behind a conversion of it to its own dtype (a no-op in the kernel)."""
    while (_is_pointwise(node) and node.target is torch.ops.prims.convert_element_type.default
           and isinstance(node.args[0], torch.fx.Node)
           and node.args[0].meta.get("val") is not None and node.args[0].meta["val"].dtype == node.meta["val"].dtype):
        node = node.args[0]
    return node


class Chain(NamedTuple):
    """What :func:`_chain` finds behind a value."""

    ops: int  # pointwise ops of the value's size, the value's own included
    from_reduction: bool  # the chain starts from a reduction (it joins that reduction's kernel)
    from_input: bool  # ... or from a graph input (realized, it takes a kernel of its own)
    float64: bool  # one of its ops computes in float64


def _chain(node: torch.fx.Node, numel: int) -> Chain:
    """The pointwise ops of ``numel`` elements that ``node`` is computed from, ``node`` included: what a large reader
    recomputes an element when the chain is inlined, and where the chain starts.  The walk passes through views of
    the same size and stops at anything else (a reduction, an input, a constant, a GEMM), at nodes already marked for
    realization and at graph outputs, which Inductor stores anyway."""
    count, from_reduction, from_input, float64, frontier, seen = 0, False, False, False, [node], set()
    while frontier:
        n = frontier.pop()
        if n in seen:
            continue
        seen.add(n)
        stored = n is not node and (_torch_private.is_realized(n) or any(u.op == "output" for u in n.users))
        if not stored and n.op == "call_function" and n.target in VIEWS and _numel_hint(n) == numel:
            frontier.extend(n.all_input_nodes)  # a view computes nothing (a column scale transposed for a rescale)
            continue
        if not _is_pointwise(n) or _numel_hint(n) != numel or stored:
            source = _behind_views(n)
            from_reduction |= _is_reduction(source)
            # a tensor input (a SymInt placeholder of a dynamic size is no stored value)
            from_input |= source.op == "placeholder" and isinstance(source.meta.get("val"), torch.Tensor)
            continue
        count += 1
        float64 |= n.meta["val"].dtype == torch.float64
        frontier.extend(n.all_input_nodes)
    return Chain(count, from_reduction, from_input, float64)
