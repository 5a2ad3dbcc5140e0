"""Graphs at the edges of what the site pass accepts, shared by the CPU and the GPU hardening tests.

Each takes CPU or CUDA tensors and returns a tuple; which outputs are transposed copies is said at the use.
"""

from __future__ import annotations

import torch


def reads_its_own_sum(x):
    """A sum that a later loop over ``x`` reads (``x * s``): the fused kernel keeps Inductor's grid-barrier finish."""
    s = x.sum(0)
    return x.t().contiguous(), s, x * s


def sum_4d(x):
    return x.reshape(-1, x.shape[-1]).t().contiguous(), x.sum((0, 1, 2))


def transpose_3d(x):
    return x.transpose(1, 2).contiguous(), x.sum(0)


def strided_slice(x):
    v = x[:, ::2]
    return v.t().contiguous(), v.sum(0)


def transposed_input(w):
    x = w.t()  # column-major [N, C]
    return x.t().contiguous(), x.sum(0)


def broadcast_row(x, b):
    y = x * b  # b: [C], broadcast over rows
    return y.t().contiguous(), y.sum(0), (x * x).sum(0)


def broadcast_column(x, s):
    y = x + s  # s: [N, 1]
    return y.t().contiguous(), y.sum(0)


def views_of_the_copy(x):
    t = x.t().contiguous()
    return t, t[:10], t.view(-1), x.sum(0), x


def chunks(x):
    t = x.t().contiguous()
    a, b = t.chunk(2)
    s = x.sum(0)
    return a, b, s, s.view(1, -1)


def inplace_producer(a, b):
    y = a * b
    y.add_(1)
    return y.t().contiguous(), y.sum(0), y


def inplace_input(a, b):
    a.mul_(2)
    return a.t().contiguous(), a.sum(0), b + a


def two_copies_no_partner(x, y):
    return x.t().contiguous(), y.sum(0), (x * 2).sum(1)


def to_fp8_saturated(fp8, lower=None, upper=None):
    """torchao 0.18's cast, ``(x * s).clamp(lower, upper).to(fp8)``, and its transposed copy; the bounds default to
    the format's largest finite value ``±M`` (448 for e4m3fn, 57344 for e5m2), torchao's."""
    largest = torch.finfo(fp8).max
    lower = -largest if lower is None else lower
    upper = largest if upper is None else upper

    def cast(x, s):
        q = (x * s).clamp(lower, upper).to(fp8)
        return q, q.t().contiguous()

    return cast


def values_past_fp8(shape, dtype, fp8, seed, device="cpu"):
    """Random values of ``dtype`` across and past the range of ``fp8`` (``randn * 0.7 M``: about 15% past ``±M``),
    with ±inf, NaN, ±0, a tiny value and values at and just past ``±M`` at random places."""
    gen = torch.Generator().manual_seed(seed)
    m = torch.finfo(fp8).max
    x = torch.randn(shape, generator=gen, dtype=torch.float64) * m * 0.7
    special = torch.tensor([m, -m, m * 1.03, -m * 1.03, m * 1.1, 1e30, -1e30, float("inf"), float("-inf"),
                            float("nan"), 0.0, -0.0, 1e-30], dtype=torch.float64)
    x.view(-1)[torch.randperm(x.numel(), generator=gen)[: special.numel()]] = special
    return x.to(dtype).to(device)


# Inductor's own reductions that store a tensor transposed, which no site holds (scheduler.tuned_by_coordinate_descent)
def row_amax_and_transposed_cast(x, scale):
    """The row amax of ``x [N, C]`` and ``x`` scaled per column, cast to fp8 e4m3 and transposed: Inductor fuses the
    transposed copy into the row reduction's kernel."""
    return x.float().abs().amax(1, keepdim=True), (x.float() * scale).to(torch.float8_e4m3fn).t().contiguous()

