"""The fake-H200 helpers themselves: graphs with tensor constants compile, ``nansum`` runs in the interpreter, a
module's shape guards are checked before it runs, fp8 casts round as eager's, no file cites a path outside the
repository, and the output-module parser finds the kernels that load a buffer."""

from __future__ import annotations

import pathlib
import subprocess

import pytest
import torch

from reduction_transpose_fusion_testing import families, interpret
from reduction_transpose_fusion_testing.output_code import kernel_launches, kernels_reading

ON = families.FUSE_EVERY_SITE
ROOT = pathlib.Path(__file__).resolve().parents[2]


def _gelu_backward_with_ones(x):
    grad = torch.ones_like(x)  # a constant the joint-graph passes fold
    t = torch.tanh(0.7978845608 * (x + 0.044715 * x * x * x))
    g = grad * 0.5 * (1 + t + x * (1 - t * t) * 0.7978845608 * (1 + 3 * 0.044715 * x * x))
    return g.t().contiguous(), g.sum(0)


CONSTANT_GRAPHS = {
    "where": (lambda g, m: (torch.where(m, g, 0.0).t().contiguous(), torch.where(m, g, 0.0).sum(0)),
              [((64, 32), torch.float32), ((64, 32), torch.bool)]),
    "nansum": (lambda g: (g.t().contiguous(), g.nansum(0)), [((64, 32), torch.float32)]),
    "logsumexp": (lambda g: (g.t().contiguous(), torch.logsumexp(g, 0)), [((64, 32), torch.float32)]),
    "gelu-backward-ones-like": (_gelu_backward_with_ones, [((64, 32), torch.float32)]),
}


def _real(specs, seed=0):
    gen = torch.Generator().manual_seed(seed)
    return [torch.rand(shape, generator=gen) > 0.5 if dtype is torch.bool else torch.randn(shape, generator=gen)
            for shape, dtype in specs]


@pytest.mark.parametrize("name", list(CONSTANT_GRAPHS))
def test_graphs_with_tensor_constants_compile_on_the_fake_h200_and_run(name):
    fn, specs = CONSTANT_GRAPHS[name]
    src = interpret.generate(fn, interpret.fake_inputs(*specs), **ON)
    inputs = _real(specs)
    if name == "nansum":
        inputs[0][::7, ::3] = float("nan")
    out = interpret.run_on_cpu(src, inputs)
    expected = fn(*inputs)
    torch.testing.assert_close(out[0], expected[0], equal_nan=True)
    torch.testing.assert_close(out[1], expected[1], rtol=1e-5, atol=1e-4)


def _copy_and_sum(x):
    return x.t().contiguous(), x.sum(0)


def test_a_dynamic_module_is_not_run_past_its_shape_guards():
    src = interpret.generate(_copy_and_sum, interpret.fake_inputs(((64, 32), torch.float32), dynamic=(0,)), **ON)
    out = interpret.run_on_cpu(src, [torch.ones(48, 32)])  # another N within the guards runs
    torch.testing.assert_close(out[1], torch.full((32,), 48.0))
    with pytest.raises(ValueError, match=r"\(L\['t0'\]\.size\(\)\[0\] % 16\) == 0"):
        interpret.run_on_cpu(src, [torch.ones(5, 32)])  # the package's guard: N stays a multiple of 16
    with pytest.raises(ValueError, match=r"break the module's shape guards: .*2 <= L\['t0'\]\.size\(\)\[0\]"):
        interpret.run_on_cpu(src, [torch.ones(1, 32)])  # Inductor took N >= 2
    with pytest.raises(ValueError, match=r"L\['t0'\]\.size\(\)\[1\] == 32"):
        interpret.run_on_cpu(src, [torch.ones(8, 31)])


def test_a_static_module_is_not_run_on_other_sizes():
    src = interpret.generate(_copy_and_sum, interpret.fake_inputs(((64, 32), torch.float32)), **ON)
    with pytest.raises(ValueError, match=r"compiled for size \(64, 32\) and stride \(32, 1\), got \(32, 32\)"):
        interpret.run_on_cpu(src, [torch.ones(32, 32)])


@pytest.mark.parametrize("source", [torch.float32, torch.bfloat16, torch.float16])
@pytest.mark.parametrize("target", [torch.float8_e5m2, torch.float8_e4m3fn])
def test_interpreted_fp8_casts_round_as_eager(source, target):
    """Values just below a power of two used to come out at half of it (0.4994 -> 0.25 in e5m2)."""
    x = (torch.randn(64, 256, generator=torch.Generator().manual_seed(3)) * 10).to(source)
    src = interpret.generate(lambda v: v.to(target) , interpret.fake_inputs(((64, 256), source)))
    (out,) = interpret.run_on_cpu(src, [x])
    assert torch.equal(out.view(torch.uint8), x.to(target).view(torch.uint8))


def test_no_file_cites_a_path_outside_the_repository():
    """The team's notes live outside the repository; a file that cites them points at nothing for its readers.
    (README.md, docs/ and benchmarks/ are checked by their own owners.)"""
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    ours = [p for p in tracked if not p.startswith(("docs/", "benchmarks/", "README")) and p != pathlib.Path(
        __file__).relative_to(ROOT).as_posix()]
    citing = [p for p in ours if (ROOT / p).is_file() and "shared/notes" in (ROOT / p).read_text(errors="ignore")]
    assert citing == []


def _kernel(name: str, params: str, body: str) -> str:
    return (f"{name} = async_compile.triton('{name}', '''\nimport triton\n@triton.jit\ndef {name}({params}):\n"
            f"{body}\n''', device_str='cuda')\n")


# two copy kernels (load in_ptr0, store out_ptr0) and a block-pointer load; arg0_1 is stored by k_copy_2, loaded
# through views by k_block and k_copy; buf3 takes buf0's memory for a new value
SYNTHETIC = (
    _kernel("k_copy", "in_ptr0, out_ptr0, xnumel, XBLOCK : tl.constexpr",
            "    tmp0 = tl.load(in_ptr0 + (x0), xmask)\n    tl.store(out_ptr0 + (x0), tmp0, xmask)")
    + _kernel("k_copy_2", "in_ptr0, out_ptr0, xnumel, XBLOCK : tl.constexpr",
              "    tmp0 = tl.load(in_ptr0 + (x0), xmask)\n    tl.store(out_ptr0 + (x0), tmp0, xmask)")
    + _kernel("k_block", "in_ptr0, xnumel, XBLOCK : tl.constexpr",
              "    block_ptr0 = tl.make_block_ptr(in_ptr0, shape=[xnumel], strides=[1], block_shape=[XBLOCK],"
              " order=[0], offsets=[0])\n    tmp0 = tl.load(block_ptr0)")
    + """
def call(args):
    arg0_1, arg0_10 = args
    buf0 = empty_strided_cuda((8, ), (1, ), torch.float32)
    k_copy.run(arg0_10, buf0, 8, stream=stream0)
    k_copy_2.run(buf0, arg0_1, 8, stream=stream0)
    buf1 = reinterpret_tensor(arg0_1, (2, 4), (4, 1), 0)
    buf2 = buf1
    k_block.run(buf2, 8, stream=stream0)
    k_copy.run(reinterpret_tensor(arg0_1, (8, ), (1, ), 0), buf0, 8, stream=stream0)
    buf3 = buf0; del buf0  # reuse
    k_block.run(buf3, 8, stream=stream0)
    return (buf3, )
"""
)


def test_kernels_reading_follows_views_and_not_stores_reuses_or_longer_names():
    assert kernels_reading(SYNTHETIC, "arg0_1") == ["k_block", "k_copy"]  # the order of first launch
    assert kernels_reading(SYNTHETIC, "arg0_10") == ["k_copy"]
    assert kernels_reading(SYNTHETIC, "buf0") == ["k_copy_2"]  # buf3 is a new value in buf0's memory
    assert [name for name, _ in kernel_launches(SYNTHETIC)] == ["k_copy", "k_copy_2", "k_block", "k_copy", "k_block"]


def test_kernels_reading_rejects_a_module_without_kernels():
    with pytest.raises(ValueError, match="launches no Triton kernel"):
        kernels_reading("def call(args):\n    return ()\n", "arg0_1")


@pytest.mark.parametrize("options,expected", [(dict(reduction_transpose_fusion=False), 2), (ON, 1)],
                         ids=["stock", "fused"])
def test_kernels_reading_a_generated_copy_and_sum(options, expected):
    """``x.t().contiguous(), x.sum(0)``: stock's copy kernel and the first of its split sum's, or the fused kernel."""
    module = interpret.generate(lambda x: (x.t().contiguous(), x.sum(0)),
                                interpret.fake_inputs(((8192, 512), torch.float32)), **options)
    reading = kernels_reading(module, "arg0_1")
    assert len(reading) == expected, reading
    assert set(reading) <= set(interpret.kernel_names(module))
