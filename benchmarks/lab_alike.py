"""Kernels alike in one graph (CPU only, the fake H200): how many fused kernels have their launch candidates timed.

    python -m benchmarks.lab_alike                        # 12 layers of LayerNorm(768) -> Float8 MLP 768 -> 3072
    python -m benchmarks.lab_alike --layers 4 --dim 1024 --hidden 4096 --tokens 8192

Traces one training step of a stack of ``layers`` blocks ``LayerNorm(dim) -> Linear(dim, hidden) -> GELU ->
Linear(hidden, dim)`` in bf16, its Linear layers torchao Float8 tensorwise (the joint graph of
:func:`reduction_transpose_fusion_testing.float8_graphs.joint_graph`), compiles it for the fake H200 with the launch
candidates' timing stubbed (every candidate 1 ms: the choice is the baseline), and prints, with the graph's memo of
chosen launches (``_torch_private.graph_memo``) and without it, the fused kernels whose candidates were timed, the
timings, the kernels that took an earlier kernel's choice, and the Triton kernels the output defines.  Needs torchao.
"""

from __future__ import annotations

import argparse
import contextlib
import re
import unittest.mock

from reduction_transpose_fusion_testing import fake_cuda

fake_cuda.install()

import torch  # noqa: E402
from torch import nn  # noqa: E402

import reduction_transpose_fusion  # noqa: E402,F401
from benchmarks.random_sites import candidate_timings  # noqa: E402
from reduction_transpose_fusion import _torch_private  # noqa: E402
from reduction_transpose_fusion.codegen.triton import ALIKE_LOG  # noqa: E402
from reduction_transpose_fusion_testing import float8_graphs, interpret  # noqa: E402
from reduction_transpose_fusion_testing.logs import decision_log  # noqa: E402


def stack(layers: int, dim: int, hidden: int) -> nn.Module:
    """The model, on the meta device, its Linear layers converted by torchao for tensorwise Float8 training."""
    from torchao.float8 import Float8LinearConfig, convert_to_float8_training

    with torch.device("meta"):
        blocks = [m for _ in range(layers) for m in (nn.LayerNorm(dim), nn.Linear(dim, hidden), nn.GELU(),
                                                      nn.Linear(hidden, dim))]
        model = nn.Sequential(*blocks).to(torch.bfloat16)
    return convert_to_float8_training(model, config=Float8LinearConfig.from_recipe_name("tensorwise"))


def count(layers: int, dim: int, hidden: int, tokens: int, memo: bool = True) -> dict[str, int]:
    """{"kernels timed", "timings", "kernels alike", "kernels defined"} of one compile of the step (module docstring),
    with the graph's memo or (``memo=False``) a fresh one for each kernel."""
    gm, inputs, _ = float8_graphs.joint_graph(stack(layers, dim, hidden), (tokens, dim), (tokens, dim))
    timings = []

    def stub(scheduling, source, names, every_config=False) -> float:
        timings.append(source)
        return 1.0

    patches = [unittest.mock.patch.object(_torch_private, "time_kernel_source", stub),
               unittest.mock.patch.object(_torch_private, "real_gpu_present", lambda: True)]
    if not memo:
        patches.append(unittest.mock.patch.object(_torch_private, "graph_memo", lambda name: {}))
    with contextlib.ExitStack() as stack_, decision_log() as log:
        for patch in patches:
            stack_.enter_context(patch)
        module = interpret.generate(gm, inputs, reduction_transpose_fusion=True)
    return {"kernels timed": len(candidate_timings(" | ".join(log))), "timings": len(timings),
            "kernels alike": sum(ALIKE_LOG in m for m in log),
            "kernels defined": len(re.findall(r"^\w+ = async_compile\.triton\(", module, re.M))}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--layers", type=int, default=12)
    parser.add_argument("--dim", type=int, default=768)
    parser.add_argument("--hidden", type=int, default=3072)
    parser.add_argument("--tokens", type=int, default=8192)
    args = parser.parse_args(argv)
    for memo in (True, False):
        figures = count(args.layers, args.dim, args.hidden, args.tokens, memo=memo)
        print("with the graph's memo:" if memo else "without it:     ",
              ", ".join(f"{key} {value}" for key, value in figures.items()))


if __name__ == "__main__":
    main()
