"""The launch candidates timed at compile on the H200, one row per (kernel, candidate), with each candidate's launch.

    python -m benchmarks.launch_candidates --out candidates.csv     # every committed random-site run (CPU, ~1 min)

Every random-site run since the candidates were timed at compile logs each candidate's time in its ``decisions_fused``
("launch candidates timed at compile: rules 8.5 us; TILES_PER_PROGRAM=1 16.7 us; ..."; since the ranking times only
some, the variant that times every one: :data:`TIMING_COLUMNS`), but not the launch each
candidate was (its tile, ``RSPLIT``, warps): that is rebuilt here by compiling the site for the fake H200 with the
*current* package and asking ``choices._launch`` for each candidate's override, as ``choices`` does when the
candidate is emitted, with the cost model's prices of the kernel (``choices._pricing``).  The rules' candidate
(``{}``) is the cost model's choice among the split, the separate finish and the column tile in the runs that timed
the column tile too; in the runs before it, the split where today's model picks the split, else unknown (those
packages' model also chose the walk, and the separate finish, on small sites).  Where a rule changed since the run that timed the site,
the launch rebuilt is today's, not the one timed.

Only runs whose candidates were timed by CUDA-graph replay (package ``0a0b688a`` and later: docs/launch.md) are read;
the earlier ones read a few µs kernel as 15 µs.
"""

from __future__ import annotations

import argparse
import pathlib
from typing import Any

from reduction_transpose_fusion_testing import fake_cuda

fake_cuda.install()

import pandas as pd  # noqa: E402
from tqdm import tqdm  # noqa: E402

from benchmarks import harness  # noqa: E402
from benchmarks.random_sites import candidate_timings  # noqa: E402
from reduction_transpose_fusion import choices  # noqa: E402
from reduction_transpose_fusion.select_algorithm import AUTOTUNE_CANDIDATES, STOCK_LAUNCH, describe  # noqa: E402
from reduction_transpose_fusion_testing import families, interpret  # noqa: E402

RESULTS = pathlib.Path(__file__).parent / "results"
# runs whose candidates were timed by CUDA-graph replay at compile (runtime/benchmarking.py): package 0a0b688a on
OLD_TIMER_PACKAGES = {"742b18ac74754736", "d4c786acdec5131a", "24106b8decb894fd", "a768764a0312acca"}
# where a run's candidate times are, in order of preference: every default candidate timed (fused_every), every
# candidate timed under max_autotune (fused_all), the run's as shipped (every candidate, before the ranking)
TIMING_COLUMNS = ("decisions_fused_every", "decisions_fused_all", "decisions_fused")
# the candidate names as logged and their overrides (STOCK=1 in the packages before UNSPLIT=1 was the key)
OVERRIDES = {describe(c): c for c in AUTOTUNE_CANDIDATES} | {"STOCK=1": STOCK_LAUNCH}


def timed_kernels(paths: list[pathlib.Path]) -> pd.DataFrame:
    """One row per (site, kernel, candidate) timed at compile in the random-site runs ``paths``: the run's seed and
    package, the site's family, dtype, N, C, the kernel's reduction names, the candidate's name and its µs."""
    rows = []
    for path in paths:
        frame = pd.read_csv(path)
        if frame["package_hash"].iloc[0] in OLD_TIMER_PACKAGES:
            continue
        column = next(c for c in TIMING_COLUMNS if c in frame)
        for site in frame.to_dict("records"):
            for names, items in candidate_timings(site[column]):
                for name, us, _ in items:
                    # max_autotune widened Inductor's own launch's configs too: not the launch the default times
                    if us is not None and name in OVERRIDES and not (column == "decisions_fused_all" and
                                                                     OVERRIDES[name] == STOCK_LAUNCH):
                        rows.append(dict(seed=site["seed"], package=site["package_hash"], family=site["family"],
                                         dtype=site["dtype"], rows=site["rows"], cols=site["cols"], names=names,
                                         candidate=name, us=us))
    return pd.DataFrame(rows)


def launches(family: str, dtype: str, rows: int, cols: int) -> dict[str, dict[str, Any]]:
    """{reduction names: the kernel's pricing} for one site compiled for the fake H200 with the current package: the
    cost model's µs of each kind with the rules' own launch (``rules_us``, the model's choice, ``rules_kind``;
    ``split_us``, ``walk_us``, ``column_tile_us``, ``separate_us``), the rules' launch's
    :func:`~reduction_transpose_fusion.fx_passes.profitability.candidate_terms` (``rules_terms``) and, per candidate
    name, the split launch it would take and its terms (``launches``, ``terms``)."""
    from reduction_transpose_fusion.fx_passes import profitability
    from reduction_transpose_fusion.scheduler import sites_in

    found: dict[str, dict[str, Any]] = {}
    original = choices._launch
    busy = []

    def recording(names, features, kernel, cols_, rows_, override):
        if busy:  # the pricing's own call
            return original(names, features, kernel, cols_, rows_, override)
        busy.append(1)
        try:
            sites = sites_in(features.scheduler_nodes())
            guess, rules, terms = choices._pricing(features, sites, names, cols_, rows_)
            entry = dict(narrowest=kernel.narrowest, widest=kernel.widest, reductions=kernel.reductions,
                         moved=kernel.moved, rules_kind=guess.launch, rules_us=guess.fused_us,
                         split_us=guess.split_us, column_tile_us=choices._column_tile_price(sites, cols_, rows_),
                         separate_us=guess.separate_us,
                         walk_us=profitability.walk_us(rows_, cols_, int(guess.fused_mb * 1e6)),
                         rules_terms=terms(rules), launches={}, terms={})
            for name, over in OVERRIDES.items():
                if over.keys() & {"COLUMN_TILE", "UNSPLIT"}:
                    continue
                try:
                    launch = original(names, features, kernel, cols_, rows_, {**override, **over})
                except ValueError:
                    continue
                entry["launches"][name], entry["terms"][name] = launch, terms(launch)
            found[names] = entry
        finally:
            busy.clear()
        return original(names, features, kernel, cols_, rows_, override)

    case = families.ALL_CASES[family]
    specs = case.specs(rows, cols, families.DTYPES[dtype])
    choices._launch = recording
    try:
        interpret.generate(case.fn, interpret.fake_inputs(*specs), **harness.FUSED)
    finally:
        choices._launch = original
    return found


def table(paths: list[pathlib.Path]) -> pd.DataFrame:
    """:func:`timed_kernels` with each candidate's pricing (:func:`launches`): its kind ("rules", "split", "walk",
    "column tile", or "unknown" for a rules' launch the table cannot rebuild), the split launch's XBLOCK, R0_BLOCK, RSPLIT, num_warps, tiles_per_program and prefetch, its
    terms (``t_<term>``) and the rules' launch's (``r_<term>``), and the kernel's predicted µs of each kind."""
    timed = timed_kernels(paths)
    out = []
    for (family, dtype, rows, cols), group in tqdm(list(timed.groupby(["family", "dtype", "rows", "cols"]))):
        try:
            found = launches(family, dtype, int(rows), int(cols))
        except Exception as e:  # noqa: BLE001  a site today's package no longer compiles the same way
            print(f"{family} {dtype}[{rows}, {cols}]: {e}")
            continue
        # a run that timed no column tile predates it: its rules' launch was the split, or the walk or the separate
        # finish that the cost model of some of those packages chose on small sites, and today's model, which no
        # longer chooses the walk, cannot tell which: where it picks another kind than the split, "unknown"
        tile_era = set(group.loc[group["candidate"] == "COLUMN_TILE=1", "names"])
        for r in group.to_dict("records"):
            entry = found.get(r["names"])
            if entry is None:
                continue
            over = OVERRIDES[r["candidate"]]
            kind = ("walk" if "UNSPLIT" in over else "column tile" if "COLUMN_TILE" in over else
                    "split" if over or (r["names"] not in tile_era and entry["rules_kind"] == "split") else
                    "rules" if r["names"] in tile_era else "unknown")
            name = "rules" if kind == "rules" or not over else r["candidate"]
            row = r | {k: entry[k] for k in ("narrowest", "widest", "reductions", "moved", "rules_kind", "rules_us",
                                             "split_us", "walk_us", "column_tile_us", "separate_us")} | dict(kind=kind)
            launch = entry["launches"].get(name)
            if launch is not None and kind in ("split", "rules"):
                row |= dict(XBLOCK=launch.XBLOCK, R0_BLOCK=launch.R0_BLOCK, RSPLIT=launch.RSPLIT,
                            num_warps=launch.num_warps, tiles_per_program=launch.tiles_per_program,
                            prefetch=launch.prefetch)
                row |= {f"t_{k}": v for k, v in entry["terms"][name].items()}
                row |= {f"r_{k}": v for k, v in entry["rules_terms"].items()}
            out.append(row)
    return pd.DataFrame(out)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("runs", nargs="*", type=pathlib.Path,
                        default=sorted(RESULTS.glob("2026-12-0[345]-h200-random-*.csv")))
    parser.add_argument("--out", type=pathlib.Path, required=True)
    args = parser.parse_args(argv)
    frame = table(args.runs)
    frame.to_csv(args.out, index=False)
    print(f"{len(frame)} candidate timings of {frame.groupby(['seed', 'names', 'rows', 'cols']).ngroups} kernels "
          f"-> {args.out}")


if __name__ == "__main__":
    main()
