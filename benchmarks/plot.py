"""Plot a results CSV: % of the copy SOL per case, stock torch.compile beside the fused kernel.

    python -m benchmarks.plot benchmarks/results/<date>-h200-corpus.csv   # writes the .png beside it
"""

from __future__ import annotations

import pathlib
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402


def plot(csv: pathlib.Path) -> pathlib.Path:
    """Write ``csv`` with a .png suffix: horizontal bars of 100 * copy_sol_ms / time, stock and fused."""
    frame = pd.read_csv(csv).dropna(subset=["copy_sol_ms", "fused_ms", "stock_ms"])
    frame = frame.assign(stock_pct=100 * frame.copy_sol_ms / frame.stock_ms, fused_pct=frame.pct_of_sol)
    frame = frame.iloc[::-1]
    height = max(4.0, 0.28 * len(frame) + 1.5)
    fig, ax = plt.subplots(figsize=(10, height))
    y = range(len(frame))
    ax.barh([i + 0.2 for i in y], frame.stock_pct, height=0.4, label="stock torch.compile", color="#9aa5b1")
    ax.barh([i - 0.2 for i in y], frame.fused_pct, height=0.4, label="reduction_transpose_fusion", color="#1f77b4")
    ax.axvline(100, color="black", linewidth=0.8, linestyle="--")
    ax.set_yticks(list(y), [f"{c} ({d})" for c, d in zip(frame.case, frame.dtype)], fontsize=7)
    ax.set_xlabel("% of copy SOL (copy of the same bytes, same run); higher is better")
    row = frame.iloc[0]
    ax.set_title(f"{row.gpu}, torch {row.torch}, triton {row.triton}, {row.date}", fontsize=9)
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    out = csv.with_suffix(".png")
    fig.savefig(out, dpi=120)
    plt.close(fig)
    return out


def plot_steps(frame: pd.DataFrame, out: pathlib.Path) -> pathlib.Path:
    """Bars of each training step's speedup (ms off / ms on) with the noise (off against off again) as error bars."""
    frame = frame.dropna(subset=["speedup"]).iloc[::-1]
    fig, ax = plt.subplots(figsize=(9, max(3.0, 0.4 * len(frame) + 1.5)))
    y = range(len(frame))
    ax.barh(list(y), frame.speedup - 1, left=1, xerr=frame.noise_pct / 100, color="#1f77b4", height=0.6)
    ax.axvline(1, color="black", linewidth=0.8)
    ax.set_yticks(list(y), frame.step, fontsize=8)
    ax.set_xlabel("training step speedup, flag on over off (error bar: off against off again)")
    row = frame.iloc[0]
    ax.set_title(f"{row.gpu}, torch {row.torch}, triton {row.triton}, {row.date}, package {row.package_hash[:8]}",
                 fontsize=9)
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    plt.close(fig)
    return out


if __name__ == "__main__":
    for arg in sys.argv[1:]:
        print(plot(pathlib.Path(arg)))
