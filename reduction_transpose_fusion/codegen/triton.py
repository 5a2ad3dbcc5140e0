"""The fused kernel: Inductor's cooperative reduction with a last-program finish instead of a grid barrier.

Inductor 2.11 already puts the transposed store inside the reduction loop once the reduction is not split (its
scheduler fuses the copy, which iterates the same ``(C, N)``, into the reduction's kernel).  What it lacks is
parallelism: an unsplit column reduction runs on ``C / XBLOCK`` programs.  Its cooperative reductions split the rows
over ``RSPLIT`` programs, but finish with a grid barrier, which needs every program resident at once (a cooperative
launch, "too many blocks in cooperative launch" past that) and makes all of them wait for the slowest.

:class:`ReductionTransposeTritonKernel` keeps the cooperative loop and partials workspace and replaces the finish:

1. each program stores its ``XBLOCK`` partials to the workspace (stock ``post_loop_combine``);
2. it takes a ticket, ``atomic_add(sem[j], 1)``, with release/acquire semantics after a CTA barrier;
3. only the program that draws ticket ``RSPLIT - 1`` (the last of column block ``j``) loads the ``RSPLIT``
   partials (the peers load is masked with ``rsplit_is_last``), sums them in index order and stores the result;
   it resets ``sem[j]`` to 0.  The semaphores are a graph-wide buffer, zeroed once per graph call, that only
   last-program-finish kernels use and each leaves zeroed (:func:`.._torch_private.use_own_semaphores`: Inductor's
   own buffer is shared with its grid barriers, which leave their words at 0 or ``0x80000000``).

With ``chunked_finish=True`` (launches of a few row tiles a program, whose ``RSPLIT`` runs to hundreds) the
partials are laid out ``[RSPLIT, C]``, so that their store and the finish's loads are coalesced (stock's
``[C, RSPLIT]`` puts neighbouring columns ``4 * RSPLIT`` bytes apart), and the last program combines them inside an
``if rsplit_is_last:`` branch, :data:`FINISH_CHUNK` rows a step: the branch costs the other programs nothing, and
the chunk keeps the finish's registers low whatever ``RSPLIT`` is (a lab kernel that loaded all partials at once,
masked, took 152 registers for a bf16 tile that needs 64; ``benchmarks/results/lab/2026-11-30-h200-lab-map2.csv``
and ``-ticket.csv``).  Only sum, max and min are chunked; :mod:`..choices` keeps other reductions at
``RSPLIT <= MAX_RSPLIT`` with stock's load.  The one-wave launches (``RSPLIT <= 64``) keep stock's layout, whose
kernels were measured.

**Flagged partials** (``flagged_partials=True``: chunked finish, one reduction, fp32 partials; :mod:`..choices`
sets it): the ticket is an atomic round trip that every program waits for, 4-25% of a one-tile-a-program kernel's
time in the lab whatever its memory ordering (acq_rel, release, even relaxed without a barrier;
``benchmarks/results/lab/2026-11-30-h200-lab-fence.csv``).  So these kernels take none:

1. each program stores its partials as int32 words that are never 0 (the fp32 bits plus 1, NaN made the canonical
   ``0x7FFFFFFF`` first) to ``[RSPLIT, C]`` words appended to the semaphores buffer, zeroed once per graph call and
   left zeroed (:func:`.._torch_private.grow_semaphores`); it does not wait for anything;
2. the finisher is program ``RSPLIT - 1`` of each column block, the last in launch order: it loads each chunk of
   words (``volatile``, past the L1), loads it again while any is 0 (a peer's store not yet visible), combines the
   decoded values in index order, and zeroes the words.

It relies on the GPU starting programs (CTAs) in launch order, as CUTLASS's serial split-K does: every program the
finisher waits for started before it, never waits itself, and so finishes.  A single store of an aligned 4-byte
word is seen whole or not at all, so a word that is not 0 holds the partial.  Kernels with several reductions keep
the ticket: their finisher combines one reduction's partials after the other's, and with flagged words LayerNorm
backward f32[25216, 768] ran at 1.59x copy SOL with one row tile a program against 1.17x with the ticket, and 1.36x
against 1.17x with two (``sweeps/2026-11-30-h200-sweep-spin-looped.csv`` against ``-onetile.csv``); with the
two-level finish flagged partials were still no faster than the ticket on any of 9 two-reduction shapes
(``sweeps/2026-11-30-h200-sweep-several.csv``).

**Prefetch** (``prefetch=True``: looped 16-bit kernels with small tiles, :mod:`..runtime.triton_heuristics`): each
iteration issues the next row tile's loads before it computes and stores the current tile (:func:`prefetch_row_loop`,
a rewrite of the loop Inductor wrote), so each warp keeps a tile's loads in flight through its arithmetic.  A GELU
backward's 8-element-a-thread tile took 61-64 registers against 55-64 and ran 16-20% faster
(``sweeps/2026-11-30-h200-sweep-prefetch.csv``).  The persistent kernel (one row tile a program) has no loop.

**One program per row tile of a dynamic N** (``row_tile_grid=True``: flagged partials, N dynamic,
:mod:`..choices`): Inductor's persistent kernel needs N static (its tile is a constexpr from N), and its looped kernel
launches the config's constant ``RSPLIT``, so a loop that ran once kept an ``[XBLOCK, R0_BLOCK]`` accumulator live and
compiled to 128 registers where the persistent kernel of the same tile takes 48 (bf16[8192, 50257], sm_90a).  Here
the grid is ``ceil(N / R0_BLOCK)`` programs, computed at each launch
(:class:`..runtime.triton_heuristics.RowTileGrid`), the kernel takes ``RSPLIT`` from the grid
(``tl.num_programs(0)``), and its row loop, which then runs exactly once, is written as straight-line code
(:func:`one_program_per_row_tile`).  The flagged words are sized from N (``grow_semaphores`` takes an expression).
Each program's rows are one tile with no division by RSPLIT, its loads drop the ``evict_first`` hint (the persistent
kernel has none), and where N >= R0_BLOCK the last tile ends at row N, so no load or store is masked by row (the
masks took aligned 16-bit kernels from 53-70 registers to 111-121).

**The separate finish** (``separate_finish=True``: small sites, where the cost model predicts it faster, or
``SEPARATE_FINISH=1``; :mod:`..choices`): the kernel takes no ticket and no semaphores (the graph then runs no fill
for it): its finisher line is :data:`SEPARATE_FINISH_LINE`, false at run time, so every program only stores its
partials, and the kernel compiles as the ticketed one does (a constant ``False`` there took the finish code out and
changed the loop's registers and speed: the bf16 cast of fp16[8795, 134] took 7.4 µs against 6.3).  A second kernel
(:func:`finish_kernel_source`: the same source without the row loop and the partials stores, every program a
finisher, one program a column block on :class:`..runtime.triton_heuristics.FinishGrid`) is launched right after it
on the same arguments and combines the partials in the same order.  The two kernels cost less than the ticket and the
fill on sites of a few µs, and more past a few MB (:mod:`..fx_passes.profitability`).  Flagged partials, the row-tile
grid and the persistent kernel need the one kernel; with the separate finish a launch of one row tile a program loops
once.

The sum order is fixed by the workspace index, not by arrival, so results are bitwise reproducible, and the only
atomic is the ticket counter (none with flagged partials).  The launch is an ordinary one.  With the
``last_block_finish`` kwarg unset the class behaves exactly like ``TritonKernel``, so the flag-off code is identical
to stock.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import math
import re
import textwrap

import torch
import torch._inductor.config as inductor_config

from .. import _torch_private, select_algorithm
from .._torch_private import BENCHMARK_ARGS, CeilDiv, TritonKernel, TritonScheduling
from ..runtime.triton_heuristics import FinishGrid, RowTileGrid
from ..select_algorithm import (STOCK_LAUNCH, UNTIMED_MARGIN, candidates_to_time, describe,
                                fastest_candidate, first_pick, launch_candidate, recording_prediction)

log = logging.getLogger(__name__)

# the log's phrase for a kernel that takes the launch chosen for one alike earlier in its graph (benchmarks count it)
ALIKE_LOG = "launch candidates as timed for the same kernel earlier in this graph"

# Partials rows the last program combines per step of its finish loop (lab, 2026-11-30: 16 was as fast as 64 or
# faster on 7 of 8 shapes, with fewer registers; benchmarks/results/lab/2026-11-30-h200-lab-ticket.csv).
FINISH_CHUNK = 16
# How the finish combines a chunk of partials elementwise; Inductor's own tl.sum / max2 / min2 over the chunk
# follows.  Other reduction types (welford, argmax, ...) keep stock's peers load.
FINISH_COMBINE = {"sum": "{} + {}", "max": "triton_helpers.maximum({}, {})", "min": "triton_helpers.minimum({}, {})"}
# The flagged partials' finisher: the column block's last program in launch order (the interpreter's test harness
# looks for this line, to run such a finisher after its peers).
LAUNCH_ORDER_FINISHER = "rsplit_is_last = rsplit_id == RSPLIT - 1"
# The two-level flagged finish: the last program of each group of `size` programs in launch order combines the
# group's partials first, so the finisher combines ceil(RSPLIT / size) words a column instead of RSPLIT.
GROUP_FINISHER = "rsplit_is_group_last = (rsplit_id % {size} == {size} - 1) | rsplit_is_last"
_GROUP_FINISHER_SIZE = re.compile(re.escape(GROUP_FINISHER).replace(re.escape("{size}"), r"(\d+)"))
# How the group's last program reduces its [XBLOCK, FINISH_CHUNK] chunk along dim 1 (as Inductor reduces the peers)
FINISH_REDUCE = {"sum": "tl.sum({}, 1)", "max": "triton_helpers.max2({}, 1)", "min": "triton_helpers.min2({}, 1)"}
# Where a kernel with one program per row tile takes RSPLIT from its grid (after Inductor's constexprs from the
# config's RSPLIT, before its row split): the line it follows, and the line
PROGRAM_ID_LINE = "rsplit_id = tl.program_id(0)"
RSPLIT_FROM_GRID = "RSPLIT = tl.num_programs(0)  # one program per row tile: ceil(N / R0_BLOCK) (RowTileGrid)"
# Inductor's row chunk of a program, and what it is with one program per row tile: Inductor's is a runtime division
# by RSPLIT there (8 of the 64 registers of bf16[8192, 50257]'s kernel, sm_90a)
ROW_CHUNK_LINE = "rsplit_chunk = (num_rblocks + RSPLIT - 1) // RSPLIT * RBLOCK"
ONE_TILE_CHUNK_LINE = "rsplit_chunk = RBLOCK  # one program per row tile"
# The eviction hint Inductor gives a looped reduction's loads, which cache_hints drops from the row-tile grid's kernel
# (as the persistent kernel of a static N has none) and from looped kernels that move 120 MiB or more: with it the
# row-tile grid's kernel ran 7-13% slower on five of six shapes
# (benchmarks/results/profile/2026-12-01-h200-profile-kernels-run2.csv: f32[25229, 3067] 1.63x copy SOL against 1.43x,
# bf16[65536, 50257] 1.59x against 1.41x), and within 1% on the sixth
EVICT_FIRST = ", eviction_policy='evict_first'"
# The row-tile grid kernel with its last tile shifted to end at row N (one_program_per_row_tile, shift_last_tile):
# where its rows start, Inductor's row mask, and the mask of the rows that are the program's own
SHIFTED_OFFSET_LINE = ("r0_offset = tl.minimum(rsplit_start, rnumel - RBLOCK)  # N >= R0_BLOCK: the last tile ends at "
                       "row N")
ROW_MASK_LINE = "r0_mask = r0_index < r0_numel"
OWN_ROWS_MASK_LINE = "r0_mask = r0_index >= rsplit_start  # the rows before are the tile before's"
# The separate finish (``separate_finish=True``): the fused kernel decides that no program finishes, and the finish
# kernel (:func:`finish_kernel_source`) that its one program a column block does
SEPARATE_FINISH_LINE = ("rsplit_is_last = rsplit_id == RSPLIT  # never: the finish kernel combines the partials "
                        "(separate finish)")
FINISH_KERNEL_LINE = "rsplit_is_last = True  # the finish kernel: one program a column block, no rows"
# A program's partials store (stock's [C, RSPLIT] layout and the chunked [RSPLIT, C] one), which the finish kernel,
# whose one program a column block has rsplit_id 0, must not repeat over the fused kernel's row 0
_PARTIALS_STORE = re.compile(r"^\s*tl\.store\(\w+_ws \+ \(.*$\n", re.M)
# A looped reduction's accumulator update, Inductor's only use of the row mask besides loads and stores
_ACCUMULATE = re.compile(r"^(_tmp\d+) = tl\.where\([^,]*\br0_mask\b[^,]*, tmp\d+, \1\)$")


class ReductionTransposeTritonKernel(TritonKernel):
    """``TritonKernel`` whose cooperative reductions can finish in the last program (``last_block_finish=True``).

    Only valid when every reduction of the kernel is in one loop and nothing inside that loop reads a reduction
    result (the other programs never see the final value); :func:`reduction_transpose_fusion.choices` checks that
    before it sets the kwarg.  ``ordinary_launch=True`` launches a cooperative reduction as an ordinary grid; it is
    set for the last-program finish and for a grid-barrier kernel with ``RSPLIT`` 1, whose barrier is compiled out
    (``HAS_RSPLIT`` is false) and whose column blocks alone may be more programs than can be resident at once.
    ``chunked_finish=True`` (with the last-program finish only) stores sum, max and min partials ``[RSPLIT, C]`` and
    combines them in a loop inside the last program's branch (module docstring); ``flagged_partials=True`` (with
    ``chunked_finish`` only) makes the fp32 ones flagged words and drops the ticket.  ``row_tile_grid=True`` (with
    ``flagged_partials`` only, and only where every partial is a flagged fp32 one: :mod:`..choices` checks) launches
    one program per row tile of a dynamic N (module docstring).

    Raises:
        ValueError: if ``finish_group`` is not a multiple of :data:`FINISH_CHUNK`, or ``last_block_finish`` or
            ``ordinary_launch`` is set without ``override_cooperative_reduction``.
    """

    def __init__(self, *args, last_block_finish: bool = False, ordinary_launch: bool = False,
                 chunked_finish: bool = False, flagged_partials: bool = False, finish_group: int = 0,
                 prefetch: bool = False, row_tile_grid: bool = False, shift_last_tile: bool = False,
                 int32_sizes: bool = False, evict_first: bool = True, separate_finish: bool = False, **kwargs):
        self.separate_finish = separate_finish and last_block_finish
        self.prefetch = prefetch and not self.separate_finish  # the finish kernel drops the loop, not a prologue
        self.evict_first = evict_first
        self.last_block_finish = last_block_finish
        self.chunked_finish = chunked_finish and last_block_finish
        # flagged words live in the zero-filled semaphores buffer, which the separate finish exists to drop
        self.flagged_partials = flagged_partials and self.chunked_finish and not self.separate_finish
        self.row_tile_grid = row_tile_grid and self.flagged_partials
        self.shift_last_tile = shift_last_tile and self.row_tile_grid
        self.int32_sizes = int32_sizes and last_block_finish
        if finish_group % FINISH_CHUNK:
            raise ValueError(f"finish_group={finish_group} is not a multiple of FINISH_CHUNK={FINISH_CHUNK}")
        self.finish_group = finish_group
        self.ordinary_launch = ordinary_launch or last_block_finish
        self._finish_emitted = False
        self._flagged_combines = self._ticketed_combines = 0  # peers combines of each kind, in the one loop
        self._stock_combines = 0  # those of them that are Inductor's own (its peers load reads rsplit_mask)
        super().__init__(*args, **kwargs)
        if self.ordinary_launch and not self.cooperative_reduction:
            raise ValueError("last_block_finish and ordinary_launch need override_cooperative_reduction=True")

    def init_cooperative_reduction(self):
        super().init_cooperative_reduction()
        if self.separate_finish:  # no ticket: no semaphores, and no fill of them at each graph call
            _torch_private.drop_semaphores(self)
        elif self.last_block_finish:  # Inductor's grid barriers may leave their semaphores at 0x80000000
            _torch_private.use_own_semaphores(self)
        # every partials row starts 16-byte aligned, whatever the dtypes of the rows before it
        self.cooperative_reduction_workspace_cache = _torch_private.AlignedWorkspaceCache(self.args)

    def init_cooperative_reduction_mask(self):
        if not self.last_block_finish:
            return super().init_cooperative_reduction_mask()
        # rsplit_arange and rsplit_mask come with the ticket (_ticket_code), and only for Inductor's own peers load:
        # the [XBLOCK, RSPLIT] mask of a one-tile launch with thousands of programs a column block would exceed
        # Triton's 2**20 elements a tensor (found by a review, 2026-11-30)

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
        if self.separate_finish:
            decide = [SEPARATE_FINISH_LINE]
        elif self._flagged_combines and not self._ticketed_combines:
            decide = [f"{LAUNCH_ORDER_FINISHER}  # the column block's last program in launch order"]
        else:
            decide = [
                "tl.debug_barrier()  # every thread's partials are stored before the ticket is taken",
                f'rsplit_ticket = tl.atomic_add({sem}, 1, sem="acq_rel")',
                "rsplit_is_last = rsplit_ticket == RSPLIT - 1",
                "if rsplit_is_last:",
                f'    tl.atomic_xchg({sem}, 0, sem="relaxed")  # leave the semaphore zeroed',
                "tl.debug_barrier()  # the other threads read the partials after the acquire",
            ]
        if self._stock_combines:  # Inductor's own peers load reads these
            xmask = "" if self._has_constant_xmask() else " & xmask"
            arange = "tl.arange(0, RSPLIT_NEXT_POWER_OF_2)" + ("" if self.no_x_dim else "[None, :]")
            decide += [f"rsplit_arange = {arange}", f"rsplit_mask = (rsplit_arange < RSPLIT) & rsplit_is_last{xmask}"]
        lines = ["if HAS_RSPLIT:", *(f"    {line}" for line in decide), "else:", "    rsplit_is_last = True"]
        return "\n".join(lines) + "\n"

    def reduction(self, dtype, src_dtype, reduction_type, value):
        self._reduction_type = reduction_type  # read by the peers combine below, which Inductor calls without it
        return super().reduction(dtype, src_dtype, reduction_type, value)

    def codegen_cooperative_reduction_peer_combine(self, result_var, dtype, default_val):
        """With ``chunked_finish``, store this program's partials to a ``[RSPLIT, C]`` workspace and, in the last
        program only, combine all of them ``FINISH_CHUNK`` at a time into an ``[XBLOCK, FINISH_CHUNK]`` tile, which is
        returned (Inductor reduces it along dim 1).  Stock's version (``triton.py:4520``) otherwise."""
        combine = FINISH_COMBINE.get(getattr(self, "_reduction_type", None))
        if not self.chunked_finish or combine is None or self.no_x_dim:
            self._check_constant_rsplit(dtype)
            self._ticketed_combines += 1
            self._stock_combines += 1
            return super().codegen_cooperative_reduction_peer_combine(result_var, dtype, default_val)
        if self.flagged_partials and dtype == torch.float32:
            return self._flagged_peer_combine(result_var, combine, default_val)
        self._check_constant_rsplit(dtype)
        self._ticketed_combines += 1
        nbytes = self.numels["x"] * dtype.itemsize * self.max_rsplit()
        ws_name, ws_offset = self.cooperative_reduction_workspace_cache.allocate(nbytes)
        ws, dtype_str = f"{result_var}_ws", _torch_private.triton_type(dtype)
        default = _torch_private.constant_repr(default_val)
        store_mask, load_mask = ("", "") if self._has_constant_xmask() else (", xmask", " & xmask")
        self.post_loop_combine.splice(
            f"""\
            {ws} = ({ws_name} + {self.index_to_str(ws_offset)}).to(tl.pointer_type({dtype_str}))
            tl.store({ws} + (rsplit_id * xnumel + xindex), {result_var}{store_mask})
            """,
            strip=True,
        )
        peers = _torch_private.peers_var(self, f"{result_var}_peers", dtype, ["XBLOCK", str(FINISH_CHUNK)])
        chunk = f"{result_var}_chunk"
        self.post_loop_store.splice(
            f"""\
            {peers} = tl.full([XBLOCK, {FINISH_CHUNK}], {default}, {dtype_str})
            if rsplit_is_last:
                for rsplit_k in tl.range(0, RSPLIT, {FINISH_CHUNK}):
                    rsplit_ks = rsplit_k + tl.arange(0, {FINISH_CHUNK})[None, :]
                    {chunk} = tl.load({ws} + (rsplit_ks * xnumel + xindex), (rsplit_ks < RSPLIT){load_mask}, eviction_policy='evict_first', other={default})
                    {peers} = {combine.format(peers, chunk)}
            """,
            strip=True,
        )
        return peers

    def _check_constant_rsplit(self, dtype) -> None:
        """Raise AssertionError if this kernel's RSPLIT comes from its grid: a workspace sized by the config's RSPLIT
        would be too small for a larger N.  :mod:`..choices` sets ``row_tile_grid`` only where every partial is
        flagged (one sum, max or min of fp32 partials)."""
        if self.row_tile_grid:
            raise AssertionError(f"row_tile_grid kernel has a {getattr(self, '_reduction_type', None)} partial of "
                                 f"{dtype} that is not a flagged word")

    def _flagged_peer_combine(self, result_var, combine: str, default_val):
        """Flagged partials (module docstring): this program's fp32 partials, encoded as nonzero int32 words, go to
        ``[RSPLIT, C]`` words of the semaphores buffer.  With ``finish_group`` set and below ``RSPLIT`` the finish is
        two-level: the last program of each group of ``finish_group`` (in launch order) combines its group's words into
        one word of ``[groups, C]`` further on, and the finisher combines those; else the finisher combines the
        ``RSPLIT`` words.  Each read spins on its chunk until no word is zero, and zeroes it again.  Returns the
        ``[XBLOCK, FINISH_CHUNK]`` combined tile, as the ticketed version does."""
        rsplit, size = self.max_rsplit(), self.finish_group
        groups = -(-rsplit // size) if size and rsplit > size else 0
        if self.row_tile_grid:  # RSPLIT is N's row tiles (two levels or one as at N's hint): words sized from N
            programs = CeilDiv(self.numels["r0_"], self.fixed_config["R0_BLOCK"])
            words = _torch_private.grow_semaphores(
                self, (programs + (CeilDiv(programs, size) if groups else 0)) * self.numels["x"])
            groups = f"(RSPLIT + {size - 1}) // {size}" if groups else 0
        else:
            words = _torch_private.grow_semaphores(self, (rsplit + groups) * self.numels["x"])
        self._flagged_combines += 1
        ws, word, chunk = f"{result_var}_words", f"{result_var}_word", f"{result_var}_chunk"
        default = _torch_private.constant_repr(default_val)
        store_mask, load_mask = ("", "") if self._has_constant_xmask() else (", xmask", " & xmask")
        self.post_loop_combine.splice(
            f"""\
            {ws} = ({self.semaphores_name} + {self.index_to_str(words)}).to(tl.pointer_type(tl.int32))
            {word} = {_encode(result_var)}
            tl.store({ws} + (rsplit_id * xnumel + xindex), {word}{store_mask})
            """,
            strip=True,
        )
        peers = _torch_private.peers_var(self, f"{result_var}_peers", torch.float32, ["XBLOCK", str(FINISH_CHUNK)])
        read = functools.partial(_read_flagged_chunk, ws, chunk, f"{result_var}_peer_words", default, load_mask)
        if groups:
            group = f"{result_var}_group"
            self.post_loop_store.splice(
                f"""\
                {GROUP_FINISHER.format(size=size)}  # the group's last program in launch order
                if rsplit_is_group_last:
                    {group} = tl.full([XBLOCK, {FINISH_CHUNK}], {default}, tl.float32)
                    for rsplit_k in tl.range(rsplit_id // {size} * {size}, rsplit_id // {size} * {size} + {size}, {FINISH_CHUNK}):
                        rsplit_ks = rsplit_k + tl.arange(0, {FINISH_CHUNK})[None, :]
                        {read("rsplit_ks", "RSPLIT", indent=24)}
                        {group} = {combine.format(group, chunk)}
                    {group} = {FINISH_REDUCE[self._reduction_type].format(group)}[:, None]
                    tl.store({ws} + ((RSPLIT + rsplit_id // {size}) * xnumel + xindex), {_encode(group)}{store_mask})
                """,
                strip=True,
            )
        rows, count = ("RSPLIT + rsplit_ks", groups) if groups else ("rsplit_ks", "RSPLIT")
        self.post_loop_store.splice(
            f"""\
            {peers} = tl.full([XBLOCK, {FINISH_CHUNK}], {default}, tl.float32)
            if rsplit_is_last:
                for rsplit_k in tl.range(0, {count}, {FINISH_CHUNK}):
                    rsplit_ks = rsplit_k + tl.arange(0, {FINISH_CHUNK})[None, :]
                    {read(rows, count)}
                    {peers} = {combine.format(peers, chunk)}
            """,
            strip=True,
        )
        return peers

    def _get_grid_type(self):
        return RowTileGrid if self.row_tile_grid else super()._get_grid_type()

    def codegen_kernel(self, name=None):
        # scheduler imports fx_passes, which import this module
        from ..scheduler import TUNED_LOG, origins, tuned_by_coordinate_descent

        nodes = self.features.scheduler_nodes()
        tuned = tuned_by_coordinate_descent(nodes)
        if tuned:
            reductions = sorted({o.name for n in nodes if n.is_reduction() for o in origins(n)})
            log.info("%s: Inductor's own reduction stores transposed: %s at its first call",
                     ", ".join(reductions) or "a reduction", TUNED_LOG)
        with inductor_config.patch(coordinate_descent_tuning=True) if tuned else contextlib.nullcontext():
            src = super().codegen_kernel(name)
        if tuned:  # the walk's config checked against its start (scheduler.keep_faster_tuning)
            src = _torch_private.check_tuning_of(src)
        if self.ordinary_launch:
            src = _torch_private.drop_cooperative_launch(src)
        if self.int32_sizes and self.index_dtype == "tl.int32":
            src = int32_size_args(src)
        if self.last_block_finish and not self.evict_first:
            src = cache_hints(src)
        if self.row_tile_grid:
            # an in-place buffer read back in rows a program shares with the one before would be read half-written
            shift = self.shift_last_tile and not self.mutations and not self.args.inplace_buffers
            src = one_program_per_row_tile(src, shift_last_tile=shift)
        if self.prefetch and _torch_private.ROW_LOOP in src:  # a persistent kernel (one row tile) has no loop
            prefetched = prefetch_row_loop(src)
            if prefetched is None:
                log.info("%s: row loop not prefetched: its body is not index lines, then loads of them, then no "
                         "load", name or "kernel")
            src = prefetched or src
        return src

    def call_kernel(self, name, node=None, deallocate_ws=True):
        """Stock's call, then with the separate finish the finish kernel's (named by the scheduling's
        ``define_kernel``) on the same arguments, the workspaces alive across both."""
        if not self.separate_finish:
            return super().call_kernel(name, node, deallocate_ws)
        super().call_kernel(name, node, deallocate_ws=False)
        _torch_private.call_again(self, self.finish_kernel_name)
        if deallocate_ws:
            self.deallocate_workspaces()


def finish_kernel_source(source: str) -> str:
    """The finish kernel of a fused kernel with the separate finish (``source``, whose programs only store their
    partials): the same source with no row loop, no partials store, every program a finisher
    (:data:`FINISH_KERNEL_LINE`) and :class:`..runtime.triton_heuristics.FinishGrid`'s one program a column block.
    Its arguments are the fused kernel's, so one call line serves both; it reads only the partials workspace and
    writes only the reduction results (and whatever Inductor computes from them after the finish).

    Raises:
        AssertionError: if ``source`` is not a looped kernel with the separate finish and at least one partials store
            (Inductor changed how it writes them).
    """
    loop = _row_loop(source)
    if loop is None or source.count(SEPARATE_FINISH_LINE) != 1 or source.count(_COOPERATIVE_GRID) != 1:
        raise AssertionError("not a looped kernel with the separate finish")
    before, _, _, after = loop
    finish, stores = _PARTIALS_STORE.subn("", before.rstrip(" ") + "\n".join(after))
    if not stores:
        raise AssertionError("no partials store in the kernel with the separate finish")
    return finish.replace(SEPARATE_FINISH_LINE, FINISH_KERNEL_LINE).replace(_COOPERATIVE_GRID, _FINISH_GRID)


def with_finish_kernel(benchmark_source: str) -> str:
    """A candidate's benchmark module (``_torch_private.candidate_kernel_source``: kernel ``triton_``, then
    ``get_args()`` and ``call(args)``) of a kernel with the separate finish, with its finish kernel added as
    ``triton_finish_`` and launched by ``call`` right after ``triton_`` on the same arguments, so that the candidate is
    timed as it runs: both kernels, one after the other.

    Raises:
        AssertionError: as :func:`finish_kernel_source`, or if the module does not launch ``triton_`` once.
    """
    finish = finish_kernel_source(benchmark_source)
    kernel = finish[finish.index("@triton_heuristics."):finish.index(BENCHMARK_ARGS)]
    source, launches = _BENCHMARK_LAUNCH.subn(
        lambda m: f"{m.group(0)}\n{m.group(1)}triton_finish_.run(*args, stream={m.group(2)})", benchmark_source)
    if launches != 1:
        raise AssertionError(f"expected one launch of triton_ in the benchmark module, found {launches}")
    return source.replace(BENCHMARK_ARGS, "\n" + kernel.replace("def triton_(", "def triton_finish_(", 1)
                          + BENCHMARK_ARGS, 1)


# the benchmark module's one launch (Inductor's codegen_kernel with benchmark_kernel=True; its arguments come at
# BENCHMARK_ARGS), on its stream: ``stream0`` in torch 2.11, ``raw_stream0`` in 2.15
_BENCHMARK_LAUNCH = re.compile(r"^( +)triton_\.run\(\*args, stream=(\w+)\)$", re.M)


# how the kernel's source names its grid (TritonKernel.inductor_meta, printed as a dict), and the finish kernel's
_COOPERATIVE_GRID = "'grid_type': 'CooperativeReductionGrid'"
_FINISH_GRID = f"'grid_type': '{FinishGrid.__name__}'"


def one_program_per_row_tile(source: str, shift_last_tile: bool = False) -> str:
    """``source`` (a looped cooperative kernel) for a grid of one program per row tile (:class:`RowTileGrid`): RSPLIT
    taken from the grid, so each program's row chunk is one ``R0_BLOCK`` tile (:data:`ONE_TILE_CHUNK_LINE`), the row
    loop, which then runs once, written as straight-line code (``r0_offset = rsplit_start`` and its body).  Its loads
    lose Inductor's ``evict_first`` hint in :func:`cache_hints`, as the launch says (``LaunchConfig.evict_first`` is
    False for the row-tile grid).

    ``shift_last_tile`` (N >= R0_BLOCK, guarded by :mod:`..choices`): the last program's tile is rows
    ``[N - R0_BLOCK, N)``, so that every program reads and writes a whole tile and no load or store needs the row mask
    (:func:`_shift_last_tile`); where the body uses the row mask otherwise, it is left as it is.

    Raises:
        AssertionError: if the source does not hold the program-id line and the row loop exactly once each (Inductor
            changed how it writes them); a kernel launched so with its loop or constant RSPLIT kept would be wrong.
    """
    for line in (PROGRAM_ID_LINE, ROW_CHUNK_LINE, _torch_private.ROW_LOOP):
        if source.count(line) != 1:
            raise AssertionError(f"expected {line!r} once in the kernel source, found it {source.count(line)} times")
    source = re.sub(r"^( *)" + re.escape(PROGRAM_ID_LINE) + r"\n",
                    lambda m: f"{m.group(0)}{m.group(1)}{RSPLIT_FROM_GRID}\n", source, count=1, flags=re.M)
    source = source.replace(ROW_CHUNK_LINE, ONE_TILE_CHUNK_LINE)
    before, indent, stmts, after = _row_loop(source)
    once = f"{indent}r0_offset = rsplit_start  # the row loop runs once: RSPLIT is the row tiles\n"
    shifted = _shift_last_tile(stmts) if shift_last_tile else None
    if shifted is not None:
        once, stmts = f"{indent}{SHIFTED_OFFSET_LINE}\n", shifted
    elif shift_last_tile:
        log.info("row-tile grid kernel keeps its row mask: its body uses the mask other than in loads, stores and "
                 "reduction accumulators")
    return before + once + "\n".join([f"{indent}{stmt}" if stmt else "" for stmt in stmts] + after)


def _shift_last_tile(stmts: list[str]) -> list[str] | None:
    """The straight-line row body ``stmts`` of a row-tile grid kernel with its last tile shifted to end at row N
    (:data:`SHIFTED_OFFSET_LINE` takes the place of ``r0_offset = rsplit_start``), or None where the body uses the
    row mask other than to mask a load or store or to update a reduction's accumulator.

    The row mask becomes the program's own rows (:data:`OWN_ROWS_MASK_LINE`): rows below ``rsplit_start`` are the
    tile before's, which the accumulators leave out; loads and stores lose it (``xmask`` in its place; it is constant
    true where C is a multiple of XBLOCK, and Triton drops a constant mask), so the rows they share with the tile before
    are read, and written with the same values, twice.  Why: the masks of a dynamic N's last partial tile cost the
    aligned bf16[32768, 14336] kernel 115 registers against 53 without them (sm_90a, ptxas on CPU)."""
    if stmts.count(ROW_MASK_LINE) != 1:
        return None
    out = []
    for stmt in stmts:
        if stmt == ROW_MASK_LINE:
            out.append(OWN_ROWS_MASK_LINE)
        elif "tl.load(" in stmt or "tl.store(" in stmt:
            out.append(re.sub(r"\br0_mask\b", "xmask", stmt.replace("r0_mask & xmask", "xmask")))
        elif "r0_mask" in stmt and not _ACCUMULATE.match(stmt):
            return None
        else:
            out.append(stmt)
    return out


def int32_size_args(source: str) -> str:
    """``source`` with its size arguments (``ks0``, ``ks1``, ...: dynamic sizes, which Inductor passes as int64
    whatever the kernel's index dtype, ``triton_utils.signature_to_meta``) cast to int32 first thing in the kernel.

    Only for a kernel whose index dtype Inductor chose as int32: it guarded then that the kernel's numel and every
    buffer's size fit in int32 (``SIMDScheduling.can_use_32bit_indexing``), so each size and each index built of them
    does; and only where the launch asks (``LaunchConfig.int32_sizes``: several reductions off the wide path, where it
    was measured faster).  Why: with the int64 sizes the looped one-wave kernels of LayerNorm backward with N dynamic
    ran 13-21% slower than with N static, the same source but for N's two arguments (f32[32768, 4096]: 0.501 ms
    against 0.419 ms; with the cast 0.417 ms; Nsight Compute: 67% of DRAM bandwidth against 80%, with the same
    registers; benchmarks/results/profile/2026-12-01-h200-profile-kernels-run1.csv and -ncu-run1-details.csv)."""
    m = re.search(r"^def [\w.]+\((.*)\):\n", source, re.M)
    if m is None:
        raise AssertionError("no kernel definition line in the kernel source")
    names = re.findall(r"\bks\d+\b", m.group(1))
    lines = "".join(f"    {n} = {n}.to(tl.int32)  # an int32 kernel (int32_size_args)\n" for n in names)
    return source[:m.end()] + lines + source[m.end():]


_INPUT_LOAD = re.compile(r"\btl\.load\(in_(?:out_)?ptr\d+ ")


def cache_hints(source: str) -> str:
    """``source`` with the ``evict_first`` hint (:data:`EVICT_FIRST`) dropped from its loads of inputs (``in_ptr*``,
    and ``in_out_ptr*``, an input Inductor overwrites in place): the rule at ``runtime/triton_heuristics.py``'s
    ``NO_EVICT_FIRST_MIN_MOVED_BYTES``.  The partials' loads keep Inductor's hints."""
    return "\n".join(line.replace(EVICT_FIRST, "") if _INPUT_LOAD.search(line) else line
                     for line in source.split("\n"))


def finish_group_of(source: str) -> int:
    """Programs a group of the two-level flagged finish in a generated kernel's ``source`` (0: none)."""
    m = _GROUP_FINISHER_SIZE.search(source)
    return int(m.group(1)) if m else 0


def _encode(value: str) -> str:
    """Triton expression: the fp32 ``value`` as an int32 word that is never 0 (bits + 1, NaN made 0x7FFFFFFF first)."""
    return f"tl.where({value} != {value}, 0x7FFFFFFF, {value}.to(tl.int32, bitcast=True)) + 1"


def _read_flagged_chunk(ws: str, chunk: str, words: str, default: str, load_mask: str, rows: str, count,
                        indent: int = 20) -> str:
    """Triton lines: load the flagged words of partials rows ``rows`` (an ``[1, FINISH_CHUNK]`` index expression,
    masked by ``rsplit_ks < count``) until none is 0, decode them into ``chunk`` and zero them again.  The loads are
    ``volatile`` (past the L1), and ``words`` is not the store's name: a loop-carried name keeps one shape.  Lines
    after the first are indented ``indent`` spaces, the column of the placeholder in the caller's template."""
    at = f"{ws} + (({rows}) * xnumel + xindex)"
    return textwrap.dedent(f"""\
        rsplit_kmask = (rsplit_ks < {count}){load_mask}
        {words} = tl.load({at}, rsplit_kmask, other=1, volatile=True)
        while tl.min(({words} != 0).to(tl.int32)) == 0:  # a peer's partials are not visible yet
            {words} = tl.load({at}, rsplit_kmask, other=1, volatile=True)
        {chunk} = tl.where(rsplit_kmask, ({words} - 1).to(tl.float32, bitcast=True), {default})
        tl.store({at}, tl.zeros([XBLOCK, {FINISH_CHUNK}], tl.int32), rsplit_kmask)""").strip().replace("\n", "\n" + " " * indent)


_ROW_LOOP_LINE = re.compile(r"^( *)" + re.escape(_torch_private.ROW_LOOP) + r"\n", re.M)
_ASSIGN = re.compile(r"^(\w+) = (.*)$")
_LOAD = re.compile(r"^(tmp\d+) = tl\.load\(")


def prefetch_row_loop(source: str) -> str | None:
    """``source`` with its row loop prefetching in registers (module docstring), or None where the loop body is not
    index lines (``name = expr``), then loads (``tmpN = tl.load(...)``, of index lines and arguments only), then the
    rest with no load and no new value for a name the loads read: an indirect load, a load Inductor placed after some
    compute, or a block pointer that the loop advances is left alone.

    Each iteration first issues the next row tile's loads (``tmpN_next``, from index lines recomputed for
    ``r0_offset_next``, every name suffixed ``_next``) and then computes and stores the tile loaded one iteration
    before.  The last iteration loads its own tile again, and an empty row chunk loads tile 0, so no load reaches
    rows the unprefetched loop would not read (and none is out of bounds where the row mask is constant)."""
    loop = _row_loop(source)
    if loop is None:
        return None
    before, indent, stmts, after = loop
    inner = indent + "    "
    first = next((i for i, stmt in enumerate(stmts) if _LOAD.match(stmt)), len(stmts))
    last = next((i for i in range(first, len(stmts)) if not _LOAD.match(stmts[i])), len(stmts))
    pre, loads, rest = stmts[:first], stmts[first:last], stmts[last:]
    if not loads or not all(_ASSIGN.match(stmt) and "tl.load" not in stmt for stmt in pre):
        return None
    # a load of a name the rest of the body reassigns (a block pointer moved by tl.advance) would read a stale tile
    carried = {assign.group(1) for stmt in rest if (assign := re.match(r"\s*(\w+) = ", stmt))}
    read = {name for stmt in loads for name in re.findall(r"\b\w+\b", _ASSIGN.match(stmt).group(2))}
    if any("tl.load" in stmt for stmt in rest) or read & carried or any(re.fullmatch(r"tmp\d+", n) for n in read):
        return None  # a load after compute, a stale one, or an indirect one
    names = ["r0_offset", *(_ASSIGN.match(stmt).group(1) for stmt in pre)]
    shift = functools.partial(re.compile(r"\b(" + "|".join(names) + r")\b").sub, r"\1_next")
    targets = [_LOAD.match(stmt).group(1) for stmt in loads]
    issue_next = [*map(shift, pre), *(shift(stmt).replace(" = ", "_next = ", 1) for stmt in loads)]
    prologue = [
        "r0_offset_last = rsplit_start + (rsplit_end - rsplit_start - 1) // R0_BLOCK * R0_BLOCK",
        "r0_offset_next = tl.where(rsplit_start < rsplit_end, rsplit_start, 0)  # an empty chunk loads tile 0",
        *issue_next,
    ]
    body = [
        *pre, *(f"{t} = {t}_next" for t in targets),
        "r0_offset_next = tl.minimum(r0_offset + R0_BLOCK, r0_offset_last)  # the last tile loads itself again",
        *issue_next, *rest,
    ]
    loop = "".join(f"{indent}{stmt}\n" for stmt in prologue) + f"{indent}{_torch_private.ROW_LOOP}\n"
    loop += "".join(f"{inner}{stmt}\n" for stmt in body)
    return before + loop + "\n".join(after)


def _row_loop(source: str) -> tuple[str, str, list[str], list[str]] | None:
    """The row loop of a generated kernel (``_torch_private.ROW_LOOP``) split into (the source before it, its
    indent, its body's statements without the loop's indent, the lines after it), or None where there is none.  Blank
    lines after the loop are not its body."""
    m = _ROW_LOOP_LINE.search(source)
    if not m:
        return None
    indent, tail = m.group(1), source[m.end():].split("\n")
    inner = indent + "    "
    count = next((i for i, line in enumerate(tail) if line.strip() and not line.startswith(inner)), len(tail))
    while count and not tail[count - 1].strip():
        count -= 1
    return source[:m.start()], indent, [line[len(inner):] for line in tail[:count]], tail[count:]


class ReductionTransposeTritonScheduling(TritonScheduling):
    """``TritonScheduling`` that builds :class:`ReductionTransposeTritonKernel` (``kernel_type``, ``triton.py:6039``)
    and emits a fused site's kernel with the fastest of its launch candidates, timed at compile time."""

    kernel_type = ReductionTransposeTritonKernel

    def codegen_node_schedule(self, kernel_features):
        """Stock's, but for a kernel holding a marked site, compiled with ``reduction_transpose_fusion_autotune`` on,
        static shapes, no expert launch override and a GPU: each of the launch candidates
        (its dtype class's, :data:`..select_algorithm.CANDIDATES_BY_DTYPE`, the narrow-C tile only where C is narrow;
        ``MAX_AUTOTUNE_CANDIDATES`` under ``max_autotune``)
        is generated, the baseline and those the cost model ranks first (all under ``max_autotune``;
        :meth:`_fastest`) are timed on random inputs by CUDA-graph replay (:mod:`..runtime.benchmarking`; Inductor's
        benchmarker where the capture fails), and the kernel is emitted with
        :func:`..select_algorithm.fastest_candidate`'s choice.  The choice is logged; the emitted source (and
        so the FX-graph cache entry) holds it, so a cached graph always runs the same launch and gives the same bits."""
        candidates, alone = self._launch_candidates(kernel_features)
        if len(candidates) < 2:
            return super().codegen_node_schedule(kernel_features)
        with launch_candidate(self._fastest(kernel_features, candidates, alone)):
            return super().codegen_node_schedule(kernel_features)

    def define_kernel(self, src_code, node_schedule, kernel):
        """Stock's, and for a kernel with the separate finish its finish kernel too (:func:`finish_kernel_source`),
        whose name the kernel's ``call_kernel`` calls after its own."""
        name = super().define_kernel(src_code, node_schedule, kernel)
        if getattr(kernel, "separate_finish", False):
            kernel.finish_kernel_name = super().define_kernel(finish_kernel_source(src_code), node_schedule, kernel)
            _torch_private.count_generated_kernel()
        return name

    def _launch_candidates(self, features) -> tuple[tuple[dict[str, int], ...], bool]:
        """(the kernel's launch candidates, none where they are not timed; whether its reductions run without their
        transposed copies).  The ranking and the class tables were fit to kernels that hold their copies; a reduction
        that Inductor kept apart from its copy is outside that data (in the ViT-B/16 step the qkv bias gradient's one
        wave was priced 1.5x slower than the rules' launch and timed 1.33x faster: results/2026-12-04-h200-models.csv
        against 2026-12-05-h200-models-vit.csv), so it takes every class's candidates, all timed (:meth:`_fastest`)."""
        from .. import config  # config imports this module
        from ..choices import holds_copy, launch_candidates  # choices imports this module
        from ..scheduler import sites_in

        sites = sites_in(features.scheduler_nodes())
        if not (sites and config.enabled()):
            return (), False
        names = ", ".join(sorted({s.reduction for s in sites}))
        timed = config.autotune()
        alone = not holds_copy(features, sites)
        why = ("an expert launch override is set" if config.launch_override() else
               # Inductor's deterministic mode bans benchmarking (and a timed launch is a timed summation order)
               "Inductor's deterministic mode is on" if inductor_config.deterministic else
               # the candidates' split launches finish by an atomic ticket: the column tile or Inductor's own only
               "torch.use_deterministic_algorithms(True)" if torch.are_deterministic_algorithms_enabled() else
               "the shapes are dynamic (a launch timed at one size hint)" if not (
                   features.numel.is_number and features.reduction_numel.is_number) else
               "no GPU to time them on" if timed and not _torch_private.real_gpu_present() else
               # the first pick, untimed, only where the ranking was fit
               "its reductions run without their copies, outside the ranking's data" if alone and not timed else None)
        if why:
            log.debug("%s: launch candidates not %s: %s; the rules' launch", names, "timed" if timed else "ranked", why)
            return (), False
        # untimed (autotune off), the default candidates only: the wider space differs in warps, which the ranking
        # does not price
        wide = inductor_config.max_autotune and timed
        return launch_candidates(features, sites, wide=wide, every_class=alone), alone

    def _fastest(self, features, candidates, alone: bool) -> dict[str, int]:
        """The candidate to emit: each is generated (its predicted µs recorded by ``choices``), those that come out
        the same source are one, and of those the baseline and the ones the cost model ranks first are timed
        (:func:`..select_algorithm.candidates_to_time`, as many as ``reduction_transpose_fusion_timed_candidates``
        asks and those priced within ``TIMED_BAND`` of the first; all where it is -1, under ``max_autotune`` and
        where the kernel's reductions run without their copies, ``alone``)."""
        from .. import config  # config imports this module
        from ..scheduler import sites_in

        nodes = [n.get_name() for n in features.scheduler_nodes()]
        sites = sites_in(features.scheduler_nodes())
        names = ", ".join(sorted({s.reduction for s in sites}))
        baseline = STOCK_LAUNCH if stock_emits_it_unsplit(sites) else {}
        generated: list[tuple[dict[str, int], str]] = []
        predicted: dict[str, float | None] = {}  # by source: candidates alike are one
        with _torch_private.same_workspace_names():
            for candidate in candidates:
                try:
                    with launch_candidate(candidate), _quiet(_DECISION_LOGS), recording_prediction() as us:
                        source = _torch_private.candidate_kernel_source(self, features)
                except Exception as e:  # noqa: BLE001  a launch the rules refuse for this site (a workspace bound, ...)
                    log.debug("%s: launch candidate %s not generated: %s", names, candidate, e)
                    continue
                generated.append((candidate, source))
                price = us[-1] if us else None
                if isinstance(price, Exception):  # logged here: the candidate's own logs are quiet
                    log.debug("%s: launch candidate %s not priced (%s): timed", names, describe(candidate), price)
                    price = None
                predicted.setdefault(source, price)
            if not config.autotune():
                return _first_pick(names, generated, predicted)
            sources = list(predicted)
            base = next((sources.index(src) for c, src in generated if c == baseline), None)
            count = config.timed_candidates()  # select_algorithm.TIMED_CANDIDATES by default
            wide = inductor_config.max_autotune or alone or count < 0  # every candidate timed
            to_time = candidates_to_time(list(predicted.values()), base, len(sources) if wide else count,
                                         math.inf if wide else UNTIMED_MARGIN)
            # a kernel of the same candidates as one timed earlier in this graph (a model's repeated layers): its
            # choice, not a second compile and timing of them (and Inductor defines the two kernels once)
            chosen = _torch_private.graph_memo("launch choices")
            key = (describe(baseline), tuple((describe(c), src) for c, src in generated), tuple(to_time))
            if key in chosen:
                log.info("%s: %s; emitted %s", names, ALIKE_LOG, describe(chosen[key]))
                return dict(chosen[key])
            modules = {}  # the benchmark modules, named as the emitted kernel will be: its compile reuses theirs
            for i in to_time:
                with contextlib.suppress(Exception):  # one that cannot be built fails (alone) when it is timed
                    modules[i] = _torch_private.named_as_emitted(_benchmark_source(sources[i]),
                                                                 features.node_schedule)
            _torch_private.compile_kernel_sources(list(modules.values()))
            timed_ms = {}
            for i in to_time:
                candidate = next(c for c, src in generated if src == sources[i])
                # stock's own kernel as the baseline: at its best config, as its first-call tuning may pick
                stock_baseline = candidate == baseline == STOCK_LAUNCH
                timed_ms[sources[i]] = self._time(modules.get(i), sources[i], nodes, names, candidate,
                                                  every_config=stock_baseline)
        timed = [(c, timed_ms[src]) for c, src in generated if src in timed_ms]
        choice = fastest_candidate(timed, baseline)
        chosen[key] = dict(choice)
        log.info("%s: launch candidates timed at compile: %s; emitted %s%s%s%s", names,
                 "; ".join(_describe_timing(c, predicted[src], timed_ms.get(src)) for c, src in generated) or "none",
                 describe(choice),
                 " (stock emits this kernel unsplit: another launch must beat Inductor's own)" if baseline else "",
                 "" if timed_ms else f" (the model prices it fastest by {UNTIMED_MARGIN:.0%} or more: none timed)",
                 " (a reduction without its copy, outside the ranking's data: every candidate timed)" if alone and not
                 inductor_config.max_autotune else "")
        return choice

    def _time(self, module: str | None, source: str, nodes: list[str], names: str, candidate: dict[str, int],
              every_config: bool = False) -> float:
        """The candidate's ms timed with its benchmark ``module`` (None: built from ``source`` here, which raises
        what building it raises), or ``inf`` where timing it failed (out of memory for its random inputs, a CUDA
        error): a failed timing costs the site that candidate, never the compile.  ``every_config``: the fastest of
        the kernel's configs (``_torch_private.time_kernel_source``)."""
        try:
            module = module or _benchmark_source(source)
            return _torch_private.time_kernel_source(self, module, nodes, every_config=every_config)
        except Exception as e:  # noqa: BLE001
            log.info("%s: launch candidate %s not timed: %s", names, describe(candidate), e)
            if isinstance(e, torch.cuda.OutOfMemoryError):
                torch.cuda.empty_cache()
            return float("inf")


def _first_pick(names: str, generated: list[tuple[dict[str, int], str]], predicted: dict[str, float | None]
                ) -> dict[str, int]:
    """The candidate the cost model picks, untimed (``reduction_transpose_fusion_autotune`` off), of ``generated``
    (``[(candidate, source), ...]``, the rules' own first) priced by source in ``predicted`` (None: not priced, left
    out): :func:`..select_algorithm.first_pick`, the one priced fastest unless the rules' launch is priced within
    ``FIRST_PICK_MARGIN`` of it; the rules' launch (``{}``) where none is priced.

    Why the model's pick and not the rules' launch: over the 401 kernels of 20 H200 random-site seeds whose rules'
    launch is known, each seed left out of the ranking's fit, it was within 5% of the fastest candidate on 87% (1.023x
    the fastest, geomean; 2 kernels over 1.5x) and the rules' launch on 67% (1.107x; 30 over 1.5x)
    (``results/2026-12-05-h200-launch-candidates.csv``; docs/launch.md, "The first pick keeps the rules' launch within
    7.5%")."""
    prices = [predicted.get(src) for _, src in generated]
    rules = next((i for i, (c, _) in enumerate(generated) if not c), None)
    pick = first_pick(prices, rules)
    choice = dict(generated[pick][0]) if pick is not None else {}
    fastest = first_pick(prices, rules, margin=0.0)
    kept = (f": {describe(generated[fastest][0])} priced less than {select_algorithm.FIRST_PICK_MARGIN:.1%} below it"
            if pick is not None and pick == rules != fastest else "")
    log.info("%s: launch candidates ranked, none timed (reduction_transpose_fusion_autotune is off): %s; emitted %s "
             "(the cost model's first pick%s)", names,
             "; ".join(_describe_timing(c, predicted[src], None) for c, src in generated), describe(choice), kept)
    return choice


def _benchmark_source(source: str) -> str:
    """The module a candidate is timed with: its benchmark module, and for the separate finish its finish kernel too,
    launched after it (:func:`with_finish_kernel`)."""
    return with_finish_kernel(source) if SEPARATE_FINISH_LINE in source else source


# The loggers of the launch decision, quiet while candidates are generated (the emitted kernel logs it once)
_DECISION_LOGS = ("reduction_transpose_fusion.choices", __name__)


@contextlib.contextmanager
def _quiet(names):
    loggers = [logging.getLogger(name) for name in names]
    before = [logger.disabled for logger in loggers]
    for logger in loggers:
        logger.disabled = True
    try:
        yield
    finally:
        for logger, was in zip(loggers, before):
            logger.disabled = was


def stock_emits_it_unsplit(sites) -> bool:
    """True if stock Inductor would emit each of ``sites``' reductions unsplit (a wide C; N <= 128 is left to stock
    before codegen), so its kernel already holds the transposed copy and :data:`..runtime.triton_heuristics.
    STOCK_LAUNCH` is stock's own kernel: the fused launch only changes its tile, and at a few µs the compile-time
    timer cannot tell a gain of a few % from noise (the bf16 cast of f32[76, 11868], random seed 914525693: the rules'
    launch timed 15.2 µs against stock's 15.3 µs and ran at 0.82x of stock)."""
    from ..fx_passes.reduction_transpose import stock_split_factor  # the pass imports this module's package

    return bool(sites) and all(s.hints is not None and stock_split_factor(s) == 1 for s in sites)


def _describe_timing(candidate: dict[str, int], predicted_us: float | None, ms: float | None) -> str:
    """"NAME 8.5 us (model 7.9)" for a timed candidate, "NAME not timed (model 9.1)" for one the model ranked out."""
    model = f" (model {predicted_us:.1f})" if predicted_us is not None else ""
    timing = f"{ms * 1e3:.1f} us" if ms is not None else "not timed"
    return f"{describe(candidate)} {timing}{model}"


__all__ = ["LAUNCH_ORDER_FINISHER", "ReductionTransposeTritonKernel", "ReductionTransposeTritonScheduling",
           "int32_size_args", "one_program_per_row_tile", "prefetch_row_loop", "cache_hints"]
