"""The main job: real training steps with the fusion off, on and off again; the micro-case suites on request.

    python -m benchmarks.run                       # on a GPU: the "models" suite (benchmarks/steps.py)
    python -m benchmarks.run --steps 'float8-mlp-*'
    python -m benchmarks.run --suite main          # the 40 micro cases of benchmarks/cases.csv tagged "main"
    python -m benchmarks.run --suite corpus --dynamic-rows    # N dynamic (mark_dynamic), timed at the case's N

The ``models`` suite prints the real-step table (kernels, ms off / on / off again, speedup, noise, compile seconds,
the first losses) and writes ``benchmarks/results/<date>-<gpu>-models.{json,csv,png}`` plus
``...-models-kernels.csv`` (the per-kernel attribution).  A micro-case suite prints, per case, kernels, median ms
(copy SOL, stock, fused), % of copy SOL and the speedup, and writes ``<date>-<gpu>-<suite>.{json,csv}``.  Rows carry
the GPU, torch/triton versions, git SHA, package hash and date.  Without a GPU the training steps cannot run: it says
so and compiles the "main" micro cases for a fake H200 instead (kernel counts stock -> fused and the decisions).
"""

from __future__ import annotations

import argparse
import datetime
import fnmatch
import importlib.util
import json
import math
import pathlib
import re
import subprocess
import sys
from typing import Optional

import torch

HAS_GPU = torch.cuda.is_available()
if not HAS_GPU:
    from reduction_transpose_fusion_testing import fake_cuda

    fake_cuda.install()

import pandas as pd  # noqa: E402
import triton  # noqa: E402
from tqdm import tqdm  # noqa: E402

import reduction_transpose_fusion  # noqa: E402,F401
from benchmarks import harness, plot  # noqa: E402
from reduction_transpose_fusion.fx_passes.reduction_transpose import package_hash  # noqa: E402

HERE = pathlib.Path(__file__).parent
COLUMNS = [
    "date", "gpu", "torch", "triton", "git_sha", "package_hash", "suite", "case", "family", "dtype", "rows", "cols", "input_mb",
    "bytes_moved", "gate_fuses_by_default", "kernels_stock", "kernels_fused", "copy_sol_ms", "eager_ms", "stock_ms",
    "fused_ms", "fused_ms_repeat", "noise_pct", "stock_over_sol", "fused_over_sol", "pct_of_sol", "speedup",
    "fused_gbps", "compile_s_stock", "compile_s_fused", "max_rel_err", "rel_err_ok", "transposed_bit_exact",
    "decisions", "error",
]


def read_cases() -> list[harness.Case]:
    """Every row of ``benchmarks/cases.csv``."""
    return [harness.Case(**r) for r in pd.read_csv(HERE / "cases.csv").to_dict("records")]


def load_cases(suite: str, patterns: list[str], every: Optional[list[harness.Case]] = None) -> list[harness.Case]:
    """The cases of ``every`` (default: :func:`read_cases`) tagged ``suite`` whose names match a glob of ``patterns``
    (all if none)."""
    rows = [r for r in (read_cases() if every is None else every) if suite in r.suites.split()]
    if patterns:
        rows = [r for r in rows if any(fnmatch.fnmatch(r.name, p) for p in patterns)]
    return rows


def provenance(suite: str) -> dict:
    sha = subprocess.run(["git", "describe", "--always", "--dirty"], capture_output=True, text=True, cwd=HERE).stdout
    return dict(
        date=datetime.date.today().isoformat(),
        gpu=torch.cuda.get_device_name() if HAS_GPU else "none (codegen only, fake H200)",
        torch=torch.__version__,
        triton=triton.__version__,
        git_sha=sha.strip() or "unknown",
        package_hash=package_hash().hex()[:16],  # the code that ran, whatever the checkout's .git says
        suite=suite,
    )


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--suite", default="models",
                        help="models (real training steps, the default) or the cases of cases.csv tagged with this")
    parser.add_argument("--steps", nargs="*", default=[], help="glob patterns of step names to keep (models suite)")
    parser.add_argument("--names", nargs="*", default=[], help="glob patterns of case names to keep")
    parser.add_argument("--no-float8", action="store_true", help="skip the Float8Linear training step")
    parser.add_argument("--force", action="store_true",
                        help="fuse every safe site (no size gate, no profitability rules): the data behind the rules")
    parser.add_argument("--dynamic-rows", action="store_true",
                        help="compile stock and fused with N (the rows) dynamic, timed at the case's N; writes "
                             "<suite>-dynamic")
    parser.add_argument("--out", type=pathlib.Path, default=HERE / "results", help="where to write JSON/CSV")
    args = parser.parse_args(argv)
    every = read_cases()
    suites = {"models"} | {tag for case in every for tag in case.suites.split()}
    if args.suite not in suites:
        parser.error(f"--suite {args.suite}: not a suite; the suites are {', '.join(sorted(suites))}")

    if args.suite == "models":
        if HAS_GPU:
            return run_steps(args.steps, args.out)
        print("No GPU: the real training steps need one. Compiling the 'main' micro cases for a fake H200 instead "
              "(kernels stock -> fused and the decisions); timings need a GPU.")
        args.suite = "main"
    cases = load_cases(args.suite, args.names, every)
    if not cases:
        parser.error(f"--names {' '.join(args.names)}: no case of the {args.suite} suite matches")
    if not HAS_GPU and args.suite != "main":
        print("No GPU: running codegen only on a fake H200 (kernel counts and decisions); timings need a GPU.")
    meta = provenance(args.suite + ("-forced" if args.force else "") + ("-dynamic" if args.dynamic_rows else ""))
    options = harness.FORCED if args.force else harness.FUSED
    rows = []
    for case in tqdm(cases, desc=f"{args.suite} suite", unit="case"):
        try:
            measure = harness.measure if HAS_GPU else harness.codegen_only
            rows.append(meta | measure(case, options, dynamic_rows=args.dynamic_rows))
        except Exception as e:  # one failing case is a result to report, not a reason to lose the others
            rows.append(meta | dict(case=case.name, family=case.family, dtype=case.dtype, rows=case.rows,
                                    cols=case.cols, error=f"{type(e).__name__}: {e}"[:500]))
            print(f"{case.name}: {rows[-1]['error']}", file=sys.stderr)
        finally:
            if HAS_GPU:
                torch.cuda.empty_cache()
    if HAS_GPU and args.suite == "main" and not args.no_float8 and not args.names and not args.dynamic_rows:
        if importlib.util.find_spec("torchao") is None:
            print("torchao is not installed: skipping the Float8Linear training step (pip install torchao==0.18.0)")
        else:
            rows.append(meta | harness.measure_float8_mlp(fused_options=options))
    write(rows, args.out, meta)


def run_steps(patterns: list[str], out: pathlib.Path) -> None:
    """The models suite: every step of :data:`benchmarks.steps.STEPS` matching ``patterns`` (all if none)."""
    from benchmarks import steps

    meta = provenance("models")
    chosen = [s for s in steps.STEPS if not patterns or any(fnmatch.fnmatch(s.name, p) for p in patterns)]
    if not chosen:  # a usage error, as argparse ends one: the message on stderr, exit status 2
        print(f"--steps {' '.join(patterns)}: no step matches; the steps are "
              f"{', '.join(s.name for s in steps.STEPS)}", file=sys.stderr)
        raise SystemExit(2)
    stem = out / f"{meta['date']}-{_gpu_tag(meta)}-models"
    out.mkdir(parents=True, exist_ok=True)
    rows, kernels = [], []
    for step in tqdm(chosen, desc="models suite", unit="step"):
        try:
            row, attribution = steps.measure(step)
            rows.append(meta | row)
            kernels += [meta | r for r in attribution]
            print(steps.table([row]).splitlines()[-1], flush=True)
        except Exception as e:  # a missing package or a failing step is a result to report
            rows.append(meta | dict(step=step.name, error=f"{type(e).__name__}: {e}"[:500]))
            print(f"{step.name}: {rows[-1]['error']}", file=sys.stderr)
        torch.cuda.empty_cache()
        frame = pd.DataFrame(rows)  # written after every step: a run cut off keeps what it measured
        frame.to_csv(f"{stem}.csv", index=False)
        pd.DataFrame(kernels).to_csv(f"{stem}-kernels.csv", index=False)
    stem.with_suffix(".json").write_text(json.dumps(json.loads(frame.to_json(orient="records")), indent=1))
    if "speedup" in frame:
        plot.plot_steps(frame, stem.with_suffix(".png"))
    print(steps.table(rows))
    for step_name, group in pd.DataFrame(kernels).groupby("step", sort=False) if kernels else ():
        print(f"\n{step_name}: kernels whose time changed (µs and MB per step, off -> on; % of the copy SOL of "
              "their bytes)")
        print(group.head(8)[["kernel", "change", "launches_off", "launches_on", "us_off", "us_on", "delta_us",
                             "mb_off", "mb_on", "pct_of_sol_off", "pct_of_sol_on"]]
              .to_string(index=False, float_format=lambda v: f"{v:.1f}"))
    print(f"\nwrote {stem}.csv, .json, -kernels.csv" + (" and .png" if "speedup" in frame else ""))


def _gpu_tag(meta: dict) -> str:
    if not HAS_GPU:
        return "cpu-codegen"
    return "h200" if "H200" in meta["gpu"] else meta["gpu"].replace(" ", "-").lower()


def write(rows: list[dict], out: pathlib.Path, meta: dict) -> None:
    frame = pd.DataFrame(rows).reindex(columns=COLUMNS)
    stem = out / f"{meta['date']}-{_gpu_tag(meta)}-{meta['suite']}"
    out.mkdir(parents=True, exist_ok=True)
    frame.to_csv(f"{stem}.csv", index=False)
    stem.with_suffix(".json").write_text(json.dumps(json.loads(frame.to_json(orient="records")), indent=1))
    if HAS_GPU:
        plot.plot(stem.with_suffix(".csv"))
    print(table(frame))
    print(f"\nwrote {stem}.csv, .json" + (" and .png" if HAS_GPU else ""))


def table(frame: pd.DataFrame) -> str:
    """The printed table: on a GPU, kernels, times, % of copy SOL, speedup and noise; without one, only what was
    measured, the kernels stock -> fused and the decision."""
    if not HAS_GPU:
        shown = frame[["case", "dtype"]].assign(kernels=frame.kernels_stock.astype("Int64").astype(str) + " -> "
                                                + frame.kernels_fused.astype("Int64").astype(str),
                                                decision=frame.decisions.fillna(frame.get("error", "")).map(decision))
        return shown.to_string(index=False) + "\n(timings need a GPU)"
    cols = ["case", "dtype", "kernels_stock", "kernels_fused", "copy_sol_ms", "stock_ms", "fused_ms", "pct_of_sol",
            "speedup", "noise_pct", "transposed_bit_exact"]
    shown = frame[cols].copy()
    for c in ("copy_sol_ms", "stock_ms", "fused_ms"):
        shown[c] = shown[c].map(lambda v: "" if math.isnan(v) else f"{v:.4f}")
    for c in ("pct_of_sol", "noise_pct"):
        shown[c] = shown[c].map(lambda v: "" if math.isnan(v) else f"{v:.1f}")
    shown["speedup"] = shown["speedup"].map(lambda v: "" if math.isnan(v) else f"{v:.2f}x")
    return shown.to_string(index=False)


def decision(log: str) -> str:
    """The gist of a case's decision log: "fused" or the first skip's reason, its first clause (up to the first
    ":", ";" or ", so") at most 140 characters, cut at a word with "..." (the CSV keeps the whole log)."""
    log = str(log or "")
    if " into one kernel" in log:
        return "fused"
    skip = next((part for part in log.split(" | ") if part.startswith("skip ")), log)
    reason = re.split(r": |; |, so ", skip.split(": ", 1)[-1], maxsplit=1)[0]
    return reason if len(reason) <= 140 else reason[:137].rsplit(" ", 1)[0] + "..."


if __name__ == "__main__":
    sys.exit(main())
