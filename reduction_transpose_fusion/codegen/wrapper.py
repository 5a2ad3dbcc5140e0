"""The CUDA graphs' Python wrapper: Inductor's, with the fused kernels' semaphores buffer kept zeroed between calls.

Inductor's wrapper allocates and zeroes a graph's semaphores at each call of the graph (``ZERO_PER_GRAPH``), a fill
kernel of about 1.3 µs on an H200 that a small fused site pays on top of its one kernel.  The package's own buffer
(``semaphores_rtf_<device>``, only the last-program finish uses it) is instead bound to a buffer zeroed once and kept
per stream (:mod:`..runtime.semaphores`), which every fused kernel leaves zeroed.  Every other line is Inductor's:
a graph without a fused kernel has the same wrapper as stock's.  Subgraphs (``torch.cond`` branches) and the cpp
and FX wrappers keep Inductor's per-call zeroing.
"""

from __future__ import annotations

from .. import _torch_private
from .._torch_private import PythonWrapperCodegen


class ReductionTransposeWrapperCodegen(PythonWrapperCodegen):
    """``PythonWrapperCodegen`` that binds the package's semaphores buffer to a kept one
    (:func:`.._torch_private.allocate_kept_semaphores`)."""

    @staticmethod
    def create(is_subgraph, subgraph_name, parent_wrapper, partition_signatures=None):
        if is_subgraph:
            return PythonWrapperCodegen.create(is_subgraph, subgraph_name, parent_wrapper, partition_signatures)
        return ReductionTransposeWrapperCodegen()

    def generate_workspace_allocation(self, ws) -> None:
        if not _torch_private.allocate_kept_semaphores(self, ws):
            super().generate_workspace_allocation(ws)
