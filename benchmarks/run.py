"""The main job: compile every case of ``benchmarks/cases.csv`` with the fusion off and on, and measure it.

    python -m benchmarks.run                       # the "main" suite (core issue): 40 cases + a Float8Linear step
    python -m benchmarks.run --names 'vit-mlp-b128/*' --no-float8
    python -m benchmarks.run --suite corpus --dynamic-rows    # N dynamic (mark_dynamic), timed at the case's N

On a GPU it prints, per case, kernels, median ms (copy SOL, stock, fused), % of copy SOL and the speedup, and
writes ``benchmarks/results/<date>-<gpu>-<suite>.{json,csv}`` (one row per case, stable column names, with the GPU,
torch/triton versions, git SHA and date).  Without a GPU it says so and runs codegen only on a fake H200: kernel
counts and the fusion decisions, times left empty.
"""

from __future__ import annotations

import argparse
import datetime
import fnmatch
import importlib.util
import json
import math
import pathlib
import subprocess
import sys

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


def load_cases(suite: str, patterns: list[str]) -> list[harness.Case]:
    frame = pd.read_csv(HERE / "cases.csv")
    rows = [harness.Case(**r) for r in frame.to_dict("records")]
    rows = [r for r in rows if suite in r.suites.split()]
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
    parser.add_argument("--suite", default="main", help="run the cases tagged with this suite (default: main)")
    parser.add_argument("--names", nargs="*", default=[], help="glob patterns of case names to keep")
    parser.add_argument("--no-float8", action="store_true", help="skip the Float8Linear training step")
    parser.add_argument("--force", action="store_true",
                        help="fuse every safe site (no size gate, no profitability rules): the data behind the rules")
    parser.add_argument("--dynamic-rows", action="store_true",
                        help="compile stock and fused with N (the rows) dynamic, timed at the case's N; writes "
                             "<suite>-dynamic")
    parser.add_argument("--out", type=pathlib.Path, default=HERE / "results", help="where to write JSON/CSV")
    args = parser.parse_args(argv)

    cases = load_cases(args.suite, args.names)
    if not HAS_GPU:
        print("No GPU: running codegen only on a fake H200 (kernel counts and decisions; no times).")
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


def write(rows: list[dict], out: pathlib.Path, meta: dict) -> None:
    frame = pd.DataFrame(rows).reindex(columns=COLUMNS)
    if not HAS_GPU:
        gpu = "cpu-codegen"
    else:
        gpu = "h200" if "H200" in meta["gpu"] else meta["gpu"].replace(" ", "-").lower()
    stem = out / f"{meta['date']}-{gpu}-{meta['suite']}"
    out.mkdir(parents=True, exist_ok=True)
    frame.to_csv(f"{stem}.csv", index=False)
    stem.with_suffix(".json").write_text(json.dumps(json.loads(frame.to_json(orient="records")), indent=1))
    if HAS_GPU:
        plot.plot(stem.with_suffix(".csv"))
    print(table(frame))
    print(f"\nwrote {stem}.csv, .json" + (" and .png" if HAS_GPU else ""))


def table(frame: pd.DataFrame) -> str:
    cols = ["case", "dtype", "kernels_stock", "kernels_fused", "copy_sol_ms", "stock_ms", "fused_ms", "pct_of_sol",
            "speedup", "noise_pct", "transposed_bit_exact"]
    shown = frame[cols].copy()
    for c in ("copy_sol_ms", "stock_ms", "fused_ms"):
        shown[c] = shown[c].map(lambda v: "" if math.isnan(v) else f"{v:.4f}")
    for c in ("pct_of_sol", "noise_pct"):
        shown[c] = shown[c].map(lambda v: "" if math.isnan(v) else f"{v:.1f}")
    shown["speedup"] = shown["speedup"].map(lambda v: "" if math.isnan(v) else f"{v:.2f}x")
    return shown.to_string(index=False)


if __name__ == "__main__":
    sys.exit(main())
