"""Lab: Inductor's coordinate descent on its own reductions that store transposed (``tuned_by_coordinate_descent``).

For each random site named ``SEED:INDEX`` (as :func:`benchmarks.random_sites.draw_sites` draws it), measures it as
``random_sites`` does (CUDA-graph replay, stock compiled twice for the noise) in three variants: the fusion on with
the candidates timed (``fused``: tuned by coordinate descent where the rule applies), the same compiled a second time
(``fused_again``: does a second walk land on the same config?) and ``first_pick`` (autotune off: no walk), and keeps
the walk's own log (the ``COORDESC`` lines of Inductor's ``triton_heuristics`` and ``coordinate_descent_tuner``
loggers at DEBUG: Inductor's own pick among its configs, then each config the walk tried and its time as the walk's
benchmark saw it; a line before each compile names it), to tell a walk that follows its timer's noise from one whose
timer disagrees with the replay.

    python -m benchmarks.lab_coordesc --sites 684496337:24 426678996:26 --out OUT

Writes ``lab-coordesc.csv`` (one row per site, ``random_sites`` columns) and ``lab-coordesc.log`` (the walks).
"""

from __future__ import annotations

import argparse
import logging
import pathlib

import pandas as pd

from benchmarks import random_sites
from reduction_transpose_fusion_testing.logs import log_messages

WALK_LOGGERS = ("torch._inductor.runtime.triton_heuristics", "torch._inductor.runtime.coordinate_descent_tuner")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sites", nargs="+", required=True, help="SEED:INDEX of random_sites.draw_sites")
    parser.add_argument("--out", type=pathlib.Path, required=True)
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    random_sites.VARIANTS["fused_again"] = random_sites.VARIANTS["fused"]
    compile_fn = random_sites.harness.compile_fn

    def marked_compile(fn, inputs, options, *args):  # a line in the log before each compile names its variant
        names = [name for name, known in random_sites.VARIANTS.items() if known | random_sites.harness.FRESH == options]
        logging.getLogger(WALK_LOGGERS[0]).debug("-- compile: %s", names[0] if names else "stock")
        return compile_fn(fn, inputs, options, *args)

    random_sites.harness.compile_fn = marked_compile
    rows, log_lines = [], []
    for spec, site in zip(args.sites, random_sites.picked_sites(args.sites)):
        with log_messages(*WALK_LOGGERS, level=logging.DEBUG) as lines:
            row = random_sites.measure(site, ["fused", "fused_again", "first_pick"])
        rows.append(row)
        walk = [line for line in lines if line.startswith("-- compile") or any(
            word in line for word in ("COORDESC", "Improve", "Baseline", "Tune from", "Best config"))]
        log_lines += [f"== {spec} {row['family']} {row['dtype']} {row['shape']}: stock {row['stock_us']:.2f} "
                      f"({row['stock_repeat_us']:.2f}) fused {row.get('fused_us', float('nan')):.2f} fused_again "
                      f"{row.get('fused_again_us', float('nan')):.2f} first_pick "
                      f"{row.get('first_pick_us', float('nan')):.2f} us", *walk]
        print(log_lines[-len(walk) - 1], flush=True)
        pd.DataFrame(rows).to_csv(args.out / "lab-coordesc.csv", index=False)
        (args.out / "lab-coordesc.log").write_text("\n".join(log_lines) + "\n")


if __name__ == "__main__":
    main()
