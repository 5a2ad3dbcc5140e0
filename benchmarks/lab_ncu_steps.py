"""Nsight Compute on real training steps (GPU only): is each kernel of a step bound by memory or by arithmetic?

    ncu --profile-from-start off --section SpeedOfLight --section ComputeWorkloadAnalysis \\
        --csv --page details --log-file off.csv \\
        python -m benchmarks.lab_ncu_steps --steps 'float8-mlp-tensorwise/16384x4096x4096' --variant off
    python -m benchmarks.lab_ncu_steps --summarize off.csv on.csv --out DIR

The first command compiles each named step (:data:`benchmarks.steps.STEPS`) with the fusion off (or on), warms it
up outside the profiled range, then runs one step between ``cudaProfilerStart`` and ``cudaProfilerStop``, so that
``ncu --profile-from-start off`` profiles exactly one step.  The second reads Nsight Compute's CSV files (each
file's name is its variant) and writes ``lab-ncu-steps.csv``: per kernel launch its duration (µs), DRAM throughput
and compute (SM) throughput in % of peak, so a reader sees which kernels a faster memory pattern cannot speed up.
"""

from __future__ import annotations

import argparse
import fnmatch
import io
import pathlib

import pandas as pd
import torch

# The metrics this lab keeps, under short names: the SpeedOfLight section's duration and throughputs, and the
# ComputeWorkloadAnalysis section's issue figures (issue slots near 100% busy: bound by instructions, not bytes)
METRICS = {"Duration": "us", "DRAM Throughput": "dram_pct", "Compute (SM) Throughput": "sm_pct",
           "Memory Throughput": "mem_pct", "Issue Slots Busy": "issue_pct", "Executed Ipc Active": "ipc"}
# µs per unit of the duration as Nsight Compute writes it (its CSV says "ns"; older releases wrote "nsecond")
DURATION_UNITS_US = {"ns": 1e-3, "nsecond": 1e-3, "us": 1.0, "usecond": 1.0, "ms": 1e3, "msecond": 1e3}


def profile_steps(patterns: list[str], variant: str) -> None:
    """Compile, warm up, and run one profiled step of each step matching ``patterns``, the flag off or on."""
    import reduction_transpose_fusion  # noqa: F401
    from benchmarks import harness, steps

    chosen = [s for s in steps.STEPS if any(fnmatch.fnmatch(s.name, p) for p in patterns)]
    if not chosen:
        raise SystemExit(f"no step matches {patterns}; steps: {[s.name for s in steps.STEPS]}")
    for step in chosen:
        torch._dynamo.reset()
        run = steps.compile_variant(step, harness.FUSED if variant == "on" else harness.STOCK)
        torch.cuda.synchronize()
        print(f"profiled range: {step.name} {variant}", flush=True)
        torch.cuda.cudart().cudaProfilerStart()
        run["train_step"]()
        torch.cuda.synchronize()
        torch.cuda.cudart().cudaProfilerStop()


def summarize(ncu_csvs: list[pathlib.Path], out: pathlib.Path) -> pd.DataFrame:
    """Nsight Compute's ``--csv --page details`` files -> one row per kernel launch with :data:`METRICS`, and the
    variant (each file's stem)."""
    table = pd.concat([_summarize_one(path) for path in ncu_csvs])
    out.mkdir(parents=True, exist_ok=True)
    table.to_csv(out / "lab-ncu-steps.csv", index=False)
    return table


def _summarize_one(ncu_csv: pathlib.Path) -> pd.DataFrame:
    text = ncu_csv.read_text()
    start = text.find('"ID"')  # the program's own output comes before the CSV
    frame = pd.read_csv(io.StringIO(text[start:]))
    frame = frame[frame["Metric Name"].isin(METRICS)]
    values = pd.to_numeric(frame["Metric Value"].astype(str).str.replace(",", ""), errors="coerce")
    # Duration is reported in the unit of its "Metric Unit" column: bring it to µs
    scale = frame["Metric Unit"].map(DURATION_UNITS_US).fillna(1.0)
    frame = frame.assign(value=values * scale.where(frame["Metric Name"] == "Duration", 1.0))
    table = frame.pivot_table(index=["ID", "Kernel Name"], columns="Metric Name", values="value").reset_index()
    table = table.rename(columns=METRICS | {"Kernel Name": "kernel", "ID": "launch"})
    return table.assign(variant=ncu_csv.stem)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", nargs="*", default=["float8-mlp-*/16384x4096x4096"])
    parser.add_argument("--variant", choices=("off", "on"), default="on")
    parser.add_argument("--summarize", type=pathlib.Path, nargs="*", help="ncu CSV files to summarize instead")
    parser.add_argument("--out", type=pathlib.Path, default=pathlib.Path("out"))
    args = parser.parse_args(argv)
    if args.summarize:
        table = summarize(args.summarize, args.out)
        with pd.option_context("display.width", 200, "display.max_colwidth", 90, "display.max_rows", 500):
            print(table.to_string(index=False))
    else:
        profile_steps(args.steps, args.variant)


if __name__ == "__main__":
    main()
