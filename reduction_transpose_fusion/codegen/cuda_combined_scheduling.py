"""The CUDA scheduling backend, with the Triton part swapped for ours.

Inductor's CUDA backend is ``CUDACombinedScheduling``, which delegates everything that is not a CUTLASS/CuteDSL
template to a ``TritonScheduling`` it builds in ``__init__`` (``cuda_combined_scheduling.py:46``).  We build
:class:`~reduction_transpose_fusion.codegen.triton.ReductionTransposeTritonScheduling` there instead and register
the class with ``register_backend_for_device`` (see ``_torch_private.register_cuda_backend``).
"""

from __future__ import annotations

from .._torch_private import CUDACombinedScheduling
from .triton import ReductionTransposeTritonScheduling


class ReductionTransposeCUDACombinedScheduling(CUDACombinedScheduling):
    """``CUDACombinedScheduling`` whose Triton scheduling emits :class:`ReductionTransposeTritonKernel`."""

    def __init__(self, scheduler) -> None:
        super().__init__(scheduler)
        self._triton_scheduling = ReductionTransposeTritonScheduling(scheduler)
