"""The fused kernel: Inductor's cooperative reduction with a last-program finish instead of a grid barrier.

Inductor 2.11 already puts the transposed store inside the reduction loop once the reduction is not split (the
notes in ``shared/notes/inductor-2.11-extension-points.md``, section 0).  What it lacks is parallelism: an unsplit
column reduction runs on ``C / XBLOCK`` programs.  Its cooperative reductions split the rows over ``RSPLIT``
programs, but finish with a grid barrier, which needs every program resident at once (a cooperative launch,
"too many blocks in cooperative launch" past that) and makes all of them wait for the slowest.

:class:`ReductionTransposeTritonKernel` keeps the cooperative loop and partials workspace and replaces the finish:

1. each program stores its ``XBLOCK`` partials to the workspace (stock ``post_loop_combine``);
2. it takes a ticket, ``atomic_add(sem[j], 1)``, with release/acquire semantics after a CTA barrier;
3. only the program that draws ticket ``RSPLIT - 1`` (the last of column block ``j``) loads the ``RSPLIT``
   partials (the peers load is masked with ``rsplit_is_last``), sums them in index order and stores the result;
   it resets ``sem[j]`` to 0, as Inductor's semaphore buffer requires of every kernel.

The sum order is fixed by the workspace index, not by arrival, so results are bitwise reproducible, and the only
atomic is the ticket counter.  The launch is an ordinary one.

With ``tma_stores`` (``tma_loads``) the ``[XBLOCK, R0_BLOCK]`` tiles of full-size buffers are stored (loaded) through
Hopper tensor descriptors (``tl.make_tensor_descriptor``), where Inductor's own TMA path accepts them: int32
indexing, rows 16-byte aligned, no mask beyond the tile's bounds.  Each program's row range is a multiple of
``R0_BLOCK`` (``rsplit_chunk``), so a tile never crosses into another program's rows, and the descriptor's bounds
clip the last tile exactly as ``r0_mask`` does.

With ``loop_stages`` > 1 Triton software-pipelines the row loop: tile loads are issued ``loop_stages - 1``
iterations ahead (``cp.async``, or TMA with ``tma_loads``), and TMA stores are waited on only before their shared
buffer is reused.

With every kwarg unset the class behaves exactly like ``TritonKernel``, so the flag-off code is identical to stock.
"""

from __future__ import annotations

import textwrap

from .. import _torch_private
from .._torch_private import TMACompatibilityChecker, TritonKernel, TritonScheduling
from .._torch_private import V


class TileTMAChecker(TMACompatibilityChecker):
    """Allow a tensor descriptor for exactly the access :class:`ReductionTransposeTritonKernel` is generating, if it
    is a tile of a full-size buffer the kernel was asked to move by TMA (``kernel.tma_access``).

    Inductor's base class would instead require ``config.triton.use_tensor_descriptor`` and
    ``config.assume_aligned_inputs``, global switches that change every kernel and the graph's input handling.
    Inductor still checks the rest (strides 16-byte aligned, 16-byte inner block, int32 indices, masks).
    """

    def can_use_tma(self) -> bool:
        return bool(getattr(self.kernel, "tma_access", False))



class ReductionTransposeTritonKernel(TritonKernel):
    """``TritonKernel`` whose cooperative reductions can finish in the last program (``last_block_finish=True``).

    Only valid when every reduction of the kernel is in one loop and nothing inside that loop reads a reduction
    result (the other programs never see the final value); :func:`reduction_transpose_fusion.choices` checks that
    before it sets the kwarg.
    """

    tma_compatibility_checker_cls = TileTMAChecker

    def __init__(self, *args, last_block_finish: bool = False, tma_loads: bool = False, tma_stores: bool = False,
                 loop_stages: int = 1, **kwargs):
        self.last_block_finish = last_block_finish
        self.loop_stages = loop_stages
        self.tma_loads, self.tma_stores = tma_loads, tma_stores
        self.tma_access = False
        self._finish_emitted = False
        super().__init__(*args, **kwargs)
        if last_block_finish and not self.cooperative_reduction:
            raise ValueError("last_block_finish needs override_cooperative_reduction=True")

    def load(self, name, index):
        self.tma_access = self.tma_loads and self._is_aligned_tile(name, index)
        try:
            return super().load(name, index)
        finally:
            self.tma_access = False

    def store(self, name, index, value, mode=None):
        self.tma_access = self.tma_stores and mode is None and self._is_aligned_tile(name, index)
        try:
            return super().store(name, index, value, mode)
        finally:
            self.tma_access = False

    def _is_aligned_tile(self, name: str, index) -> bool:
        """``index`` spans a column and a row range (a tile, not a broadcast row or the partials), and the tile's
        base, the buffer pointer plus the index's constant part, is 16-byte aligned (a TMA requirement)."""
        tile_vars = index.free_symbols & self.range_tree_nodes.keys()
        prefixes = {self.range_tree_nodes[v].prefix for v in tile_vars}
        if not ("x" in prefixes and any(p.startswith("r") for p in prefixes)):
            return False
        if not _torch_private.is_aligned_buffer(name):
            return False
        base = index.subs({v: 0 for v in tile_vars}) * V.graph.get_dtype(name).itemsize
        return V.graph.sizevars.statically_known_multiple_of(base, 16)

    def init_cooperative_reduction_mask(self):
        if not self.last_block_finish:
            return super().init_cooperative_reduction_mask()
        # rsplit_mask is defined after the ticket, since it includes rsplit_is_last
        self.body.writeline("rsplit_arange = tl.arange(0, RSPLIT_NEXT_POWER_OF_2)[None, :]")

    def guard_cooperative_store(self, name, buffer):
        if not self.last_block_finish:
            return super().guard_cooperative_store(name, buffer)
        buffer.writeline(_torch_private.deferred_line(name, "if rsplit_is_last:"))
        return buffer.indent()

    def codegen_body(self):
        if not self.last_block_finish:
            return super().codegen_body()
        combine, store = _torch_private.take_post_loop_code(self)
        super().codegen_body()
        if not (combine or store):
            return
        if self._finish_emitted:
            raise AssertionError("last_block_finish kernel has a second reduction loop")
        self._finish_emitted = True
        self.body.splice(combine)
        self.body.splice(self._ticket_code())
        self.body.splice(store)

    def _ticket_code(self) -> str:
        sem = f"{self.semaphores_name} + tl.program_id(1)"
        xmask = "" if self._has_constant_xmask() else " & xmask"
        return textwrap.dedent(
            f"""\
            if HAS_RSPLIT:
                tl.debug_barrier()  # every thread's partials are stored before the ticket is taken
                rsplit_ticket = tl.atomic_add({sem}, 1, sem="acq_rel")
                rsplit_is_last = rsplit_ticket == RSPLIT - 1
                if rsplit_is_last:
                    tl.atomic_xchg({sem}, 0, sem="relaxed")  # leave the semaphore zeroed
                tl.debug_barrier()  # the other threads read the partials after the acquire
                rsplit_mask = (rsplit_arange < RSPLIT) & rsplit_is_last{xmask}
            else:
                rsplit_is_last = True
            """
        )

    def codegen_kernel(self, name=None):
        src = super().codegen_kernel(name)
        if self.last_block_finish:
            src = _torch_private.drop_cooperative_launch(src)
        if self.loop_stages > 1:
            src = _torch_private.pipeline_reduction_loop(src, self.loop_stages)
        return src


class ReductionTransposeTritonScheduling(TritonScheduling):
    """``TritonScheduling`` that builds :class:`ReductionTransposeTritonKernel` (``kernel_type``, ``triton.py:6039``)."""

    kernel_type = ReductionTransposeTritonKernel


__all__ = ["ReductionTransposeTritonKernel", "ReductionTransposeTritonScheduling", "TileTMAChecker"]
