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
atomic is the ticket counter.  The launch is an ordinary one.  With the ``last_block_finish`` kwarg unset the class
behaves exactly like ``TritonKernel``, so the flag-off code is identical to stock.
"""

from __future__ import annotations

import textwrap

from .. import _torch_private
from .._torch_private import TritonKernel, TritonScheduling


class ReductionTransposeTritonKernel(TritonKernel):
    """``TritonKernel`` whose cooperative reductions can finish in the last program (``last_block_finish=True``).

    Only valid when every reduction of the kernel is in one loop and nothing inside that loop reads a reduction
    result (the other programs never see the final value); :func:`reduction_transpose_fusion.choices` checks that
    before it sets the kwarg.  ``ordinary_launch=True`` launches a cooperative reduction as an ordinary grid; it is
    set for the last-program finish and for a grid-barrier kernel with ``RSPLIT`` 1, whose barrier is compiled out
    (``HAS_RSPLIT`` is false) and whose column blocks alone may be more programs than can be resident at once.
    """

    def __init__(self, *args, last_block_finish: bool = False, ordinary_launch: bool = False, **kwargs):
        self.last_block_finish = last_block_finish
        self.ordinary_launch = ordinary_launch or last_block_finish
        self._finish_emitted = False
        super().__init__(*args, **kwargs)
        if self.ordinary_launch and not self.cooperative_reduction:
            raise ValueError("last_block_finish and ordinary_launch need override_cooperative_reduction=True")

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
        if self.ordinary_launch:
            src = _torch_private.drop_cooperative_launch(src)
        return src


class ReductionTransposeTritonScheduling(TritonScheduling):
    """``TritonScheduling`` that builds :class:`ReductionTransposeTritonKernel` (``kernel_type``, ``triton.py:6039``)."""

    kernel_type = ReductionTransposeTritonKernel


__all__ = ["ReductionTransposeTritonKernel", "ReductionTransposeTritonScheduling"]
