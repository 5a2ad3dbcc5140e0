"""The fused kernels' Triton source is the one torch 2.11.0 generates, on every supported torch (2.11.0, 2.15.0).

The golden file (``test/golden/fused_kernels_torch_2.11.0.json``) was made under torch 2.11.0 with
``python -m reduction_transpose_fusion_testing.golden``; here the same kernels are generated under the installed torch
and compared after the normalization of :mod:`reduction_transpose_fusion_testing.golden` (names, Inductor's config
copy in ``inductor_meta``, and the one spelling of Inductor's that differs: 2.15's NaN-propagating ``tl.maximum``).
Everything else, the package's code included (the finish, the launch, the row-tile grid, the prefetch), must be the
same text.
"""

from __future__ import annotations

import difflib
import json
import pathlib

import pytest

from reduction_transpose_fusion_testing import golden

GOLDEN = pathlib.Path(__file__).resolve().parents[1] / "golden" / "fused_kernels_torch_2.11.0.json"


@pytest.fixture(scope="module")
def generated() -> dict[str, str]:
    return golden.generate_all()


def test_the_golden_file_covers_every_family_and_problem():
    from reduction_transpose_fusion_testing import families

    expected = {golden.key(name, *problem) for name in families.CASES for problem in golden.PROBLEMS}
    assert set(json.loads(GOLDEN.read_text())) == expected


def test_fused_kernel_sources_match_torch_2_11(generated):
    want = json.loads(GOLDEN.read_text())
    differing = {k: "\n".join(difflib.unified_diff(want[k].splitlines(), generated[k].splitlines(), "2.11.0",
                                                   "installed", lineterm="", n=1))
                 for k in want if generated.get(k) != want[k]}
    assert not differing, "\n\n".join(f"{k}:\n{d}" for k, d in list(differing.items())[:3]) + (
        f"\n... {len(differing)} kernels differ" if len(differing) > 3 else "")


def test_the_normalization_keeps_what_the_kernel_computes():
    """The normalization only renames and drops Inductor's config copy: a change in the body still shows."""
    src = ("@triton_heuristics.fixed_config(\n    inductor_meta={'grid_type': 'X', 'backend_hash': 'AB', "
           "'num_load': 1},\n)\n@triton.jit\ndef triton_k_0(a):\n    b = tl.maximum(a, c, tl.PropagateNan.ALL)\n")
    out = golden.normalize("triton_k_0", src)
    assert "def KERNEL(a):" in out and "backend_hash" not in out and '"num_load": 1' in out
    assert "b = triton_helpers.maximum(a, c)" in out
    assert golden.normalize("triton_k_0", src.replace("b = ", "d = ")) != out
