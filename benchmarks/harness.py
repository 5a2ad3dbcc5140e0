"""Measure one case: copy SOL, eager, stock torch.compile and the fused kernel, in one process, on one GPU.

Bytes moved (the roofline numerator) = bytes of every input read once + bytes of every output written once.  The
**copy SOL** is the median time of a device-to-device copy that moves the same number of bytes (half read, half
written), measured in the same run; ``pct_of_sol = copy_sol_ms / fused_ms * 100``.  Times are medians of
``triton.testing.do_bench`` (CUDA events, an L2 flush between reps, warm-up first), in ms; the fused version is
timed twice and ``noise_pct`` is the spread of the two, so a difference under it is noise.  Each timed call is a
CUDA-graph replay (:func:`bench`), so only GPU time is counted.

Without a GPU (the fake H200 of ``reduction_transpose_fusion_testing``), :func:`codegen_only` reports kernel
counts and the launch chosen, and every time is NaN.
"""

from __future__ import annotations

import dataclasses
import math
import time
from typing import Any, Callable

import torch
import torch._inductor.config as inductor_config
from torch._inductor import metrics

from reduction_transpose_fusion_testing import families
from reduction_transpose_fusion_testing.logs import decision_log

FUSED = {"reduction_transpose_fusion": True}  # as shipped: the size gate and profitability rules apply
FORCED = families.FUSE_EVERY_SITE  # every safe site fused: what the profitability rules were measured with (--force)
STOCK = {"reduction_transpose_fusion": False}
# measure() compiles every case cold in Inductor (Triton's kernel cache stays warm): a case whose graph an earlier case
# compiled would otherwise hit the FX-graph cache, log no decision and report the cache's compile time.  Nor does a
# compile read an earlier one's autotuning: Inductor's autotune cache on disk keeps the config it tuned for a kernel's
# source, across compiles and processes, so a second compile of the same kernel ran the first one's config and two
# compiles could not show the spread of Inductor's own autotuning (docs/profitability.md, "a tuned kernel's loss").
FRESH = {"fx_graph_cache": False, "autotune_local_cache": False}


def forget_compiled_kernels() -> None:
    """Drop Inductor's in-memory caches of compiled Triton kernels, so that the next compile builds and tunes its
    kernels anew.  A kernel compiled in this process (where Inductor's compile workers are not ready yet, or with one
    compile thread) is loaded through ``PyCodeCache.load``, which keeps one module per source, so a second compile of
    the same graph got the first one's kernel object back.  For a kernel of several configs that costs nothing (its
    launchers are rebuilt, and the first call benchmarks them again); but a kernel of one config that coordinate
    descent tuned keeps its tuned launcher and skips the tuning: two compiles of a site whose kernel the package has
    Inductor tune (``scheduler.tuned_by_coordinate_descent``) would share that kernel's walk.  (``CompiledTritonKernels``
    needs nothing: it holds only compiles in flight, and Inductor clears it around every compile.)
    ``PyCodeCache.modules``, which :func:`registers_since` counts, is kept (it grows by a module per compile).
    Kernels already captured keep working; Triton's on-disk cache still saves the compiles."""
    from torch._inductor.codecache import PyCodeCache

    PyCodeCache.modules_no_attr.clear()


@dataclasses.dataclass
class Case:
    """One row of ``benchmarks/cases.csv``."""

    name: str
    family: str
    dtype: str
    rows: int
    cols: int
    suites: str
    source: str

    @property
    def family_case(self) -> families.Case:
        return families.CASES[self.family]

    @property
    def torch_dtype(self) -> torch.dtype:
        return families.DTYPES[self.dtype]


def compile_fn(fn: Callable, inputs: list[torch.Tensor], options: dict, row_dims: list[tuple[int, ...]] | None = None
               ) -> tuple[Callable, int, float, list[str]]:
    """torch.compile ``fn`` with ``options``; returns (compiled, kernels generated, compile seconds, decisions).

    ``row_dims`` (one tuple of dims per input, :meth:`families.Case.row_dims`): compile with those dims dynamic
    (``torch._dynamo.mark_dynamic``; a dim of size 0 or 1, which Dynamo specializes, stays static), as a training
    job whose token count varies gets after its first recompile; ``None``: every size static."""
    torch._dynamo.reset()  # each case compiles from scratch (and never hits the recompile limit)
    forget_compiled_kernels()  # ... and tunes its kernels anew
    if row_dims:
        for t, dims in zip(inputs, row_dims):
            if dims := [d for d in dims if t.shape[d] > 1]:
                torch._dynamo.mark_dynamic(t, dims)
    compiled = torch.compile(fn, dynamic=None if row_dims else False, options=options)
    metrics.reset()
    start = time.perf_counter()
    with decision_log() as decisions:
        compiled(*inputs)
        torch.cuda.synchronize()
    seconds = time.perf_counter() - start
    return compiled, metrics.generated_kernel_count, seconds, decisions


def bench(fn: Callable[[], Any]) -> float:
    """Median GPU ms of ``fn``: one CUDA-graph replay of it (:func:`capture`), timed by :func:`time_graph`.

    The graph removes the CPU cost of calling ``fn`` (a compiled function's guards and wrapper cost the H200
    machine's CPU about 0.1 ms a call, more than the GPU time of an 8 MB case; seen in the first sweep, 2026-11-29),
    so small cases measure the GPU, as in a training step where the CPU runs ahead.
    """
    return time_graph(capture(fn))


def capture(fn: Callable[[], Any]) -> torch.cuda.CUDAGraph:
    """A CUDA graph of one call of ``fn``, called once before as a warm-up.  The graph replays the kernels it
    captured whatever Dynamo compiles later, so a compiled function is captured before the next compile."""
    fn()  # warm-up outside the capture
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        fn()
    return graph


def time_graph(graph: torch.cuda.CUDAGraph) -> float:
    """Median ms of ``graph``'s replay, by ``triton.testing.do_bench`` (CUDA events, warm-up, the L2 flushed
    between reps)."""
    from triton.testing import do_bench

    return do_bench(graph.replay, warmup=25, rep=100, return_mode="median")


def copy_sol_ms(nbytes: int) -> float:
    """Median ms of a device-to-device copy that reads nbytes/2 and writes nbytes/2.

    Timed by a plain ``do_bench``, not a graph replay: captured in a CUDA graph, ``copy_`` becomes a memcpy node
    that ran at 2.7 TB/s against 4.0 TB/s launched directly (H200, 2026-11-29); one launch costs the CPU far less
    than the L2 flush before it, so the GPU time is still what is measured.
    """
    from triton.testing import do_bench

    n = max(1, nbytes // 2 // 4)
    src = torch.randn(n, device="cuda")
    dst = torch.empty_like(src)
    return do_bench(lambda: dst.copy_(src), warmup=25, rep=100, return_mode="median")


def loaded_modules() -> int:
    """How many generated modules Inductor has loaded so far (a mark for :func:`registers_since`)."""
    from torch._inductor.codecache import PyCodeCache

    return len(PyCodeCache.modules)


def registers_since(mark: int) -> tuple[float, float]:
    """(registers per thread, Triton's ``n_spills``), the largest over the Triton kernels of modules loaded after
    ``mark``, as the compiled launchers report them; NaN if none was loaded (a cache hit reuses a module).
    ``n_spills`` is the kernel's local memory in 4-byte words (``CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES / 4``), which
    counts a stack frame too, so it can be nonzero where ptxas reports no spill."""
    from torch._inductor.codecache import PyCodeCache

    launchers = [launcher for module in PyCodeCache.modules[mark:] for obj in vars(module).values()
                 for launcher in getattr(obj, "launchers", None) or ()]
    if not launchers:
        return math.nan, math.nan
    return (float(max(getattr(k, "n_regs", math.nan) or 0 for k in launchers)),
            float(max(getattr(k, "n_spills", math.nan) or 0 for k in launchers)))


def nbytes(tensors) -> int:
    return sum(t.numel() * t.element_size() for t in tensors)


# float64 copies of inputs past this many bytes would not fit beside the rest; such cases skip the reference
REFERENCE_MAX_INPUT_BYTES = 4 * 10**9


def check(case: families.Case, inputs, fused, stock) -> tuple[float, bool]:
    """(largest relative error of a reduction vs float64 eager, transposed/cast outputs bit-equal to stock).

    The error is :func:`~reduction_transpose_fusion_testing.families.reference_error`'s: over the values eager's
    result holds finite in the output's dtype (an fp16 sum past 65504 is Inf in both), Inf where a NaN or an Inf
    differs.  It is NaN when the inputs exceed :data:`REFERENCE_MAX_INPUT_BYTES`."""
    exact = all(torch.equal(families.bits(fused[i]), families.bits(stock[i]))
                for i in (*case.transposed, *case.exact))
    if nbytes(inputs) > REFERENCE_MAX_INPUT_BYTES:
        return math.nan, exact
    reference = case.reference(inputs)
    errors = [families.reference_error(out, ref)[0]
              for i, (out, ref) in enumerate(zip(fused, reference)) if i not in (*case.transposed, *case.exact)]
    return max(errors, default=0.0), exact


def measure(row: Case, fused_options: dict = FUSED, eager: bool = True, dynamic_rows: bool = False
            ) -> dict[str, Any]:
    """All numbers for one case on the GPU; see the module docstring for definitions.  ``dynamic_rows``: stock and
    fused are compiled with N dynamic (:func:`compile_fn`) and timed at the case's N, their size hint."""
    case = row.family_case
    inputs = case.inputs(row.rows, row.cols, row.torch_dtype, device="cuda", seed=0)
    row_dims = case.row_dims() if dynamic_rows else None
    # stock is run and captured before the fused compile: compile_fn resets Dynamo, so a stock call after it would
    # compile stock anew, not the compile whose compile_s_stock is reported.  Both graphs are timed after both
    # compiles, in one order (stock, fused, fused again), so neither is timed right after its own compile.
    stock_fn, stock_kernels, stock_s, _ = compile_fn(case.fn, inputs, STOCK | FRESH, row_dims)
    stock_out = stock_fn(*inputs)
    stock_graph = capture(lambda: stock_fn(*inputs))
    fused_fn, fused_kernels, fused_s, decisions = compile_fn(case.fn, inputs, fused_options | FRESH, row_dims)
    fused_out = fused_fn(*inputs)
    fused_graph = capture(lambda: fused_fn(*inputs))
    err, exact = check(case, inputs, fused_out, stock_out)
    moved = nbytes(inputs) + nbytes(fused_out)
    result = _common(row, inputs, moved) | dict(
        kernels_stock=stock_kernels,
        kernels_fused=fused_kernels,
        copy_sol_ms=copy_sol_ms(moved),
        eager_ms=bench(lambda: case.fn(*inputs)) if eager else math.nan,
        stock_ms=time_graph(stock_graph),
        fused_ms=time_graph(fused_graph),
        fused_ms_repeat=time_graph(fused_graph),
        compile_s_stock=stock_s,
        compile_s_fused=fused_s,
        max_rel_err=err,
        rel_err_ok=bool(err <= families.TOLERANCE.get(row.torch_dtype, 1e-3)) if not math.isnan(err) else None,
        transposed_bit_exact=exact,
        decisions=" | ".join(decisions),
    )
    return _derived(result)


def codegen_only(row: Case, fused_options: dict = FUSED, dynamic_rows: bool = False) -> dict[str, Any]:
    """Kernel counts and decisions from code generated for the fake H200 (no GPU); times are NaN.
    ``dynamic_rows``: N symbolic (its size the hint), as in :func:`measure`."""
    from reduction_transpose_fusion_testing import interpret

    case = row.family_case
    specs = case.specs(row.rows, row.cols, row.torch_dtype)
    dims = {d for dims in case.row_dims() for d in dims} if dynamic_rows and row.rows > 1 else set()
    stock = interpret.generate(case.fn, interpret.fake_inputs(*specs, dynamic=dims), **STOCK)
    with decision_log() as decisions:
        fused = interpret.generate(case.fn, interpret.fake_inputs(*specs, dynamic=dims), **fused_options)
    with torch.device("meta"):
        inputs = [torch.empty(s, dtype=d) for s, d in specs]
        outputs = case.fn(*inputs)
    result = _common(row, inputs, nbytes(inputs) + nbytes(outputs)) | dict(
        kernels_stock=len(interpret.kernel_names(stock)),
        kernels_fused=len(interpret.kernel_names(fused)),
        decisions=" | ".join(decisions),
    )
    return _derived(result)


def _common(row: Case, inputs, moved: int) -> dict[str, Any]:
    transposed_bytes = row.rows * row.cols * row.family_case.fn(
        *[torch.empty(t.shape, dtype=t.dtype, device="meta") for t in inputs]
    )[row.family_case.transposed[0]].element_size()
    return dict(
        case=row.name,
        family=row.family,
        dtype=row.dtype,
        rows=row.rows,
        cols=row.cols,
        suites=row.suites,
        input_mb=nbytes(inputs) / 1e6,
        bytes_moved=moved,
        gate_fuses_by_default=transposed_bytes >= inductor_config.reduction_transpose_fusion_min_bytes,
    )


def _derived(r: dict[str, Any]) -> dict[str, Any]:
    nan = math.nan
    fused, stock, sol = r.get("fused_ms", nan), r.get("stock_ms", nan), r.get("copy_sol_ms", nan)
    r.update(
        noise_pct=abs(fused - r.get("fused_ms_repeat", nan)) / fused * 100,
        stock_over_sol=stock / sol,
        fused_over_sol=fused / sol,
        pct_of_sol=sol / fused * 100,
        speedup=stock / fused,
        fused_gbps=r["bytes_moved"] / (fused * 1e-3) / 1e9,
    )
    return r


def measure_float8_mlp(tokens: int = 16384, dim: int = 4096, hidden: int = 4096, fused_options: dict = FUSED
                       ) -> dict[str, Any]:
    """A training step (forward + backward) of a torchao ``Float8Linear`` MLP, bias on, bf16, stock vs fused.

    ``Linear(dim, hidden) -> ReLU -> Linear(hidden, dim)`` converted with ``convert_to_float8_training`` (tensorwise
    dynamic scaling).  In backward each layer's output gradient is read by the bias-gradient ``sum(0)`` and by the
    cast to float8 that ``preprocess_addmm`` makes contiguous transposed for the weight-gradient ``_scaled_mm``.
    """
    import torch.nn as nn
    from torchao.float8 import convert_to_float8_training

    def model():
        torch.manual_seed(0)
        m = nn.Sequential(nn.Linear(dim, hidden), nn.ReLU(), nn.Linear(hidden, dim)).to(torch.bfloat16).cuda()
        return convert_to_float8_training(m)

    gen = torch.Generator(device="cuda").manual_seed(1)
    x = torch.randn(tokens, dim, device="cuda", dtype=torch.bfloat16, generator=gen)
    grad_y = torch.randn(tokens, dim, device="cuda", dtype=torch.bfloat16, generator=gen)
    runs = {}
    for label, options in (("stock", STOCK), ("fused", fused_options)):
        m = model()
        torch._dynamo.reset()
        compiled = torch.compile(m, options=options)
        metrics.reset()
        start = time.perf_counter()
        with decision_log() as decisions:
            compiled(x).backward(grad_y)
            torch.cuda.synchronize()
        seconds = time.perf_counter() - start
        grads = [p.grad.clone() for p in m.parameters()]
        params = list(m.parameters())
        step = lambda: compiled(x).backward(grad_y)  # noqa: E731
        runs[label] = dict(kernels=metrics.generated_kernel_count, compile_s=seconds, grads=grads,
                           ms=bench_with_grads(step, params), ms_repeat=bench_with_grads(step, params),
                           decisions=decisions)
    stock, fused = runs["stock"], runs["fused"]
    biases = [i for i, p in enumerate(model().parameters()) if p.dim() == 1]
    err = max(((f.double() - s.double()).norm() / s.double().norm()).item()
              for i, (f, s) in enumerate(zip(fused["grads"], stock["grads"])) if i in biases)
    weights_equal = all(torch.equal(f, s) for i, (f, s) in enumerate(zip(fused["grads"], stock["grads"]))
                        if i not in biases)
    result = dict(
        case=f"float8-mlp-train-step/{tokens}x{dim}x{hidden}", family="Float8Linear MLP step", dtype="bf16",
        rows=tokens, cols=dim, suites="main", input_mb=x.numel() * 2 / 1e6, bytes_moved=math.nan,
        gate_fuses_by_default=tokens * dim >= inductor_config.reduction_transpose_fusion_min_bytes,
        kernels_stock=stock["kernels"], kernels_fused=fused["kernels"], copy_sol_ms=math.nan, eager_ms=math.nan,
        stock_ms=stock["ms"], fused_ms=fused["ms"], fused_ms_repeat=fused["ms_repeat"],
        compile_s_stock=stock["compile_s"], compile_s_fused=fused["compile_s"],
        max_rel_err=err, rel_err_ok=err <= 2e-2, transposed_bit_exact=weights_equal,
        decisions=" | ".join(fused["decisions"]),
    )
    return _derived(result)


def bench_with_grads(step: Callable[[], Any], params) -> float:
    """Median ms of a training step, gradients reset to None before each rep (no accumulation kernel)."""
    from triton.testing import do_bench

    return do_bench(step, warmup=25, rep=200, grad_to_none=params, return_mode="median")
