"""Host time of a real training step (GPU only): whether a step the flag slows is slower on the GPU or on the CPU.

    python -m benchmarks.lab_host --step 'transformer-block-float8/8x1024x1024' --out DIR

Compiles the step (:data:`benchmarks.steps.STEPS`) six times, each a fresh compile: the fusion off and on, off and
on again (an Inductor option that changes nothing, ``trace.enabled=False``, so that Dynamo compiles the graph anew:
their spread from the first two is the compile-to-compile noise), and off and on under CUDA graphs
(``triton.cudagraphs``, what ``mode="reduce-overhead"`` sets: no launch cost on the host).  Then, per variant:

* ``ms``: the median step between two CUDA events (:func:`benchmarks.steps.time_interleaved`, interleaved rounds);
* ``host_ms``: the median CPU time to issue one step, the GPU idle at its start (:func:`benchmarks.steps.host_ms`):
  where it exceeds ``gpu_us``, the step is host-bound;
* ``gpu_us``: the CUDA kernel time per step (``torch.profiler``);
* ``lab-host-ops.csv``: CPU self time and calls per step of each host op (``torch.profiler``, CPU activity), so the
  ops that cost the fused variant more host time are named.
"""

from __future__ import annotations

import argparse
import pathlib

import pandas as pd
import torch

import reduction_transpose_fusion  # noqa: F401
from benchmarks import harness, steps

VARIANTS = {
    "off": harness.STOCK, "on": harness.FUSED,
    "off_fresh": harness.STOCK | steps.NO_OP, "on_fresh": harness.FUSED | steps.NO_OP,
    "off_cudagraphs": harness.STOCK | steps.CUDAGRAPHS, "on_cudagraphs": harness.FUSED | steps.CUDAGRAPHS,
}
PROFILED_STEPS = 5


def host_ops(train_step) -> dict[str, tuple[float, float]]:
    """{host op: (CPU self µs per step, calls per step)} over :data:`PROFILED_STEPS` steps."""
    from torch.profiler import ProfilerActivity, profile

    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        for _ in range(PROFILED_STEPS):
            train_step()
        torch.cuda.synchronize()
    return {e.key: (e.self_cpu_time_total / PROFILED_STEPS, e.count / PROFILED_STEPS) for e in prof.key_averages()}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--step", default="transformer-block-float8/8x1024x1024")
    parser.add_argument("--out", type=pathlib.Path, required=True)
    args = parser.parse_args(argv)
    step = next(s for s in steps.STEPS if s.name == args.step)
    torch._dynamo.reset()
    torch._dynamo.config.recompile_limit = 4 * len(VARIANTS)
    runs = {}
    for name, options in VARIANTS.items():
        try:
            runs[name] = steps.compile_variant(step, options)
        except Exception as e:  # a variant that cannot compile is a result, not a reason to stop
            print(f"{name}: {type(e).__name__}: {str(e)[:300]}")
    steps.time_interleaved(runs)
    rows, ops = [], []
    for name, run in runs.items():
        for op, (us, calls) in host_ops(run["train_step"]).items():
            ops.append(dict(step=step.name, variant=name, op=op, cpu_self_us=us, calls=calls))
    for name, run in runs.items():
        rows.append(dict(step=step.name, variant=name, kernels=run["kernels"], compile_s=run["compile_s"],
                         ms=run["ms"], host_ms=run["host_ms"],
                         gpu_us=sum(us for us, _ in run["profile"].values()),
                         launches=sum(n for _, n in run["profile"].values()),
                         losses=" ".join(f"{v:.7g}" for v in run["losses"])))
    frame, ops = pd.DataFrame(rows), pd.DataFrame(ops)
    args.out.mkdir(parents=True, exist_ok=True)
    frame.to_csv(args.out / "lab-host.csv", index=False)
    ops.to_csv(args.out / "lab-host-ops.csv", index=False)
    print(frame.drop(columns=["step"]).to_string(index=False))
    wide = ops.pivot_table(index="op", columns="variant", values="cpu_self_us", aggfunc="sum").fillna(0.0)
    if {"off", "on"} <= set(wide.columns):
        wide["on_minus_off"] = wide["on"] - wide["off"]
        print(wide.reindex(wide["on_minus_off"].abs().sort_values(ascending=False).index).head(25).round(1)
              .to_string(max_colwidth=70))


if __name__ == "__main__":
    main()
