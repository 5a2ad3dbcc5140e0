"""The benchmark harness: its dynamic-N mode (``python -m benchmarks.run --dynamic-rows``), on the fake H200, and its
fresh compiles."""

from __future__ import annotations

import pytest

from benchmarks import harness
from reduction_transpose_fusion_testing import families


@pytest.mark.parametrize("name", sorted(families.CASES))
def test_row_dims_are_the_dims_that_follow_n(name):
    """Every dim ``row_dims`` names changes with N, and every other dim does not."""
    case = families.CASES[name]
    shapes, shapes_more_rows = case.shapes(512, 96), case.shapes(1024, 96)
    for dims, shape, other in zip(case.row_dims(), shapes, shapes_more_rows, strict=True):
        assert {d for d in range(len(shape)) if shape[d] != other[d]} == set(dims)


@pytest.mark.parametrize("family", ["F1-t", "F4-flatten", "F5-fp8-cast-transpose-dbias"])
def test_dynamic_rows_compiles_n_symbolic_and_still_fuses(family):
    """With ``dynamic_rows`` the site's N is a symbol (the log names it) and the kernels fuse into one; without it,
    N is the number."""
    row = harness.Case(name="t", family=family, dtype="bf16", rows=4096, cols=768, suites="", source="")
    dynamic, static = harness.codegen_only(row, dynamic_rows=True), harness.codegen_only(row)
    assert "N=s" in dynamic["decisions"] or "N=2*s" in dynamic["decisions"], dynamic["decisions"]
    assert "N=4096" in static["decisions"], static["decisions"]
    assert dynamic["kernels_fused"] == static["kernels_fused"] == 1
    assert dynamic["kernels_stock"] > 1


def test_forget_compiled_kernels_leaves_no_kernel_for_the_next_compile_to_reuse():
    """A kernel module loaded before :func:`harness.forget_compiled_kernels` is not handed to the next load of the
    same source (whose kernel object, for a one-config kernel, would carry the launcher coordinate descent tuned in the
    first compile), while without it it is."""
    from torch._inductor.codecache import PyCodeCache

    source = "KERNEL = object()  # stands for a compiled kernel and its tuned launcher\n"
    first = PyCodeCache.load(source).KERNEL
    assert PyCodeCache.load(source).KERNEL is first  # what a second compile got before
    harness.forget_compiled_kernels()
    assert PyCodeCache.load(source).KERNEL is not first
