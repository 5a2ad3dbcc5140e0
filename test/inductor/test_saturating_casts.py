"""fx_passes/saturating_casts.py: an fp8 cast's clamp to the format's largest finite value is dropped where the GPU's
conversion saturates by itself, and no bit of the cast changes.

The workload is torchao 0.18's ``to_fp8_saturated``, ``(x * scale).clamp(-M, M).to(fp8)``, with the largest finite
value ``M`` of the format (448 for e4m3fn, 57344 for e5m2).  The claim has two halves.  The GPU's: the PTX test
checks that every fp8 conversion compiled for sm_90a is ``cvt.rn.satfinite`` (saturating, NaN kept), and
``test_gpu.py::test_fp8_casts_without_their_clamps_keep_stock_bits`` compares bytes with stock's on the H200.  The
rewrite's: the numerics run the generated kernels under the interpreter, whose fp8 conversion models sm_90's
(``interpret.py``), so their equality with stock's shows that the rewrite still converts the same values (the
saturation itself is the model's, equal by construction).
"""

from __future__ import annotations

import math
import re

import pytest
import torch
from torch.fx.experimental.proxy_tensor import make_fx

from reduction_transpose_fusion.fx_passes import saturating_casts
from reduction_transpose_fusion_testing import compile_cubins, interpret
from reduction_transpose_fusion_testing.edge_cases import to_fp8_saturated, values_past_fp8
from reduction_transpose_fusion_testing.logs import decision_log
from reduction_transpose_fusion_testing.stock_codegen import normalize

FP8_DTYPES = {"e4m3fn": torch.float8_e4m3fn, "e5m2": torch.float8_e5m2}
SOURCE_DTYPES = {"fp32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}
ON = dict(reduction_transpose_fusion=True)
ROWS, COLS = 64, 96  # small: the interpreter runs each kernel on the CPU


def largest(fp8: torch.dtype) -> float:
    return torch.finfo(fp8).max


def _clamp_bounds_in(module: str, *bounds: float) -> list[float]:
    """The ``bounds`` that appear as constants in the module's Triton kernels (a clamp Inductor emitted)."""
    return [b for b in bounds if re.search(rf"tl\.full\(\[[^\]]*\], {re.escape(repr(float(b)))}, tl\.float32\)", module)]


def _clamps(graph: torch.fx.Graph) -> list[torch.fx.Node]:
    return [n for n in graph.nodes if n.target in saturating_casts.CLAMPS]


def _inputs(source: torch.dtype):
    return interpret.fake_inputs(((ROWS, COLS), source), ((), torch.float32))


@pytest.mark.parametrize("fp8_name", list(FP8_DTYPES))
@pytest.mark.parametrize("source_name", list(SOURCE_DTYPES))
def test_the_clamp_before_an_fp8_cast_is_dropped(fp8_name, source_name):
    fp8, source = FP8_DTYPES[fp8_name], SOURCE_DTYPES[source_name]
    bounds = (-largest(fp8), largest(fp8))
    with decision_log() as log:
        fused = interpret.generate(to_fp8_saturated(fp8), _inputs(source), **ON)
    kept = interpret.generate(to_fp8_saturated(fp8), _inputs(source), **ON,
                              reduction_transpose_fusion_saturating_casts=False)
    assert _clamp_bounds_in(kept, *bounds) == list(bounds), "the test's clamp is not where the test looks for it"
    assert _clamp_bounds_in(fused, *bounds) == []
    assert any("1 fp8 casts convert without their clamps" in line for line in log), log


@pytest.mark.parametrize("case", ["narrower", "read-elsewhere", "tensor-bound", "e4m3-bounds-for-e5m2", "nan-upper",
                                  "nan-lower"])
def test_a_clamp_that_changes_values_is_kept(case):
    """Narrower bounds than the format's, a clamped value another op reads, a tensor bound, a NaN bound: the code is
    stock's."""
    fp8 = torch.float8_e5m2 if case == "e4m3-bounds-for-e5m2" else torch.float8_e4m3fn
    bound = {"narrower": 100.0, "e4m3-bounds-for-e5m2": 448.0}.get(case, largest(fp8))

    def cast(x, s):
        if case.startswith("nan"):  # every element NaN, in eager and in stock's kernels
            clamped = (x * s).clamp(-bound, math.nan) if case == "nan-upper" else (x * s).clamp_min(math.nan)
        elif case == "tensor-bound":
            clamped = (x * s).clamp(-s * bound, s * bound)  # s > 0: the same bounds, as tensors
        else:
            clamped = (x * s).clamp(-bound, bound)
        q = clamped.to(fp8)
        return (q, q.t().contiguous(), clamped) if case == "read-elsewhere" else (q, q.t().contiguous())

    with decision_log() as log:
        module = interpret.generate(cast, _inputs(torch.float32), **ON)
    assert normalize(module) == normalize(interpret.generate(cast, _inputs(torch.float32), **ON,
                                                             reduction_transpose_fusion_saturating_casts=False))
    if case in ("narrower", "read-elsewhere", "e4m3-bounds-for-e5m2"):  # the clamp is where the test looks for it
        assert bound in _clamp_bounds_in(module, bound)
    assert not any("without their clamps" in line for line in log), log


def test_one_sided_and_wider_clamps_are_dropped_too():
    """A clamp to wider bounds than ``±M``, or to one of them alone, changes nothing after a saturating cast."""
    def cast(x, s):
        q = (x * s).clamp(min=-1e6).to(torch.float8_e4m3fn)
        r = (x * s).clamp(-448.0, 1e6).to(torch.float8_e4m3fn)
        return q, r.t().contiguous()

    module = interpret.generate(cast, _inputs(torch.float32), **ON)
    assert _clamp_bounds_in(module, -1e6, 1e6, -448.0) == []


@pytest.mark.parametrize("capability", [(8, 0), (8, 9), (10, 0)], ids=["sm80", "sm89", "sm100"])
def test_gpus_whose_conversion_was_not_checked_keep_the_clamp(monkeypatch, capability):
    monkeypatch.setattr(torch.cuda, "get_device_capability", lambda device=None: capability)
    module = interpret.generate(to_fp8_saturated(torch.float8_e5m2), _inputs(torch.float32), **ON)
    assert _clamp_bounds_in(module, -57344.0, 57344.0) == [-57344.0, 57344.0]


@pytest.mark.parametrize("capability,hip,dropped", [((9, 0), None, True), ((9, 0), "6.4", False),
                                                    ((8, 9), None, False), ((10, 0), None, False)],
                         ids=["sm90", "rocm", "sm89", "sm100"])
def test_the_pass_drops_clamps_on_sm90_only(monkeypatch, capability, hip, dropped):
    """The FX pass alone, on the traced cast: ROCm (whose devices PyTorch also calls ``cuda``) keeps its clamp.  No
    kernel is generated: Inductor would compile a ROCm graph with Triton's AMD backend, which needs a ROCm GPU."""
    monkeypatch.setattr(torch.cuda, "get_device_capability", lambda device=None: capability)
    monkeypatch.setattr(torch.version, "hip", hip)
    graph = make_fx(to_fp8_saturated(torch.float8_e4m3fn), tracing_mode="fake")(*_inputs(torch.bfloat16)).graph
    assert _clamps(graph), "the traced cast has no clamp to drop"
    rewired = saturating_casts.drop_saturating_clamps(graph)
    assert len(rewired) == int(dropped)
    assert (not _clamps(graph)) == dropped


@pytest.mark.parametrize("fp8_name", list(FP8_DTYPES))
@pytest.mark.parametrize("source_name", list(SOURCE_DTYPES))
def test_dropping_the_clamp_changes_no_bit(fp8_name, source_name):
    fp8, source = FP8_DTYPES[fp8_name], SOURCE_DTYPES[source_name]
    seed = torch.seed() % 2**31  # fresh data each run; a failure names its seed
    x = values_past_fp8((ROWS, COLS), source, fp8, seed)
    scale = torch.tensor(1.0 + torch.rand((), generator=torch.Generator().manual_seed(seed)).item())
    stock = interpret.generate(to_fp8_saturated(fp8), _inputs(source), **ON,
                               reduction_transpose_fusion_saturating_casts=False)
    fused = interpret.generate(to_fp8_saturated(fp8), _inputs(source), **ON)
    assert _clamp_bounds_in(fused, -largest(fp8)) == []
    for want, got in zip(interpret.run_on_cpu(stock, [x, scale]), interpret.run_on_cpu(fused, [x, scale])):
        assert torch.equal(want.view(torch.uint8), got.view(torch.uint8)), f"seed {seed}"
    # and both are the saturating cast of the float64 product (NaN where x is NaN)
    reference = (x.double() * scale.double()).clamp(-largest(fp8), largest(fp8)).to(fp8)
    got = interpret.run_on_cpu(fused, [x, scale])[0]
    assert torch.equal(got.float().isnan(), reference.float().isnan()), f"seed {seed}"
    finite = ~reference.float().isnan()
    # Inductor rounds the product to float32 before the cast (double rounding can differ by one fp8 step from eager's
    # float64 product only where the float32 product sits exactly on an fp8 tie; none of these random values does)
    assert torch.equal(got.float()[finite], reference.float()[finite]), f"seed {seed}"


@pytest.mark.slow
def test_every_fp8_conversion_on_sm90_saturates():
    """The GPU half of the claim: the kernels without their clamps convert with ``cvt.rn.satfinite`` only (ptxas
    for sm_90a, no GPU), for each fp8 format and source dtype."""
    kernels = {}
    for fp8_name, fp8 in FP8_DTYPES.items():
        for source_name, source in SOURCE_DTYPES.items():
            module = interpret.generate(to_fp8_saturated(fp8), _inputs(source), **ON)
            assert _clamp_bounds_in(module, -largest(fp8)) == []
            for name, src in interpret.kernel_sources(module).items():
                kernels[f"{fp8_name}-{source_name}-{name}"] = [name, src]
    report = compile_cubins.in_subprocess(kernels)
    conversions = {label: r["fp8_conversions"] for label, r in report.items() if r["fp8_conversions"]}
    assert len({label.split("-triton")[0] for label in conversions}) == len(FP8_DTYPES) * len(SOURCE_DTYPES)
    for label, found in conversions.items():
        assert all(suffix.split(".")[:2] == ["rn", "satfinite"] for suffix in found), (label, found)
