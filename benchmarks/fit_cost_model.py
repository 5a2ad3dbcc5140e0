"""Fit the profitability cost model's constants to measured sites and report its accuracy.

    python -m benchmarks.fit_cost_model                     # the results the shipped constants were fit to
    python -m benchmarks.fit_cost_model --random R.csv ... --suites S.csv ...

Sites: those of a random-site run (``benchmarks.random_sites --variants forced``: ``stock_us`` and ``forced_us``)
and the fused cases of a micro-case suite (``benchmarks.run``: ``stock_ms`` and ``fused_ms``, cases of 30 µs or
more: ``do_bench`` is not accurate below, where its L2 flush dominates), each one whose reduction stock splits and
that was fused, with the launch its decision log names.  The fit minimizes the log error of the stock and the fused
times of :func:`reduction_transpose_fusion.fx_passes.profitability.estimate`; it prints the constants, the rms log
error and rank correlation of the times and the speedups, and what the decision keeps at a few thresholds.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import pathlib
import re

import numpy as np
import pandas as pd
from scipy.optimize import least_squares
from scipy.stats import spearmanr

from reduction_transpose_fusion.fx_passes import profitability
from reduction_transpose_fusion.runtime.triton_heuristics import column_tile
from reduction_transpose_fusion_testing import families

RESULTS = pathlib.Path(__file__).parent / "results"
RANDOM = [RESULTS / f"2026-12-03-h200-random-{seed}.csv" for seed in (365187048, 1935768610, 1750778643, 502739194)]
# every site fused twice, with the rules' split launch and with the walk (random_sites --variants forced_rules
# forced_unsplit): N in [128, 8192], C in [8, 4096], at most 8 MB
LAB = [RESULTS / "lab" / "2026-12-04-h200-random-54490917-walk.csv"]
# the walk's times: the lab's forced walks, and stock's own kernel wherever stock emitted one unsplit kernel (its
# walk: the same launch over the same loop) in the random-site runs
WALK_STOCK = sorted(RESULTS.glob("2026-12-03-h200-random-*.csv")) + [
    RESULTS / f"2026-12-04-h200-random-{seed}.csv" for seed in (1705736149, 782778698)]
SUITES = [RESULTS / f"2026-12-01-h200-{s}.csv" for s in ("corpus", "holdout", "main")]
# every site fused with the rules' launch twice, with the last-program finish and with the separate finish
# (random_sites --variants forced_rules forced_separate): N in [128, 65536], C in [8, 4096], at most 16 MB
SEPARATE_LAB = [RESULTS / "lab" / f"2026-12-04-h200-random-{seed}-separate.csv" for seed in (83190415, 290571133)]
# the column tile's labs (random_sites --variants fused forced_column_tile...): N in [128, 4096], C in [8, 8192], at
# most 8 MB, each site's tile on 4, 8 and 16 warps; N in [1024, 16384], C in [8, 4096], XBLOCK 8, 4 and 2
TILE_LAB = sorted((RESULTS / "lab").glob("2026-12-04-h200-random-*-column-tile*.csv"))
TILE = re.compile(r"'XBLOCK': (\d+), 'num_warps': (\d+)")
MIN_SUITE_US = 30.0
LAUNCH = re.compile(r"LaunchConfig\(XBLOCK=(\d+), R0_BLOCK=(\d+), RSPLIT=(\d+)")


def sites(random: list[pathlib.Path], suites: list[pathlib.Path]) -> pd.DataFrame:
    """One row per measured fused site stock splits: N, C, R, bytes, launch and the two times (µs)."""
    rows = []
    for path in random:
        for r in pd.read_csv(path).to_dict("records"):
            variant = "forced" if "forced_us" in r else "forced_rules"  # every site fused; the rules' launch only
            rows.append(_row(r, variant, r.get("stock_us"), r.get(f"{variant}_us"), path.stem))
    for path in suites:
        for r in pd.read_csv(path).to_dict("records"):
            if r.get("stock_ms", 0) * 1e3 >= MIN_SUITE_US:
                rows.append(_row(r, "fused", r["stock_ms"] * 1e3, r["fused_ms"] * 1e3, path.stem))
    return pd.DataFrame([r for r in rows if r])


def _row(r: dict, variant: str, stock_us, fused_us, source: str):
    launch = LAUNCH.search(str(r.get(f"decisions_{variant}", r.get("decisions", ""))))
    kernels_fused = r.get(f"kernels_{variant}", r.get("kernels_fused"))
    if not launch or r["kernels_stock"] < 3 or kernels_fused >= r["kernels_stock"] or not stock_us == stock_us:
        return None
    xblock, _, rsplit = map(int, launch.groups())
    name = r.get("case") or f"{r['family']} {r['dtype']}[{r['rows']}x{r['cols']}]"
    return dict(source=source, site=name, rows=r["rows"], cols=r["cols"], reductions=r["kernels_stock"] - 2,
                fused_bytes=r["bytes_moved"], stock_bytes=r["bytes_moved"] + r["input_mb"] * 1e6, rsplit=rsplit,
                xblock=xblock, stock_us=stock_us, fused_us=fused_us)


def predict(frame: pd.DataFrame, model: profitability.Model) -> tuple[np.ndarray, np.ndarray]:
    estimates = [profitability.estimate(r.rows, r.cols, r.reductions, r.stock_bytes, r.fused_bytes, r.rsplit,
                                        r.xblock, model) for r in frame.itertuples()]
    return np.array([e.stock_us for e in estimates]), np.array([e.split_us for e in estimates])


def walk_sites(lab: list[pathlib.Path], stock: list[pathlib.Path]) -> pd.DataFrame:
    """One row per measured walk: N, C, the bytes the kernel moves and its µs."""
    frames = []
    for path in lab:
        r = pd.read_csv(path).dropna(subset=["forced_unsplit_us"])
        frames.append(pd.DataFrame(dict(source=path.stem, rows=r.rows, cols=r.cols, fused_bytes=r.bytes_moved,
                                        walk_us=r.forced_unsplit_us)))
    for path in stock:
        r = pd.read_csv(path)
        r = r[r.kernels_stock == 1].dropna(subset=["stock_us"])
        frames.append(pd.DataFrame(dict(source=path.stem, rows=r.rows, cols=r.cols, fused_bytes=r.bytes_moved,
                                        walk_us=r.stock_us)))
    return pd.concat(frames, ignore_index=True)


def predict_walk(frame: pd.DataFrame, model: profitability.WalkModel) -> np.ndarray:
    return np.array([profitability.walk_us(r.rows, r.cols, r.fused_bytes, model) for r in frame.itertuples()])


def fit_walk(frame: pd.DataFrame) -> profitability.WalkModel:
    start = np.array(dataclasses.astuple(profitability.WALK))
    residuals = lambda x: np.log(predict_walk(frame, profitability.WalkModel(*np.abs(x))) / frame.walk_us)  # noqa: E731
    return profitability.WalkModel(*np.abs(least_squares(residuals, start, x_scale=np.abs(start)).x))


def report_walk(frame: pd.DataFrame, model: profitability.WalkModel) -> str:
    predicted = predict_walk(frame, model)
    error = np.log(predicted / frame.walk_us)
    return (f"{model}\n{len(frame)} walks; rms log error {np.sqrt(np.mean(error ** 2)):.3f}, rank correlation "
            f"{spearmanr(predicted, frame.walk_us)[0]:.3f}; measured / predicted {np.exp(-error).min():.2f}-"
            f"{np.exp(-error).max():.2f}")


def report_choice(lab: list[pathlib.Path], model: profitability.Model, walk: profitability.WalkModel) -> str:
    """The decision between the split and the walk on the lab's sites (each fused both ways), as the model made it
    before the column tile retired the walk from its choices: fuse where the faster prediction of the two is at least
    the threshold, with the launch predicted faster; speedups measured with that launch."""
    lines = []
    for path in lab:
        r = pd.read_csv(path).dropna(subset=["forced_rules_us", "forced_unsplit_us"])
        reductions = r.kernels_stock - 2
        estimates = [profitability.estimate(s.rows, s.cols, red, s.bytes_moved + s.input_mb * 1e6, s.bytes_moved,
                                            int(rs), int(xb), model, walk=True, walk_model=walk)
                     for s, red, (xb, _, rs) in zip(r.itertuples(), reductions,
                                                    r.decisions_forced_rules.map(lambda d: LAUNCH.search(d).groups()))]
        walks = np.array([e.walk for e in estimates])
        predicted = np.array([e.speedup for e in estimates])
        measured = r.stock_us / np.where(walks, r.forced_unsplit_us, r.forced_rules_us)
        best = r.stock_us / np.minimum(r.forced_unsplit_us, r.forced_rules_us)
        for threshold in (1.0, 1.1, 1.2):
            fuse = predicted >= threshold
            kept = np.where(fuse, measured, 1.0)
            lines.append(f"{path.stem}: fuse where predicted >= {threshold}: {fuse.sum()} of {len(r)} "
                         f"({(fuse & walks).sum()} walks), {int((fuse & (measured < 0.97)).sum())} slower than stock "
                         "by > 3%, geomean "
                         f"{math.exp(np.log(kept).mean()):.3f}x (the faster launch at every site: "
                         f"{math.exp(np.log(np.maximum(best, 1)).mean()):.3f}x)")
    return "\n".join(lines)


def _fit_fields(model: profitability.Model, names: list[str], residuals) -> profitability.Model:
    """``model`` with the fields ``names`` fit by least squares to ``residuals(model)``, the rest held."""
    start = np.array([getattr(model, n) for n in names])
    fitted = least_squares(lambda x: residuals(dataclasses.replace(model, **dict(zip(names, np.abs(x))))), start,
                           x_scale=np.abs(start)).x
    return dataclasses.replace(model, **dict(zip(names, np.abs(fitted))))


def fit(frame: pd.DataFrame) -> profitability.Model:
    """The split's constants (and stock's), the separate finish's held."""
    names = [f.name for f in dataclasses.fields(profitability.Model) if not f.name.startswith(SEPARATE)]

    def residuals(model):
        stock, fused = predict(frame, model)
        return np.concatenate([np.log(stock / frame.stock_us), np.log(fused / frame.fused_us)])

    return _fit_fields(profitability.MODEL, names, residuals)


SEPARATE = "separate_"  # the Model fields of the separate finish


def separate_sites(lab: list[pathlib.Path]) -> pd.DataFrame:
    """One row per lab site fused both with the last-program finish and with the separate finish (two kernels):
    the split rows of :func:`sites` with the separate finish's µs added."""
    frames = []
    for path in lab:
        r = pd.read_csv(path)
        if "forced_separate_us" not in r:
            continue
        r = r[r.kernels_forced_separate == 2]
        rows = [_row(s, "forced_rules", s["stock_us"], s["forced_rules_us"], path.stem) | dict(
            separate_us=s["forced_separate_us"]) for s in r.to_dict("records")]
        frames.append(pd.DataFrame([row for row in rows if "site" in row]))
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def _estimates(frame: pd.DataFrame, model: profitability.Model, **choices) -> list[profitability.Estimate]:
    return [profitability.estimate(r.rows, r.cols, r.reductions, r.stock_bytes, r.fused_bytes, r.rsplit, r.xblock,
                                   model, **choices) for r in frame.itertuples()]


def fit_separate(frame: pd.DataFrame, model: profitability.Model) -> profitability.Model:
    """``model`` with the separate finish's constants fit to ``frame`` (:func:`separate_sites`)."""
    names = [f.name for f in dataclasses.fields(profitability.Model) if f.name.startswith(SEPARATE)]

    def residuals(m):
        predicted = [e.separate_us for e in _estimates(frame, dataclasses.replace(m, **_NO_MARGIN), separate=True)]
        return np.log(np.array(predicted) / frame.separate_us)

    return _fit_fields(model, names, residuals)


# the separate finish's time wherever it is a choice, however it compares with the split's (for the fit)
_NO_MARGIN = dict(fused_fixed_us=1e9)


def report_separate(frame: pd.DataFrame, model: profitability.Model) -> str:
    """The separate finish's accuracy, and the choice between it and the split on the lab's sites: fuse where the
    faster predicts the threshold, with the launch predicted faster (the separate finish by a 3% margin)."""
    sep = np.array([e.separate_us for e in _estimates(frame, dataclasses.replace(model, **_NO_MARGIN), separate=True)])
    error = np.log(sep / frame.separate_us)
    saved = np.array([e.split_us for e in _estimates(frame, model)]) - sep
    lines = [f"{len(frame)} sites; separate finish rms log error {np.sqrt(np.mean(error ** 2)):.3f}, rank correlation "
             f"{spearmanr(sep, frame.separate_us)[0]:.3f}; of the time saved against the split "
             f"{spearmanr(frame.fused_us - frame.separate_us, saved)[0]:.3f}"]
    estimates = _estimates(frame, model, separate=True)
    separate = np.array([e.separate for e in estimates])
    predicted = np.array([e.speedup for e in estimates])
    measured = frame.stock_us / np.where(separate, frame.separate_us, frame.fused_us)
    split_only = frame.stock_us / frame.fused_us
    for threshold in (1.0, 1.1):
        fuse = predicted >= threshold
        split_fuse = np.array([e.stock_us / e.split_us >= threshold for e in estimates])
        lines.append(f"fuse where predicted >= {threshold}: {fuse.sum()} of {len(frame)} ({(fuse & separate).sum()} "
                     f"separate), {int((fuse & (measured < 0.97)).sum())} slower than stock by > 3%, geomean "
                     f"{math.exp(np.log(np.where(fuse, measured, 1.0)).mean()):.3f}x; the split alone: "
                     f"{split_fuse.sum()} fused, {int((split_fuse & (split_only < 0.97)).sum())} slower, geomean "
                     f"{math.exp(np.log(np.where(split_fuse, split_only, 1.0)).mean()):.3f}x")
    return "\n".join(lines)


def tile_sites(lab: list[pathlib.Path]) -> pd.DataFrame:
    """One row per column tile measured in the labs (a site and an ``XBLOCK``) with the warps the package gives that
    ``XBLOCK`` (``column_tile`` with it as an override), of sites stock splits: N, the bytes the kernel moves, the
    bytes of the sectors its row-major loads and stores leave unused (``profitability.unused_sector_bytes``), the
    full-size tensors it loads or stores row-major, its µs, stock's and the package's (the ``fused`` variant)."""
    rows = []
    for path in lab:
        frame = pd.read_csv(path)
        variants = [c.removeprefix("decisions_") for c in frame if c.startswith("decisions_forced_column_tile")]
        for r in frame.to_dict("records"):
            itemsize = families.DTYPES[r["dtype"]].itemsize
            heavy = families.ALL_CASES[r["family"]].fn in HEAVY_FAMILIES
            for variant in variants:
                ran = TILE.search(str(r[f"decisions_{variant}"]))
                if not ran or r["kernels_stock"] < 3:
                    continue
                xblock, warps = map(int, ran.groups())
                if column_tile(r["cols"], r["rows"], itemsize, heavy, {"XBLOCK": xblock}) != (xblock, warps):
                    continue
                elements, stores = r["rows"] * r["cols"], ROW_MAJOR_STORES.get(r["family"], ())
                loaded = r["bytes_moved"] / elements - _store_itemsize(r) - sum(stores)
                reads = round(loaded / itemsize)
                rows.append(dict(source=path.stem, site=f"{r['family']} {r['dtype']}[{r['rows']}x{r['cols']}]",
                                 rows=r["rows"], xblock=xblock, fused_bytes=r["bytes_moved"],
                                 unused_bytes=profitability.unused_sector_bytes(elements, xblock, loaded, itemsize,
                                                                                stores),
                                 tensors=reads + len(stores), stock_us=r["stock_us"], fused_us=r["fused_us"],
                                 tile_us=r[f"{variant}_us"]))
    return pd.DataFrame(rows).drop_duplicates(["site", "xblock"])


# the families whose producer is transcendental (the GELU backward): the tile gives them fewer elements a thread
HEAVY_FAMILIES = (families.f2_gelu_backward,)
# the families whose transposed copy is fp8 or bf16 whatever the site's dtype (the others store the site's dtype)
STORE_ITEMSIZE = {"F5-fp8-cast-transpose-dbias": 1, "F5-rowwise": 1, "F5-bf16-cast": 2}
# the element sizes of the full-size tensors a family also stores row-major (``Site.stores``): the fp8 cast's q
ROW_MAJOR_STORES = {"F5-fp8-cast-transpose-dbias": (1,)}


def _store_itemsize(r: dict) -> int:
    return STORE_ITEMSIZE.get(r["family"], families.DTYPES[r["dtype"]].itemsize)


def predict_tile(frame: pd.DataFrame, model: profitability.ColumnTileModel) -> np.ndarray:
    return np.array([profitability.column_tile_us(r.rows, r.fused_bytes, r.unused_bytes, r.tensors, model)
                     for r in frame.itertuples()])


def fit_tile(frame: pd.DataFrame) -> profitability.ColumnTileModel:
    start = np.array(dataclasses.astuple(profitability.COLUMN_TILE))

    def residuals(x):
        return np.log(predict_tile(frame, profitability.ColumnTileModel(*np.abs(x))) / frame.tile_us)

    return profitability.ColumnTileModel(*np.abs(least_squares(residuals, start, x_scale=np.abs(start)).x))


def report_tile(frame: pd.DataFrame, model: profitability.ColumnTileModel) -> str:
    predicted = predict_tile(frame, model)
    error = np.log(predicted / frame.tile_us)
    lines = [f"{model}", f"{len(frame)} tiles; rms log error {np.sqrt(np.mean(error ** 2)):.3f}, rank correlation "
             f"{spearmanr(predicted, frame.tile_us)[0]:.3f}"]
    for xblock, group in frame.groupby("xblock"):
        over_stock = group.stock_us / group.tile_us
        lines.append(f"XBLOCK {xblock}: {len(group)} tiles, rms log error "
                     f"{np.sqrt(np.mean(error[group.index] ** 2)):.3f}; over stock {over_stock.min():.2f}-"
                     f"{over_stock.max():.2f}x (geomean {math.exp(np.log(over_stock).mean()):.2f}x)")
    return "\n".join(lines)


def report(frame: pd.DataFrame, model: profitability.Model) -> str:
    stock, fused = predict(frame, model)
    measured, predicted = frame.stock_us / frame.fused_us, stock / fused
    lines = [f"{model}", f"{len(frame)} sites; rms log error stock {np.sqrt(np.mean(np.log(stock / frame.stock_us) ** 2)):.3f}, "
             f"fused {np.sqrt(np.mean(np.log(fused / frame.fused_us) ** 2)):.3f}; rank correlation stock "
             f"{spearmanr(stock, frame.stock_us)[0]:.3f}, fused {spearmanr(fused, frame.fused_us)[0]:.3f}, speedup "
             f"{spearmanr(predicted, measured)[0]:.3f}"]
    for threshold in (1.0, 1.05, 1.1, 1.15):
        fuse = predicted >= threshold
        kept = np.where(fuse, measured, 1.0)
        lines.append(f"fuse where predicted >= {threshold}: {fuse.sum()} of {len(frame)} fused, "
                     f"{int((fuse & (measured < 0.97)).sum())} slower than stock by > 3%, geomean "
                     f"{math.exp(np.log(kept).mean()):.3f}x (every site fused: {math.exp(np.log(measured).mean()):.3f}x)")
    return "\n".join(lines)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--random", nargs="*", type=pathlib.Path, default=RANDOM)
    parser.add_argument("--suites", nargs="*", type=pathlib.Path, default=SUITES)
    parser.add_argument("--lab", nargs="*", type=pathlib.Path, default=LAB)
    parser.add_argument("--walk-stock", nargs="*", type=pathlib.Path, default=WALK_STOCK)
    parser.add_argument("--separate", nargs="*", type=pathlib.Path, default=SEPARATE_LAB)
    parser.add_argument("--tile", nargs="*", type=pathlib.Path, default=TILE_LAB)
    args = parser.parse_args(argv)
    frame = sites(args.random + args.lab, args.suites)
    print("split, shipped constants:\n" + report(frame, profitability.MODEL))
    model = fit(frame)
    print("\nsplit, refit:\n" + report(frame, model))
    walks = walk_sites(args.lab, args.walk_stock)
    print("\nwalk, shipped constants:\n" + report_walk(walks, profitability.WALK))
    walk = fit_walk(walks)
    print("\nwalk, refit:\n" + report_walk(walks, walk))
    print("\nsplit or walk (the choice before the column tile), shipped constants:\n"
          + report_choice(args.lab, profitability.MODEL, profitability.WALK))
    print("\nsplit or walk, refit:\n" + report_choice(args.lab, model, walk))
    separate = separate_sites(args.separate)
    print("\nseparate finish, shipped constants:\n" + report_separate(separate, profitability.MODEL))
    refit = fit_separate(separate, profitability.MODEL)
    print(f"\nseparate finish, refit: {refit}\n" + report_separate(separate, refit))
    tiles = tile_sites(args.tile)
    print("\ncolumn tile, shipped constants:\n" + report_tile(tiles, profitability.COLUMN_TILE))
    print("\ncolumn tile, refit:\n" + report_tile(tiles, fit_tile(tiles)))


if __name__ == "__main__":
    main()
