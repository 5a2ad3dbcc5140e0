"""Pretend there is one H200 so Inductor generates (and Triton compiles) CUDA code on a CPU-only machine.

Test-only.  With torch 2.11.0 (triton 3.6.0) and 2.15.0 (triton 3.9.0), Inductor asks the CUDA runtime
(``torch.cuda.*``: device count, properties, capability, RNG state, stream capture) and the Triton driver (the current
target, device and stream) about the GPU in a handful of places, several of them cached with ``functools.cache``
(``DeviceProperties.create``, the device interface), so :func:`install` must run **before** ``torch._dynamo`` /
``torch._inductor`` are imported.  Constants
that the graph passes fold for real are computed on the CPU (:func:`_fold_constants_on_cpu`).  Nothing here launches a
kernel: generated kernels run only under ``TRITON_INTERPRET=1`` on CPU tensors (see :mod:`.interpret`).
"""

from __future__ import annotations

import sys
import types

# Device properties of the H200 we measure on (torch.cuda.get_device_properties there, 2026-11-29).
H200 = dict(
    name="NVIDIA H200",
    major=9,
    minor=0,
    multi_processor_count=132,
    regs_per_multiprocessor=65536,
    max_threads_per_multi_processor=2048,
    max_threads_per_block=1024,
    warp_size=32,
    shared_memory_per_block_optin=232448,
    shared_memory_per_multiprocessor=233472,
    shared_memory_per_block=49152,
    L2_cache_size=62914560,
    total_memory=150_000_000_000,
    is_integrated=False,
    uuid="00000000-0000-0000-0000-000000000000",
    gcnArchName="",
    pci_bus_id=0,
    pci_device_id=0,
    pci_domain_id=0,
)

_installed = False


def install() -> None:
    """Patch torch and triton so that one fake sm_90 CUDA device exists.  Idempotent.

    Raises:
        RuntimeError: if a real GPU is present (patching would hide it) or Inductor was already imported.
    """
    global _installed
    if _installed:
        return
    import torch

    if torch.cuda.is_available():
        raise RuntimeError("fake_cuda.install() called on a machine with a real GPU")
    if "torch._inductor.codecache" in sys.modules:
        raise RuntimeError(
            "fake_cuda.install() must run before torch._inductor is imported. `import torch` imports it where "
            "TORCH_LOGS names reduction_transpose_fusion (torch's log parser imports the module) or a "
            "TORCHINDUCTOR_REDUCTION_TRANSPOSE_FUSION* variable is set (the package's autoload): unset them, and "
            "turn the log on after install() with torch._logging.set_logs(modules={'reduction_transpose_fusion': "
            "logging.INFO})")

    props = types.SimpleNamespace(**H200)
    torch.cuda.is_available = lambda: True
    torch.cuda.device_count = lambda: 1
    torch.cuda.current_device = lambda: 0
    torch.cuda.get_device_properties = lambda device=None: props
    torch.cuda.get_device_capability = lambda device=None: (9, 0)
    torch.cuda.get_device_name = lambda device=None: H200["name"]
    torch.cuda.get_rng_state = lambda device="cuda": torch.zeros(16, dtype=torch.uint8)
    torch.cuda.set_rng_state = lambda new_state, device="cuda": None
    torch.cuda.get_rng_state_all = lambda: [torch.zeros(16, dtype=torch.uint8)]
    torch.cuda.set_rng_state_all = lambda states: None
    torch.cuda.synchronize = lambda device=None: None
    torch.cuda._exchange_device = lambda device: 0
    torch.cuda._maybe_exchange_device = lambda device: 0
    torch.cuda.is_initialized = lambda: True
    torch.cuda.is_current_stream_capturing = lambda: False  # torch 2.15's Dynamo asks it of every traced frame
    torch.accelerator.is_available = lambda: False  # dynamo's stream tracking would touch the driver

    import torch._subclasses.fake_tensor as fake_tensor

    fake_tensor.init_gpu_context = lambda device: None
    fake_tensor.FakeTensorMode.avoid_device_init = True
    torch._C._ensureCUDADeviceGuardSet()

    from triton.backends.compiler import GPUTarget
    from triton.backends.nvidia.driver import CudaDriver
    from triton.runtime.driver import driver

    class _FakeCudaDriver(CudaDriver):
        def __init__(self):  # the real one loads libcuda.so.1
            pass

        def get_current_target(self):
            return GPUTarget("cuda", 90, 32)

        def get_current_device(self):
            return 0

        def get_current_stream(self, device=None):
            return 0

    driver.set_active(_FakeCudaDriver())

    # `import torch` may already have read these from the environment; set them for certain
    import torch._inductor.config as inductor_config

    inductor_config.force_disable_caches = True  # get_code leaves broken FX-graph-cache entries otherwise
    inductor_config.compile_threads = 1
    _fold_constants_on_cpu()
    _installed = True


def _fold_constants_on_cpu() -> None:
    """Make Inductor's constant folding compute the graph's constants on the CPU.

    The joint-graph pass ``constant_fold_uniform_value`` runs the graph's constant subgraphs for real (through
    ``ConstantFolder.run_node``) to find tensors of one value: ``torch.where(m, g, 0.0)``, ``nansum``,
    ``logsumexp`` and ``ones_like`` in a GELU backward create ``scalar_tensor(..., device='cuda')``, which needs the
    driver this machine lacks.  It only keeps each folded value as a number and builds its replacement with the FX
    node's own (fake CUDA) device, so computing the value on the CPU gives the graph the GPU would compile.
    """
    import torch
    from torch._inductor import constant_folding
    from torch.utils._python_dispatch import TorchDispatchMode

    class CudaOnCpu(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            kwargs = {k: (torch.device("cpu") if k == "device" and v is not None and torch.device(v).type == "cuda"
                          else v) for k, v in (kwargs or {}).items()}
            return func(*args, **kwargs)

    real = constant_folding.ConstantFolder.run_node

    def run_node(self, node):
        with CudaOnCpu():
            return real(self, node)

    constant_folding.ConstantFolder.run_node = run_node
