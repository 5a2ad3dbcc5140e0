"""Timing a launch candidate at compile time by CUDA-graph replay (``codegen/triton.py`` times each candidate).

Inductor's benchmarker times one launch at a time between two CUDA events, after an L2 flush; a kernel of a few µs
then reads as its launch and event overhead: a 4 µs kernel timed about 15 µs (the bf16 cast of f32[76, 11868], random
seed 914525693: the rules' launch 15.2 µs, stock's 15.3 µs, and the rules' ran at 0.82x of stock), so the candidates
of small sites were ranked on noise.  :func:`graph_ms` captures many launches in one CUDA graph and replays it,
as the random-site benchmark times whole sites (``benchmarks/random_sites.py``):

* the launches cycle over copies of the kernel's inputs, enough that they span :data:`L2_MULTIPLE` times the L2 (at
  most :data:`MAX_INPUT_SETS`), so a site larger than a third of the L2 is timed from memory, as it runs in a graph;
* one replay is about :data:`GRAPH_TARGET_MS` long, far above the events' resolution, and the time is the median of
  :data:`GRAPH_ROUNDS` replays, per launch;
* the call is the benchmark module's ``call(args)``, preceded by the zero fill of the kernel's semaphores where it
  takes them (``_torch_private.time_kernel_source``), as the graph's wrapper fills them at each call: a kernel with
  the ticket or flagged partials is timed with its fill, against launches that have none (Inductor's own launch, the column tile; the
  separate finish, whose module launches both its kernels: ``codegen.triton.with_finish_kernel``).
"""

from __future__ import annotations

import math
from typing import Any, Callable, Sequence

import torch

L2_MULTIPLE = 3
MAX_INPUT_SETS = 64
GRAPH_TARGET_MS = 1.0
MAX_CALLS = 1000
GRAPH_ROUNDS = 5


def copy_args(args: Sequence[Any]) -> list:
    """``args`` with each tensor copied in its own layout (:func:`same_layout_copy`); other values as they are."""
    return [same_layout_copy(a) if isinstance(a, torch.Tensor) else a for a in args]


def same_layout_copy(tensor: torch.Tensor) -> torch.Tensor:
    """A copy of ``tensor`` with its sizes, strides and storage offset: a kernel compiled for the original's layout
    (a slice of a wider buffer, an output written into a ``torch.cat`` buffer at a row stride wider than its rows)
    reads and writes the copy within its storage.  ``Tensor.clone()`` would pack the elements, and the kernel's
    strides would then run past the copy's end.  The copy spans the original's storage from offset 0 to its last
    element."""
    if tensor.numel() == 0:
        return tensor.clone()
    span = tensor.storage_offset() + sum((size - 1) * stride for size, stride in zip(tensor.shape, tensor.stride())) + 1
    flat = torch.as_strided(tensor, (span,), (1,), 0).clone()
    return torch.as_strided(flat, tensor.shape, tensor.stride(), tensor.storage_offset())


def graph_ms(call: Callable[[list], Any], args: Sequence[Any], device: torch.device) -> float:
    """Milliseconds of one ``call(list(args))`` by CUDA-graph replay (module docstring).

    Args:
        call: launches the kernel once on a list of arguments, which it may clear (Inductor's benchmark module
            ``call(args)``); its first call compiles the kernel.
        args: the kernel's arguments (tensors on ``device``, sizes).
        device: the CUDA device of the tensors.

    Raises:
        Whatever the call or the capture raises (a kernel that does not compile or launch, out of memory): the caller
        falls back to Inductor's benchmarker or counts the candidate as untimed.
    """
    tensors = [a for a in args if isinstance(a, torch.Tensor)]
    nbytes = max(1, sum(t.untyped_storage().nbytes() for t in tensors))
    l2 = torch.cuda.get_device_properties(device).L2_cache_size
    sets = max(1, min(MAX_INPUT_SETS, math.ceil(L2_MULTIPLE * l2 / nbytes)))
    arg_sets = [list(args)] + [copy_args(args) for _ in range(sets - 1)]
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    call(list(arg_sets[0]))  # compiles, and runs the kernel's first-call checks outside the capture
    start.record()
    call(list(arg_sets[-1]))
    end.record()
    end.synchronize()
    calls = max(sets, min(MAX_CALLS, math.ceil(GRAPH_TARGET_MS / max(start.elapsed_time(end), 1e-3))))
    graph = torch.cuda.CUDAGraph()
    # thread_local: CUDA work of other threads (a training loop beside the compile) does not fail the capture
    with torch.cuda.graph(graph, capture_error_mode="thread_local"):
        for i in range(calls):
            call(list(arg_sets[i % sets]))
    graph.replay()  # the first replay uploads the graph
    times = []
    for _ in range(GRAPH_ROUNDS):
        start.record()
        graph.replay()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) / calls)
    del graph, arg_sets
    return sorted(times)[len(times) // 2]
