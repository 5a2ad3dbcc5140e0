"""How far a ranking of the launch candidates can go on what it reads (CPU only): the linear ranking, a ranking fit for
the first pick, a boosted-tree regressor, and the timings' own repeatability.

    pip install -e ".[bench,lab]"
    python -m benchmarks.lab_ranking      # fit to the earlier tables, tested on the six later H100 seeds (~5 min)

The ranking the package ships (fx_passes/profitability.py, "The launch candidates' ranking") is a least-squares fit of
the split launches' log µs on nine terms; its first pick is within 5% of the fastest candidate on about 83% of kernels
in no fit.  This asks whether that figure is set by the model's form or by what a model can read, with the same
kernels and the same tolerance as :mod:`benchmarks.fit_launch_model`:

1. **linear, least squares**: the shipped weights, and the nine weights refit to :data:`TRAIN`;
2. **linear, fit for the pick**: the nine weights that minimise a smooth count of misses (each candidate weighted by a
   softmin of its price at temperature :data:`SOFTMIN_T`, a miss by a logistic step of width :data:`MISS_WIDTH` at
   5% slower than the fastest, :data:`PICK_PENALTY` pulling toward the least-squares weights), the rules' launch
   given ``FIRST_PICK_MARGIN`` as the package does;
3. **boosted trees**: scikit-learn's ``HistGradientBoostingRegressor`` of each candidate's log µs, centred per kernel,
   on the site (N, C, bytes moved, element sizes, reductions), the launch (tile, ``RSPLIT``, warps, row tiles a
   program, prefetch, programs, the candidate's kind) and the cost model's own prices;
4. **the timings' repeatability**: in the random-site runs that timed candidates in two compiles of one site (the
   ``fused`` and ``fused_every`` variants; ``random_sites.compile_to_compile``), how often the fastest of the
   candidates timed in both by the first compile is within 5% of the fastest by the second: the ceiling that noise
   puts on any ranking.

Each ranking is fit to :data:`TRAIN` and tested on :data:`TEST` (none of whose seeds is in any fit), its pick
taken two ways: ``first_pick``'s (the rules' launch unless another is priced ``FIRST_PICK_MARGIN`` faster, as the
package emits untimed) and the candidate priced fastest; the least squares and the trees are also fit with each seed
of both left out in turn (the candidate priced fastest).  Needs scikit-learn (the ``lab`` extra).
"""

from __future__ import annotations

import argparse
import math

from reduction_transpose_fusion_testing import fake_cuda

fake_cuda.install()  # benchmarks.random_sites needs it before torch._inductor is imported

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from scipy.optimize import minimize  # noqa: E402

from benchmarks import fit_launch_model as flm  # noqa: E402
from benchmarks.random_sites import compile_to_compile  # noqa: E402
from reduction_transpose_fusion.fx_passes import profitability  # noqa: E402
from reduction_transpose_fusion.select_algorithm import FIRST_PICK_MARGIN  # noqa: E402

RESULTS = flm.RESULTS
TRAIN = ("2026-12-06-h200-launch-candidates-rebuilt.csv", "2026-12-06-nvidia-h100-80gb-hbm3-launch-candidates-all.csv",
         "2026-12-07-nvidia-h100-80gb-hbm3-launch-candidates-band.csv")
TEST = ("2026-12-07-nvidia-h100-80gb-hbm3-launch-candidates-fresh6.csv",)
SOFTMIN_T = 0.03  # log µs: prices this close share the pick's weight
PICK_PENALTY = 0.01  # per squared log-µs unit of weight away from the least-squares fit
MISS_WIDTH = 0.02  # log µs: the logistic step's width about 5% slower than the fastest (0.08 at the fastest itself)
KINDS = {"split": 0, "rules": 1, "walk": 2, "column tile": 3}
# fit_launch_model.accuracy's figures: the pick as the package takes it untimed, and the candidate priced fastest
FIRST_PICK = "first pick within 5%"
PRICED_FASTEST = "the candidate priced fastest within 5% (no margin)"


def load(names) -> pd.DataFrame:
    """The candidate tables ``names`` (under results/), one frame, each kernel keyed by its table too."""
    frames = [flm.load(RESULTS / name).assign(table=name) for name in names]
    frame = pd.concat(frames, ignore_index=True)
    frame["kernel"] = frame["table"] + " " + frame["kernel"]
    return frame


def _pick_arrays(frame: pd.DataFrame) -> list[dict]:
    """Per kernel, what the pick's loss needs, over the candidates ``flm.predict`` prices (the kernels and rows that
    ``flm.accuracy`` scores): times, the fixed log prices (NaN for split launches), the split launches' mask,
    their terms less the rules' split launch's, its log µs, and the baseline's index."""
    priced = flm.predict(frame, profitability.CANDIDATES)  # NaN where no weights could price it
    out = []
    for kernel, base in flm._kernels(frame[priced.notna()]):
        split = (kernel["kind"] == "split").to_numpy()
        fixed = np.where(split, np.nan, np.log(priced[kernel.index]))  # the walk, column tile, rules: no weights
        terms = (kernel[[f"t_{t}" for t in flm.TERMS]].to_numpy(float)
                 - kernel[[f"r_{t}" for t in flm.TERMS]].to_numpy(float))
        if np.isfinite(priced[kernel.index]).any():  # a kernel priced all infinite has no pick to weigh
            out.append(dict(us=kernel["us"].to_numpy(float), fixed=fixed, split=split, terms=terms,
                            log_split=np.log(kernel["split_us"].to_numpy(float)), base=base))
    return out


def _pick_loss(weights: np.ndarray, kernels: list[dict], anchor: np.ndarray) -> float:
    """The smooth count of misses of item 2 (module docstring), per kernel, plus the pull toward ``anchor``."""
    total = 0.0
    for k in kernels:
        log_price = k["fixed"].copy()
        log_price[k["split"]] = k["log_split"][k["split"]] + k["terms"][k["split"]] @ weights
        if k["base"] is not None:
            log_price[k["base"]] += math.log(1 - FIRST_PICK_MARGIN)
        us = k["us"]
        share = np.exp(-(log_price - log_price.min()) / SOFTMIN_T)  # an infinite price: no share
        miss = 1 / (1 + np.exp(-(np.log(us / us.min()) - math.log(1 + flm.TOLERANCE)) / MISS_WIDTH))
        total += share @ miss / share.sum()
    return total / len(kernels) + PICK_PENALTY * float(np.sum((weights - anchor) ** 2))


def fit_for_pick(frame: pd.DataFrame) -> profitability.CandidateModel:
    """Item 2's weights, from the least-squares fit (Powell's method; a few minutes on two cores)."""
    anchor = np.array([getattr(flm.fit(frame), t) for t in flm.TERMS])
    result = minimize(_pick_loss, anchor, args=(_pick_arrays(frame), anchor), method="Powell",
                      options=dict(maxiter=4000, xtol=1e-3, ftol=1e-6))
    return profitability.CandidateModel(**{t: float(w) for t, w in zip(flm.TERMS, result.x)})


def features(frame: pd.DataFrame) -> pd.DataFrame:
    """Item 3's inputs, one row a candidate (logs of sizes; infinite prices as -9, a value no log price takes)."""
    programs = frame["RSPLIT"] * np.ceil(frame["cols"] / frame["XBLOCK"])
    out = pd.DataFrame(dict(
        log_rows=np.log(frame["rows"]), log_cols=np.log(frame["cols"]), log_moved=np.log(frame["moved"].clip(1)),
        narrowest=frame["narrowest"], widest=frame["widest"], reductions=frame["reductions"],
        log2_xblock=np.log2(frame["XBLOCK"]), log2_r0_block=np.log2(frame["R0_BLOCK"]),
        log_rsplit=np.log(frame["RSPLIT"].clip(1)), num_warps=frame["num_warps"],
        tiles_per_program=frame["tiles_per_program"],
        prefetch=frame["prefetch"].astype(str).str.lower().eq("true").astype(float),
        log_programs=np.log(programs.clip(1)), kind=frame["kind"].map(KINDS).fillna(len(KINDS)),
        **{f"log_{c}": np.log(frame[c]) for c in ("rules_us", "split_us", "walk_us", "column_tile_us")}))
    return out.replace([np.inf, -np.inf], np.nan).fillna(-9.0)


def tree_predictions(train: pd.DataFrame, test: pd.DataFrame, seed: int = 0) -> pd.Series:
    """Item 3's predicted log µs (centred per kernel) of ``test``'s candidates, fit to ``train``'s."""
    try:
        from sklearn.ensemble import HistGradientBoostingRegressor
    except ImportError as error:
        raise SystemExit('benchmarks.lab_ranking needs scikit-learn: pip install -e ".[lab]"') from error
    target = np.log(train["us"])
    target = target - target.groupby(train["kernel"]).transform("mean")
    model = HistGradientBoostingRegressor(max_iter=300, learning_rate=0.05, max_leaf_nodes=15, min_samples_leaf=20,
                                          random_state=seed)
    model.fit(features(train), target)
    return pd.Series(np.exp(model.predict(features(test))), index=test.index)


def leave_one_seed_out(frame: pd.DataFrame, predict) -> pd.Series:
    """Each candidate's µs, each seed's predicted by ``predict(train, test)`` fit without it."""
    predicted = pd.Series(np.nan, index=frame.index)
    for seed in frame["seed"].unique():
        held = frame["seed"] == seed
        predicted[held] = predict(frame[~held], frame[held])
    return predicted


def repeatability(paths) -> pd.Series:
    """Item 4 over the random-site runs ``paths`` (``random_sites.compile_to_compile`` of each, summed): the kernels
    counted and the share whose first compile's fastest is within 5% of the second's fastest."""
    repeats = [compile_to_compile(pd.read_csv(path)) for path in paths]
    kernels = sum(r.get("kernels", 0) for r in repeats)
    agree = sum(r.get("picks within tolerance", 0) for r in repeats)
    return pd.Series({"kernels": kernels, "the first compile's fastest within 5% of the second's": agree / kernels})


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--train", nargs="+", default=TRAIN, help="candidate tables under results/ to fit to")
    parser.add_argument("--test", nargs="+", default=TEST, help="candidate tables under results/ to test on")
    args = parser.parse_args(argv)
    train, test = load(args.train), load(args.test)
    both = pd.concat([train, test], ignore_index=True)
    least_squares = flm.fit(train)
    predicted = {  # each ranking's µs of the test tables' candidates
        "linear, shipped weights": flm.predict(test, profitability.CANDIDATES),
        "linear, least squares refit": flm.predict(test, least_squares),
        "linear, fit for the pick": flm.predict(test, fit_for_pick(train)),
        "boosted trees": tree_predictions(train, test),
    }
    tested = {name: flm.accuracy(test, prices) for name, prices in predicted.items()}
    refits = {"linear, least squares refit": lambda a, b: flm.predict(b, flm.fit(a)), "boosted trees": tree_predictions}
    held_out = {name: flm.accuracy(both, leave_one_seed_out(both, refit)) for name, refit in refits.items()}
    print(f"fit to {flm.accuracy(train, flm.predict(train, least_squares))['kernels']} kernels of "
          f"{train['seed'].nunique()} seeds; tested on {tested['boosted trees']['kernels']} of "
          f"{test['seed'].nunique()} seeds; each seed left out: {held_out['boosted trees']['kernels']} kernels of "
          f"{both['seed'].nunique()} seeds")
    table = pd.DataFrame({name: {
        "test: first pick (FIRST_PICK_MARGIN)": figures[FIRST_PICK],
        "test: priced fastest": figures[PRICED_FASTEST],
        "each seed left out: priced fastest": held_out[name][PRICED_FASTEST] if name in held_out else math.nan,
    } for name, figures in tested.items()}).T
    print("within 5% of the fastest candidate timed:")
    print(table.to_string(float_format=lambda v: f"{v:.3f}"))
    print("the timings' repeatability, every committed random-site run with both variants:")
    print(repeatability(sorted(RESULTS.glob("*random-[0-9]*.csv"))).to_string(float_format=lambda v: f"{v:.3f}"))


if __name__ == "__main__":
    main()
