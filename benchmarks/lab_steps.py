"""Launch overrides on a real training step (GPU only): where a fused kernel of a step loses its time.

    python -m benchmarks.lab_steps --step 'float8-mlp-tensorwise/16384x4096x4096' --out DIR \\
        --launch 'XBLOCK=64,R0_BLOCK=64' 'TILES_PER_PROGRAM=1' ... --inductor realize_opcount_threshold=8

Compiles the step (:data:`benchmarks.steps.STEPS`) with the fusion off, on, off again (the noise), and on with each
``reduction_transpose_fusion_launch_config`` given (it applies to every fused kernel of the step), off and on with
each ``--inductor`` option set (``KEY=VALUE``, a Python literal: e.g. how much pointwise work Inductor stores rather
than recomputes), times them in interleaved rounds (:func:`benchmarks.steps.time_interleaved`), and writes
``lab-steps.csv``: per variant the step's median ms and the CUDA µs per step of each kernel whose name matches
``--kernels`` (a regular expression; by default the fused kernels, ``triton_unk_`` names) from ``torch.profiler``.
"""

from __future__ import annotations

import argparse
import ast
import pathlib
import re

import pandas as pd
import torch

import reduction_transpose_fusion  # noqa: F401
from benchmarks import harness, steps


def inductor_variants(options: list[str]) -> dict[str, dict]:
    """The variants ``off+KEY=VALUE`` and ``on+KEY=VALUE`` for each of ``options`` (``KEY=VALUE``, VALUE a Python
    literal): stock's and the package's Inductor options with that one set too.

    Raises:
        ValueError: an option without ``=`` or whose value is not a Python literal.
    """
    variants = {}
    for option in options:
        key, sep, value = option.partition("=")
        if not sep or not key:
            raise ValueError(f"--inductor takes KEY=VALUE, got {option!r}")
        variants |= {f"{name}+{option}": base | {key: ast.literal_eval(value)}
                     for name, base in (("off", harness.STOCK), ("on", harness.FUSED))}
    return variants


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--step", default="float8-mlp-tensorwise/16384x4096x4096")
    parser.add_argument("--launch", nargs="*", default=[], help="launch overrides, one variant each")
    parser.add_argument("--inductor", nargs="*", default=[],
                        help="Inductor options KEY=VALUE, each run off and on: variants off+KEY=VALUE, on+KEY=VALUE")
    parser.add_argument("--kernels", type=re.compile, default=re.compile("^triton_unk_"),
                        help="the kernels listed and summed in fused_us: names matching this regular expression")
    parser.add_argument("--out", type=pathlib.Path, required=True)
    args = parser.parse_args(argv)
    step = next(s for s in steps.STEPS if s.name == args.step)
    variants = dict(steps.VARIANTS)
    variants |= {launch: harness.FUSED | {"reduction_transpose_fusion_launch_config": launch} for launch in args.launch}
    variants |= inductor_variants(args.inductor)
    torch._dynamo.reset()
    torch._dynamo.config.recompile_limit = 4 * len(variants)  # one compile of the model's forward a variant
    runs = {}
    for name, options in variants.items():
        try:
            runs[name] = steps.compile_variant(step, options)
        except Exception as e:  # an override the kernel cannot take is a result, not a reason to stop
            print(f"{name}: {type(e).__name__}: {str(e)[:300]}")
    steps.time_interleaved(runs)
    rows = []
    for name, run in runs.items():
        fused = {k: us for k, (us, _) in run["profile"].items() if args.kernels.search(k)}
        rows.append(dict(step=step.name, variant=name, ms=run["ms"], speedup=runs["off"]["ms"] / run["ms"],
                         fused_us=sum(fused.values()), kernels=" | ".join(f"{k}={us:.1f}" for k, us in fused.items()),
                         decisions=" | ".join(d for d in run["decisions"] if d.startswith("fused"))))
    frame = pd.DataFrame(rows)
    args.out.mkdir(parents=True, exist_ok=True)
    frame.to_csv(args.out / "lab-steps.csv", index=False)
    print(frame[["variant", "ms", "speedup", "fused_us", "kernels"]].to_string(index=False, max_colwidth=160))


if __name__ == "__main__":
    main()
