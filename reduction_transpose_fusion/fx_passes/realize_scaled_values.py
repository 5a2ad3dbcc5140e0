"""Store once, in float32, a computed tensor that is cast with a scale derived from its own reduction.

Dynamic fp8 scaling reads a tensor twice: a reduction finds its amax, the scale is derived from it, and the cast
multiplies every element by that scale.  The reduction must finish before the cast starts, so the two cannot share
a kernel.  Where the tensor is itself computed, as the GELU gradient ``g1 = gelu_backward(g_h, h)`` of a Float8
MLP's first layer is, Inductor inlines its chain into both kernels: each recomputes the erf and the exp of every
element.  On the H200 the tensorwise 16384x4096->4096 step's two passes over ``g1`` were bound by that instruction
issue, not by their bytes: 166-180 µs and 197 µs, 40-51% of the copy SOL of their bytes (docs/profitability.md,
2026-12-05).

This pass marks the tensor for realization (Inductor's ``inductor_realize_to_strides`` node hint,
:func:`.._torch_private.realize_node`): Inductor computes it in a pointwise kernel of its own and stores it, and the
reduction and the cast load it.  Bytes moved an element go from ``2 x inputs + outputs`` to ``inputs + 4 + 2 x 4 +
outputs`` (for two bf16 inputs, 10 to 18 bytes with two fp8 copies), and every kernel reads or computes at copy
speed instead of at the issue rate: about 270 µs for the step's three kernels at the H200's copy SOL against
about 370 µs for its two (arithmetic, not measured).

It stores the float32 value *before* the graph's conversion to bf16 or fp16: Inductor computes a bf16 value it
inlines in float32 (``emulate_precision_casts`` is off), so stock's reduction and cast see the unrounded value, and
the stored float32 one keeps their bits.  Storing the bf16 value would round it, as eager does but stock does not.

A node ``v`` is realized when all of these hold (thresholds :data:`MIN_CHAIN_OPS`, :data:`MIN_RECOMPUTE_OPS`,
:data:`STOCK_OPS_MARGIN`):

* ``v`` is a float32 pointwise op on the GPU whose one user converts it to bf16 or fp16, the graph's value ``u``
  (the end of a chain computed in float32; a chain of a float32 model is left inlined);
* a reduction reads ``u`` (through pointwise ops of its size and views), and a pointwise op of ``u``'s size reads
  both ``u`` (the same way) and that reduction's result (through any ops): the two are two kernels.  A reduction
  over some innermost dims only (a row's amax) does not count: Inductor emits it and the op reading the same rows
  as one kernel;
* ``v``'s chain, the pointwise ops of its size it is computed from, holds at least :data:`MIN_CHAIN_OPS` ops, and
  the chain's ops times its elements reach :data:`MIN_RECOMPUTE_OPS`;
* Inductor would not store ``u`` itself: it stores a value read by several ops, rounded to bf16, when it loads more
  than ``realize_reads_threshold`` buffers or has more than ``realize_opcount_threshold`` ops, and stock's casts
  then read the rounded value (the count is estimated, with a margin);
* every op that reads ``u`` (through conversions) is a multiplication, a division, an ``abs`` or a reduction:
  inlined, an addition could contract with the chain's last product into one FMA, and a copy computed from the
  stored value would round differently (a sum may, within its rounding).

Off by default (``reduction_transpose_fusion_realize_scaled_values``): it adds a kernel and bytes, and pays only
where the kernels that recompute the chain are bound by issue; not yet timed on a GPU.
"""

from __future__ import annotations

import logging
from typing import Optional

import torch
import torch._inductor.config as inductor_config

from .. import _torch_private
from .realize_scales import FACTOR_READERS, VIEWS, _chain, _is_pointwise, _is_reduction, _numel_hint

log = logging.getLogger(__name__.rsplit(".", 2)[0])
aten = torch.ops.aten
prims = torch.ops.prims

# A chain shorter than this (a product and a convert) costs a kernel less than the float32 store and loads it would
# add.  The GELU gradient's chain holds 14 ops (erf and exp among them).
MIN_CHAIN_OPS = 8
# ops of the chain x its elements: 2**27 lane-ops are about 4 µs of the H200's instruction issue (realize_scales.py),
# above the launch of the kernel that realizing adds.
MIN_RECOMPUTE_OPS = 2**27
# Ops to spare when estimating whether Inductor stores the value itself (_stock_stores): for the GELU gradient the
# estimate is 22 where Inductor counts 21 to 24 (its threshold patched to 20 stores it, to 24 does not).
STOCK_OPS_MARGIN = 4
LOW_PRECISION = (torch.bfloat16, torch.float16)


def realize_scaled_values(graph: torch.fx.Graph) -> list[torch.fx.Node]:
    """Mark every node of ``graph`` that the module docstring's rules pick for realization; returns them, in graph
    order.  Each is logged (``TORCH_LOGS=reduction_transpose_fusion``) with its size, its chain's ops, the reduction
    and the op that reads both.  Never raises on a node it cannot size (an unbacked size leaves it inlined)."""
    realized, order = [], {node: i for i, node in enumerate(graph.nodes)}
    for node in graph.nodes:
        numel = _numel_hint(node)
        if (not _is_pointwise(node) or numel is None or node.meta["val"].dtype != torch.float32
                or node.meta["val"].device.type != "cuda" or _torch_private.is_realized(node)):
            continue
        value = _graph_value(node)
        chain = _chain(node, numel) if value is not None else None
        if (chain is None or chain.ops < MIN_CHAIN_OPS or chain.ops * numel < MIN_RECOMPUTE_OPS
                or _stock_stores(chain) or not _only_safe_readers(value)):
            continue
        pair = _reduction_and_its_reader(value, numel, order)
        if pair is None:
            continue
        _torch_private.realize_node(node)
        realized.append(node)
        log.info("realize %s (float32, %d elements, a chain of %d ops) once: %s reduces it, and %s reads it and "
                 "that reduction's result", node.name, numel, chain.ops, pair[0].name, pair[1].name)
    return realized


def _stock_stores(chain) -> bool:
    """True if Inductor itself would store the chain's bf16 or fp16 value, rounded, where several ops read it
    (``TensorBox.should_realize_on_reuse``): it loads more than ``realize_reads_threshold`` buffers, or its inner
    function has more than ``realize_opcount_threshold`` ops.  That count is estimated as the chain's ops, its loads,
    its distinct constants and the conversion (the GELU gradient: 14 + 2 + 5 + 1 = 22, where Inductor counts 21-24),
    with :data:`STOCK_OPS_MARGIN` to spare: storing the float32 value instead would change the bits stock casts."""
    ops = chain.ops + chain.reads + chain.constants + 1
    return (chain.reads > inductor_config.realize_reads_threshold
            or ops + STOCK_OPS_MARGIN > inductor_config.realize_opcount_threshold)


def _graph_value(node: torch.fx.Node) -> Optional[torch.fx.Node]:
    """The bf16 or fp16 value the graph computes from ``node`` when that conversion is ``node``'s one user (the end
    of a chain computed in float32: the float32 value is the one Inductor computes with); None otherwise."""
    (user, *others) = node.users or [None]
    if (others or user is None or user.target is not prims.convert_element_type.default
            or user.meta["val"].dtype not in LOW_PRECISION):
        return None
    return user


def _only_safe_readers(value: torch.fx.Node) -> bool:
    """True if every op that reads ``value``, directly or through dtype conversions, is a multiplication or a
    division (:data:`.realize_scales.FACTOR_READERS`), an ``abs`` or a reduction.  Inlined, a chain whose last op
    Inductor emits as a product (a ``mul``, but also a ``pow`` of 2 or a division by a constant) could contract with
    an addition that reads it into one FMA, which the stored, rounded product would not: a copy would change bits (a
    sum's bits may change, within its rounding, as the package's sums do anyway)."""
    frontier, seen = list(value.users), set()
    while frontier:
        user = frontier.pop()
        if user in seen:
            continue
        seen.add(user)
        if user.target is prims.convert_element_type.default:
            frontier.extend(user.users)
        elif not (user.target in FACTOR_READERS or user.target is aten.abs.default or _is_reduction(user)):
            return False
    return True


def _readers(value: torch.fx.Node, numel: int) -> set[torch.fx.Node]:
    """The nodes that read ``value`` directly or through views and pointwise ops of its size (which Inductor
    inlines into them), those ops included."""
    out, frontier = set(), list(value.users)
    while frontier:
        user = frontier.pop()
        if user in out:
            continue
        out.add(user)
        if (user.op == "call_function" and (user.target in VIEWS or _is_pointwise(user))
                and _numel_hint(user) == numel):
            frontier.extend(user.users)
    return out


def _reduces_innermost_dims_only(reduction: torch.fx.Node) -> bool:
    """True if ``reduction`` reduces some innermost dims of its input and not all of them (a row's amax): Inductor
    emits it and an op that reads the same rows and its result as one kernel (a loop for the amax, then one for the
    cast), so nothing is recomputed in a second kernel."""
    (operand, *rest) = reduction.args
    ndim = operand.meta["val"].dim() if isinstance(operand, torch.fx.Node) else 0
    dims = rest[0] if rest and isinstance(rest[0], (list, tuple, int)) else None
    if dims is None or ndim == 0:
        return False  # all dims
    dims = sorted({d % ndim for d in ([dims] if isinstance(dims, int) else dims)})
    return len(dims) < ndim and dims == list(range(ndim - len(dims), ndim))


def _computed_from(node: torch.fx.Node, source: torch.fx.Node, order: dict[torch.fx.Node, int]) -> bool:
    """True if ``node`` is computed from ``source`` through any ops; the walk back stops at nodes before ``source``
    in graph order (``order``), which cannot be."""
    frontier, seen = list(node.all_input_nodes), set()
    while frontier:
        n = frontier.pop()
        if n is source:
            return True
        if n not in seen and order[n] > order[source]:
            seen.add(n)
            frontier.extend(n.all_input_nodes)
    return False


def _reduction_and_its_reader(value: torch.fx.Node, numel: int, order: dict[torch.fx.Node, int]
                              ) -> Optional[tuple[torch.fx.Node, torch.fx.Node]]:
    """A reduction of ``value`` and a pointwise op of ``value``'s size that reads both ``value`` and that
    reduction's result (an amax and the cast it scales), or None."""
    readers = _readers(value, numel)
    for reduction in (r for r in readers if _is_reduction(r) and not _reduces_innermost_dims_only(r)):
        for reader in readers:
            if _is_pointwise(reader) and _numel_hint(reader) == numel and _computed_from(reader, reduction, order):
                return reduction, reader
    return None
