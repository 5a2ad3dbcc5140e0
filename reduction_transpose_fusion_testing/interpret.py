"""Generate Inductor's CUDA code for a function on the fake H200, and run that code on the CPU.

:func:`generate` returns the output module Inductor writes (wrapper ``call`` plus Triton kernels), exactly as it
would on the GPU.  :func:`run_on_cpu` executes that module with CPU tensors: buffers come from
``torch.empty_strided`` and every Triton kernel runs under Triton's interpreter (``TRITON_INTERPRET=1``) with the
first of its configs and the grid Inductor's own ``GridExpr`` computes for it.  So the numerics tested are those of
the generated kernel source, launch configuration included.  Interpreted kernels are slow (about 1 s per
64x512 tile-loop kernel on [1024, 512]): keep shapes small and tiles large.

Casts to fp8 (e5m2, e4m3fn) from f32, f16 and bf16 are done as an sm_90 GPU does them, not as Triton 3.6's
interpreter does (it rounds about 5% of an e5m2 cast wrongly): rounded to nearest even, values past the format's
largest finite one (infinities included) saturated to it, NaN kept.  One difference from a GPU run:
:func:`check_guards` checks the sizes, strides and offsets the module was compiled for, not the inputs'
dtypes or devices, which the caller must match.

Call ``fake_cuda.install()`` before importing this module, and set ``TRITON_INTERPRET=1`` before anything imports
``triton``: Triton's own ``@jit`` library functions (``tl.zeros``, ...) only run under the interpreter if they were
created in interpreter mode.  Compiling kernels for the GPU needs a process without it.
"""

from __future__ import annotations

import contextlib
import os
import functools
import importlib.util
import itertools
import random
import re
import sys
import types
from typing import Any, Callable, Sequence

import torch
import triton
import triton.language as tl
from torch._inductor import config as inductor_config
from torch._inductor.compile_fx import compile_fx
from torch._inductor.runtime import triton_heuristics
from torch._inductor.utils import get_code
from torch._subclasses.fake_tensor import FakeTensorMode
from torch.fx.experimental.proxy_tensor import make_fx
from torch.fx.experimental.symbolic_shapes import DimDynamic, ShapeEnv, StatelessSymbolicContext

from .output_code import kernel_sources  # noqa: F401  ({kernel name: source} of a module; one parser for both)

KERNEL_DEF = re.compile(r"^(\w+) = async_compile\.triton\(", re.M)


def fake_inputs(*specs: tuple[Sequence[int], torch.dtype], dynamic: Sequence[int] = ()) -> list[torch.Tensor]:
    """Fake CUDA tensors of the given (shape, dtype)s, for :func:`generate`.

    ``dynamic``: dims made symbolic in every input that has them (as ``torch.compile(dynamic=True)`` /
    ``mark_dynamic`` would; the given sizes become the hints).  The inputs then share one ``ShapeEnv``, reachable
    as ``inputs[0].fake_mode.shape_env``, whose ``guards`` list what the compile assumed about the sizes.
    """
    if not dynamic:
        with FakeTensorMode():
            return [torch.empty(tuple(shape), dtype=dtype, device="cuda") for shape, dtype in specs]
    mode = FakeTensorMode(shape_env=ShapeEnv())
    out = []
    for shape, dtype in specs:
        dims = [DimDynamic.DYNAMIC if d in dynamic else DimDynamic.STATIC for d in range(len(shape))]
        cpu = mode.from_tensor(torch.empty(tuple(shape), dtype=dtype),
                               symbolic_context=StatelessSymbolicContext(dynamic_sizes=dims))
        with mode:
            out.append(cpu.to("cuda"))
    return out


class GeneratedModule(str):
    """Inductor's output module source (a ``str``), with the fake inputs it was compiled for in ``fake_inputs``:
    :func:`run_on_cpu` checks real inputs against the shape guards they imply.  Methods of ``str`` return plain
    strings, without the inputs."""

    fake_inputs: tuple = ()


def generate(fn: Callable, inputs: Sequence[torch.Tensor], **options: Any) -> GeneratedModule:
    """Inductor's output module (Python source) for ``fn(*inputs)`` on the fake device, under ``config.patch(options)``.

    ``inputs`` are fake CUDA tensors (:func:`fake_inputs`).  Raises whatever Inductor raises.
    """
    gm = make_fx(fn, tracing_mode="fake")(*inputs)
    with inductor_config.patch(options):
        code = get_code(lambda: compile_fx(gm, list(inputs)))
    module = GeneratedModule(code[0] if isinstance(code, (list, tuple)) else code)
    module.fake_inputs = tuple(inputs)
    return module


def check_guards(module_source: str, inputs: Sequence[torch.Tensor]) -> None:
    """Check real ``inputs`` against the shape guards of the compile that produced ``module_source`` (a
    :class:`GeneratedModule`; a plain string is not checked): every size, stride and storage offset the module was
    compiled for, static or dynamic, and each dynamic size's range (Inductor takes a dynamic size for at least 2,
    so a module compiled for a dynamic N must not run at N = 1), as a compiled graph's guards would.

    Raises:
        ValueError: if ``inputs`` break a guard (the message lists the guards), or their count differs.
    """
    fakes = getattr(module_source, "fake_inputs", ())
    if not fakes:
        return
    if len(fakes) != len(inputs):
        raise ValueError(f"the module was compiled for {len(fakes)} inputs, got {len(inputs)}")
    shape_env = getattr(fakes[0].fake_mode, "shape_env", None)
    if shape_env is None:  # static shapes: the sizes and strides themselves
        for i, (fake, real) in enumerate(zip(fakes, inputs)):
            if tuple(fake.shape) != tuple(real.shape) or fake.stride() != real.stride():
                raise ValueError(f"input {i}: the module was compiled for size {tuple(fake.shape)} and stride "
                                 f"{fake.stride()}, got {tuple(real.shape)} and {real.stride()}")
        return
    code = shape_env.produce_guards_expression(list(fakes), ignore_static=False)
    if code and not shape_env.evaluate_guards_expression(code, list(inputs)):
        raise ValueError(f"the inputs (sizes {[tuple(t.shape) for t in inputs]}) break the module's shape guards: "
                         f"{code} (L['t<i>'] is input i); compile it again for these sizes")


def kernel_names(module_source: str) -> list[str]:
    """Names of the Triton kernels the module defines, in order."""
    return KERNEL_DEF.findall(module_source)


def run_on_cpu(module_source: str, inputs: Sequence[torch.Tensor]) -> tuple[torch.Tensor, ...]:
    """Run the generated module's ``call`` on CPU tensors, kernels interpreted.  Returns its outputs.

    A module from :func:`generate` is first checked against its shape guards (:func:`check_guards`): run past them
    (a dynamic-N module at N = 1) its kernels would read and write out of bounds.

    Raises:
        RuntimeError: if ``TRITON_INTERPRET=1`` was not set when the process started.
        ValueError: if ``inputs`` break the module's shape guards.
    """
    if os.environ.get("TRITON_INTERPRET") != "1":
        raise RuntimeError("run_on_cpu needs TRITON_INTERPRET=1 set before triton is imported")
    check_guards(module_source, inputs)
    boolean_masks()
    ns: dict[str, Any] = {}
    source = module_source.replace("async_compile = AsyncCompile()", "async_compile = _interpreting_compiler")
    ns["_interpreting_compiler"] = _InterpretingCompiler()
    with _cpu_runtime():
        exec(compile(source, "<inductor output module>", "exec"), ns)
        ns["empty_strided_cuda"] = _empty_strided_cpu
        ns["get_raw_stream"] = lambda index: 0
        return tuple(ns["call"](list(inputs)))


@functools.cache
def boolean_masks() -> None:
    """Make the interpreter take a mask that is not a numpy bool array as the GPU does (non-zero: true).  Triton 3.9's
    interpreter computes a block mask ANDed with a scalar condition (``(rsplit_arange < RSPLIT) & rsplit_is_last``,
    Inductor's peers load) as uint32 and then refuses it in a masked load ("mask has unsupported dtype"); the compiled
    kernel's mask is an ``i1`` either way.  Triton 3.6's interpreter already gives bool there: nothing changes."""
    import numpy as np
    from triton.runtime.interpreter import InterpreterBuilder, TensorHandle

    load, store = InterpreterBuilder.create_masked_load, InterpreterBuilder.create_masked_store

    def as_bool(mask):
        data = np.asarray(mask.data)
        return mask if data.dtype == np.bool_ else TensorHandle(data != 0, tl.int1)

    InterpreterBuilder.create_masked_load = lambda self, ptrs, mask, *a: load(self, ptrs, as_bool(mask), *a)
    InterpreterBuilder.create_masked_store = lambda self, ptrs, value, mask, *a: store(self, ptrs, value,
                                                                                      as_bool(mask), *a)


def _empty_strided_cpu(size, stride, dtype):
    """Poisoned: an element the kernels should write but do not stays NaN (all-ones bytes, NaN in fp8 too).  The
    bytes of the whole storage are filled, so any strides work (a column-major int64 buffer cannot be viewed as
    bytes)."""
    out = torch.empty_strided(size, stride, dtype=dtype)
    if dtype.is_floating_point and dtype.itemsize >= 2:
        out.fill_(float("nan"))
    else:
        out.untyped_storage().fill_(0xFF)
    return out


@contextlib.contextmanager
def _cpu_runtime():
    from triton.runtime.interpreter import InterpreterBuilder

    saved = torch.cuda._DeviceGuard, torch.cuda.set_device, InterpreterBuilder.create_fp_to_fp
    torch.cuda._DeviceGuard = lambda index: contextlib.nullcontext()
    torch.cuda.set_device = lambda device: None
    InterpreterBuilder.create_fp_to_fp = _fp8_cast_as_the_gpu(InterpreterBuilder.create_fp_to_fp)
    try:
        yield
    finally:
        torch.cuda._DeviceGuard, torch.cuda.set_device, InterpreterBuilder.create_fp_to_fp = saved


# Triton 3.6's interpreter rounds a cast to fp8 by adding the first dropped mantissa bit to the kept ones
# (``interpreter._convert_float``) without carrying into the exponent: a value that rounds up to the next power of two
# comes out at half of it (0.4994 -> 0.25 and 7.86 -> 4.0 in e5m2), and ties round away from zero instead of to even.
# For f32 inputs of randn * 10 that is 4% of the elements of an e5m2 cast.  Casts to e5m2 and e4m3fn from f32, f16 and
# bf16 are done here as Triton emits them for sm_90, cvt.rn.satfinite: torch's cast rounds to nearest even, and
# values past the format's largest finite one, infinities included, are first clamped to it (torch's cast alone gives
# inf for e5m2 and NaN for e4m3fn); NaN stays NaN (test_saturating_casts.py checks the PTX's cvt).  Other casts keep
# the interpreter's.
_TORCH_FP8 = {"fp8e5": torch.float8_e5m2, "fp8e4nv": torch.float8_e4m3fn}
_TORCH_SOURCE = {"fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}


def _fp8_cast_as_the_gpu(real):
    from triton.runtime.interpreter import TensorHandle

    def create_fp_to_fp(self, src, dst_type, rounding_mode):
        target, source = _TORCH_FP8.get(dst_type.scalar.name), _TORCH_SOURCE.get(src.dtype.scalar.name)
        if target is None or source is None:
            return real(self, src, dst_type, rounding_mode)
        data = torch.from_numpy(src.data.copy())
        values = data.view(source) if data.dtype != source else data  # bf16 is held as 16-bit integers
        largest = torch.finfo(target).max
        saturated = values.clamp(-largest, largest)  # NaN passes a clamp unchanged
        return TensorHandle(saturated.to(target).view(torch.uint8).numpy(), dst_type.scalar)

    return create_fp_to_fp


class _InterpretingCompiler:
    """Stands in for Inductor's ``AsyncCompile`` in the output module."""

    def triton(self, kernel_name: str, source_code: str, device_str: str = "cuda"):
        ns: dict[str, Any] = {"__file__": f"<{kernel_name}>"}
        with _capture_autotune():
            exec(compile(source_code, f"<{kernel_name}>", "exec"), ns)
        ns["triton_helpers"] = _interpretable_helpers()
        ns["libdevice"] = _InterpretableLibdevice()
        # not at import: see stock_codegen
        from reduction_transpose_fusion.codegen.triton import LAUNCH_ORDER_FINISHER, finish_group_of

        kernel = ns[kernel_name]
        kernel.grid_barrier = "x_grid_barrier" in source_code
        kernel.finisher_last = LAUNCH_ORDER_FINISHER in source_code
        kernel.finisher_group = finish_group_of(source_code)
        return kernel

    def wait(self, scope: dict) -> None:
        pass


@functools.cache
def _interpretable_helpers() -> types.ModuleType:
    """A copy of ``triton_helpers`` whose kernels and compile-time builtins run under the interpreter.

    Functions marked ``__triton_builtin__`` take a ``_semantic`` keyword that
    only the compiler passes, and ``tl.constexpr`` arguments where the interpreter passes plain values.
    """
    from torch._inductor.runtime import triton_helpers

    # a sibling module name, so its relative imports resolve
    spec = importlib.util.spec_from_file_location(
        "torch._inductor.runtime._interpreted_triton_helpers", triton_helpers.__file__
    )
    helpers = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = helpers  # the interpreter re-reads each helper's source through its module
    spec.loader.exec_module(helpers)

    def interpretable(f):
        def call(*args, **kwargs):
            args = [tl.constexpr(a) if a is None or isinstance(a, int) else a for a in args]
            out = f(*args, _semantic=None, **kwargs)
            return out.value if isinstance(out, tl.constexpr) else out

        return call

    for name, f in list(vars(helpers).items()):
        if getattr(f, "__triton_builtin__", False):
            setattr(helpers, name, interpretable(f))
    # tl.reduce with a custom combine runs one Python call per element in the interpreter (minutes per kernel);
    # these give the same results, NaN propagation included, through the interpreter's numpy reductions.
    helpers.max2, helpers.min2 = _max2, _min2
    return helpers


class _InterpretableLibdevice:
    """``libdevice`` for interpreted kernels, which the interpreter does not patch: ``tl.math``'s function where it
    has one (the interpreter runs those through numpy), else an equivalent written in interpretable ``tl`` ops.
    Results match the GPU's to a few ulp, not bit for bit; tests compare interpreted code with interpreted code."""

    def __getattr__(self, name):
        return _LIBDEVICE_EXTRA[name] if name in _LIBDEVICE_EXTRA else getattr(tl.math, name)


@triton.jit
def _tanh(x):
    return 1.0 - 2.0 / (tl.exp(2.0 * x) + 1.0)


@triton.jit
def _isnan(x):
    return x != x  # only NaN differs from itself (nansum's where(isnan(x), 0, x))


_LIBDEVICE_EXTRA = {"tanh": _tanh, "isnan": _isnan}


@triton.jit
def _propagate_nan(a, dim, reduced):
    if a.dtype.is_floating():
        return tl.where(tl.max((a != a).to(tl.int8), dim) > 0, float("nan"), reduced)
    return reduced


@triton.jit
def _max2(a, dim):
    return _propagate_nan(a, dim, tl.max(a, dim))


@triton.jit
def _min2(a, dim):
    return _propagate_nan(a, dim, tl.min(a, dim))


@contextlib.contextmanager
def _capture_autotune():
    """Make ``@triton_heuristics.<heuristic>(...)`` return an :class:`InterpretedKernel` instead of an autotuner."""
    real = triton_heuristics.cached_autotune

    def capture(size_hints, configs, triton_meta, heuristic_type, filename=None, inductor_meta=None, **kw):
        return lambda fn: InterpretedKernel(fn, configs, triton_meta, inductor_meta or {})

    triton_heuristics.cached_autotune = capture
    try:
        yield
    finally:
        triton_heuristics.cached_autotune = real


@contextlib.contextmanager
def _shuffled_program_order(grid: tuple[int, int, int], seed: int, finisher_last: bool = False, group: int = 0):
    """Run the interpreter's programs in a shuffled order instead of row-major, so a kernel that assumes which
    program of a grid runs first or last gets caught.  With ``finisher_last`` (a kernel whose finishers wait for
    programs launched before them: on the GPU they start after those), each finisher still runs after the programs it
    waits for (:func:`_finishers_after_peers`; the rest stays shuffled).  (The interpreter runs programs one at a
    time, so races between concurrent programs are out of its reach: the GPU tests cover those.)"""
    from triton.runtime.interpreter import interpreter_builder

    order = list(itertools.product(*(range(n) for n in grid)))
    random.Random(seed).shuffle(order)
    if finisher_last:
        order = _finishers_after_peers(order, grid[0], group)
    remaining = iter(order)
    real = interpreter_builder.set_grid_idx
    interpreter_builder.set_grid_idx = lambda x, y, z: real(*next(remaining))
    try:
        yield
    finally:
        interpreter_builder.set_grid_idx = real


def _finishers_after_peers(order: list[tuple[int, int, int]], rsplit: int,
                           group: int = 0) -> list[tuple[int, int, int]]:
    """``order`` with each finisher deferred until the programs it waits for have run: program ``(rsplit - 1, j, k)``
    waits for every program of its column block ``(j, k)``; with ``group``, program ``(s, j, k)`` with
    ``s % group == group - 1`` waits for the ``group - 1`` programs before it (the two-level finish)."""
    def waits_for(p):
        s, block = p[0], p[1:]
        if s == rsplit - 1:
            return [(t, *block) for t in range(s)]
        if group and s % group == group - 1:
            return [(t, *block) for t in range(s - group + 1, s)]
        return []

    waiting = {p: set(waits_for(p)) for p in order}
    waiters: dict[tuple, list] = {}
    for p, deps in waiting.items():
        for q in deps:
            waiters.setdefault(q, []).append(p)
    out: list[tuple[int, int, int]] = []

    def run(p):
        out.append(p)
        for w in waiters.get(p, ()):
            waiting[w].discard(p)
            if not waiting[w]:
                run(w)

    for p in order:
        if not waits_for(p):
            run(p)
    return out


class InterpretedKernel:
    """A generated kernel that ``run()``s under the Triton interpreter with its first config."""

    def __init__(self, fn, configs, triton_meta, inductor_meta):
        self.fn, self.configs, self.triton_meta, self.inductor_meta = fn, configs, triton_meta, inductor_meta
        self.config = configs[0]
        self.grid_barrier = False  # set from the source by _InterpretingCompiler
        self.finisher_last = False  # likewise
        self.finisher_group = 0  # likewise: programs a group of a two-level flagged finish

    def run(self, *args, stream=None):
        names = [n for n, t in self.triton_meta["signature"].items() if t != "constexpr"]
        named = dict(zip(names, args))
        # a numel Inductor folded into the kernel (a size-1 dim) is not an argument
        numels = {"xnumel": 1, "ynumel": 1, "znumel": 1} | {k: v for k, v in named.items() if k.endswith("numel")}
        grid = triton_heuristics.GridExpr.from_meta(self.inductor_meta, self.config).eval_slow(numels)
        kwargs = dict(self.config.kwargs)
        if self.grid_barrier and kwargs.get("RSPLIT", 1) > 1:
            # the interpreter runs one program at a time, so the first to reach the barrier would wait forever
            raise NotImplementedError(f"{self.fn.__name__} waits on a grid barrier with RSPLIT="
                                      f"{kwargs['RSPLIT']}; the interpreter cannot run it (RSPLIT=1 can)")
        with _shuffled_program_order(grid, len(args), self.finisher_last, self.finisher_group):
            self.fn[grid](*args, **kwargs, num_warps=self.config.num_warps, num_stages=self.config.num_stages)
        if "sem_ptr" in named and bool(named["sem_ptr"].any()):
            raise AssertionError(f"{self.fn.__name__} left its semaphores non-zero: {named['sem_ptr'].tolist()}")
