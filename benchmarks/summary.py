"""The corpus targets, computed from a corpus CSV written by :mod:`benchmarks.run`.

    python -m benchmarks.summary benchmarks/results/<date>-h200-corpus.csv

The large-case targets are over every case of 8 MB or more, fused or left to stock by the rules (the targets'
definition); a case counts as fused when its decision log says "fused" (the gate and the profitability rules let it fuse);
ratios are of medians from one run: fused/SOL = fused_ms / copy_sol_ms, speedup = stock_ms / fused_ms.  The
"ceiling" lines give the speedup a fused kernel running exactly at the copy SOL would have (stock_ms / copy_sol_ms):
the copy moves the same bytes in one pass, so a fused kernel beats it only by noise or by the copy's own overheads
(0.98x on a few small cases), and a speedup target well above the ceiling is out of reach of any kernel.  Cases that
failed (an ``error``, or no fused time) are listed, not averaged.
"""

from __future__ import annotations

import argparse

import numpy as np
import pandas as pd

LARGE_MB = 8  # the targets' split between large and small inputs, in MB (10**6 bytes)


def geomean(values: pd.Series) -> float:
    return float(np.exp(np.log(values).mean()))


def summarize(df: pd.DataFrame) -> dict[str, object]:
    """Target figures for the corpus run in ``df`` (one row per case, the columns of benchmarks.run).

    The copy-SOL and speedup targets are over every case of 8 MB or more, as the targets state them: a case the rules
    leave to stock counts with its stock time (its "fused" time is stock's).  The same figures over the fused cases
    only are printed beside them."""
    failed = df[df.get("error", pd.Series(index=df.index, dtype=object)).notna() | df.fused_ms.isna()]
    df = df.drop(failed.index)
    fused = df[df.decisions.fillna("").str.contains(r"(?:^|\| )fused ")]
    large, small = df[df.input_mb >= LARGE_MB], fused[fused.input_mb < LARGE_MB]
    large_fused = large.loc[large.index.intersection(fused.index)]
    speedup = df.stock_ms / df.fused_ms
    farthest = large.assign(r=large.fused_ms / large.copy_sol_ms).nlargest(5, "r")
    return {
        "fused cases": f"{len(fused)} of {len(df)}; {len(large_fused)} of the {len(large)} of 8 MB or more",
        "large: fused/SOL geomean (target <= 1.05)": round(geomean(large.fused_ms / large.copy_sol_ms), 3),
        "large: fused/SOL worst (target <= 1.10)": round(float((large.fused_ms / large.copy_sol_ms).max()), 3),
        "large: speedup geomean (target >= 1.6)": round(geomean(large.stock_ms / large.fused_ms), 3),
        "large: speedup geomean ceiling (fused at copy SOL)": round(geomean(large.stock_ms / large.copy_sol_ms), 3),
        "large, fused only: fused/SOL geomean, worst; speedup geomean": (
            round(geomean(large_fused.fused_ms / large_fused.copy_sol_ms), 3),
            round(float((large_fused.fused_ms / large_fused.copy_sol_ms).max()), 3),
            round(geomean(large_fused.stock_ms / large_fused.fused_ms), 3)),
        "small fused: speedups (target >= 2)": sorted(round(float(s), 2) for s in small.stock_ms / small.fused_ms),
        "small fused: speedup ceilings (fused at copy SOL)":
            sorted(round(float(s), 2) for s in small.stock_ms / small.copy_sol_ms),
        "fused cases > 2% slower than stock (target 0)": list(fused.case[speedup[fused.index] < 1 / 1.02]),
        "compile time fused/stock, all cases (target <= 1.10)":
            round(float(df.compile_s_fused.sum() / df.compile_s_stock.sum()), 3),
        "all transposed outputs bit-exact": bool(df.transposed_bit_exact.eq(True).all()),
        "failed cases (left out above)": list(failed.case),
        "five farthest from SOL": [f"{c} {r:.2f}" for c, r in zip(farthest.case, farthest.r)],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("csv")
    for key, value in summarize(pd.read_csv(parser.parse_args().csv)).items():
        print(f"{key}: {value}")


if __name__ == "__main__":
    main()
