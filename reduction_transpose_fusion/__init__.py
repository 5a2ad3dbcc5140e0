"""Reduction–transpose fusion for PyTorch Inductor.

When a graph needs both a transposed contiguous copy of ``x [N, C]`` (or of a pointwise result of it) and
reductions of ``x`` over its leading dims, stock ``torch.compile`` emits 2–4 kernels that read ``x`` two or three
times; with this package Inductor emits one kernel that reads ``x`` once and writes every output.

Usage::

    import reduction_transpose_fusion  # registers the config entries, the heuristics and the CUDA backend
    torch._inductor.config.reduction_transpose_fusion = True   # off by default

The config entries exist only after the import: without it torch refuses them as unknown options
(``torch._inductor.config.reduction_transpose_fusion does not exist``, or ``Unexpected optimization option`` from
``torch.compile(options=...)``), and the ``TORCHINDUCTOR_REDUCTION_TRANSPOSE_FUSION*`` variables are read by nothing.

Importing raises ``ImportError`` on any torch other than those in :data:`SUPPORTED_TORCH` (2.11.0 and 2.15.0, the
releases its tests run on): the package extends Inductor internals that change between releases (listed in
:mod:`reduction_transpose_fusion._torch_private`, which holds every difference between the two).  The releases
between them (2.12 to 2.14) are not tested, so they are refused too.
"""

from __future__ import annotations

import torch

SUPPORTED_TORCH = ("2.11.0", "2.15.0")
__version__ = "0.1.0"

if torch.__version__.split("+")[0] not in SUPPORTED_TORCH:
    raise ImportError(
        f"reduction_transpose_fusion supports torch {' and '.join(SUPPORTED_TORCH)} only (the releases between, "
        f"2.12 to 2.14, are not tested); found torch {torch.__version__}. "
        f"Install torch=={SUPPORTED_TORCH[0]} or torch=={SUPPORTED_TORCH[-1]}."
    )

from . import _torch_private, config  # noqa: E402
from .choices import ReductionTransposeChoices  # noqa: E402
from .codegen.cuda_combined_scheduling import ReductionTransposeCUDACombinedScheduling  # noqa: E402
from .fx_passes.reduction_transpose import ConfigCheckPass, ReductionTransposePass  # noqa: E402
from .runtime.triton_heuristics import RowTileGrid  # noqa: E402
from .scheduler import keeps_its_loops, may_join_combo_kernel  # noqa: E402


def install() -> None:
    """Register the config entries, the log, the choices handler, the CUDA backend, the CPU backend's check of the
    switches, the combo-kernel filter, the marked copies' exemption from loop-index inversion and the grid of one
    program per row tile.  Idempotent; runs at import.

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
    _torch_private.register_grid_type(RowTileGrid)


install()

__all__ = ["SUPPORTED_TORCH", "install", "config"]
