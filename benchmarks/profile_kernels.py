"""The fused kernel of corpus cases with N static and dynamic, timed side by side and profiled by Nsight Compute.

    python -m benchmarks.profile_kernels --out DIR --names 'vit-b128/F3-fp32,llama32k/F3-4096-fp32'
    ncu --profile-from-start off --kernel-name regex:triton --set full -o DIR/prof \\
        python -m benchmarks.profile_kernels --out DIR --names ... --ncu

Why: with N dynamic, kernels whose launch and source match the static ones but for N being an argument ran 10-21%
further from the copy SOL (corpus runs of 2026-11-30).  Variants per case: ``static`` (twice: the noise),
``dynamic``, and each of ``--launches`` (``reduction_transpose_fusion_launch_config`` values; with N dynamic, or
static where written ``static:LAUNCH``).
Timing writes ``profile-kernels.csv`` (ms from :func:`harness.bench`, a CUDA-graph replay timed by ``do_bench``;
copy SOL of the same bytes in the same run).  ``--ncu`` instead runs each variant once between
``cudaProfilerStart`` and ``cudaProfilerStop`` (compiled and warmed up outside), in the order it prints, so that
``ncu --profile-from-start off`` profiles only the fused kernels.  GPU only.
"""

from __future__ import annotations

import argparse
import pathlib

import pandas as pd
import torch

import reduction_transpose_fusion  # noqa: F401
from benchmarks import harness, run


def variants(launches: list[str], static_only: bool = False) -> list[tuple[str, bool, str]]:
    """(label, N dynamic, launch override) of each variant; a launch written ``static:LAUNCH`` is compiled with N
    static, any other with N dynamic; ``static_only`` leaves out the plain ``dynamic`` variant."""
    extra = [(launch, False, launch.removeprefix("static:")) if launch.startswith("static:")
             else (f"dynamic:{launch}", True, launch) for launch in launches]
    dynamic = [] if static_only else [("dynamic", True, "")]
    return [("static", False, ""), ("static-repeat", False, ""), *dynamic, *extra]


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=pathlib.Path, required=True)
    parser.add_argument("--names", required=True, help="comma-separated case names of benchmarks/cases.csv (main and "
                        "corpus suites)")
    parser.add_argument("--launches", default="", help="comma-separated launch overrides to add (N dynamic; "
                        "'static:' first for N static), ';' for a comma inside one")
    parser.add_argument("--ncu", action="store_true", help="run each variant once inside a profiler range")
    parser.add_argument("--static-only", action="store_true", help="leave out the plain dynamic variant")
    args = parser.parse_args(argv)
    launches = [launch.replace(";", ",") for launch in args.launches.split(",") if launch]
    rows = []
    patterns = args.names.split(",")
    cases = {row.name: row for suite in ("main", "corpus") for row in run.load_cases(suite, patterns)}
    for case_row in cases.values():
        case = case_row.family_case
        inputs = case.inputs(case_row.rows, case_row.cols, case_row.torch_dtype, device="cuda", seed=0)
        stock_fn = harness.compile_fn(case.fn, inputs, harness.STOCK)[0]
        stock_out = stock_fn(*inputs)
        moved = harness.nbytes(inputs) + harness.nbytes(stock_out)
        sol = None if args.ncu else harness.copy_sol_ms(moved)
        stock_ms = None if args.ncu else harness.bench(lambda: stock_fn(*inputs))
        for label, dynamic, launch in variants(launches, args.static_only):
            if args.ncu and label == "static-repeat":
                continue
            # fresh tensors: mark_dynamic marks the tensors themselves, and a later static compile would see them
            inputs = [t.clone() for t in inputs]
            options = harness.FUSED | {"reduction_transpose_fusion_launch_config": launch}
            fn = harness.compile_fn(case.fn, inputs, options, case.row_dims() if dynamic else None)[0]
            out = fn(*inputs)
            torch.cuda.synchronize()
            if args.ncu:
                print(f"profiled: {case_row.name} {label}", flush=True)
                torch.cuda.cudart().cudaProfilerStart()
                fn(*inputs)
                torch.cuda.synchronize()
                torch.cuda.cudart().cudaProfilerStop()
                continue
            err, exact = harness.check(case, inputs, out, stock_out)
            ms = harness.bench(lambda: fn(*inputs))
            rows.append(dict(case=case_row.name, variant=label, copy_sol_ms=sol, stock_ms=stock_ms, fused_ms=ms,
                             fused_over_sol=ms / sol, speedup=stock_ms / ms,
                             max_rel_err=err, transposed_bit_exact=exact))
            print(rows[-1], flush=True)
        torch.cuda.empty_cache()
        if rows:  # after each case: a run cut short by the device's time limit keeps what it measured
            args.out.mkdir(parents=True, exist_ok=True)
            pd.DataFrame(rows).to_csv(args.out / "profile-kernels.csv", index=False)


if __name__ == "__main__":
    main()
