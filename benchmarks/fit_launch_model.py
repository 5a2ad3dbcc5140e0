"""Fit the launch candidates' ranking (fx_passes/profitability.py, "The launch candidates' ranking") and report it.

    python -m benchmarks.fit_launch_model                 # the committed table the shipped weights were fit to
    python -m benchmarks.fit_launch_model --table T.csv   # another (benchmarks.launch_candidates --out T.csv)

Reads one row per (kernel, launch candidate) timed at compile on the H200, with the cost model's prices rebuilt
(:mod:`benchmarks.launch_candidates`). The weights are a least-squares fit of the log µs of the split launches, each
kernel's centred on their mean, so that only the differences between one kernel's launches are fit. The accuracy is
measured with each seed left out of the fit in turn, over every kind of candidate timed (the walk and the column tile
take their own formulas): how often the model's first pick (``select_algorithm.first_pick``: the rules' launch unless
another is priced ``FIRST_PICK_MARGIN`` faster) is within 5% of the fastest, how often the fastest of the baseline
(the rules' own launch, where the table knows it) and the model's first ``k`` is, and the launches that costs to time
(candidates that came out the same kernel were timed once and logged with one time, so one time is one launch), and
the rank correlation of predicted and measured times within a kernel.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import pathlib

import numpy as np
import pandas as pd
from scipy.stats import spearmanr

from reduction_transpose_fusion.fx_passes import profitability
from reduction_transpose_fusion.select_algorithm import (AUTOTUNE_CANDIDATES, CANDIDATES_BY_DTYPE, FIRST_PICK_MARGIN,
                                                          TIMED_CANDIDATES, candidates_to_time, describe, dtype_class,
                                                          first_pick)

RESULTS = pathlib.Path(__file__).parent / "results"
TABLE = RESULTS / "2026-12-04-h200-launch-candidates.csv"
TERMS = [f.name for f in dataclasses.fields(profitability.CandidateModel)]
KERNEL = ["seed", "names", "family", "dtype", "rows", "cols"]
TOLERANCE = 0.05


def load(path: pathlib.Path) -> pd.DataFrame:
    """The table's timed candidates (a finite, positive time), with a ``kernel`` key."""
    frame = pd.read_csv(path)
    frame = frame[np.isfinite(frame["us"]) & (frame["us"] > 0)].copy()
    frame["kernel"] = frame[KERNEL].astype(str).agg(" ".join, axis=1)
    return frame


def fit(frame: pd.DataFrame) -> profitability.CandidateModel:
    """The weights fit to the split launches of ``frame`` (least squares of the log µs, centred per kernel)."""
    split = frame[(frame["kind"] == "split") & frame[f"t_{TERMS[0]}"].notna()]
    x = split[[f"t_{t}" for t in TERMS]].astype(float)
    y = np.log(split["us"])
    x = x - x.groupby(split["kernel"]).transform("mean")
    y = y - y.groupby(split["kernel"]).transform("mean")
    weights, *_ = np.linalg.lstsq(x.to_numpy(), y.to_numpy(), rcond=None)
    return profitability.CandidateModel(**{t: round(float(w), 3) for t, w in zip(TERMS, weights)})


def predict(frame: pd.DataFrame, model: profitability.CandidateModel) -> pd.Series:
    """Each candidate's predicted µs under ``model``: its kind's formula, a split launch relative to the rules'."""
    def one(row) -> float:
        if row["kind"] == "walk":
            return row["walk_us"]
        if row["kind"] == "column tile":
            return row["column_tile_us"]
        if row["kind"] == "rules":
            return row["rules_us"]
        if pd.isna(row[f"t_{TERMS[0]}"]):
            return math.nan
        return profitability.split_candidate_us(row["split_us"], {t: row[f"t_{t}"] for t in TERMS},
                                                {t: row[f"r_{t}"] for t in TERMS}, model)
    return frame.apply(one, axis=1)


SHIPPED = ("as shipped (none timed where sure, else the baseline, the first TIMED_CANDIDATES and those within "
           "TIMED_BAND)")


def _kernels(frame: pd.DataFrame):
    """Yields ``(rows, base)`` for each kernel of ``frame`` with two or more candidates: its rows, one a candidate
    (candidates that came out one kernel were timed once and logged with one time: one candidate, as codegen ranks
    them), and the position of its rules' launch among them (None where the table could not rebuild it)."""
    for _, kernel in frame.groupby("kernel"):
        kernel = kernel.drop_duplicates(subset="us", keep="first")
        if len(kernel) < 2:
            continue
        rules = kernel.index[kernel["candidate"] == "rules"]
        yield kernel, kernel.index.get_loc(rules[0]) if len(rules) else None


def accuracy(frame: pd.DataFrame, predicted: pd.Series, ks=(1, 2, 3)) -> dict[str, float]:
    """The ranking's accuracy over the kernels of ``frame`` with two or more priced candidates (module docstring).
    Each choice of what to time is :func:`select_algorithm.candidates_to_time`'s, as shipped and with the baseline
    and the first ``k`` of ``ks`` (no margin), over the kernels whose baseline the table knows."""
    frame = frame.assign(pred=predicted).dropna(subset=["pred"])
    policies = {SHIPPED: {}} | {f"baseline + first {k}": dict(count=k, sure=math.inf, band=0.0) for k in ks}
    out = {"kernels": 0, "first": 0, "priced fastest": 0, "rules": 0, "rules known": 0, "rho": []}
    out |= {name: {"within": 0, "timed": 0, "untimed": 0, "loss": []} for name in policies}
    for kernel, base in _kernels(frame):
        best = kernel["us"].min()
        out["kernels"] += 1
        out["first"] += kernel["us"].iloc[first_pick(list(kernel["pred"]), base)] <= (1 + TOLERANCE) * best
        out["priced fastest"] += kernel.loc[kernel["pred"].idxmin(), "us"] <= (1 + TOLERANCE) * best
        if kernel["pred"].nunique() > 1 and kernel["us"].nunique() > 1:
            out["rho"].append(spearmanr(kernel["us"], kernel["pred"]).statistic)
        if base is None:
            continue
        out["rules"] += kernel["us"].iloc[base] <= (1 + TOLERANCE) * best
        out["rules known"] += 1
        for name, options in policies.items():
            timed = candidates_to_time(list(kernel["pred"]), base, **options)
            emitted = kernel["us"].iloc[timed].min() if timed else kernel["us"].iloc[base]  # none timed: the baseline
            figures = out[name]
            figures["within"] += emitted <= (1 + TOLERANCE) * best
            figures["timed"] += len(timed)
            figures["untimed"] += not timed
            figures["loss"].append(emitted / best)
    n, known = out["kernels"], max(out["rules known"], 1)
    summary = {"kernels": n, "first pick within 5%": out["first"] / n,
               "the candidate priced fastest within 5% (no margin)": out["priced fastest"] / n,
               "rules' launch within 5% (where known)": out["rules"] / known,
               "kernels whose rules' launch is known": out["rules known"],
               "distinct launches a kernel": frame.groupby("kernel")["us"].nunique().mean(),
               "mean rank correlation": float(np.mean(out["rho"]))}
    for name in policies:
        figures = out[name]
        summary |= {f"{name} within 5%": figures["within"] / known,
                    f"{name}, launches timed a kernel": figures["timed"] / known,
                    f"{name}, kernels with none timed": figures["untimed"] / known,
                    f"{name} / fastest (geomean)": math.exp(np.mean(np.log(figures["loss"])))}
    return summary


def first_pick_margins(frame: pd.DataFrame, predicted: pd.Series,
                       margins=tuple(sorted({0.0, 0.05, FIRST_PICK_MARGIN, 0.1, 0.15, 0.2}))) -> pd.DataFrame:
    """The first pick's accuracy at each margin of ``margins`` (``select_algorithm.first_pick``), over the kernels of
    ``frame`` whose rules' launch the table knows: within 5% of the fastest, its time over the fastest (geomean) and
    the kernels over 1.2x.  The data behind ``FIRST_PICK_MARGIN``."""
    frame = frame.assign(pred=predicted).dropna(subset=["pred"])
    ratios: dict[float, list[float]] = {m: [] for m in margins}
    for kernel, base in _kernels(frame):
        if base is None:
            continue
        for m in margins:
            ratios[m].append(kernel["us"].iloc[first_pick(list(kernel["pred"]), base, m)] / kernel["us"].min())
    rows = {m: {"kernels": len(r), "within 5%": float(np.mean(np.array(r) <= 1 + TOLERANCE)),
                "/ fastest (geomean)": math.exp(np.mean(np.log(r))), "over 1.2x": int(np.sum(np.array(r) > 1.2))}
            for m, r in ratios.items() if r}
    return pd.DataFrame(rows).T.rename_axis("margin")


def held_out_predictions(frame: pd.DataFrame) -> pd.Series:
    """Each candidate's µs predicted by the weights fit to the other seeds' kernels."""
    predicted = pd.Series(np.nan, index=frame.index)
    for seed in frame["seed"].unique():
        held = frame["seed"] == seed
        predicted[held] = predict(frame[held], fit(frame[~held]))
    return predicted


def leave_one_seed_out(frame: pd.DataFrame) -> dict[str, float]:
    """:func:`accuracy` of the predictions of each seed's kernels by the weights fit to the other seeds."""
    return accuracy(frame, held_out_predictions(frame))


def by_family(frame: pd.DataFrame, predicted: pd.Series) -> pd.DataFrame:
    """:func:`accuracy`'s main figures for each family's kernels."""
    keys = {"kernels": "kernels", "first pick within 5%": "first pick",
            "rules' launch within 5% (where known)": "rules' launch",
            f"baseline + first {TIMED_CANDIDATES} within 5%": f"baseline + first {TIMED_CANDIDATES}"}
    rows = {}
    for family, part in frame.groupby("family"):
        figures = accuracy(part, predicted[part.index])
        rows[family] = {short: figures[key] for key, short in keys.items()}
    return pd.DataFrame(rows).T


def candidate_value(frame: pd.DataFrame) -> pd.DataFrame:
    """What each default candidate buys: over every kernel, the fastest of the others against the fastest of all
    (kernels whose time is within 5%, the geomean and the worst ratio), over the kernels that timed it (none: a
    candidate newer than the table, 0 kernels).  STOCK=1 is UNSPLIT=1's older name."""
    rows = {}
    for name in map(describe, AUTOTUNE_CANDIDATES[1:]):
        ratios = []
        for _, kernel in frame.groupby("kernel"):
            it = kernel["candidate"].isin({name, "STOCK=1" if name == "UNSPLIT=1" else name})
            rest = kernel[~it]
            if it.any() and len(rest):  # kernels that timed it (and another)
                ratios.append(rest["us"].min() / kernel["us"].min())
        ratios = np.array(ratios)
        if not len(ratios):
            rows[name] = {"kernels": 0, "within 5% without it": math.nan, "slower without it (geomean)": math.nan,
                          "worst": math.nan}
            continue
        rows[name] = {"kernels": len(ratios), "within 5% without it": float(np.mean(ratios <= 1 + TOLERANCE)),
                      "slower without it (geomean)": math.exp(np.log(ratios).mean()), "worst": ratios.max()}
    return pd.DataFrame(rows).T


def candidate_value_by_class(frame: pd.DataFrame) -> pd.DataFrame:
    """:func:`candidate_value` over each dtype class's kernels (``select_algorithm.dtype_class``), with whether the
    class's table (``CANDIDATES_BY_DTYPE``) keeps the candidate: the data behind the tables."""
    classes = frame.apply(lambda r: dtype_class(r["narrowest"], r["widest"]), axis=1)
    parts = []
    for name, part in frame.groupby(classes):
        value = candidate_value(part)
        value.insert(0, "kept", [c in map(describe, CANDIDATES_BY_DTYPE[name]) for c in value.index])
        parts.append(value.set_index(pd.MultiIndex.from_product([[name], value.index])))
    return pd.concat(parts)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--table", type=pathlib.Path, default=TABLE)
    args = parser.parse_args(argv)
    frame = load(args.table)
    model = fit(frame)
    print(f"{frame['kernel'].nunique()} kernels of {frame['seed'].nunique()} seeds, "
          f"{(frame['kind'] == 'split').sum()} split launches fit")
    print("weights:", ", ".join(f"{t}={getattr(model, t)}" for t in TERMS))
    if model != profitability.CANDIDATES:
        print("(the shipped weights differ:", profitability.CANDIDATES, ")")
    print(f"each seed left out of the fit in turn (TIMED_CANDIDATES = {TIMED_CANDIDATES}):")
    predicted = held_out_predictions(frame)
    for key, value in accuracy(frame, predicted).items():
        print(f"  {key}: {value:.3f}" if isinstance(value, float) else f"  {key}: {value}")
    print(f"the first pick at other margins than FIRST_PICK_MARGIN = {FIRST_PICK_MARGIN} (kernels whose rules' launch "
          "is known):")
    margins = first_pick_margins(frame, predicted).astype({"kernels": int, "over 1.2x": int})
    print(margins.to_string(float_format=lambda v: f"{v:.3f}"))
    print("by family, within 5% of the fastest candidate:")
    print(by_family(frame, predicted).to_string(float_format=lambda v: f"{v:.2f}"))
    print("what each candidate buys (the fastest of the others against the fastest of all):")
    print(candidate_value(frame).to_string(float_format=lambda v: f"{v:.3f}"))
    print("... by dtype class, and whether the class's candidates keep it:")
    print(candidate_value_by_class(frame).to_string(float_format=lambda v: f"{v:.3f}"))
    print("in-sample, the shipped weights:")
    for key, value in accuracy(frame, predict(frame, profitability.CANDIDATES)).items():
        print(f"  {key}: {value:.3f}" if isinstance(value, float) else f"  {key}: {value}")


if __name__ == "__main__":
    main()
