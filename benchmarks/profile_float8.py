"""Profile the Float8Linear MLP training step, stock vs fused (GPU only): per-kernel CUDA time and the code.

    python -m benchmarks.profile_float8 --out DIR

Writes DIR/float8_profile.txt: for each variant, the kernels of 5 steps sorted by CUDA time, then the generated
Triton code of the fused backward.  Used to find where the step's time goes when fused differs from stock.
"""

from __future__ import annotations

import argparse
import pathlib

import torch
import torch.nn as nn
from torch._inductor.utils import run_and_get_code
from torch.profiler import ProfilerActivity, profile

import reduction_transpose_fusion  # noqa: F401
from benchmarks import harness


def main(argv=None) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=pathlib.Path, required=True)
    args = parser.parse_args(argv)
    from torchao.float8 import convert_to_float8_training

    lines = []
    x = torch.randn(16384, 4096, device="cuda", dtype=torch.bfloat16)
    gy = torch.randn(16384, 4096, device="cuda", dtype=torch.bfloat16)
    for label, options in (("stock", harness.STOCK), ("fused", harness.FUSED)):
        torch.manual_seed(0)
        m = nn.Sequential(nn.Linear(4096, 4096), nn.ReLU(), nn.Linear(4096, 4096)).to(torch.bfloat16).cuda()
        convert_to_float8_training(m)
        torch._dynamo.reset()
        cm = torch.compile(m, options=options)

        def step():
            for p in m.parameters():
                p.grad = None
            cm(x).backward(gy)

        _, codes = run_and_get_code(step)
        for _ in range(3):
            step()
        torch.cuda.synchronize()
        with profile(activities=[ProfilerActivity.CUDA, ProfilerActivity.CPU]) as prof:
            for _ in range(5):
                step()
            torch.cuda.synchronize()
        lines.append(f"===== {label}")
        lines.append(prof.key_averages().table(sort_by="cuda_time_total", row_limit=30, max_name_column_width=90))
        if label == "fused":
            lines += [f"===== fused code {i}\n{c}" for i, c in enumerate(codes)]
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "float8_profile.txt").write_text("\n".join(lines))
    print("\n".join(lines[:4]))


if __name__ == "__main__":
    main()
