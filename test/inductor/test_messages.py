"""What the package says to a user: the log's reasons for degenerate shapes, and launch overrides it adjusts or
refuses."""

from __future__ import annotations

import pytest
import torch

from reduction_transpose_fusion_testing import interpret

ON = dict(reduction_transpose_fusion=True)


def _copy_and_sum(x):
    return x.t().contiguous(), x.sum(0)


def test_an_empty_input_is_logged_as_empty(decisions):
    interpret.generate(_copy_and_sum, interpret.fake_inputs(((64, 0), torch.float32)), **ON)
    assert decisions == ["skip sum_1 float32[0]: not a site: empty tensor (N * C == 0)"]


@pytest.mark.parametrize("shape", [(1, 1), (1, 4096), (4096, 1)])
def test_a_transpose_that_inductor_made_a_view_is_logged_as_one(decisions, shape):
    interpret.generate(_copy_and_sum, interpret.fake_inputs((shape, torch.float32)), **ON)
    rows, cols = shape
    assert len(decisions) == 1
    assert decisions[0].endswith(
        f"not a site: the transposed copy of the [{rows}, {cols}] tensor is a view: with a dim of size 1, x.t() is "
        "already contiguous, so .contiguous() copies nothing and there is no copy to fuse"), decisions
