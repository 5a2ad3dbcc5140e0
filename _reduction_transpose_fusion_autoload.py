"""Imports ``reduction_transpose_fusion`` at the end of ``import torch`` when one of its environment variables is
set, so that ``TORCHINDUCTOR_REDUCTION_TRANSPOSE_FUSION=1 python train.py`` turns the fusion on without an import in
``train.py``.

torch calls :func:`autoload` through the ``torch.backends`` entry-point group (``torch._import_device_backends``;
``TORCH_DEVICE_BACKEND_AUTOLOAD=0`` turns every such hook off).  This module stands outside the package because
importing the package costs seconds (it imports Inductor), which a user of torch who set none of its variables
should not pay: with none set, nothing is imported.  Switches set in code (``torch._inductor.config.
reduction_transpose_fusion = True``) still need ``import reduction_transpose_fusion`` first; without it torch
refuses them as unknown options.
"""

from __future__ import annotations

import os
import warnings

ENV_PREFIX = "TORCHINDUCTOR_REDUCTION_TRANSPOSE_FUSION"


def autoload() -> None:
    """Import the package if a ``TORCHINDUCTOR_REDUCTION_TRANSPOSE_FUSION*`` variable is set.  Never raises: a
    failed import (a bad value, a torch outside the supported range) is a warning naming the variable, so that
    ``import torch`` itself still works; the same error is raised again by an explicit import of the package."""
    names = sorted(name for name in os.environ if name.startswith(ENV_PREFIX))
    if not names:
        return
    try:
        import reduction_transpose_fusion  # noqa: F401
    except Exception as e:  # noqa: BLE001  (torch's import must not fail on a switch of this package)
        warnings.warn(f"{', '.join(names)} set, but reduction_transpose_fusion could not be imported, so the "
                      f"fusion is off: {type(e).__name__}: {e}", RuntimeWarning, stacklevel=2)
