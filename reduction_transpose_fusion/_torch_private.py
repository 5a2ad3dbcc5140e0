"""Every touch of a private PyTorch surface, in one place.

Checked against torch 2.11.0 and 2.15.0, the ends of the supported range (``SUPPORTED_TORCH``);
:mod:`reduction_transpose_fusion` refuses to import outside it, because each item below is an unversioned internal
that has changed between releases.  The package has one code path: where 2.11 and 2.15 differ, a small function here
hides it, tells them apart by what the installed torch has (a parameter, an attribute, a function), never by its
version number, and says how they differ:

| difference (2.11.0 -> 2.15.0)                             | where                                                     |
|----------------------------------------------------------|-----------------------------------------------------------|
| ``_ConfigEntry(config)`` -> ``_ConfigEntry(config, name)``; | :func:`_new_config_entry`, :func:`_config_changed`      |
|   ``config._is_dirty`` -> per-thread context variables   |                                                           |
| ``symbolic_shapes.has_hint`` / ``size_hint`` removed     | :func:`has_size_hint`, :func:`size_hint`                  |
| ``InductorChoices.reduction_split_factor``: staticmethod | :func:`stock_reduction_split_factor` (``choices`` calls   |
|   -> instance method                                     |   it through ``super()``, which works for both)           |
| config values per thread, so ``inductor_choices_class``  | :func:`_install_default_choices` (2.15:                   |
|   set at import reaches only the importing thread        |   ``register_inductor_choices``), :func:`_configured_choices`|
| a handler made from several classes (the user's and the  | :func:`choices_hook_owner`, :func:`foreign_choices`       |
|   registered ones) calls each method of the first that   |   (2.11: one class, whose methods all answer)             |
|   overrides it                                           |                                                           |
| a configured or registered choices class must have       | ``ReductionTransposeChoices.uuid`` (2.11 never asks)      |
|   ``uuid()`` (cache key), or every cached compile fails  |                                                           |
| combo kernels: 2.15's memory-gated path skips the group  | :func:`filter_combo_kernel_groups` wraps                  |
|   algorithm; both pass candidates through ``combinable_nodes`` | ``combinable_nodes`` on both                        |
| ``statically_known_multiple_of`` tests ``Eq(e % k, 0)``   | :func:`is_multiple` (the guard is written as the test)    |
|   (sympy's Mod) -> ``Eq(Mod(e, k), 0)`` (torch's Mod)    |                                                           |
| loop-index inversion re-indexes a transposed copy of a   | :func:`keep_out_of_index_inversion` (on both: 2.11 never  |
|   pointwise result (F5's fp8 copy left the fused kernel) |   inverted a marked copy)                                 |
| ``GridExpr.generate(meta)`` -> ``generate(meta, is_lazy)`` | ``runtime.triton_heuristics.RowTileGrid`` takes it      |
| ``CachingAutotuner.autotune_to_one_config`` keeps every  | the configs recorded before it                            |
|   config's binary in ``compile_results`` -> only the     |   (:func:`record_autotuned_configs`), compiled again by   |
|   pick's (2.15, read from its source; not run on a       |   :func:`_config_launchers`                               |
|   GPU)                                                   |                                                           |

Inductor's generated source differs in one place the package does not write: 2.15 spells a max reduction's combine
``tl.maximum(a, b, tl.PropagateNan.ALL)`` where 2.11 writes ``triton_helpers.maximum(a, b)``; otherwise the fused
kernels of F1-F5 are the same text (``test/inductor/test_golden_sources.py``).  Triton 3.9's interpreter (tests only)
makes a block-and-scalar mask uint32; ``reduction_transpose_fusion_testing.interpret.boolean_masks`` takes it as bool.

| surface (torch 2.11.0; 2.15.0 the same unless above)    | why no public hook does it                                |
|----------------------------------------------------------|-----------------------------------------------------------|
| ``utils/_config_module.py`` ``_config``, ``_ConfigEntry`` | ``ConfigModule.__setattr__`` rejects unknown keys         |
| FX node meta ``inductor_realize_to_strides``             | Inductor inlines a pointwise value into every reader; the |
|                                                          |   hint is its only per-node "store this" (see             |
|                                                          |   :func:`realize_node`)                                   |
| ``_inductor/virtualized.py`` ``V.set_choices_handler``   | the choices handler is cached per thread; see             |
|                                                          |   :func:`active_choices`                                  |
| ``_inductor/codegen/common.py`` ``get_*_for_device``     | we wrap, not replace, the stock CUDA backend              |
| ``_inductor/codegen/triton.py`` ``FixedTritonConfig``    | the only way ``triton_kernel_kwargs`` can pin a launch    |
| ``simd_kernel_features`` ``Disable/EnableReduction``     | the markers that tell where a kernel's loop ends          |
| ``TritonKernel.post_loop_combine`` / ``post_loop_store`` / | the cooperative finish is emitted inside                |
|   ``cooperative_reduction_workspace_cache`` / ``body``   |   ``codegen_body``; see :func:`take_post_loop_code`       |
| ``'launch_cooperative_grid': True`` in the kernel source | set inside ``codegen_kernel`` with no hook; see           |
|                                                          |   :func:`drop_cooperative_launch`                         |
| ``codegen/common.py`` ``DeferredLine``                   | a guard line must vanish with the store it guards         |
| the row loop ``codegen_body`` writes (:data:`ROW_LOOP`:  | no hook reorders a loop's loads; the register prefetch    |
|   its header, then index lines, loads, compute, stores)  |   rewrites its text (``codegen.triton.prefetch_row_loop``)|
| ``codegen/triton.py`` ``CooperativeReductionWorkspaceCache`` | it packs partials rows of mixed dtypes unaligned; see |
|   (subclassed), ``TritonKernel.init_cooperative_reduction`` |   :class:`AlignedWorkspaceCache`                        |
| ``TritonKernel.codegen_cooperative_reduction_peer_combine`` | the workspace layout and the peers load are written     |
|   (overridden), ``create_cse_var``, ``simd.constant_repr``, |   inside it; see ``ReductionTransposeTritonKernel``      |
|   ``utils.triton_type``, ``ValueRanges.unknown``         |   and :func:`peers_var`                                   |
| ``KernelArgs.workspace_args`` (the ``sem_ptr`` entry)    | a semaphores buffer apart from the grid barrier's, and    |
|                                                          |   the flagged partials in it, or none (the separate       |
|                                                          |   finish); see :func:`use_own_semaphores`,                |
|                                                          |   :func:`grow_semaphores`, :func:`drop_semaphores`        |
|   and its name (``semaphores_rtf_…``)                    | the cpp wrapper's autotune block (``wrapper.py:3144``)    |
|                                                          |   takes any other prefix than ``semaphore`` or            |
|                                                          |   ``workspace`` for a graph buffer, and fails             |
| ``scheduler.py`` ``Scheduler.can_buffer_be_removed_``   | which buffers a fused kernel never stores, for the bytes  |
|   ``through_fusion``                                     |   it moves; see :func:`removed_by_fusion`                 |
| ``scheduler.py`` ``ForeachKernelSchedulerNode.group_``  | the combo kernels' grouping has a setter but no filter;   |
|   ``nodes_for_combo_kernels`` (wrapped)                  |   see :func:`filter_combo_kernel_groups`                  |
| ``ShapeEnv._maybe_evaluate_static.cache_clear``          | ``ShapeEnv.evaluate_expr`` records a guard as an axiom    |
|                                                          |   without clearing its cached static evaluations; see     |
|                                                          |   :func:`guard_true`                                      |
| ``_guards.py`` ``TracingContext.tensor_to_context`` and its | a guard that narrows a size range the user declared     |
|   ``constraint_sizes`` (``StrictMinMaxConstraint``)      |   fails the compile; see :func:`user_size_ranges`        |
| ``runtime/triton_heuristics.py`` ``GridExpr`` (subclassed) | ``GridExpr.from_meta`` looks a kernel's ``grid_type`` up  |
|   and that module's namespace                            |   by name in that module only; see                        |
|                                                          |   :func:`register_grid_type`                              |
| ``_logging/_internal.py`` ``register_log``               | ``torch._logging`` does not export it; it lists our log   |
|                                                          |   beside Inductor's (``TORCH_LOGS``, ``set_logs``)        |
| ``SIMDScheduling.get_tiling_and_scores`` / ``create_``   | timing launch candidates at compile time: the speculative |
|   ``kernel_choices`` / ``codegen_node_schedule_with_``   |   codegen of Inductor's fusion benchmarking, through      |
|   ``kernel``, ``Placeholder``, ``PyCodeCache``, ``Triton`` |   ``triton_kernel_kwargs``; see                         |
|   ``Scheduling.benchmark_codegened_module``, the bench- |   :func:`candidate_kernel_source`,                        |
|   mark module's ``get_args()`` / ``call(args)``,          |                                                           |
|   ``torch._C._cuda_getDeviceCount``, ``metrics.generated_`` |
|   ``kernel_count``, ``GraphLowering.workspace_id``       |   :func:`time_kernel_source`, :func:`real_gpu_present`    |
| ``TritonScheduling.define_kernel``'s naming (``get_``    | a timed candidate named as the emitted kernel, so that    |
|   ``fused_kernel_name``, ``get_kernel_category_by_``     |   Triton's cache serves the emitted kernel's compile;     |
|   ``source_code``, the wrapper's ``_names_iter``),       |   see :func:`named_as_emitted`                            |
|   ``TritonKernel.imports_for_benchmark_kernel``          |                                                           |
| ``dependencies.py`` ``MemoryDep`` (``index``,           | where a scheduler node's loads and stores run contiguous; |
|   ``var_names``, ``size``) of ``read_writes``            |   see :func:`contiguous_runs`                             |
| ``runtime/triton_heuristics.py`` ``CachingAutotuner``    | the launcher of a tuned reduction chosen by CUDA-graph    |
|   ``.coordinate_descent_tuning`` and ``.autotune_to_``   |   replay among the walk's start, its config and           |
|   ``one_config`` (wrapped), ``save_cache_hook``,         |   Inductor's other configs; see                           |
|   ``compile_results``, ``_precompile_config``, ``lock``, |   :func:`check_coordinate_descent`,                       |
|   ``deterministic_mode``, a launcher's call and its      |   :func:`record_autotuned_configs`                        |
|   ``config.found_by_coordesc``; the kernel source's      |                                                           |
|   ``inductor_meta`` dict                                 |                                                           |
| ``runtime/triton_heuristics.py`` ``CachingAutotuner``    | stock's own launch timed at each of its configs, not at   |
|   ``.configs`` / ``.launchers`` / ``.precompile()``      |   its first call's pick; see :func:`_each_config`         |
| ``V.graph`` as a graph's identity (the lowering's        | a launch chosen once for a graph's kernels alike, as      |
|   ``GraphLowering``, held weakly)                        |   Inductor defines them once; see :func:`graph_memo`      |
| ``runtime/compile_tasks.py`` ``_set_triton_ptxas_path``; | the timed candidates assembled by the compile workers'   |
|   triton's ``get_ptxas_version`` / ``CUDABackend.hash``  |   ptxas, so Triton's cache serves the emitted kernel's    |
|   caches (``triton/backends/nvidia/compiler.py``)        |   compile; see :func:`ptxas_as_the_workers`               |

Everything else the package uses is an extension point that Inductor documents for out-of-tree use:
``InductorChoices`` / ``config.inductor_choices_class``, ``register_backend_for_device`` and its
``device_custom_pass`` (a ``CustomGraphModulePass``; the CPU backend gets one too, which only checks the switches:
:func:`register_device_pass`), and ``TritonScheduling.kernel_type``.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import dataclasses
import inspect
import itertools
import logging
import math
import os
import re
import weakref
from typing import Any, Callable, Optional

import sympy
import torch
import torch._inductor.config as inductor_config
from torch._inductor import choices as inductor_choices_module, metrics as inductor_metrics
from torch._inductor.choices import InductorChoices
from torch._inductor.codegen import common as codegen_common
from torch._inductor.codecache import PyCodeCache
from torch._inductor.codegen.common import DeferredLine
from torch._inductor.codegen.simd import constant_repr
from torch._inductor.codegen.cuda_combined_scheduling import CUDACombinedScheduling
from torch._inductor.codegen.simd_kernel_features import DisableReduction, EnableReduction
from torch._inductor.scheduler import ForeachKernelSchedulerNode
from torch._inductor.sizevars import SizeVarAllocator
from torch._inductor.codegen.triton import (
    CooperativeReductionWorkspaceCache,
    FixedTritonConfig,
    TritonKernel,
    TritonScheduling,
)
from torch._inductor.runtime import triton_heuristics as inductor_triton_heuristics
from torch._inductor.runtime.triton_heuristics import GridExpr
from torch._inductor.utils import IndentedBuffer, Placeholder, triton_type
from torch._guards import TracingContext
from torch._inductor.virtualized import V
from torch.fx.experimental import symbolic_shapes
from torch.fx.experimental.symbolic_shapes import StrictMinMaxConstraint
from torch.utils._config_module import Config, _ConfigEntry
from torch.utils._ordered_set import OrderedSet
from torch.utils._sympy.functions import CeilDiv, Mod as TorchMod
from torch.utils._sympy.value_ranges import ValueRanges

from . import SUPPORTED_TORCH

log = logging.getLogger(__name__)

__all__ = [
    "AlignedWorkspaceCache",
    "BENCHMARK_ARGS",
    "CUDACombinedScheduling",
    "CeilDiv",
    "DisableReduction",
    "EnableReduction",
    "FixedTritonConfig",
    "GridExpr",
    "IndentedBuffer",
    "ROW_LOOP",
    "SUPPORTED_TORCH",
    "TritonKernel",
    "TritonScheduling",
    "V",
    "active_choices",
    "candidate_kernel_source",
    "choices_hook_owner",
    "constant_repr",
    "deferred_line",
    "drop_cooperative_launch",
    "filter_combo_kernel_groups",
    "foreign_choices",
    "grow_semaphores",
    "has_size_hint",
    "install_choices",
    "is_multiple",
    "contiguous_runs",
    "keep_out_of_index_inversion",
    "size_hint",
    "stock_reduction_split_factor",
    "register_config_entry",
    "register_cuda_backend",
    "register_device_pass",
    "graph_devices",
    "register_grid_type",
    "drop_semaphores",
    "call_again",
    "count_generated_kernel",
    "register_log",
    "peers_var",
    "real_gpu_present",
    "recording_kernel_bytes",
    "removed_by_fusion",
    "named_as_emitted",
    "same_workspace_names",
    "take_post_loop_code",
    "time_kernel_source",
    "triton_type",
    "use_own_semaphores",
]


def register_config_entry(name: str, default: Any, env_value: Any = None) -> None:
    """Add ``torch._inductor.config.<name>`` with ``default``, and ``env_value`` (not ``None``: the value of its
    environment variable, parsed by ``config``) as the entry's environment default.

    The entry then works with ``config.patch``, ``torch.compile(options=...)`` and joins the FX-graph and
    AOTAutograd cache keys (both hash ``config.save_config_portable()``, which walks ``_config``).

    The entry's type is ``object``: ``torch.compile(options=...)`` checks ``isinstance(value, config.get_type(name))``
    (``torch/__init__.py:2450``) with its own message, and would refuse ``1`` for a bool switch; with ``object`` every
    value reaches the package's own check (``config.validate``), one message whatever way it was set.

    ``_ConfigEntry`` only parses bool and str environment variables (``_config_module.py:326``), so the package
    parses them and stores the value as the entry's environment default, which has the same precedence (below
    ``config.x = ...`` and ``patch``, above the default).  Nothing is checked here: ``config.register`` has checked
    ``env_value`` before any entry is added.
    """
    if name in inductor_config._config:
        return  # idempotent: importing twice must not reset a user's override
    entry = _new_config_entry(name, Config(default=default, value_type=object))
    if env_value is not None:
        entry.env_value_default = env_value
    inductor_config._config[name] = entry
    _config_changed(name)


def _new_config_entry(name: str, config: Config) -> _ConfigEntry:
    """A ``_ConfigEntry`` for ``config``.  torch 2.11: ``_ConfigEntry(config)``; torch 2.15:
    ``_ConfigEntry(config, name)`` (the name labels the context variable that holds the entry's override)."""
    if "name" in inspect.signature(_ConfigEntry.__init__).parameters:
        return _ConfigEntry(config, name)
    return _ConfigEntry(config)


def _config_changed(name: str) -> None:
    """Drop the config module's cached hash (and, on 2.15, its cached dict) after adding entry ``name``.  torch
    2.11: one module attribute, ``_is_dirty``; torch 2.15: context variables (``_hash_dirty_var``, the dirty keys of
    ``_get_dict``), one per thread, so only this thread's caches can be marked: a thread that hashed the config before
    the import keeps a hash without the new entries until its config next changes."""
    if hasattr(inductor_config, "_hash_dirty_var"):
        inductor_config._hash_dirty_var.set(True)
        inductor_config._mark_get_dict_dirty(name)
    else:
        inductor_config._is_dirty = True


# Inductor's node hint that realizes a post-grad node's value as its own buffer with the node's strides
# (``GraphLowering.run_node``, ``graph.py:1831`` in 2.11; ``fx_passes/decompose_mem_bound_mm.py`` sets it too)
_REALIZE_HINT = "inductor_realize_to_strides"


def realize_node(node) -> None:
    """Have Inductor store ``node``'s value in a buffer of its own rather than inline it into its readers."""
    node.meta[_REALIZE_HINT] = True


def is_realized(node) -> bool:
    """True if :func:`realize_node` (or Inductor's own pass) marked ``node``."""
    return bool(node.meta.get(_REALIZE_HINT, False))


def has_size_hint(size) -> bool:
    """True if ``size`` (an int or a ``SymInt``) has a hint: it is backed.  torch 2.11: ``symbolic_shapes.has_hint``;
    torch 2.15 removed it and has ``has_guarding_hint``, which tests the same (``SymNode.has_hint``)."""
    test = getattr(symbolic_shapes, "has_hint", None) or symbolic_shapes.has_guarding_hint
    return test(size)


def size_hint(size) -> int:
    """The hint of a backed ``size`` (an int or a ``SymInt``), adding no guard.  torch 2.11:
    ``symbolic_shapes.size_hint``; torch 2.15 removed it and has ``guarding_hint_or_throw``, which returns the same
    backed hint."""
    hint = getattr(symbolic_shapes, "size_hint", None) or symbolic_shapes.guarding_hint_or_throw
    return hint(size)


def stock_reduction_split_factor(device, reduction_numel_hint: int, numel_hint: int, inner_reduction: bool) -> int:
    """Stock ``InductorChoices.reduction_split_factor``, whatever handler is installed.  torch 2.11: a staticmethod;
    torch 2.15: an instance method (its inner-reduction branch calls another method of the handler), so it is asked
    of a fresh stock ``InductorChoices``."""
    if isinstance(inspect.getattr_static(InductorChoices, "reduction_split_factor"), staticmethod):
        return InductorChoices.reduction_split_factor(device, reduction_numel_hint, numel_hint, inner_reduction)
    return InductorChoices().reduction_split_factor(device, reduction_numel_hint, numel_hint, inner_reduction)


# torch 2.15's SizeVarAllocator decides multiples structurally (_is_multiple_of), ending in Eq(Mod(e, k), 0) with
# torch's Mod; torch 2.11's tests Eq(e % k, 0), sympy's Mod
_TORCH_MOD_MULTIPLES = hasattr(SizeVarAllocator, "_is_multiple_of")


def is_multiple(expr, multiple: int):
    """The sympy condition ``expr % multiple == 0`` on dynamic sizes, for :func:`guard_true`, written as Inductor's
    ``sizevars.statically_known_multiple_of`` later tests it, so that the guard (an axiom once recorded) answers that
    test.  torch 2.11: ``Eq(expr % multiple, 0)``, sympy's ``Mod``; torch 2.15: ``Eq(Mod(expr, multiple), 0)`` with
    torch's own ``Mod`` (``torch.utils._sympy.functions.Mod``), reached after the structural rules of
    ``SizeVarAllocator._is_multiple_of``.  Either Mod in the other torch leaves the test false (the guard is added,
    but the size arguments are not marked divisible by 16)."""
    mod = TorchMod if _TORCH_MOD_MULTIPLES else sympy.Mod
    return sympy.Eq(mod(expr, multiple), 0)


def guard_true(sizevars, expr) -> bool:
    """Guard the graph on ``expr`` (a sympy condition on dynamic sizes that holds for their hints) through Inductor's
    ``sizevars.guard_or_false``, and make later static evaluations see it.  ShapeEnv caches
    ``_maybe_evaluate_static`` until its replacements, divisibility facts or runtime asserts change, and a guard is
    none of them (torch 2.11): ``Eq(Mod(s0, 16), 0)`` evaluated before the guard stays unknown after it, so Inductor
    would not mark the size argument divisible by 16.  Returns what ``guard_or_false`` returned; False, with no
    guard, where the user declared a size range (:func:`user_size_ranges`)."""
    if user_size_ranges():
        return False
    holds = sizevars.guard_or_false(expr)
    sizevars.shape_env._maybe_evaluate_static.cache_clear()
    return holds


def user_size_ranges() -> bool:
    """True if an input of the graph being compiled has a size range the user declared (``mark_dynamic`` with
    ``min``/``max``, export's ``Dim``): Dynamo records it as a ``StrictMinMaxConstraint`` in the tracing context's
    symbolic contexts, and fails the compile (``ConstraintViolationError``) on any guard that narrows it, so the
    package's own guards (N a multiple of 16, N >= R0_BLOCK) are not installed then (found by a fresh-user review,
    2026-12-01).  False outside a Dynamo compile (no tracing context)."""
    context = TracingContext.try_get()
    if context is None:
        return False
    return any(isinstance(c, StrictMinMaxConstraint) for symbolic in context.tensor_to_context.values()
               for c in (getattr(symbolic, "constraint_sizes", None) or ()))


def register_grid_type(grid_cls: type) -> None:
    """Make ``grid_cls`` (a ``GridExpr`` subclass) a grid type that Inductor's launchers can name.  Idempotent.

    A generated kernel names its grid class in ``inductor_meta["grid_type"]`` (``TritonKernel._get_grid_type``), and
    ``GridExpr.from_meta`` (``runtime/triton_heuristics.py:4078``) looks that name up in its own module's globals, for
    the Python launcher and the cpp wrapper alike; so the class is added there.  A process that loads a compiled graph
    with such a kernel must have imported the package, as it must to turn the fusion on.
    """
    if not issubclass(grid_cls, GridExpr):
        raise TypeError(f"{grid_cls!r} is not a GridExpr subclass")
    setattr(inductor_triton_heuristics, grid_cls.__name__, grid_cls)


def register_log(name: str) -> None:
    """Register the logger ``name`` with ``torch._logging`` under the alias ``name``.  Idempotent.

    ``TORCH_LOGS=<name>`` then enables it like one of torch's own logs (a module path works without this, but is
    only found by importing it while torch parses the variable).
    """
    from torch._logging import _internal

    if not _internal.log_registry.is_log(name):
        _internal.register_log(name, name)


def install_choices(choices_cls: type) -> None:
    """Make ``choices_cls`` Inductor's heuristics class, unless the user set one (``config.inductor_choices_class``).

    Inductor makes a thread's handler lazily, at the thread's first use of ``V.choices``, and keeps it for the thread
    (torch 2.11: ``virtualized.py:211``; 2.15: ``_choices_default``); no handler is made here, so a class the user sets
    after importing the package is the one Inductor makes (the fusion then stays off and says so for each site:
    :func:`active_choices`).  A thread that compiled before the import holds a stock ``InductorChoices``, which
    :func:`active_choices` replaces when a graph compiles with the fusion on.  A user's own class set before the import
    is kept: a subclass of ``choices_cls`` fuses; any other does not, and a warning says so.

    How the class is installed differs (:func:`_install_default_choices`).
    """
    current = inductor_config.inductor_choices_class
    if current is not None and not (isinstance(current, type) and issubclass(current, choices_cls)):
        import warnings

        warnings.warn(
            f"torch._inductor.config.inductor_choices_class is already {current!r}; "
            "reduction_transpose_fusion leaves it in place and will not fuse (each site is logged as skipped)",
            stacklevel=3,
        )
        return
    if current is None:
        _install_default_choices(choices_cls)


# torch 2.15 has a registry of choices factories that every thread's handler is made from; torch 2.11 has none
_CHOICES_REGISTRY = hasattr(inductor_choices_module, "register_inductor_choices")
_CHOICES_KEY = "reduction_transpose_fusion"


def _install_default_choices(choices_cls: type) -> None:
    """Make every thread's handler, when Inductor makes it, a ``choices_cls``.

    torch 2.11: ``config.inductor_choices_class = choices_cls``; config values are global there.  torch 2.15: config
    values are per thread (context variables), so that assignment would reach only the importing thread's compiles;
    the class is registered instead (``register_inductor_choices``), which every thread's handler is made from (with
    the user's ``inductor_choices_class`` first, where one is set: its methods win, and where they take the place of
    the package's, :func:`foreign_choices` leaves the fusion off).  ``register_inductor_choices`` also sets the importing thread's handler; that thread's state is
    put back as it was, so that a class the user sets after the import is still the one its first compile makes.
    """
    if not _CHOICES_REGISTRY:
        inductor_config.inductor_choices_class = choices_cls
        return
    from torch._inductor import virtualized

    key = virtualized._choices._key
    had_handler = hasattr(virtualized.threadlocal, key)
    prior = getattr(virtualized.threadlocal, key, None)
    inductor_choices_module.register_inductor_choices(_CHOICES_KEY, choices_cls)
    if had_handler:
        setattr(virtualized.threadlocal, key, prior)
    else:
        delattr(virtualized.threadlocal, key)


def _configured_choices(choices_cls: type) -> Any:
    """A fresh handler as Inductor would make it now, if ``choices_cls`` answers its hooks (:func:`foreign_choices`);
    else None (nothing is made).  torch 2.11: from ``config.inductor_choices_class`` alone; torch 2.15: from it and
    the registered factories (:func:`_install_default_choices`)."""
    configured = inductor_config.inductor_choices_class
    if _CHOICES_REGISTRY:
        handler = inductor_choices_module.create_inductor_choices(configured)
        return handler if foreign_choices(handler, choices_cls) is None else None
    if isinstance(configured, type) and issubclass(configured, choices_cls):
        return configured()
    return None


def choices_hook_owner(handler: Any, name: str) -> Any:
    """The object whose method ``name`` Inductor calls when it asks ``handler`` (a choices handler, ``V.choices``).

    torch 2.11: ``handler`` itself.  torch 2.15: the same for a handler made from one class; one made from several
    (the user's ``inductor_choices_class`` and the registered factories, such as the package's:
    ``_ComposedInductorChoices``) calls, for each method, that of the first of them that overrides it, and its
    attribute is that one's bound method, whose ``__self__`` this returns.  A method no contributor overrides is the
    composed handler's own (stock)."""
    return getattr(getattr(handler, name), "__self__", handler)


def foreign_choices(handler: Any, choices_cls: type) -> Optional[type]:
    """None if Inductor's calls of every ``InductorChoices`` method that ``choices_cls`` overrides reach an instance
    of ``choices_cls`` (the package's class or a subclass) through ``handler``; else the class of the first handler
    they reach instead (what keeps the marked reductions split).  torch 2.11: that is ``isinstance(handler,
    choices_cls)``; torch 2.15 composes the user's class with the package's, and a user's class that overrides none of
    the package's methods leaves them to it (:func:`choices_hook_owner`)."""
    for name in _overridden_hooks(choices_cls):
        owner = choices_hook_owner(handler, name)
        if not isinstance(owner, choices_cls):
            return type(owner)
    return None


def _overridden_hooks(choices_cls: type) -> tuple[str, ...]:
    """The ``InductorChoices`` methods that ``choices_cls`` (or a base of it below ``InductorChoices``) overrides,
    ``uuid`` aside (a cache key, not a hook)."""
    names = {name for cls in choices_cls.__mro__[:choices_cls.__mro__.index(InductorChoices)]
             for name in vars(cls) if name != "uuid" and callable(getattr(InductorChoices, name, None))}
    return tuple(sorted(names))


def active_choices(choices_cls: type) -> Any:
    """This thread's Inductor choices handler (``V.choices``), after replacing a stock ``InductorChoices`` by the
    handler Inductor would make now, while ``choices_cls`` (the package's class, or a subclass of it) answers that
    handler's calls of the methods it overrides (:func:`foreign_choices`).

    The handler is cached per thread: a thread that compiled before the package's import keeps the stock one, which
    would split the marked reductions.  A handler of any other class (the user's, set in the config or with
    ``V.set_choices_handler``) is left alone and returned.
    """
    handler = V.choices
    if type(handler) is InductorChoices:
        fresh = _configured_choices(choices_cls)
        if fresh is not None:
            handler = fresh
            V.set_choices_handler(handler)
    return handler


def register_cuda_backend(scheduling_cls: type, device_pass: Any) -> None:
    """Register ``scheduling_cls`` (a ``CUDACombinedScheduling`` subclass) for "cuda", with ``device_pass``.

    Stock Inductor fills the "cuda" slot lazily (``init_backend_registration``, ``common.py:536``) only when it is
    empty; we fill it first with the stock wrappers, so only the scheduling changes.  For a non-Triton
    ``config.cuda_backend`` (halide, pallas) the stock scheduling is used unchanged.
    """
    codegen_common.init_backend_registration()
    if getattr(codegen_common.get_scheduling_for_device("cuda"), "_rtf_wrapped", False):
        return
    stock = codegen_common.device_codegens["cuda"]

    def scheduling(scheduler):
        if inductor_config.cuda_backend == "triton":
            return scheduling_cls(scheduler)
        return stock.scheduling(scheduler)

    scheduling._rtf_wrapped = True  # type: ignore[attr-defined]
    codegen_common.register_backend_for_device(
        "cuda",
        scheduling,
        stock.wrapper_codegen,
        stock.cpp_wrapper_codegen,
        stock.fx_wrapper_codegen,
        device_custom_pass=device_pass,
    )


def register_device_pass(device: str, device_pass: Any) -> bool:
    """Give ``device``'s stock backend ``device_pass`` as its ``device_custom_pass``, leaving its scheduling and
    wrappers as they are.  Returns False, changing nothing, where the device already has a custom pass that is not
    one of ``type(device_pass)`` (another extension's); idempotent.

    Inductor runs a device's custom pass on every post-grad graph with an input or output on that device
    (``post_grad.py:232``), which is where the package checks its switches for graphs not compiled for CUDA.  The
    pass's ``uuid`` joins every graph's cache key (``codecache.py:919``).
    """
    codegen_common.init_backend_registration()
    current = codegen_common.get_custom_backend_pass_for_device(device)
    if current is not None and not isinstance(current, type(device_pass)):
        return False
    stock = codegen_common.device_codegens[device]
    codegen_common.register_backend_for_device(
        device,
        stock.scheduling,
        stock.wrapper_codegen,
        stock.cpp_wrapper_codegen,
        stock.fx_wrapper_codegen,
        device_custom_pass=device_pass,
        device_custom_config=codegen_common.custom_backend_codegen_configs.get(device),
    )
    return True


def graph_devices(gm: Any) -> set[str]:
    """The device types (``"cuda"``, ``"cpu"``) of the graph's inputs and outputs, as Inductor picks the device
    custom passes to run (``utils.get_all_devices``)."""
    from torch._inductor.utils import get_all_devices

    return {d.type for d in get_all_devices(gm)}


def removed_by_fusion(buffer: str, node_names: set[str]) -> bool:
    """True if the fused kernel of the scheduler nodes ``node_names`` never stores ``buffer``, which one of them
    writes: no node outside reads it and it is not mutated (``Scheduler.can_buffer_be_removed_through_fusion``,
    ``scheduler.py:5936``; a graph output has a reader outside)."""
    return V.graph.scheduler.can_buffer_be_removed_through_fusion(buffer, OrderedSet(node_names))


def filter_combo_kernel_groups(may_join: Callable[[Any], bool]) -> None:
    """Leave the scheduler nodes for which ``may_join(node)`` is False out of every combo kernel Inductor makes
    (``config.combo_kernels``).  Idempotent.

    ``Scheduler.create_combo_kernel_nodes`` passes its candidates through ``ForeachKernelSchedulerNode.
    combinable_nodes``, the filter that drops the node kinds a combo kernel cannot hold: torch 2.11 each group from
    ``group_nodes_for_combo_kernels`` (whichever algorithm ``set_group_algorithm_for_combo_kernels`` set), torch 2.15
    those groups too, or, with its peak-memory gating on (the default), every node of the schedule, without asking the
    group algorithm.  Wrapping that filter covers both, and a user's own group algorithm set after the import.
    """
    current = ForeachKernelSchedulerNode.combinable_nodes
    if getattr(current, "_rtf_wrapped", False):
        return

    def combinable(cls, nodes):
        return [node for node in current(nodes) if may_join(node)]

    combinable._rtf_wrapped = True  # type: ignore[attr-defined]
    ForeachKernelSchedulerNode.combinable_nodes = classmethod(combinable)  # type: ignore[method-assign]


def keep_out_of_index_inversion(keep_out: Callable[[Any], bool]) -> None:
    """Never invert the loop indexing of a scheduler node for which ``keep_out(node)`` is True.  Idempotent.

    With ``config.loop_index_inversion_in_fusion`` (on by default) the scheduler, when two nodes share too little data
    to fuse, rewrites the second (a copy that reads the first's output with a permuted index) to iterate like the
    first (``Scheduler.shared_data_after_inverting_indexing``).  torch 2.15 also inverts a transposed copy of a
    pointwise result it can re-index (``_can_reindex_consumer_for_index_inversion``, new there): F5's fp8 transposed
    copy then joins the cast's kernel and leaves the reduction's, two kernels instead of one.  torch 2.11 never
    inverted the marked copies of the families; there the wrapper only returns what the method returns.
    """
    from torch._inductor.scheduler import Scheduler

    current = Scheduler.shared_data_after_inverting_indexing
    if getattr(current, "_rtf_wrapped", False):
        return

    def shared_data_after_inverting_indexing(self, node1, node2):
        if keep_out(node2):
            return -1  # Inductor's "not applicable"
        return current(self, node1, node2)

    shared_data_after_inverting_indexing._rtf_wrapped = True  # type: ignore[attr-defined]
    Scheduler.shared_data_after_inverting_indexing = shared_data_after_inverting_indexing  # type: ignore[method-assign]


# The key a kernel's inductor_meta holds where the config coordinate descent finds is checked
# (:func:`check_coordinate_descent`); :func:`check_tuning_of` adds it to a kernel's source.
TUNING_CHECK_KEY = "reduction_transpose_fusion_check_tuning"
_COORDESC_META = "'coordinate_descent_tuning': True"


def check_tuning_of(kernel_source: str) -> str:
    """``kernel_source`` (a Triton kernel module Inductor generated with coordinate descent on) with
    :data:`TUNING_CHECK_KEY` in its ``inductor_meta``, so that :func:`check_coordinate_descent` checks its tuning;
    unchanged where the source holds no ``inductor_meta`` entry ``'coordinate_descent_tuning': True``."""
    return kernel_source.replace(_COORDESC_META, f"{_COORDESC_META}, {TUNING_CHECK_KEY!r}: True", 1)


def check_coordinate_descent(choose: Callable[[str, Any, list, Callable[[Any], float]], Any]) -> None:
    """After Inductor's coordinate descent of a kernel marked by :func:`check_tuning_of` (``CachingAutotuner.
    coordinate_descent_tuning``, at the kernel's first call), ``choose(name, start, others, ms)`` picks the launcher to
    keep: ``start`` is the config the walk started from (the one of Inductor's configs its benchmark timed fastest),
    ``others`` the walk's config and Inductor's other configs (each config once, none of them ``start``'s), and
    ``ms(launcher)`` times one launch by CUDA-graph replay on copies of the call's arguments
    (:func:`.runtime.benchmarking.graph_ms`).  Where it keeps another launcher than the walk's, the autotune cache gets
    that one as the kernel's coordinate-descent result (Inductor had saved the walk's), so a later process loads the
    same choice.  Other kernels are left as Inductor tunes them.  Idempotent."""
    cls = inductor_triton_heuristics.CachingAutotuner
    if not getattr(cls.coordinate_descent_tuning, "_rtf_wrapped", False):
        cls.coordinate_descent_tuning = checked_tuning(cls.coordinate_descent_tuning, choose)  # type: ignore
    record_autotuned_configs()


def checked_tuning(current: Callable, choose: Callable[[str, Any, list, Callable[[Any], float]], Any],
                   launcher_ms: Optional[Callable[[Any, tuple, dict], float]] = None) -> Callable:
    """``current`` (``CachingAutotuner.coordinate_descent_tuning``) wrapped as :func:`check_coordinate_descent`
    says; ``launcher_ms(launcher, args, kwargs)`` times a launcher (default: by CUDA-graph replay).  ``choose`` may
    return None: Inductor's choice stands.  No check where Inductor's deterministic mode keeps a reduction's config
    (its walk returns the start; another config would sum in another order), while the current stream is being
    captured into a CUDA graph (the timing would break the capture), or where the GPU's free memory cannot hold a
    copy of the call's tensors."""
    launcher_ms = launcher_ms or _launcher_ms

    def coordinate_descent_tuning(self, launcher, *args, **kwargs):
        tuned = current(self, launcher, *args, **kwargs)
        if not self.inductor_meta.get(TUNING_CHECK_KEY) or getattr(self, "deterministic_mode", False):
            return tuned
        name = self.inductor_meta.get("kernel_name", "kernel")
        if why := _no_check_now(args):
            log.info("%s: coordinate descent's config kept unchecked: %s", name, why)
            return tuned
        others = [tuned] if tuned.config != launcher.config else []
        others += _config_launchers(self, [one.config for one in (launcher, *others)])
        if not others:
            return tuned
        chosen = choose(name, launcher, others, lambda one: launcher_ms(one, args, kwargs))
        if chosen is None or chosen is tuned:
            return tuned
        chosen.config.found_by_coordesc = True  # Inductor's mark: a config not to walk from again
        save = getattr(self, "save_cache_hook", None)
        if save:
            save(chosen.config, getattr(self, "autotune_time_taken_ns", 0), found_by_coordesc=True)
        return chosen

    coordinate_descent_tuning._rtf_wrapped = True  # type: ignore[attr-defined]
    return coordinate_descent_tuning


def _no_check_now(args: tuple) -> str:
    """Why the configs of a kernel called with ``args`` cannot be timed now ("" where they can): a CUDA-graph
    capture under way on the current stream, or less free GPU memory than twice the call's tensors (one copy of
    each, and room to spare)."""
    tensors = [a for a in args if isinstance(a, torch.Tensor) and a.is_cuda]
    if not tensors:
        return "no CUDA tensor among its arguments"
    if torch.cuda.is_current_stream_capturing():
        return "its first call is inside a CUDA-graph capture"
    need = 2 * sum(t.untyped_storage().nbytes() for t in tensors)
    free, _ = torch.cuda.mem_get_info(tensors[0].device)
    return f"{free} bytes of GPU memory free, under the {need} a copy of its arguments needs" if free < need else ""


# The configs a marked kernel's autotuning compared, recorded before it keeps only its pick (torch 2.15 then drops the
# other configs' binaries from ``compile_results``; torch 2.11 keeps them)
_TUNED_CONFIGS = "_rtf_autotuned_configs"


def record_autotuned_configs() -> None:
    """Wrap ``CachingAutotuner.autotune_to_one_config`` so that a kernel marked by :func:`check_tuning_of` keeps the
    configs it compared (:func:`_config_launchers` compiles launchers of them again where the binaries are gone).
    Idempotent."""
    cls = inductor_triton_heuristics.CachingAutotuner
    current = cls.autotune_to_one_config
    if getattr(current, "_rtf_wrapped", False):
        return

    def autotune_to_one_config(self, *args, **kwargs):
        if self.inductor_meta.get(TUNING_CHECK_KEY):
            setattr(self, _TUNED_CONFIGS, [launcher.config for launcher in self.launchers])
        return current(self, *args, **kwargs)

    autotune_to_one_config._rtf_wrapped = True  # type: ignore[attr-defined]
    cls.autotune_to_one_config = autotune_to_one_config  # type: ignore[method-assign]


def _config_launchers(autotuner: Any, skip: list) -> list:
    """Launchers of each config a ``CachingAutotuner`` compared in its autotuning, each config once and none of
    ``skip``'s: from the binaries its precompile kept (``compile_results``, torch 2.11), else compiled again from the
    configs :func:`record_autotuned_configs` recorded, as Inductor's coordinate descent compiles each config it tries
    (``_precompile_config``; Triton's cache holds their binaries).  A config whose launcher cannot be made is left
    out, and logged."""
    seen, makers = list(skip), []
    for result in getattr(autotuner, "compile_results", None) or ():
        makers.append((result.config, result.make_launcher))
    for config in getattr(autotuner, _TUNED_CONFIGS, ()):
        makers.append((config, lambda config=config: _compiled_launcher(autotuner, config)))
    launchers = []
    for config, make in makers:
        if any(config == other for other in seen):
            continue
        seen.append(config)
        try:
            launchers.append(make())
        except Exception as error:  # that config is not timed again
            log.info("%s: a config not timed again (%s: %s)", autotuner.inductor_meta.get("kernel_name"),
                     type(error).__name__, error)
    return launchers


def _compiled_launcher(autotuner: Any, config: Any) -> Any:
    """A launcher of ``config`` for ``autotuner``, compiled as Inductor's coordinate descent compiles a config."""
    with autotuner.lock:
        return autotuner._precompile_config(config).make_launcher()


def _launcher_ms(launcher: Any, args: tuple, kwargs: dict) -> float:
    """Milliseconds of one launch of ``launcher`` (a ``CachingAutotuner``'s) by CUDA-graph replay, on copies of the
    call's tensor arguments in their own layouts (the call's own stay untouched for its real launch)."""
    from .runtime.benchmarking import copy_args, graph_ms  # runtime imports this module

    copies = copy_args(args)
    device = next((a.device for a in copies if isinstance(a, torch.Tensor)), torch.device("cuda"))

    def call(arguments: list) -> None:
        # the current stream at each launch: the capture's side stream inside graph_ms's capture
        launcher(*arguments, **kwargs, stream=torch.cuda.current_stream(device).cuda_stream)

    with torch.cuda.device(device):
        return graph_ms(call, copies, device)


def read_write_bytes(node) -> int:
    """Bytes a ``SchedulerNode`` reads from and writes to memory, by Inductor's own count
    (``BaseSchedulerNode.get_read_write_buffers_sizes``: each buffer's numel times its element size, size hints for
    dynamic sizes; an unbacked size counts as 0, so such a kernel counts as small)."""
    return int(node.get_read_write_buffers_sizes())


def contiguous_runs(node) -> tuple[set[str], set[str]]:
    """Where a ``SchedulerNode``'s full-size reads, and its full-size writes, run contiguous: ``"innermost"`` for a
    stride of one element along the innermost of its loops, ``"other"`` for one along another loop only; a read or
    write with no unit stride (a flip, a strided slice, an index Inductor wraps in a ``Where``) adds nothing.

    From Inductor's dependency analysis (``read_writes``' ``MemoryDep``s): a dep is full-size where its ``size`` spans
    all of the node's loops (a broadcast operand, such as a bias or a column scale, is left out); a dep keeps only
    the loop variables its index uses, merged where they run contiguous, so its last variable is the node's innermost
    loop.  A stride that is a symbol (a dynamic size) is not one."""
    from torch._inductor.dependencies import MemoryDep

    numel = sympy.Mul(*itertools.chain(*node.get_ranges()))

    def unit_stride(index, var) -> bool:
        try:
            return sympy.diff(index, var) == 1
        except Exception:  # noqa: BLE001 - sympy cannot differentiate every index Inductor writes (a Where)
            return False

    def runs(deps) -> set[str]:
        out = set()
        for dep in deps:
            if not (isinstance(dep, MemoryDep) and dep.var_names and sympy.Mul(*dep.size) == numel):
                continue
            if unit_stride(dep.index, dep.var_names[-1]):
                out.add("innermost")
            elif any(unit_stride(dep.index, var) for var in dep.var_names[:-1]):
                out.add("other")
        return out

    return runs(node.read_writes.reads), runs(node.read_writes.writes)


def take_post_loop_code(kernel: TritonKernel) -> tuple[IndentedBuffer, IndentedBuffer]:
    """Detach the code a cooperative reduction runs after its loop: (partials store, peers load + final store).

    ``TritonKernel.codegen_body`` (``triton.py:4893``) emits ``post_loop_combine``, then a grid barrier, then
    ``post_loop_store``, but only when one of them is non-empty.  Taking both out before calling it suppresses the
    barrier; the caller emits its own finish after the loop.  The workspace cache is told the loop ended, as
    ``codegen_body`` would have done (``triton.py:5058``).
    """
    combine, store = kernel.post_loop_combine, kernel.post_loop_store
    kernel.post_loop_combine, kernel.post_loop_store = IndentedBuffer(), IndentedBuffer()
    if combine or store:
        kernel.cooperative_reduction_workspace_cache.on_loop_end()
    return combine, store


_COOPERATIVE_LAUNCH = "'launch_cooperative_grid': True"


def drop_cooperative_launch(kernel_source: str) -> str:
    """Turn the cooperative launch of a generated kernel into an ordinary one.

    ``TritonKernel.codegen_kernel`` sets ``triton_meta["launch_cooperative_grid"] = True`` for every cooperative
    reduction (``triton.py:5470``) and prints ``triton_meta`` into the source; the launcher reads it back
    (``runtime/triton_heuristics.py:806``).  A kernel that never waits on another program must not ask for a
    cooperative launch, which caps the grid at what is resident at once.

    Raises:
        AssertionError: if the source does not hold the key exactly once (Inductor changed how it prints it).
    """
    count = kernel_source.count(_COOPERATIVE_LAUNCH)
    if count != 1:
        raise AssertionError(f"expected {_COOPERATIVE_LAUNCH!r} once in the kernel source, found it {count} times")
    return kernel_source.replace(_COOPERATIVE_LAUNCH, "'launch_cooperative_grid': False")


# The header of a cooperative reduction's row loop as TritonKernel.codegen_body writes it (triton.py:4996)
ROW_LOOP = "for r0_offset in tl.range(rsplit_start, rsplit_end, R0_BLOCK):"


def deferred_line(buffer_name: str, line: str) -> DeferredLine:
    """A line of kernel code that Inductor drops if the store to ``buffer_name`` is removed."""
    return DeferredLine(buffer_name, line)


def peers_var(kernel: TritonKernel, name: str, dtype, shape: list[str]):
    """A CSE variable for the peers tile of a cooperative reduction, as
    ``TritonKernel.codegen_cooperative_reduction_peer_combine`` makes one (``triton.py:4541``)."""
    return kernel.create_cse_var(name, shape=shape, dtype=dtype, bounds=ValueRanges.unknown())


def use_own_semaphores(kernel: TritonKernel) -> None:
    """Give the kernel's ``sem_ptr`` a graph-wide buffer of its own kind, ``semaphores_rtf_<device>``, instead of
    Inductor's ``semaphores_<device>`` (``KernelArgs.semaphores``, ``common.py:1666``).

    Both are zeroed once per graph call (``ZERO_PER_GRAPH``), but Inductor's grid barrier (``x_grid_barrier``,
    ``triton_helpers.py:686``) leaves each word it used at 0 or ``0x80000000`` (it flips bit 31), so a later kernel of
    the same graph can find Inductor's words non-zero; the ticket and the flagged partials need them zero.  Only
    kernels with the last-program finish use this buffer, and each leaves it zeroed.  The name keeps the
    ``semaphores`` prefix: the cpp wrapper's autotune block (``wrapper.py:3144``) takes an argument named
    ``workspace…`` or ``semaphore…`` for one it has allocated itself, and fails compiling the graph on any other.

    Raises:
        AssertionError: if the kernel has no semaphores entry yet (``init_cooperative_reduction`` has not run).
    """
    own_name = "semaphores_rtf_{}".format
    _replace_semaphores(kernel, lambda arg: dataclasses.replace(
        arg, outer_name=own_name(arg.outer_name.removeprefix("semaphores_"))))


def drop_semaphores(kernel: TritonKernel) -> None:
    """Remove the kernel's ``sem_ptr`` workspace, which ``init_cooperative_reduction`` asks for whether or not the
    kernel uses it: a kernel with the separate finish takes no ticket, and a graph none of whose kernels asks for
    semaphores makes no fill of them at each call.

    Raises:
        AssertionError: if the kernel has no semaphores entry (``init_cooperative_reduction`` has not run).
    """
    old = _replace_semaphores(kernel, lambda arg: None)
    kernel.args.workspace_args.remove(None)
    kernel.semaphores_name = f"<no semaphores: {old.inner_name} dropped>"  # a stray use fails Triton's compile


def count_generated_kernel() -> None:
    """Count one more kernel in Inductor's ``metrics.generated_kernel_count`` (a ``Kernel`` counts itself when built;
    the separate finish's finish kernel is defined from the fused kernel's source, with no ``Kernel`` of its own)."""
    inductor_metrics.generated_kernel_count += 1


def call_again(kernel: TritonKernel, name: str) -> None:
    """Emit a call of kernel ``name`` with ``kernel``'s arguments, as ``TritonKernel.call_kernel`` emits
    ``kernel``'s own (``triton.py:5753``), without allocating its workspaces again: the separate finish's finish
    kernel, called right after the fused kernel, reads the partials the fused kernel left in them."""
    wrapper = V.graph.wrapper_code
    _, call_args, _, arg_types = kernel.args.python_argdefs()
    kernel.add_numel_to_call_args(name, call_args, arg_types)
    wrapper.generate_kernel_call(name, call_args, triton=True, arg_types=arg_types, triton_meta=kernel.triton_meta,
                                 inductor_meta=kernel.inductor_meta)


def grow_semaphores(kernel: TritonKernel, words):
    """Extend the kernel's semaphores buffer by ``words`` uint32 words and return the offset (in words) of the first.

    The semaphores buffer (``KernelArgs.semaphores``, ``common.py:1666``) is one graph-wide allocation, zeroed once
    per call of the compiled graph (``ZERO_PER_GRAPH``), sized to the largest kernel's need, and every kernel must
    leave it zeroed.  ``semaphores()`` asserts a kernel asks once, in ``init_cooperative_reduction``; this replaces
    that kernel's entry with a longer one instead, so words past the ticket counters start at zero too.

    Raises:
        AssertionError: if the kernel has no semaphores entry yet (``init_cooperative_reduction`` has not run).
    """
    return _replace_semaphores(kernel, lambda arg: dataclasses.replace(arg, count=arg.count + words)).count


def _replace_semaphores(kernel: TritonKernel, change) -> Any:
    """Replace the kernel's ``sem_ptr`` ``WorkspaceArg`` with ``change(arg)``; return the old one."""
    workspace_args = kernel.args.workspace_args
    for i, arg in enumerate(workspace_args):
        if arg.inner_name == "sem_ptr":
            workspace_args[i] = change(arg)
            return arg
    raise AssertionError("the kernel has no semaphores buffer (init_cooperative_reduction has not run)")


WORKSPACE_ALIGN = 16  # bytes: the widest partial (int64 / fp64) and a 16-byte vector


class AlignedWorkspaceCache(CooperativeReductionWorkspaceCache):
    """Inductor's cooperative-reduction workspace cache (``triton.py:2183``) with every allocation rounded up to
    :data:`WORKSPACE_ALIGN` bytes.

    Stock packs each reduction's partials right after the previous one's: a bf16 ``argmax`` value row of 33 columns
    x 3 programs (198 bytes) puts the int32 index row at byte 594, an ``int32`` pointer that is not 4-byte aligned,
    which CUDA does not allow (not observed on the H200: the one check of stock's packing there most likely reused the
    cached aligned kernel).  Stock Inductor rarely meets this, as its cooperative reductions are off by default; this
    package turns them on for the kernels it launches.
    """

    def allocate(self, nbytes):
        return super().allocate(CeilDiv(nbytes, WORKSPACE_ALIGN) * WORKSPACE_ALIGN)


def real_gpu_present() -> bool:
    """Whether the CUDA driver reports a device.  The CPU tests' fake H200 patches ``torch.cuda``'s Python functions,
    not this call, so a compile under it never tries to time a kernel."""
    try:
        return torch._C._cuda_getDeviceCount() > 0
    except (AttributeError, RuntimeError):  # a CPU-only build, or no driver
        return False


def candidate_kernel_source(scheduling: TritonScheduling, features) -> str:
    """The benchmark module (``get_args``, ``call``; kernel named ``triton_``) of the kernel that
    ``scheduling.codegen_node_schedule(features)`` would emit under the current configuration, without emitting it.

    This is the speculative codegen of Inductor's fusion benchmarking (``generate_kernel_code_from_nodes``), but
    through ``create_kernel_choices`` as the real codegen goes, so that ``InductorChoices.triton_kernel_kwargs`` sets
    the launch.  Nothing reaches the wrapper: no kernel is defined or called, no node is marked run.

    Raises:
        NotImplementedError: if Inductor would emit more than one kernel for ``features`` (``multi_kernel``).
    """
    node_schedule = features.node_schedule
    count = inductor_metrics.generated_kernel_count  # a Kernel counts itself when built: count the graph's kernels,
    try:                                             # not the candidates (as Inductor's debug strings do)
        tiling, score = scheduling.get_tiling_and_scores(node_schedule, features.numel, features.reduction_numel,
                                                         features.coalesce_analysis)
        kernels = scheduling.create_kernel_choices(features, [tiling], {"features": features, "tiling_scores": score})
        if len(kernels) != 1:
            raise NotImplementedError(f"{len(kernels)} kernel choices (multi-kernel)")
        (kernel,) = kernels
        scheduling.codegen_node_schedule_with_kernel(node_schedule, kernel)
        with inductor_config.patch("benchmark_kernel", True), V.set_kernel_handler(kernel):
            source = kernel.codegen_kernel()
            imports = getattr(kernel, "imports_for_benchmark_kernel", lambda: None)()
    finally:
        inductor_metrics.generated_kernel_count = count
    # the benchmark's imports after the kernel, whose lines are then the emitted kernel's: Triton's compile cache keys
    # a kernel by its function's first line too (see named_as_emitted)
    if imports and imports in source and BENCHMARK_ARGS in source:
        source = source.replace(imports, "", 1).replace(BENCHMARK_ARGS, imports + BENCHMARK_ARGS, 1)
    return source.replace(str(Placeholder.KERNEL_NAME), "triton_")


# the benchmark module's harness after the kernel (``codegen_kernel_benchmark``): its arguments, then ``call``
BENCHMARK_ARGS = "\ndef get_args():"


def time_kernel_source(scheduling: TritonScheduling, source: str, names: list[str], every_config: bool = False
                       ) -> float:
    """Milliseconds of one launch of the kernel in ``source`` (from :func:`candidate_kernel_source`) on random
    inputs of its shapes (the benchmark module Inductor writes: ``get_args()`` and ``call(args)``), by CUDA-graph
    replay (:func:`..runtime.benchmarking.graph_ms`, under a forked RNG, as Inductor preserves the user's); where
    that fails, by Inductor's benchmarker (``benchmark_codegened_module``: a first call compiles, then timed runs with
    in-place arguments cloned; ``inf`` if its first call failed, cached next to the module in ``.kernel_perf``).  A
    kernel that spills is timed.

    ``every_config``: a kernel of several configs (Inductor's own launch, which its ``CachingAutotuner`` tunes at the
    first call) is timed at each of them and the fastest counts (:func:`_each_config`), not the one that call's
    benchmark picks: that pick is timed one launch at a time, and for the copy of fp16[2, 41, 28343] (random seed
    365187048) it ran 7.5 µs where stock's own compiles of the same source ran 4.9 µs."""
    from .runtime.benchmarking import graph_ms  # the runtime package imports this module

    module = PyCodeCache.load(source)
    device = V.graph.get_current_device_or_throw()
    try:
        with torch.cuda.device(device), torch.random.fork_rng(devices=[torch.cuda.current_device()]):
            kernel = getattr(module, "triton_", None)
            call = _filling_semaphores(module.call, source)
            return min(graph_ms(call, module.get_args(), device) for _ in _each_config(kernel if every_config else None))
    except Exception as e:  # noqa: BLE001  Inductor's benchmarker below says whether the kernel runs at all
        torch.cuda.synchronize(device)
        log.info("%s: CUDA-graph timing failed (%s: %s); Inductor's benchmarker", ", ".join(names), type(e).__name__,
                 e)
    # no spill threshold: a launch that spills is timed like any other (Inductor's 8 is for fusion decisions)
    ms, _ = scheduling.benchmark_codegened_module(module, n_spills_threshold=math.inf, node_names=OrderedSet(names))
    return ms


def compile_kernel_sources(sources: list[str]) -> None:
    """Compile the Triton kernels of ``sources`` (benchmark modules from :func:`candidate_kernel_source`, each kernel
    at each of its configs) at once, in threads, before :func:`time_kernel_source` times them one by one, with the
    compile workers' ptxas (:func:`ptxas_as_the_workers`), so that the workers' compile of the emitted kernel, the
    winner's source, finds its binary in Triton's cache.  Triton's compile partly runs outside the GIL (on 2 CPU
    cores, two sm_90a compiles of the LayerNorm-backward kernel of bf16 [8192, 4096], 0.37 s each alone, took 0.51 s in
    two threads), and timing them compiled each in turn at its first call.  Only the compile runs in the threads
    (``CachingAutotuner.precompile(warm_cache_only=True)``, as Inductor's compile workers run it); the binaries are
    loaded and launched in this thread when each is timed.  A source that fails to compile is left as it is: its
    timing compiles it again and reports the error.

    Not in Inductor's compile workers: on the H100 (16 workers), the timed candidates of a fused corpus case took
    0.96 and 1.13 s to compile there (the mean of two runs, of 8 and 6 cases) against 0.69 and 0.70 s in threads
    (``benchmarks/lab_compile.py``; docs/launch.md, "Compile time: the timed candidates' ptxas")."""
    ptxas_as_the_workers()
    kernels = []
    for source in sources:
        try:
            module = PyCodeCache.load(source)
        except Exception as e:  # noqa: BLE001  its timing loads it again and reports the error
            log.debug("loading a launch candidate ahead of its timing failed: %s", e)
            continue
        kernels += [k for name in ("triton_", "triton_finish_")
                    if isinstance(k := getattr(module, name, None), inductor_triton_heuristics.CachingAutotuner)
                    and not k.compile_results and not k.launchers]
    if len(kernels) < 2:
        return

    def compile_one(kernel) -> None:
        try:
            kernel.precompile(warm_cache_only=True)
        except Exception as e:  # noqa: BLE001  reported again by the timing, which compiles it again
            log.debug("compiling a launch candidate ahead of its timing failed: %s", e)

    workers = min(len(kernels), max(1, inductor_config.compile_threads or 1))
    with concurrent.futures.ThreadPoolExecutor(workers) as pool:
        list(pool.map(compile_one, kernels))


# the ptxas path for which Triton's cached ptxas version was last forgotten (ptxas_as_the_workers)
_PTXAS_CLEARED_FOR: dict[str, str] = {}


def ptxas_as_the_workers() -> None:
    """Have Triton in this process assemble with the ptxas Inductor's compile workers use (``_set_triton_ptxas_path``:
    torch's own where the wheel ships one, unless ``TRITON_PTXAS_PATH`` is set), and forget the ptxas version Triton
    read before, once for each path (``get_ptxas_version``, ``get_features`` and the CUDA backend's ``hash`` are
    cached, and Inductor's codegen reads that hash for each kernel's metadata before any candidate compiles; Inductor
    itself sets the path, without forgetting, where it compiles a kernel in this process).

    Why: Triton's cache keys a binary by its ptxas's version (the backend hash), so the candidates compiled here with
    Triton's bundled ptxas (CUDA 12.8 in triton 3.6; torch 2.11's CUDA 13.0 wheel ships 13.0), or keyed by its version,
    were never a hit for the workers' compile of the emitted kernel (on the H100: a wait of 0.56 s a fused case, as
    long as the untimed first pick's compile)."""
    try:  # torch 2.11 and triton 3.6; where they moved, this process keeps its ptxas (the emitted kernel's compile
        from torch._inductor.runtime.compile_tasks import _set_triton_ptxas_path  # is then not a hit)
        from triton.backends.nvidia import compiler as nvidia_compiler
    except ImportError:
        return
    _set_triton_ptxas_path()
    path = os.environ.get("TRITON_PTXAS_PATH")
    if path is None or _PTXAS_CLEARED_FOR.get("path") == path:  # none: the workers assemble with Triton's too
        return
    for cached in (getattr(nvidia_compiler, "get_ptxas_version", None), getattr(nvidia_compiler, "get_features", None),
                   getattr(getattr(nvidia_compiler, "CUDABackend", None), "hash", None)):
        if hasattr(cached, "cache_clear"):
            cached.cache_clear()
    _PTXAS_CLEARED_FOR["path"] = path


def _filling_semaphores(call: Callable[[list], Any], source: str) -> Callable[[list], Any]:
    """``call`` preceded by the zero fill of the kernel's semaphores (its ``sem_ptr`` argument), which the graph's
    wrapper runs at each call (``ZERO_PER_GRAPH``), so that a kernel with the ticket or flagged partials is timed with
    the fill it brings, against one without (Inductor's own launch, the column tile, the separate finish); ``call``
    itself where the module's kernel (its first function; named as :func:`named_as_emitted` names it) takes no
    semaphores."""
    m = re.search(r"^def \w+\((.*?)\):", source, re.M | re.S)
    params = [p.split(":")[0].strip() for p in m.group(1).split(",")] if m else []
    if "sem_ptr" not in params:
        return call
    index = params.index("sem_ptr")

    def filled(args: list) -> Any:
        args[index].zero_()
        return call(args)

    return filled


def _each_config(kernel: Any):
    """Yields once for each config of ``kernel`` (a ``CachingAutotuner`` of several configs), with its launchers
    narrowed to that config's, so that the next launch runs it and no first-call tuning runs; configs that spill past
    the kernel's ``spill_threshold`` are left out, as Inductor's tuning leaves them.  Anything else (``None``, one
    config) yields once and is left as it is.  Restores the launchers afterwards."""
    if not isinstance(kernel, inductor_triton_heuristics.CachingAutotuner):
        yield
        return
    if not kernel.launchers:  # a compiled kernel has no configs left (its compile results hold them)
        kernel.precompile()
    launchers = list(kernel.launchers)
    if len(launchers) < 2:
        yield
        return
    threshold = kernel.inductor_meta.get("spill_threshold", 16)
    kept = [launcher for launcher in launchers if not (launcher.n_spills or 0) > threshold] or launchers
    try:
        for launcher in kept:
            kernel.launchers = [launcher]
            yield
    finally:
        kernel.launchers = launchers


def named_as_emitted(source: str, node_schedule) -> str:
    """``source`` (a benchmark module from :func:`candidate_kernel_source`, kernel ``triton_``) with its kernel named
    as ``TritonScheduling.define_kernel`` names the next kernel it emits from ``node_schedule`` (``triton_``, the
    category of ``source``'s heuristic, the descriptive name, the wrapper's next ordinal, read without advancing it),
    and ``triton_`` bound to that kernel, so that the module's ``call`` and its timing work as before.

    Why: Triton's compile cache keys a kernel by its function's source, its name included, and Inductor's compile
    workers compile the emitted kernel from its source again; named alike, the emitted kernel's compile reads the
    binary that the candidate's timing compiled (on the CPU, an sm_90a compile of a corpus kernel took 0.25 s and the
    same function again 3 ms).  Unchanged where Inductor names every kernel ``triton_`` (``unique_kernel_names``
    off); a name that comes out otherwise only costs that compile."""
    try:  # where Inductor names its kernels (torch 2.11; a release that moved them only costs the compile)
        from torch._inductor.utils import get_fused_kernel_name
        from torch._inductor.wrapper_benchmark import get_kernel_category_by_source_code
    except ImportError:
        return source
    if not inductor_config.triton.unique_kernel_names:
        return source
    wrapper = V.graph.wrapper_code
    # read, then put back for the emitted kernel (``next_kernel_suffix``): a fresh ``count`` as Inductor's, not a
    # chain around it, which would nest once per timed candidate
    ordinal = next(wrapper._names_iter)
    wrapper._names_iter = (itertools.count(ordinal) if isinstance(ordinal, int)
                           else itertools.chain([ordinal], wrapper._names_iter))
    fused = (get_fused_kernel_name(node_schedule, inductor_config.triton.descriptive_names)
             if inductor_config.triton.descriptive_names else "")
    name = "_".join(["triton", get_kernel_category_by_source_code(source)[:3], fused, str(ordinal)])
    if inductor_config.aot_inductor.model_name_for_generated_files:
        name = f"{inductor_config.aot_inductor.model_name_for_generated_files}_{name}"
    return source.replace("def triton_(", f"def {name}(", 1) + f"\n\ntriton_ = {name}\n"


_GRAPH_MEMOS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def graph_memo(name: str) -> dict:
    """A dict named ``name`` that lives as long as the graph being lowered (``V.graph``; Inductor dedups a graph's
    kernels of the same source into one definition, ``wrapper.src_to_kernel``, and this keeps a choice for them
    alike).

    Raises:
        RuntimeError: outside a lowering (where ``V.graph`` is Inductor's ``NullHandler``, one object a thread: a
            memo there would outlive the compile)."""
    from torch._inductor.virtualized import NullHandler

    graph = V.graph
    if isinstance(graph, NullHandler):
        raise RuntimeError("graph_memo needs a graph being lowered (V.graph)")
    return _GRAPH_MEMOS.setdefault(graph, {}).setdefault(name, {})


@contextlib.contextmanager
def same_workspace_names():
    """Within the block, workspaces the speculative codegen names (``WorkspaceArg.unique_name``: the graph's
    ``workspace_id`` counter) do not advance the counter, so the emitted graph's names do not depend on how many
    candidates were generated."""
    first = next(V.graph.workspace_id)
    try:
        yield
    finally:
        V.graph.workspace_id = itertools.count(first)


@contextlib.contextmanager
def recording_kernel_bytes():
    """Within the block, the bytes each Triton kernel Inductor defines moves, by Inductor's own estimate
    (``SIMDKernel.estimate_kernel_num_bytes``: each buffer argument's numel times its element size, an argument both
    read and written twice; what ``benchmark_kernel`` reports as ``kernel_num_gb``): yields ``{kernel name: [bytes,
    ...]}``, one entry each time ``TritonScheduling.define_kernel`` defines or reuses the name (a launch of it in
    the graph), ``None`` where the estimate fails or for a second kernel defined from the same kernel object (the
    separate finish's, whose name differs from the fused kernel's only by Inductor's ordinal: the estimate is the
    fused kernel's, so a per-name total of the two would be wrong).  For the benchmarks' attribution only: it patches
    ``TritonScheduling.define_kernel`` for the block, in this thread's compiles as in any other's."""
    recorded: dict[str, list[Optional[int]]] = {}
    seen: dict[int, Any] = {}  # the kernels recorded, by id (held, so that an id is not reused within the block)
    original = TritonScheduling.define_kernel

    def define_kernel(self, src_code, node_schedule, kernel, *args, **kwargs):
        name = original(self, src_code, node_schedule, kernel, *args, **kwargs)
        nbytes = None
        if id(kernel) not in seen:
            seen[id(kernel)] = kernel
            try:
                nbytes = int(kernel.estimate_kernel_num_bytes())
            except Exception:  # noqa: BLE001  an estimate the kernel cannot give (unbacked sizes, ...)
                pass
        recorded.setdefault(name, []).append(nbytes)
        return name

    TritonScheduling.define_kernel = define_kernel
    try:
        yield recorded
    finally:
        TritonScheduling.define_kernel = original
