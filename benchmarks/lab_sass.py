"""SASS instructions an element of each kernel of a Float8 MLP step, and the time their issue alone takes (CPU only).

    python -m benchmarks.lab_sass --out benchmarks/results/cpu/<date>-fake-h200-float8-sass.csv

Nsight Compute found the fp8 kernels of these steps bound by instruction issue (73-85% of issue slots busy,
``lab/2026-12-04-h200-lab-ncu-steps.csv``), so their time follows the instructions an element costs, which the
CPU can count: each step's joint graph (``reduction_transpose_fusion_testing.float8_graphs``) is compiled on the fake
H200 with the fusion off, on, and on without the saturating casts (``fx_passes/saturating_casts.py``), each kernel
is compiled for sm_90a (ptxas, as on the GPU) and disassembled (``cuobjdump -sass``, bundled with Triton).

Per kernel and config: the instructions of its row loops (each backward branch's span, the spans of at least a
quarter of the largest one; the whole kernel where it has none) over the tile elements a thread handles an iteration, ``XBLOCK x YBLOCK x R0_BLOCK / (32 x num_warps)``;
a kernel with two loops over the same elements (an amax, then the cast) counts both.  Prologue, epilogue and finish
are left out, so kernels of few elements a program (a persistent reduction of one row a program) read high.  The
issue floor is ``elements x instructions an element / ISSUE_LANE_OPS_PER_S``: the time the warp schedulers need at
one instruction a clock each, which no launch choice goes under.  Stock kernels autotune several configs at the first
call; the row of each keeps the config with the fewest instructions an element.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

import pandas as pd

# The H200's issue rate in lane-instructions a second: 132 SMs x 4 warp schedulers x 32 lanes x 1.98 GHz boost clock
ISSUE_LANE_OPS_PER_S = 132 * 4 * 32 * 1.98e9
STEPS = {  # (recipe, tokens, dim, hidden): the main job's Float8 MLP steps (benchmarks/steps.py)
    "float8-mlp-tensorwise/16384x4096x4096": ("tensorwise", 16384, 4096, 4096),
    "float8-mlp-rowwise/16384x4096x4096": ("rowwise", 16384, 4096, 4096),
    "float8-mlp-tensorwise/8192x4096x14336": ("tensorwise", 8192, 4096, 14336),
    "float8-mlp-rowwise/8192x4096x14336": ("rowwise", 8192, 4096, 14336),
}
VARIANTS = {  # Inductor config patches
    "off": dict(reduction_transpose_fusion=False),
    "on": dict(reduction_transpose_fusion=True),
    "on-clamped": dict(reduction_transpose_fusion=True, reduction_transpose_fusion_saturating_casts=False),
    # Inductor stores a pointwise value read by several kernels once it has more than 8 ops (its default: 30), so the
    # GELU gradient is computed once, stored, and read by the amax and the cast instead of recomputed in each
    "off-realize8": dict(reduction_transpose_fusion=False, realize_opcount_threshold=8),
    "on-realize8": dict(reduction_transpose_fusion=True, realize_opcount_threshold=8),
}
# Loops of at least this fraction of a kernel's largest loop are row loops (counted); smaller ones are a finish's
MIN_LOOP_FRACTION = 0.25
SASS_LINE = re.compile(r"^\s+/\*([0-9a-f]{4,})\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)(.*?);", re.M)
STATIC_NUMEL = re.compile(r"^\s+(\w*numel) = (\d+)$", re.M)


def step_kernels(step: str, variants=tuple(VARIANTS)) -> dict[str, dict[str, str]]:
    """``{variant: {kernel name: source}}`` of one step's joint graph on the fake H200, for ``variants`` (names in
    :data:`VARIANTS`)."""
    from reduction_transpose_fusion_testing import fake_cuda

    fake_cuda.install()
    import reduction_transpose_fusion  # noqa: F401
    from torch._inductor import config as inductor_config
    from torch._inductor.compile_fx import compile_fx
    from torch._inductor.utils import get_code

    from reduction_transpose_fusion_testing import float8_graphs
    from reduction_transpose_fusion_testing.output_code import kernel_sources

    recipe, tokens, dim, hidden = STEPS[step]
    gm, inputs, _ = float8_graphs.joint_graph(float8_graphs.float8_mlp(dim, hidden, recipe), (tokens, dim),
                                              (tokens, dim))
    out = {}
    for variant in variants:
        with inductor_config.patch(fx_graph_cache=False, **VARIANTS[variant]):
            code = get_code(lambda: compile_fx(gm, list(inputs)))
        (module,) = [c for c in (code if isinstance(code, (list, tuple)) else [code]) if c]
        out[variant] = kernel_sources(module)
    return out


def per_element(sass: str, meta: dict[str, int], num_warps: int, r0_numel: int) -> float:
    """SASS instructions an element: the row loops' over the tile elements a thread handles an iteration, or, in a
    kernel with no loop (pointwise, persistent, or a row loop ptxas unrolled whole), all of its instructions over the
    elements a thread handles in the program."""
    lines = [(int(address, 16), op, rest) for address, op, rest in SASS_LINE.findall(sass)]
    index = {address: i for i, (address, _, _) in enumerate(lines)}
    loops = []
    for i, (address, op, rest) in enumerate(lines):
        target = re.search(r"0x([0-9a-f]+)", rest) if op.startswith("BRA") else None
        if target and int(target.group(1), 16) < address and int(target.group(1), 16) in index:
            loops.append(i - index[int(target.group(1), 16)] + 1)
    tile = meta.get("XBLOCK", 1) * meta.get("YBLOCK", 1)
    if loops:  # a finish's loop over partials or a spin-wait is a small fraction of the largest and runs once
        body = sum(n for n in loops if n >= MIN_LOOP_FRACTION * max(loops))
        return body / max(1.0, tile * meta.get("R0_BLOCK", 1) / (32 * num_warps))
    rows = max(meta.get("R0_BLOCK", 1), -(-r0_numel // meta.get("RSPLIT", 1))) if "R0_BLOCK" in meta else 1
    return len(lines) / max(1.0, tile * rows / (32 * num_warps))


def kernel_rows(kernels: dict[str, str]) -> list[dict]:
    """One row per kernel: its elements, best config and instructions an element (run where ``TRITON_INTERPRET``
    is unset, after ``fake_cuda.install()``)."""
    import triton
    from torch._inductor import config as inductor_config
    from torch._inductor.codecache import PyCodeCache

    inductor_config.use_static_cuda_launcher = False  # keep Triton's CompiledKernel, cubin included
    cuobjdump = os.path.join(os.path.dirname(triton.__file__), "backends", "nvidia", "bin", "cuobjdump")
    rows = []
    for name, source in kernels.items():
        autotuner = getattr(PyCodeCache.load(source), name)
        autotuner.precompile(warm_cache_only=True)
        numels = {k: int(v) for k, v in STATIC_NUMEL.findall(source.split("@triton.jit", 1)[1])}
        best = None
        for result in autotuner.compile_results:
            with tempfile.NamedTemporaryFile(suffix=".cubin") as f:
                f.write(result.kernel.asm["cubin"])
                f.flush()
                sass = subprocess.run([cuobjdump, "-sass", f.name], capture_output=True, text=True,
                                      check=True).stdout
            ipe = per_element(sass, result.config.kwargs, result.config.num_warps, numels.get("r0_numel", 1))
            if best is None or ipe < best[0]:
                best = (ipe, {**result.config.kwargs, "num_warps": result.config.num_warps})
        elements = 1
        for value in numels.values():
            elements *= value
        rows.append({"kernel": name, "elements": elements, "config": json.dumps(best[1]),
                     "sass_per_element": round(best[0], 1),
                     "issue_floor_us": round(elements * best[0] / ISSUE_LANE_OPS_PER_S * 1e6, 1)})
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", nargs="*", default=list(STEPS), choices=list(STEPS))
    parser.add_argument("--variants", nargs="*", default=list(VARIANTS), choices=list(VARIANTS))
    parser.add_argument("--out", required=True, help="CSV to write")
    args = parser.parse_args()
    if os.environ.get("TRITON_INTERPRET") == "1":
        raise SystemExit("lab_sass compiles for sm_90a: unset TRITON_INTERPRET")
    frames = []
    for step in args.steps:
        for variant, kernels in step_kernels(step, args.variants).items():
            frame = pd.DataFrame(kernel_rows(kernels))
            frame.insert(0, "variant", variant)
            frame.insert(0, "step", step)
            frames.append(frame)
            print(f"{step} {variant}: {len(kernels)} kernels, issue floor {frame.issue_floor_us.sum():.0f} us",
                  file=sys.stderr)
    import datetime

    import torch
    import triton

    from reduction_transpose_fusion.fx_passes.reduction_transpose import package_hash

    table = pd.concat(frames)
    for column, value in (("date", datetime.date.today().isoformat()), ("target", "fake H200, sm_90a"),
                          ("torch", torch.__version__), ("triton", triton.__version__),
                          ("package_hash", package_hash().hex()[:16])):
        table.insert(0, column, value)
    table.to_csv(args.out, index=False)
    print(table.groupby(["step", "variant"], sort=False).issue_floor_us.sum().to_string())


if __name__ == "__main__":
    main()
