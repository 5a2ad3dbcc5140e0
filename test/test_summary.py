"""The corpus target figures that benchmarks/summary.py computes from a corpus CSV."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from benchmarks.summary import summarize


def corpus(**overrides) -> pd.DataFrame:
    rows = [  # case, input MB, copy SOL / stock / fused ms, decision
        ("big-a", 100.0, 1.0, 2.0, 1.10, "candidate x | fused sum with transposed copy clone"),
        ("big-b", 10.0, 1.0, 1.5, 1.20, "fused sum with transposed copy clone"),
        ("small", 2.0, 1.0, 1.3, 1.25, "fused sum with transposed copy clone"),
        ("left", 50.0, 1.0, 2.5, 2.5, "skip clone + sum: rows only 2-byte aligned"),
    ]
    frame = pd.DataFrame(rows, columns=["case", "input_mb", "copy_sol_ms", "stock_ms", "fused_ms", "decisions"])
    frame = frame.assign(compile_s_stock=10.0, compile_s_fused=5.0, transposed_bit_exact=True)
    for column, values in overrides.items():
        frame[column] = values
    return frame


def test_large_targets_count_every_case_of_8_mb_or_more():
    """The targets are over every case >= 8 MB; one the rules leave to stock counts with its stock time."""
    s = summarize(corpus())
    assert s["fused cases"] == "3 of 4; 2 of the 3 of 8 MB or more"
    assert s["large: fused/SOL geomean (target <= 1.05)"] == pytest.approx((1.10 * 1.20 * 2.5) ** (1 / 3), abs=1e-3)
    assert s["large: fused/SOL worst (target <= 1.10)"] == pytest.approx(2.5)
    assert s["large: speedup geomean (target >= 1.6)"] == pytest.approx((2 / 1.1 * 1.5 / 1.2 * 1.0) ** (1 / 3), abs=1e-3)
    assert s["large: speedup geomean ceiling (fused at copy SOL)"] == pytest.approx((2 * 1.5 * 2.5) ** (1 / 3), abs=1e-3)
    geo, worst, speedup = s["large, fused only: fused/SOL geomean, worst; speedup geomean"]
    assert (geo, worst) == (pytest.approx(math.sqrt(1.10 * 1.20), abs=1e-3), pytest.approx(1.20))
    assert speedup == pytest.approx(math.sqrt(2 / 1.1 * 1.5 / 1.2), abs=1e-3)
    assert s["small fused: speedups (target >= 2)"] == [1.04]
    assert s["small fused: speedup ceilings (fused at copy SOL)"] == [1.3]
    assert s["five farthest from SOL"] == ["left 2.50", "big-b 1.20", "big-a 1.10"]
    assert s["compile time fused/stock, all cases (target <= 1.10)"] == 0.5


def test_slower_fused_cases_and_inexact_copies_are_reported():
    s = summarize(corpus(fused_ms=[1.10, 1.20, 1.30, 2.5], transposed_bit_exact=[True, False, True, True]))
    assert s["fused cases > 2% slower than stock (target 0)"] == []  # small: 1.3 / 1.3 is not slower
    s = summarize(corpus(fused_ms=[2.1, 1.20, 1.25, 2.5], transposed_bit_exact=[True, False, True, True]))
    assert s["fused cases > 2% slower than stock (target 0)"] == ["big-a"]
    assert s["all transposed outputs bit-exact"] is False


def test_failed_cases_are_listed_not_averaged():
    frame = corpus(fused_ms=[1.10, float("nan"), 1.25, 2.5], transposed_bit_exact=[True, None, True, True])
    s = summarize(frame.assign(error=[None, "RuntimeError: boom", None, None]))
    assert s["failed cases (left out above)"] == ["big-b"]
    assert s["large: fused/SOL geomean (target <= 1.05)"] == pytest.approx(math.sqrt(1.10 * 2.5), abs=1e-3)
    assert s["all transposed outputs bit-exact"] is True
    s = summarize(corpus(transposed_bit_exact=[True, None, True, True]))
    assert s["all transposed outputs bit-exact"] is False  # a missing check is not a pass
