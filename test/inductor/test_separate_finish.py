"""The separate finish (codegen/triton.py): the fused kernel stores its partials and a second kernel combines them,
with no ticket and no semaphores.  On the fake H200 (CPU): the two kernels, their launches, what the finish kernel
keeps of the fused one, the numerics under the interpreter, when the cost model and the expert get it, and how a
launch candidate with it is timed.  The H200 runs are in benchmarks/results/ (lab/*-separate.csv)."""

from __future__ import annotations

import ast
import re
import unittest.mock

import pytest
import torch
from torch._inductor import config as inductor_config

from reduction_transpose_fusion import _torch_private
from reduction_transpose_fusion.codegen.triton import (FINISH_KERNEL_LINE, SEPARATE_FINISH_LINE, finish_kernel_source,
                                                       with_finish_kernel)
from reduction_transpose_fusion.fx_passes.reduction_transpose import separate_allowed
from reduction_transpose_fusion_testing import families, interpret
from reduction_transpose_fusion_testing.edge_cases import reads_its_own_sum
from reduction_transpose_fusion_testing.output_code import kernel_launches

ON = families.FUSE_EVERY_SITE


def generate(name: str, dtype: str, rows: int, cols: int, **options) -> str:
    case = families.CASES[name]
    return interpret.generate(case.fn, interpret.fake_inputs(*case.specs(rows, cols, families.DTYPES[dtype])),
                              **options)


def launches(module: str) -> list[tuple[str, dict[str, str]]]:
    """(kernel name, {parameter: argument}) of each launch in the wrapper's call(), in order."""
    return [(name, {p: ast.unparse(a) for p, a in args.items()}) for name, args in kernel_launches(module)]


def check_numerics(name: str, dtype: str, rows: int, cols: int, module: str) -> None:
    """Reductions against float64 eager on fresh data, the transposed outputs bit-equal to stock's generated code
    (both run under the interpreter)."""
    case = families.CASES[name]
    inputs = case.inputs(rows, cols, families.DTYPES[dtype], seed=torch.seed() % 2**31)
    out = interpret.run_on_cpu(module, inputs)
    stock = interpret.run_on_cpu(generate(name, dtype, rows, cols, reduction_transpose_fusion=False), inputs)
    for i, (o, st, ref) in enumerate(zip(out, stock, case.reference(inputs))):
        if i in case.transposed or i in case.exact:
            assert torch.equal(families.bits(o), families.bits(st)), f"output {i} differs from stock"
        else:
            families.assert_matches_reference(o, ref)


@pytest.mark.parametrize("name,dtype,rows,cols,launch", [
    ("F1-t", "fp32", 1000, 40, "SEPARATE_FINISH=1,RSPLIT=4"),           # stock's [C, RSPLIT] partials
    ("F1-t", "bf16", 20000, 16, "SEPARATE_FINISH=1,RSPLIT=80"),         # chunked [RSPLIT, C] partials
    ("F3-layernorm-backward", "fp16", 3000, 48, "SEPARATE_FINISH=1"),   # two reductions
    ("F2-gelu-backward", "fp32", 777, 33, "SEPARATE_FINISH=1"),         # a producer, ragged tiles
])
def test_two_kernels_on_the_same_arguments_with_no_semaphores(name, dtype, rows, cols, launch, decisions):
    module = generate(name, dtype, rows, cols, **ON, reduction_transpose_fusion_launch_config=launch)
    sources = interpret.kernel_sources(module)
    (fused, fused_args), (finish, finish_args) = launches(module)
    assert list(sources) == [fused, finish] and fused_args == finish_args
    assert "semaphores" not in module and "sem_ptr" not in sources[fused] + sources[finish]
    assert SEPARATE_FINISH_LINE in sources[fused] and "tl.atomic" not in sources[fused]
    assert FINISH_KERNEL_LINE in sources[finish] and "for r0_offset" not in sources[finish]
    assert "'grid_type': 'FinishGrid'" in sources[finish]
    assert not re.search(r"tl\.store\(\w+_ws", sources[finish]), "the finish kernel stores no partials"
    assert any("separate finish (a second kernel combines the partials)" in d for d in decisions)
    check_numerics(name, dtype, rows, cols, module)


def test_the_cost_model_takes_it_for_a_small_site_and_not_for_a_large_one(decisions):
    """A GELU backward fp16[6799, 16] (stock: 3 kernels of about 6 µs; too many rows for the column tile under a
    transcendental producer): predicted faster than the split and stock (1.68x on the H200, random seed
    1396963070); the ViT-B/16 MLP size keeps the split."""
    small = generate("F2-gelu-backward", "fp16", 6799, 16, reduction_transpose_fusion=True)
    assert len(interpret.kernel_names(small)) == 2, decisions
    assert any("separate finish (a second" in d for d in decisions)
    check_numerics("F2-gelu-backward", "fp16", 6799, 16, small)
    decisions.clear()
    large = generate("F1-t", "bf16", 25216, 3072, reduction_transpose_fusion=True)
    assert len(interpret.kernel_names(large)) == 1 and not any("separate finish (a second" in d for d in decisions)


@pytest.mark.usefixtures("unseen_reader")
def test_where_the_kernel_cannot_take_it_the_finish_stays_in_the_kernel(decisions):
    """A reduction read in a later loop (the grid-barrier finish) and one program a column block have no separate
    finish, asked or not: one kernel, logged, correct."""
    x_inputs = interpret.fake_inputs(((3000, 64), torch.float32))
    module = interpret.generate(reads_its_own_sum, x_inputs, **ON,
                                reduction_transpose_fusion_launch_config="SEPARATE_FINISH=1")
    assert len(interpret.kernel_names(module)) == 1
    assert any("no separate finish (a reduction result is read in a later loop)" in d for d in decisions)
    one = generate("F1-t", "fp32", 3000, 64, **ON,
                   reduction_transpose_fusion_launch_config="SEPARATE_FINISH=1,RSPLIT=1")
    assert len(interpret.kernel_names(one)) == 1
    assert any("one program a column block has no partials to combine" in d for d in decisions)


def test_not_with_the_cpp_wrapper_aot_or_multi_kernel():
    assert separate_allowed()
    for patch in (dict(cpp_wrapper=True), {"triton.multi_kernel": 1}):
        with inductor_config.patch(patch):
            assert not separate_allowed(), patch
    with inductor_config.patch(reduction_transpose_fusion_launch_config="SEPARATE_FINISH=0"):
        assert not separate_allowed()
    with inductor_config.patch(reduction_transpose_fusion_launch_config="num_warps=4"):
        assert not separate_allowed(), "another expert launch is the expert's"
    assert not separate_allowed(row_tiles=True)


def test_finish_kernel_source_refuses_other_kernels():
    module = generate("F1-t", "fp32", 1000, 40, **ON, reduction_transpose_fusion_launch_config="RSPLIT=4")
    (source,) = interpret.kernel_sources(module).values()
    with pytest.raises(AssertionError, match="separate finish"):
        finish_kernel_source(source)


def test_a_candidate_with_it_is_timed_as_both_kernels_with_a_fill_for_the_others():
    """Under max-autotune the candidate is one module launching the fused kernel then its finish; a kernel with the
    ticket is timed with its semaphores zeroed before each call, as the graph fills them."""
    timed = []

    def timer(scheduling, source, names, every_config=False):
        timed.append(source)
        return 1.0

    case = families.CASES["F1-t"]
    inputs = interpret.fake_inputs(*case.specs(8192, 256, torch.bfloat16))
    with unittest.mock.patch.object(_torch_private, "time_kernel_source", timer), \
         unittest.mock.patch.object(_torch_private, "real_gpu_present", lambda: True):
        interpret.generate(case.fn, inputs, **ON, max_autotune=True)
    (both,) = [s for s in timed if SEPARATE_FINISH_LINE in s]
    call = both[both.index("def call(args):"):both.index("def benchmark_all_configs")]
    assert call.index("triton_.run(*args") < call.index("triton_finish_.run(*args")
    assert both.count("def triton_finish_(") == 1 and FINISH_KERNEL_LINE in both
    ticketed = next(s for s in timed if "sem_ptr" in s)
    calls = []
    filled = _torch_private._filling_semaphores(lambda args: calls.append([a.clone() for a in args]), ticketed)
    params = re.search(r"^def \w+\((.*?)\):", ticketed, re.M | re.S).group(1).split(",")
    index = [p.split(":")[0].strip() for p in params].index("sem_ptr")
    args = [torch.ones(4) for _ in params]
    filled(args)
    assert not calls[0][index].any() and calls[0][index - 1].all(), "only the semaphores are zeroed"
    assert _torch_private._filling_semaphores(len, both) is len, "no semaphores: the call itself"
    with pytest.raises(AssertionError):
        with_finish_kernel(ticketed)
