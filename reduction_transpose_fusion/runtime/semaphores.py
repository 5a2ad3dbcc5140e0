"""The last-program finish's semaphores buffer, zeroed once and kept, instead of zeroed at every call of the graph.

Inductor allocates a graph's semaphores buffer (``KernelArgs.semaphores``) at each call of the compiled graph and
zeroes it (``WorkspaceZeroMode.ZERO_PER_GRAPH``): a fill kernel before the first kernel that uses it, about 1.3 µs
of a graph's replay on an H200 (an RSPLIT-1 fused kernel of a sub-megabyte site took 2.97 µs against stock's one
kernel at 1.68 µs; ``benchmarks/results/2026-12-02-h200-random-1635222520.csv``), and a few µs of host time. That
mode already requires every kernel to leave the buffer as it found it, and the fused kernels do: the ticket's last
program resets its counter, the flagged partials' finisher zeroes their words (``codegen/triton.py``).  So a buffer
zeroed once stays zeroed, and :func:`kept_semaphores` hands out one per device, stream and dtype:

* per stream, because kernels on two streams may run at once, and two kernels on the same words would count each
  other's tickets; kernels on one stream run one after the other, as they do within one graph;
* a buffer that must grow is replaced and the old one kept alive (a CUDA graph captured with it still writes to it;
  freed, its memory would go to other tensors);
* while the stream is being captured into a CUDA graph, a buffer not yet kept is allocated and zeroed as Inductor
  does (the zeroing is recorded in the graph, so each replay zeroes it); none is kept from inside a capture, as its
  memory belongs to the graph's pool.

The generated wrapper calls it where Inductor would allocate and zero the buffer (``codegen/wrapper.py``).
"""

from __future__ import annotations

import torch

_kept: dict[tuple[int, int, torch.dtype], torch.Tensor] = {}
_retired: list[torch.Tensor] = []  # outgrown buffers that a captured CUDA graph may still use


def kept_semaphores(device_index: int, words: int, dtype: torch.dtype = torch.uint32) -> torch.Tensor:
    """A zeroed buffer of at least ``words`` elements of ``dtype`` on ``cuda:<device_index>``, kept for the current
    stream (module docstring).  The caller's kernels must leave every word they use zeroed.

    Args:
        device_index: the CUDA device's index.
        words: elements needed (the graph's largest kernel's semaphores and flagged partials).
        dtype: the buffer's dtype (Inductor's semaphores are uint32).

    Returns:
        a 1-D tensor of ``words`` or more elements, all zero.
    """
    stream = torch.cuda.current_stream(device_index)
    key = (device_index, stream.cuda_stream, dtype)
    kept = _kept.get(key)
    if kept is not None and kept.numel() >= words:
        return kept
    device = torch.device("cuda", device_index)
    if torch.cuda.is_current_stream_capturing():
        return torch.zeros(words, dtype=dtype, device=device)
    if kept is not None:
        _retired.append(kept)
    # at least double, so a graph whose size grows call by call (dynamic N) is not reallocated at every call
    _kept[key] = kept = torch.zeros(max(words, 2 * (0 if kept is None else kept.numel())), dtype=dtype, device=device)
    return kept
