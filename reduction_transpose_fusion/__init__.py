"""Reduction–transpose fusion for PyTorch Inductor.

When a graph needs both a transposed contiguous copy of ``x [N, C]`` (or of a pointwise result of it) and
reductions of ``x`` over its leading dims, stock ``torch.compile`` emits 2–4 kernels that read ``x`` two or three
times; with this package Inductor emits one kernel that reads ``x`` once and writes every output.

Usage::

    import reduction_transpose_fusion  # registers the config entries, the heuristics and the CUDA backend
    torch._inductor.config.reduction_transpose_fusion = True   # off by default

The config entries exist only after the import: without it torch refuses them as unknown options
(``torch._inductor.config.reduction_transpose_fusion does not exist``, or ``Unexpected optimization option`` from
``torch.compile(options=...)``).  Where a ``TORCHINDUCTOR_REDUCTION_TRANSPOSE_FUSION*`` variable is set, ``import torch``
imports the package itself (``_reduction_transpose_fusion_autoload``, a ``torch.backends`` entry point).

Importing raises ``ImportError`` on a torch outside :data:`SUPPORTED_TORCH`, 2.11.0 through 2.15.0: the package
extends Inductor internals that change between releases (listed in :mod:`reduction_transpose_fusion._torch_private`,
which holds every difference between 2.11 and 2.15 and tells them apart by what the installed torch has, not by its
version number).  The tests run on the two ends of the range, 2.11.0 and 2.15.0.
"""

from __future__ import annotations

import re

import torch

# The first and the last torch release supported, both included (pyproject.toml: torch>=2.11.0,<=2.15.0); the tests
# run on both
SUPPORTED_TORCH = ("2.11.0", "2.15.0")
__version__ = "0.1.0"


def _release(version: str) -> tuple[int, ...]:
    """(major, minor, patch) of a torch version string: ``"2.15.0+cu132"`` -> ``(2, 15, 0)``; a pre-release or
    development build counts as its release (``"2.15.0a0+git1234"`` -> ``(2, 15, 0)``); ``()`` if it has none."""
    m = re.match(r"(\d+)\.(\d+)\.(\d+)", version)
    return tuple(int(g) for g in m.groups()) if m else ()


if not _release(SUPPORTED_TORCH[0]) <= _release(torch.__version__) <= _release(SUPPORTED_TORCH[1]):
    raise ImportError(
        f"reduction_transpose_fusion supports torch {SUPPORTED_TORCH[0]} through {SUPPORTED_TORCH[1]}; found torch "
        f"{torch.__version__}, outside that range. Install a torch in it, e.g. torch=={SUPPORTED_TORCH[1]} "
        f"(the tests run on {SUPPORTED_TORCH[0]} and {SUPPORTED_TORCH[1]})."
    )

from . import _torch_private, config  # noqa: E402
from .choices import ReductionTransposeChoices  # noqa: E402
from .codegen.cuda_combined_scheduling import ReductionTransposeCUDACombinedScheduling  # noqa: E402
from .fx_passes.reduction_transpose import ConfigCheckPass, ReductionTransposePass  # noqa: E402
from .runtime.triton_heuristics import FinishGrid, RowTileGrid  # noqa: E402
from .scheduler import keep_faster_tuning, keeps_its_loops, may_join_combo_kernel  # noqa: E402


def install() -> None:
    """Register the config entries, the log, the choices handler, the CUDA backend, the CPU backend's check of the
    switches, the combo-kernel filter, the marked copies' exemption from loop-index inversion, the check of the
    configs coordinate descent finds for the kernels the package has tuned, and the grids of one program per row tile
    and of the separate finish.  Idempotent; runs at import.

    Raises:
        ValueError: if an environment variable of :mod:`.config` has a value its check refuses.
    """
    config.register()
    _torch_private.register_log(__name__)  # TORCH_LOGS=reduction_transpose_fusion
    _torch_private.install_choices(ReductionTransposeChoices)
    _torch_private.register_cuda_backend(ReductionTransposeCUDACombinedScheduling,
                                         ReductionTransposePass(ReductionTransposeChoices))
    # the switches are checked for CPU graphs too (a stock CPU backend has no custom pass; another's is kept)
    _torch_private.register_device_pass("cpu", ConfigCheckPass())
    _torch_private.filter_combo_kernel_groups(may_join_combo_kernel)
    _torch_private.keep_out_of_index_inversion(keeps_its_loops)
    _torch_private.check_coordinate_descent(keep_faster_tuning)
    _torch_private.register_grid_type(RowTileGrid)
    _torch_private.register_grid_type(FinishGrid)


install()

__all__ = ["SUPPORTED_TORCH", "install", "config"]
