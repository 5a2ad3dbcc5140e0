"""The fused kernels' Triton source for the families F1–F5, normalized, against golden files made with torch 2.11.0.

    python -m reduction_transpose_fusion_testing.golden > test/golden/fused_kernels_torch_2.11.0.json

regenerates the golden file (under torch 2.11.0 only: the file records what 2.11 generates); the test
``test/inductor/test_golden_sources.py`` generates the same kernels under whichever torch is installed and compares.

Normalized away, as they name or configure rather than compute:

* the kernel's name (Inductor numbers and names kernels by the graph's ops);
* ``inductor_meta``'s copy of Inductor's config and the backend hash (which differ with the torch and the Triton
  install), keeping the keys that describe the kernel (:data:`KERNEL_META_KEYS`).

One difference between the versions is normalized too, because it is Inductor's and not the package's:
:data:`NAN_MAXIMUM` (see there).
"""

from __future__ import annotations

import ast
import json
import re
import sys

# Problems of the golden file: (rows, cols, dtype name, dynamic N, launch override).  The ViT-B/16 MLP size of
# test_codegen in each dtype (persistent one-tile or one-wave kernels), an odd 16-bit one, a dynamic N (the row-tile
# grid or looped tiles, guards) and a small looped one with a launch override (the ticketed finish, RSPLIT 3).
PROBLEMS = (
    (25216, 3072, "fp32", False, ""),
    (25216, 3072, "bf16", False, ""),
    (25216, 3072, "fp16", False, ""),
    (8191, 1021, "bf16", False, ""),
    (4096, 768, "bf16", True, ""),
    (197, 100, "bf16", False, "XBLOCK=64,R0_BLOCK=64,RSPLIT=3"),
)
# inductor_meta keys that describe the kernel itself (the rest is Inductor's config, copied into every kernel)
KERNEL_META_KEYS = ("grid_type", "mutated_arg_names", "no_x_dim", "atomic_add_found", "num_load", "num_store",
                    "num_reduction", "tiling_scores", "persistent_reduction")
# torch 2.15's Inductor writes a max reduction's combine as Triton's NaN-propagating maximum,
# ``tl.maximum(a, b, tl.PropagateNan.ALL)``, where torch 2.11's writes ``triton_helpers.maximum(a, b)`` (NaN first,
# then ``tl.maximum``): the same values, NaN included.  F3-amax's kernels have it.  Normalized to 2.11's spelling.
NAN_MAXIMUM = re.compile(r"\btl\.(maximum|minimum)\(([^(),]+), ([^(),]+), tl\.PropagateNan\.ALL\)")
_META_LINE = re.compile(r"^(\s*inductor_meta=)(\{.*\})(,?)$", re.M)


def key(name: str, rows: int, cols: int, dtype: str, dynamic: bool, launch: str) -> str:
    return f"{name}/{rows}x{cols}/{dtype}" + ("/dynamic-N" if dynamic else "") + (f"/{launch}" if launch else "")


def normalize(kernel_name: str, source: str) -> str:
    """``source`` (one kernel, decorator included) with its name, Inductor's config copy and the known spelling
    difference normalized (module docstring)."""
    source = source.replace(kernel_name, "KERNEL")

    def kernel_meta(m: re.Match) -> str:
        meta = ast.literal_eval(m.group(2).replace("set()", "()"))
        kept = {k: (list(v) if isinstance(v, (set, tuple)) else v) for k, v in meta.items() if k in KERNEL_META_KEYS}
        return f"{m.group(1)}{json.dumps(kept, sort_keys=True)}{m.group(3)}"

    source = _META_LINE.sub(kernel_meta, source)
    return NAN_MAXIMUM.sub(r"triton_helpers.\1(\2, \3)", source)


def generate_all() -> dict[str, str]:
    """{key: normalized fused kernel source} for every family of ``families.CASES`` and problem of :data:`PROBLEMS`,
    with every safe site fused (``families.FUSE_EVERY_SITE``).  Needs the fake H200 installed.

    Raises:
        AssertionError: if a problem does not give exactly one kernel.
    """
    from reduction_transpose_fusion_testing import families, interpret

    out = {}
    for name, case in families.CASES.items():
        for rows, cols, dtype, dynamic, launch in PROBLEMS:
            dims = sorted({d for dims in case.row_dims() for d in dims}) if dynamic else ()
            inputs = interpret.fake_inputs(*case.specs(rows, cols, families.DTYPES[dtype]), dynamic=dims)
            module = interpret.generate(case.fn, inputs, **families.FUSE_EVERY_SITE,
                                        reduction_transpose_fusion_launch_config=launch)
            kernels = interpret.kernel_sources(module)
            k = key(name, rows, cols, dtype, dynamic, launch)
            assert len(kernels) == 1, (k, list(kernels))
            (kernel_name, source), = kernels.items()
            out[k] = normalize(kernel_name, source)
    return out


def main() -> None:
    import torch

    if torch.__version__.split("+")[0] != "2.11.0":
        raise SystemExit(f"the golden file records torch 2.11.0's kernels; this is torch {torch.__version__}")
    from reduction_transpose_fusion_testing import fake_cuda

    fake_cuda.install()
    import reduction_transpose_fusion  # noqa: F401

    json.dump(generate_all(), sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
