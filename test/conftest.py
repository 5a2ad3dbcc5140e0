"""Test modes.

* No GPU (CI, this machine): a fake H200 is installed before Inductor is imported, so Inductor generates real CUDA
  Triton code; kernels run on the CPU under Triton's interpreter, which needs ``TRITON_INTERPRET=1`` set before
  ``triton`` is imported (here).  Tests marked ``gpu`` are skipped.
* A real GPU: nothing is faked; only tests marked ``gpu`` run (the CPU-mode tests need the fake device).
"""

from __future__ import annotations

import os

import torch

HAS_GPU = torch.cuda.is_available()

if not HAS_GPU:
    os.environ["TRITON_INTERPRET"] = "1"
    from reduction_transpose_fusion_testing import fake_cuda

    fake_cuda.install()

import pytest  # noqa: E402

import reduction_transpose_fusion  # noqa: E402,F401  (registers the config entries and backend)
from reduction_transpose_fusion_testing.logs import decision_log  # noqa: E402

if not HAS_GPU:
    from reduction_transpose_fusion_testing import interpret

    interpret.boolean_masks()  # for every interpreted kernel, the lab's too (Triton 3.9's interpreter)


def pytest_collection_modifyitems(config, items):
    skip_gpu = pytest.mark.skip(reason="needs a CUDA GPU")
    skip_cpu = pytest.mark.skip(reason="CPU-mode test (fake device); this machine has a real GPU")
    for item in items:
        is_gpu = "gpu" in item.keywords
        if is_gpu and not HAS_GPU:
            item.add_marker(skip_gpu)
        elif not is_gpu and HAS_GPU:
            item.add_marker(skip_cpu)


@pytest.fixture
def decisions():
    """The INFO records of the package's log while the test runs."""
    with decision_log() as records:
        yield records


@pytest.fixture
def unseen_reader(monkeypatch):
    """The pass sees no full-size reader of any reduction's result, as where Inductor fuses one the FX walk cannot
    see into the kernel: the case the grid-barrier finish is kept for."""
    from reduction_transpose_fusion.fx_passes import reduction_transpose as rt  # after the fake device

    monkeypatch.setattr(rt, "full_size_reader", lambda reduction, numel: "")
