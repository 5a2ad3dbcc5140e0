"""Drop the clamp before an fp8 cast where the GPU's conversion saturates by itself.

torchao's float8 casts (``to_fp8_saturated``, both recipes, forward and backward) clamp to the format's largest
finite value before converting: ``y.clamp(-M, M).to(torch.float8_e4m3fn)`` with ``M = 448`` (57344 for e5m2),
because eager's conversion is not saturating (e4m3fn overflows to NaN, e5m2 to inf).  Inductor emits each bound
as a NaN-propagating select, ``tl.where((y > -M) | (y != y), y, -M)``, which ptxas compiles to three instructions a
bound (a compare, a NaN test, a predicated select); the cast then converts with Triton's instruction,
``cvt.rn.satfinite.{e4m3x2,e5m2x2}.f32`` on sm_90, which already maps every value past ``M`` (infinities included)
to ``±M`` and NaN to NaN.  The clamp changes no bit of the result, and on the H200 the fp8 kernels are bound by
instruction issue (Nsight Compute, ``docs/profitability.md``, 2026-12-04): in the tensorwise MLP's backward kernel
that writes four fp8 copies, the eight bounds are 24 of the ~97 SASS instructions an element
(``docs/profitability.md``, 2026-12-05).

This pass removes such clamps (``clamp_min`` / ``clamp_max`` / ``clamp`` with number bounds, a chain of them) when
all of these hold:

* its only user is a conversion to ``float8_e4m3fn`` or ``float8_e5m2`` (so nothing else reads the clamped value);
* the chain's lower bound is at most ``-M`` and its upper bound at least ``M`` (or absent), and no bound is NaN (a
  NaN bound makes every element NaN): clamping to wider bounds than the conversion's own saturation changes nothing
  after it;
* the value is float32, bfloat16 or float16 on an NVIDIA GPU of a compute capability in
  :data:`SATURATING_CAPABILITIES`, where Triton emits the saturating conversion (``test_saturating_casts.py``
  compiles the casts to sm_90a PTX and checks that every fp8 ``cvt`` is ``.satfinite``).  Other GPUs keep their
  clamps: Triton 3.6 converts through float16 on sm_89 (``cvt.rz.f16.f32``, then ``.satfinite``, which also
  saturates, but no test compiles it), and neither Blackwell's conversions nor ROCm's (whose devices PyTorch also
  calls ``cuda``) were checked.

The graph is then no longer eager-equivalent (an unclamped eager cast would overflow); it is equivalent for the code
Inductor generates from it, which is the only code that runs it.
"""

from __future__ import annotations

import logging
import math
from typing import Optional

import torch

log = logging.getLogger(__name__.rsplit(".", 2)[0])
aten, prims = torch.ops.aten, torch.ops.prims

# fp8 formats whose Triton conversion on sm_90 is cvt.rn.satfinite (Triton's fp8e4nv and fp8e5)
SATURATING_FP8 = (torch.float8_e4m3fn, torch.float8_e5m2)
SOURCE_DTYPES = (torch.float32, torch.bfloat16, torch.float16)
# The compute capabilities whose Triton 3.6 fp8 conversion was checked to saturate (sm_90a PTX, the module docstring)
SATURATING_CAPABILITIES = frozenset({(9, 0)})
# clamp ops: (lower bound's (argument index, keyword), upper bound's), scalar bounds only
CLAMPS = {aten.clamp_min.default: ((1, "min"), None), aten.clamp_max.default: (None, (1, "max")),
          aten.clamp.default: ((1, "min"), (2, "max"))}


def drop_saturating_clamps(graph: torch.fx.Graph) -> list[torch.fx.Node]:
    """Erase the clamps that the module docstring's rules find redundant before each fp8 conversion of ``graph``
    (their one user then reads the clamp's input).  Returns the conversions that lost their clamps, in graph order;
    logs one line per graph (``TORCH_LOGS=reduction_transpose_fusion``) with their count."""
    rewired = []
    for node in list(graph.nodes):
        target = _fp8_target(node)
        if target is None:
            continue
        clamps, value = _redundant_clamps(node.args[0], torch.finfo(target).max)
        if not clamps or not _saturates_here(value):
            continue
        for clamp in clamps:
            clamp.replace_all_uses_with(clamp.args[0])
            graph.erase_node(clamp)
        rewired.append(node)
    if rewired:
        log.info("%d fp8 casts convert without their clamps to the format's largest finite value (the GPU's "
                 "conversion saturates): %s", len(rewired), ", ".join(n.name for n in rewired))
    return rewired


def _fp8_target(node: torch.fx.Node) -> Optional[torch.dtype]:
    """The fp8 dtype ``node`` converts its first argument to, if it is a plain conversion to a saturating one."""
    if node.op != "call_function" or not node.args or not isinstance(node.args[0], torch.fx.Node):
        return None
    if node.target is prims.convert_element_type.default:
        dtype = node.args[1]
    elif node.target is aten._to_copy.default and set(node.kwargs) == {"dtype"}:
        dtype = node.kwargs["dtype"]
    else:
        return None
    return dtype if dtype in SATURATING_FP8 else None


def _redundant_clamps(node: torch.fx.Node, largest: float) -> tuple[list[torch.fx.Node], torch.fx.Node]:
    """The clamps on the way back from ``node`` whose only effect is within ``±largest``'s saturation (``[]`` if
    none or any is not), and the value before them.  The way passes clamps and conversions between
    :data:`SOURCE_DTYPES` (Inductor upcasts a bf16 clamp to float32 and back): rounding is monotonic and
    ``±largest`` is exact in each, so a conversion commutes with the clamp.  Every node on it has one user."""
    clamps, lower, upper = [], -math.inf, math.inf
    while node.op == "call_function" and len(node.users) == 1:
        if node.target in CLAMPS:
            bounds = _scalar_bounds(node)
            if bounds is None or any(math.isnan(b) for b in bounds):  # a NaN bound makes every element NaN
                break
            lower, upper = max(lower, bounds[0]), min(upper, bounds[1])
            clamps.append(node)
        elif not (node.target is prims.convert_element_type.default and node.args[1] in SOURCE_DTYPES):
            break
        if not isinstance(node.args[0], torch.fx.Node):
            return [], node
        node = node.args[0]
    if clamps and lower <= -largest and upper >= largest:
        return clamps, node
    return [], node


def _scalar_bounds(clamp: torch.fx.Node) -> Optional[tuple[float, float]]:
    """``(lower, upper)`` of a clamp node with number (or absent) bounds; None for a tensor or symbolic bound."""
    bounds = []
    for where, absent in zip(CLAMPS[clamp.target], (-math.inf, math.inf)):
        value = None
        if where is not None:
            index, keyword = where
            value = clamp.args[index] if index < len(clamp.args) else clamp.kwargs.get(keyword)
        if value is None:
            bounds.append(absent)
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            bounds.append(float(value))
        else:
            return None
    return bounds[0], bounds[1]


def _saturates_here(value: torch.fx.Node) -> bool:
    """Whether Inductor's Triton conversion of ``value`` to fp8 is the saturating one: a float32, bfloat16 or float16
    tensor on an NVIDIA GPU (not ROCm) of a compute capability in :data:`SATURATING_CAPABILITIES`."""
    val = value.meta.get("val")
    if not isinstance(val, torch.Tensor) or val.dtype not in SOURCE_DTYPES or val.device.type != "cuda":
        return False
    return torch.version.hip is None and torch.cuda.get_device_capability(val.device) in SATURATING_CAPABILITIES
