"""Compile generated Triton kernels to sm_90a cubins without a GPU and report registers and spills.

Run as a separate process (``TRITON_INTERPRET`` must be unset there, and Inductor must not yet be imported)::

    python -m reduction_transpose_fusion_testing.compile_cubins < kernels.json > report.json

Input: ``{label: [kernel name, kernel source]}`` (the Triton source Inductor generated, decorator included).  Output:
``{label: {"target": "sm_90a", "registers": int, "spill_bytes": int, "stack_bytes": int, "shared_bytes": int,
"dynamic_shared_bytes": int, "global_stores": {suffix: count}, "fp8_conversions": {suffix: count}}}``: the PTX
target, then ``cuobjdump -res-usage`` (bundled with Triton) on the cubin (spills show in ``STACK``, the stack frame,
as ``ptxas -v`` counts them; ``LOCAL`` is reported as ``spill_bytes`` too: check both), then Triton's dynamic shared
memory, then the PTX's global stores by width and its conversions to fp8 by their suffixes
(``"rn.satfinite.e4m3x2.f32"``).
"""

from __future__ import annotations

import json
import os
from collections import Counter
import re
import subprocess
import sys
import tempfile

from reduction_transpose_fusion_testing.processes import child_environ

RES_USAGE = re.compile(r"REG:(\d+) STACK:(\d+) SHARED:(\d+) LOCAL:(\d+)")
GLOBAL_STORE = re.compile(r"\bst\.global((?:\.\w+)+)")  # the suffixes of a PTX global store
CONVERSION = re.compile(r"\bcvt((?:\.\w+)+)")  # the suffixes of a PTX cvt: modifiers, destination type, source type
CVT_MODIFIERS = {"rn", "rz", "rm", "rp", "rna", "rni", "rzi", "rmi", "rpi", "sat", "satfinite", "relu", "ftz"}
CACHE_HINTS = ("L1", "L2", "cs", "wb")  # store qualifiers that say nothing of the width


def compile_kernel(name: str, source: str) -> dict:
    from torch._inductor import config as inductor_config
    from torch._inductor.codecache import PyCodeCache

    inductor_config.use_static_cuda_launcher = False  # keep Triton's CompiledKernel, cubin included
    autotuner = getattr(PyCodeCache.load(source), name)  # @triton.jit needs the source in a file
    autotuner.precompile(warm_cache_only=True)
    kernel = autotuner.compile_results[0].kernel
    target = re.search(r"^\.target (\w+)", kernel.asm["ptx"], re.M).group(1)
    usage = _res_usage(kernel.asm["cubin"])
    return {"target": target, **usage, "dynamic_shared_bytes": kernel.metadata.shared,
            "global_stores": _global_stores(kernel.asm["ptx"]),
            "fp8_conversions": _fp8_conversions(kernel.asm["ptx"])}


def _global_stores(ptx: str) -> dict[str, int]:
    """PTX global store instructions by their suffixes (``"v4.b32"``: a 16-byte vector, ``"b16"``: a 2-byte scalar)."""
    widths = (".".join(part for part in suffix.split(".") if part and not part.startswith(CACHE_HINTS))
              for suffix in GLOBAL_STORE.findall(ptx))
    return dict(Counter(widths))


def _fp8_conversions(ptx: str) -> dict[str, int]:
    """PTX conversions to fp8 (destination e4m3 or e5m2) by their suffixes (``"rn.satfinite.e4m3x2.f32"``)."""
    found = Counter()
    for suffix in CONVERSION.findall(ptx):
        parts = suffix.strip(".").split(".")
        destination = next((p for p in parts if p not in CVT_MODIFIERS), "")
        if destination.startswith(("e4m3", "e5m2")):
            found[".".join(parts)] += 1
    return dict(found)


def _res_usage(cubin: bytes) -> dict:
    import triton

    tool = os.path.join(os.path.dirname(triton.__file__), "backends", "nvidia", "bin", "cuobjdump")
    with tempfile.NamedTemporaryFile(suffix=".cubin") as f:
        f.write(cubin)
        f.flush()
        out = subprocess.run([tool, "-res-usage", f.name], capture_output=True, text=True, check=True).stdout
    m = RES_USAGE.search(out)
    if not m:
        raise RuntimeError(f"cannot read resource usage from cuobjdump:\n{out}")
    reg, stack, shared, local = map(int, m.groups())
    return {"registers": reg, "stack_bytes": stack, "shared_bytes": shared, "spill_bytes": local}


def in_subprocess(kernels: dict[str, list[str]], timeout: float = 1800) -> dict[str, dict]:
    """This module's report for ``{label: [kernel name, source]}``, from a new process (the caller's may run the
    interpreter, or have imported Inductor) that inherits neither ``TRITON_INTERPRET`` nor ``TRITON_PTXAS_PATH``
    (:func:`..processes.child_environ`): the cubins are always assembled by Triton's bundled ptxas, whatever ran
    before in the caller.

    Raises:
        RuntimeError: with the end of the process's stderr, if it fails.
    """
    proc = subprocess.run([sys.executable, "-m", __name__], input=json.dumps(kernels), capture_output=True,
                          text=True, env=child_environ(), timeout=timeout)
    if proc.returncode != 0:
        raise RuntimeError(f"compile_cubins failed:\n{proc.stderr[-4000:]}")
    return json.loads(proc.stdout)


def main() -> None:
    if os.environ.get("TRITON_INTERPRET") == "1":
        raise SystemExit("compile_cubins needs TRITON_INTERPRET unset")
    from reduction_transpose_fusion_testing import fake_cuda

    fake_cuda.install()
    kernels = json.load(sys.stdin)
    json.dump({label: compile_kernel(name, src) for label, (name, src) in kernels.items()}, sys.stdout)


if __name__ == "__main__":
    main()
