"""Graphs at the edges of what the site pass accepts, shared by the CPU and the GPU hardening tests.

Each takes CPU or CUDA tensors and returns a tuple; which outputs are transposed copies is said at the use.
"""

from __future__ import annotations


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
