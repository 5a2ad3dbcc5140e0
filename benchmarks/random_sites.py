"""Random sites: stock against fused on shapes nobody tuned a rule for.

    python -m benchmarks.random_sites                        # 48 sites, a fresh seed (printed and recorded)
    python -m benchmarks.random_sites --seed 7 --sites 96    # the same sites again
    python -m benchmarks.random_sites --variants fused forced  # also every safe site fused (the data behind a rule)
    python -m benchmarks.random_sites --variants fused rules tiles1 wave prefetch  # the chooser's accuracy
    python -m benchmarks.random_sites --variants fused fused_every  # also every candidate timed: the ranking's accuracy

A site is one family of :mod:`reduction_transpose_fusion_testing.families` (:data:`FAMILIES`: F1–F6, 2-D, 3-D and 4-D
inputs), a dtype (fp32, bf16, fp16) and ``N x C`` drawn log-uniform in [64, 131072] x [8, 32768], redrawn while a
full-size input would exceed :data:`MAX_TENSOR_BYTES`.  The seed is new on every run unless ``--seed`` is given, and
is written into every row: never fit a rule to one seed's sites.

Timing (GPU): each variant is a CUDA graph of ``calls`` calls of the compiled function that rotate over enough input
copies to hold more bytes than the L2 (up to :data:`MAX_INPUT_SETS`), replayed :data:`ROUNDS` times, each replay
timed by CUDA events; the figure is the median replay over ``calls``, in µs.  A graph replay counts GPU time only
(no Python guards, no launch gaps) and stays accurate for sites of a few µs, where ``triton.testing.do_bench`` is
not.  Stock is compiled and captured twice (two compiles, two graphs, interleaved with the others in every round):
their spread is the noise, compile to compile (Inductor picks its own reduction configs by timing them at the first
call).
A site *loses* when fused is slower than stock by more than 3% plus that noise.

Without a GPU the same sites are generated and compiled for the fake H200 (kernel counts and the decisions only).

Writes ``benchmarks/results/<date>-<gpu>-random-<seed>.{csv,json}``.
"""

from __future__ import annotations

import argparse
import datetime
import math
import pathlib
import random
import re
import secrets
import sys
import zlib
from typing import Any

import torch

HAS_GPU = torch.cuda.is_available()
if not HAS_GPU:
    from reduction_transpose_fusion_testing import fake_cuda

    fake_cuda.install()

import pandas as pd  # noqa: E402
from tqdm import tqdm  # noqa: E402

import reduction_transpose_fusion  # noqa: E402,F401
from benchmarks import harness, steps  # noqa: E402
from benchmarks.run import provenance  # noqa: E402
from reduction_transpose_fusion.scheduler import TUNED_LOG  # noqa: E402
from reduction_transpose_fusion.select_algorithm import AUTOTUNE_CANDIDATES, describe, first_pick  # noqa: E402
from reduction_transpose_fusion_testing import families  # noqa: E402
from reduction_transpose_fusion_testing.logs import decision_log  # noqa: E402

HERE = pathlib.Path(__file__).parent
FAMILIES = ("F1-t", "F2-mul-add", "F2-gelu-backward", "F3-layernorm-backward", "F3-amax", "F4-flatten",
            "F4-flatten-4d", "F5-fp8-cast-transpose-dbias", "F5-bf16-cast", "F5-rowwise", "F6-centering")
DTYPES = ("fp32", "bf16", "fp16")
ROWS, COLS = (64, 131072), (8, 32768)
MAX_TENSOR_BYTES = 512 * 2**20  # a full-size input's bytes: 48 sites then fit a 10-minute run with their compiles
LOSS_MARGIN = 0.03  # slower than stock by more than this (plus the noise) counts as a loss
ROUNDS = 15
MAX_INPUT_SETS = 64
GRAPH_TARGET_S = 1.5e-3  # a replay's length to aim for: far above the events' resolution
# fused: as shipped (launch candidates timed at compile); rules: the rules' launch only (the expert override of the
# last-program finish: no candidates ranked or timed); first_pick: the cost model's first pick, untimed (autotune off)
VARIANTS = {"fused": harness.FUSED, "forced": harness.FORCED,
            "rules": harness.FUSED | {"reduction_transpose_fusion_launch_config": "SEPARATE_FINISH=0"},
            "first_pick": harness.FUSED | {"reduction_transpose_fusion_autotune": False}}
# each launch candidate forced (an expert override, so none is timed at compile), for the chooser's accuracy: how
# often the rules' launch, and the emitted one, is within PICK_TOLERANCE of the fastest of them (Inductor's own
# launch, a candidate too, is no override key and is left out)
CANDIDATE_VARIANTS = {"tiles1": "TILES_PER_PROGRAM=1", "wave": "TILES_PER_PROGRAM=0", "prefetch": "PREFETCH=1"}
VARIANTS |= {name: harness.FUSED | {"reduction_transpose_fusion_launch_config": launch}
             for name, launch in CANDIDATE_VARIANTS.items()}
# every safe site fused with one launch and no candidate timed: the rules' launch with the last-program finish and
# with the separate finish, Inductor's own launch of the unsplit reduction (one program per column block walks all N
# rows) and the package's kernel on that grid (the data behind the cost model's choice of launch,
# fx_passes/profitability.py)
FORCED_LAUNCHES = {"forced_rules": "SEPARATE_FINISH=0", "forced_separate": "SEPARATE_FINISH=1",
                   "forced_unsplit": "UNSPLIT=1", "forced_rsplit1": "RSPLIT=1",
                   "forced_rsplit1p": "RSPLIT=1,PREFETCH=1", "forced_column_tile": "COLUMN_TILE=1",
                   "forced_column_tile8": "COLUMN_TILE=1,num_warps=8",
                   "forced_column_tile16": "COLUMN_TILE=1,num_warps=16",
                   **{f"forced_column_tile_x{x}": f"COLUMN_TILE=1,XBLOCK={x}" for x in (2, 4, 8)}}
VARIANTS |= {name: harness.FORCED | {"reduction_transpose_fusion_autotune": False,
                                     "reduction_transpose_fusion_launch_config": launch}
             for name, launch in FORCED_LAUNCHES.items()}
# every default launch candidate timed, each logged with the cost model's price: the ranking's accuracy
# (model_pick_accuracy).  Not max_autotune (fused_all): that also widens Inductor's own reduction configs, so its
# Inductor's-own-launch candidate ran 1.5-18x faster than the default's does (seed 945796136 against the default
# runs' logs) and won kernels it cannot win as shipped.
VARIANTS["fused_every"] = harness.FUSED | {"reduction_transpose_fusion_timed_candidates": -1}
# every candidate of max_autotune's wider space timed, Inductor's own configs widened too
VARIANTS["fused_all"] = harness.FUSED | {"max_autotune": True}
PICK_TOLERANCE = 0.05
# a kernel's candidates as logged: "launch candidates timed at compile: rules 8.5 us (model 7.9); PREFETCH=1 not
# timed (model 9.1); ...; emitted ...", the model's price since the ranking, "NAME 8.5 us" before
TIMED_LINE = re.compile(r"(?P<names>[\w, ]+): launch candidates timed at compile: (?P<timed>.*?); emitted (?P<emitted>\S+)")
TIMED_ITEM = re.compile(r"^(?P<name>.+?) (?:(?P<us>[\d.]+|inf) us|not timed)(?: \(model (?P<model>[\d.]+|inf)\))?$")
# the default candidates' names as logged
DEFAULT_CANDIDATES = tuple(map(describe, AUTOTUNE_CANDIDATES))


def candidate_timings(decisions: str) -> list[tuple[str, list[tuple[str, float | None, float | None]]]]:
    """[(reduction names, [(candidate, µs or None if not timed, the model's µs or None), ...]), ...] for each kernel
    whose candidates a site's decision log (its lines joined by " | ") lists."""
    out = []
    for line in TIMED_LINE.finditer(str(decisions)):
        items = []
        for part in line.group("timed").split("; "):
            m = TIMED_ITEM.match(part)
            if m:
                us, model = m.group("us"), m.group("model")
                items.append((m.group("name"), float(us) if us else None, float(model) if model else None))
        out.append((line.group("names").strip(), items))
    return out


def model_pick_accuracy(frame: pd.DataFrame, variant: str = "fused_every", tolerance: float = PICK_TOLERANCE
                        ) -> tuple[int, int]:
    """(kernels where the cost model's first pick is within ``tolerance`` of the fastest, kernels counted): over the
    kernels of ``variant``'s decision logs whose default candidates (:data:`DEFAULT_CANDIDATES`) were all timed and
    priced, at least two of them distinct (one time: one kernel); the pick is ``select_algorithm.first_pick``'s, as
    emitted untimed (the rules' launch unless another is priced ``FIRST_PICK_MARGIN`` faster; ties to the earlier)."""
    within = counted = 0
    for decisions in frame.get(f"decisions_{variant}", pd.Series(dtype=object)).dropna():
        for _, items in candidate_timings(decisions):
            default = [(name, us, model) for name, us, model in items if name in DEFAULT_CANDIDATES]
            if any(us is None or model is None for _, us, model in default) or len({us for _, us, _ in default}) < 2:
                continue
            names, times, prices = zip(*default)
            first = first_pick(list(prices), names.index(describe({})) if describe({}) in names else None)
            within += times[first] <= (1 + tolerance) * min(times)
            counted += 1
    return within, counted


def draw_sites(seed: int, count: int, rows_range: tuple[int, int] = ROWS, cols_range: tuple[int, int] = COLS,
               max_bytes: int = MAX_TENSOR_BYTES, family_names: tuple[str, ...] = FAMILIES) -> list[dict[str, Any]]:
    """``count`` sites from ``seed``: dicts with family (of ``family_names``), dtype, rows (N), cols (C), N and C
    log-uniform in ``rows_range`` and ``cols_range``, a full-size input at most ``max_bytes``.  Deterministic in its
    arguments."""
    rng = random.Random(seed)
    sites = []
    while len(sites) < count:
        family, dtype = rng.choice(family_names), rng.choice(DTYPES)
        rows = round(math.exp(rng.uniform(*map(math.log, rows_range))))
        cols = round(math.exp(rng.uniform(*map(math.log, cols_range))))
        case = families.ALL_CASES[family]
        multiple = {"x3": 2, "x4": 4}.get(case.operands, 1)  # F4's leading dims split N
        rows = max(multiple, rows // multiple * multiple)
        if rows * cols * families.DTYPES[dtype].itemsize <= max_bytes:
            sites.append(dict(index=len(sites), family=family, dtype=dtype, rows=rows, cols=cols))
    return sites


def picked_sites(specs: list[str]) -> list[dict[str, Any]]:
    """The sites named ``SEED:INDEX``: each the INDEX-th that :func:`draw_sites` draws from SEED with the default
    ranges (as every committed run drew them), with its ``seed``.

    Raises:
        ValueError: for a spec that is not two integers joined by a colon, or a negative index.
    """
    sites = []
    for spec in specs:
        seed, _, index = spec.partition(":")
        if not (seed.isdigit() and index.isdigit()):
            raise ValueError(f"a site is SEED:INDEX, two non-negative integers, not {spec!r}")
        sites.append(draw_sites(int(seed), int(index) + 1)[int(index)] | dict(seed=int(seed)))
    return sites


def graph(fn, input_sets: list[list[torch.Tensor]], calls: int) -> torch.cuda.CUDAGraph:
    """A CUDA graph of ``calls`` calls of ``fn``, the i-th on ``input_sets[i % len(input_sets)]``."""
    for inputs in input_sets[:2]:
        fn(*inputs)  # warm-up outside the capture (the first call of a compiled function runs its checks)
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for i in range(calls):
            fn(*input_sets[i % len(input_sets)])
    g.replay()
    torch.cuda.synchronize()
    return g


def time_graphs(graphs: dict[str, torch.cuda.CUDAGraph], calls: int, rounds: int = ROUNDS) -> dict[str, float]:
    """Median µs per call of each graph: ``rounds`` rounds, each replaying every graph once in turn between CUDA
    events (interleaved, so a drift of the clock or of the card's temperature falls on all of them alike)."""
    times = {name: [] for name in graphs}
    for _ in range(rounds):
        for name, g in graphs.items():
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            g.replay()
            end.record()
            end.synchronize()
            times[name].append(start.elapsed_time(end) * 1e3 / calls)
    return {name: float(torch.tensor(t).median()) for name, t in times.items()}


def measure(site: dict, variants: list[str]) -> dict[str, Any]:
    """Compile ``site`` stock and in each of ``variants``, check the outputs and time them (GPU)."""
    case = families.ALL_CASES[site["family"]]
    dtype = families.DTYPES[site["dtype"]]
    first = case.inputs(site["rows"], site["cols"], dtype, device="cuda", seed=site["index"])
    site_bytes = harness.nbytes(first)
    sets = max(1, min(MAX_INPUT_SETS, math.ceil(3 * 60e6 / site_bytes)))  # 3x the H200's 60 MB of L2
    input_sets = [first] + [[t.clone() if t.dim() else t for t in first] for _ in range(sets - 1)]
    row: dict[str, Any] = dict(site) | dict(shape="x".join(map(str, case.shapes(site["rows"], site["cols"])[0])),
                                            input_mb=site_bytes / 1e6)
    # each graph is captured right after its compile, before the next one: a later compile of case.fn with the same
    # options replaces the code an earlier compiled function runs (Dynamo keeps one cache entry for fn's code and
    # takes two equal backends for one), and a replay needs no Python
    stock_fn, row["kernels_stock"], row["compile_s_stock"], _ = harness.compile_fn(case.fn, first,
                                                                                   harness.STOCK | harness.FRESH)
    stock_out = stock_fn(*first)
    row["bytes_moved"] = site_bytes + harness.nbytes(stock_out)
    est_s = max(row["bytes_moved"] / 3e12, 4e-6 * row["kernels_stock"])
    calls = max(sets, min(256, round(GRAPH_TARGET_S / est_s)))
    graphs = {"stock": graph(stock_fn, input_sets, calls)}
    # stock compiled a second time: Inductor benchmarks its own reduction configs at the first call, and two compiles
    # of the same code can pick differently (identical code timed 0.76x apart at 6 µs), so the noise spans compiles
    repeat_fn, _, _, _ = harness.compile_fn(case.fn, first, harness.STOCK | harness.FRESH)
    graphs["stock_repeat"] = graph(repeat_fn, input_sets, calls)
    for name in variants:
        try:
            fn, row[f"kernels_{name}"], row[f"compile_s_{name}"], decisions = harness.compile_fn(
                case.fn, first, VARIANTS[name] | harness.FRESH)
        except Exception as e:  # a forced launch the site refuses (a workspace bound): that variant's result
            row[f"error_{name}"] = f"{type(e).__name__}: {e}"[:300]
            continue
        err, exact = harness.check(case, first, fn(*first), stock_out)
        row |= {f"max_rel_err_{name}": err, f"exact_{name}": exact, f"decisions_{name}": " | ".join(decisions)}
        graphs[name] = graph(fn, input_sets, calls)
    order = ("stock", *(v for v in variants if v in graphs), "stock_repeat")  # stock's two apart in every round
    us = time_graphs({name: graphs[name] for name in order}, calls)
    row |= dict(calls=calls, input_sets=sets, stock_us=us["stock"], stock_repeat_us=us["stock_repeat"],
                noise_pct=abs(us["stock"] - us["stock_repeat"]) / us["stock"] * 100)
    for name in (v for v in variants if v in us):
        row[f"{name}_us"] = us[name]
        row[f"speedup_{name}"] = us["stock"] / us[name]
        row[f"loses_{name}"] = loses(row[f"speedup_{name}"], row["noise_pct"])
    del graphs, input_sets
    return row


def left_to_stock(decisions) -> bool:
    """True if the decision log of a site's compile (its lines joined by " | ") fused nothing and tuned none of
    Inductor's own kernels (``scheduler.tuned_by_coordinate_descent``): its code is stock's."""
    return loss_kind(decisions) == "stock"


def loss_kind(decisions) -> str:
    """What a site's compile did, from its decision log (lines joined by " | "): "fused" (a marked site fused),
    "tuned" (none fused, but one of Inductor's own kernels tuned by coordinate descent) or "stock" (stock's code)."""
    lines = str(decisions).split(" | ")
    if steps.fused_sites(lines):
        return "fused"
    return "tuned" if any(TUNED_LOG in line for line in lines) else "stock"


def loses(speedup: float, noise_pct: float) -> bool:
    """True if fused is slower than stock by more than :data:`LOSS_MARGIN` plus the measured noise."""
    return speedup < 1 / (1 + LOSS_MARGIN + noise_pct / 100)


def codegen(site: dict, variants: list[str]) -> dict[str, Any]:
    """Kernel counts and decisions for the fake H200 (no GPU)."""
    from reduction_transpose_fusion_testing import interpret

    case = families.ALL_CASES[site["family"]]
    specs = case.specs(site["rows"], site["cols"], families.DTYPES[site["dtype"]])
    row: dict[str, Any] = dict(site) | dict(shape="x".join(map(str, specs[0][0])))
    row["kernels_stock"] = len(interpret.kernel_names(interpret.generate(case.fn, interpret.fake_inputs(*specs),
                                                                         **harness.STOCK)))
    for name in variants:
        with decision_log() as decisions:
            source = interpret.generate(case.fn, interpret.fake_inputs(*specs), **VARIANTS[name])
        row[f"kernels_{name}"] = len(interpret.kernel_names(source))
        row[f"decisions_{name}"] = " | ".join(decisions)
    return row


def pick_accuracy(frame: pd.DataFrame, pick: str, among: list[str], tolerance: float = PICK_TOLERANCE
                  ) -> tuple[int, int]:
    """(sites where variant ``pick``'s time is within ``tolerance`` of the fastest of ``pick`` and ``among``, sites
    counted): over the sites that variant ``pick`` fused (``decisions_<pick>``) with every variant timed."""
    cols = [f"{v}_us" for v in (pick, *among)]
    if not set(cols) <= set(frame) or f"decisions_{pick}" not in frame:
        return 0, 0
    fused = frame[~frame[f"decisions_{pick}"].map(left_to_stock)].dropna(subset=cols)
    best = fused[cols].min(axis=1)
    return int((fused[f"{pick}_us"] <= (1 + tolerance) * best).sum()), len(fused)


def compile_to_compile(frame: pd.DataFrame, first: str = "fused", second: str = "fused_every",
                       tolerance: float = PICK_TOLERANCE) -> dict[str, float | int]:
    """How a candidate's time at compile repeats from one compile of a site to another: over the candidates that both
    variants' decision logs timed for the same kernel of the same site, the count, the median and 95th percentile of
    ``|log(second's µs / first's µs)|``; and over the kernels where both timed two or more of the same candidates
    (with two distinct times), how often the fastest of them by ``first``'s times is within ``tolerance`` of the
    fastest by ``second``'s.  A site's kernels are told apart by their reductions' names (one kernel a name in the
    random sites).  Empty where no candidate was timed in both."""
    diffs, agree, kernels = [], 0, 0
    for a, b in frame.reindex(columns=[f"decisions_{first}", f"decisions_{second}"]).dropna().itertuples(index=False):
        timed_b = {names: {c: us for c, us, _ in items if us and math.isfinite(us)}
                   for names, items in candidate_timings(b)}
        for names, items in candidate_timings(a):
            timed_a = {c: us for c, us, _ in items if us and math.isfinite(us)}
            both = sorted(timed_a.keys() & timed_b.get(names, {}).keys())
            diffs += [abs(math.log(timed_b[names][c] / timed_a[c])) for c in both]
            if len(both) >= 2 and len({timed_b[names][c] for c in both}) > 1:
                pick = min(both, key=timed_a.get)
                kernels += 1
                agree += timed_b[names][pick] <= (1 + tolerance) * min(timed_b[names][c] for c in both)
    if not diffs:
        return {}
    series = pd.Series(diffs)
    return {"timings": len(diffs), "median": series.median(), "p95": series.quantile(0.95),
            "kernels": kernels, "picks within tolerance": agree}


def summarize(frame: pd.DataFrame, variants: list[str]) -> str:
    """One line per variant: sites, losses, geomean speedup, worst; with the forced candidates, the chooser's
    accuracy (:func:`pick_accuracy`)."""
    lines = []
    for name in variants:
        col = f"speedup_{name}"
        if col not in frame or frame[col].isna().all():
            fused = (frame[f"kernels_{name}"] < frame["kernels_stock"]).sum()
            lines.append(f"{name}: {len(frame)} sites, {fused} with fewer kernels than stock (codegen only, no times)")
            continue
        s = frame[col].dropna()
        worst = frame.loc[s.idxmin()]
        lost = frame[frame[f"loses_{name}"].astype(bool)]
        kinds = [loss_kind(d) for d in lost[f"decisions_{name}"]]
        lines.append(f"{name}: {len(s)} sites; slower than stock by more than {LOSS_MARGIN:.0%} + noise: "
                     f"{kinds.count('fused')} fused, {kinds.count('tuned')} only tuned by coordinate descent "
                     f"(Inductor's own kernels), {kinds.count('stock')} left to stock (the same code as stock, a "
                     "second compile timed apart); "
                     f"geomean {math.exp(s.map(math.log).mean()):.3f}x, worst {s.min():.3f}x "
                     f"({worst['family']} {worst['dtype']}[{worst['shape']}]); median stock noise "
                     f"{frame['noise_pct'].median():.1f}%")
    for variant in ("fused_every", "fused_all"):
        within, counted = model_pick_accuracy(frame, variant)
        if counted:
            lines.append(f"the cost model's first pick within {PICK_TOLERANCE:.0%} of the fastest default candidate "
                         f"({variant}: every candidate timed): {within} of {counted} kernels ({within / counted:.0%})")
    repeat = compile_to_compile(frame) if {"fused", "fused_every"} <= set(variants) else {}
    if repeat:
        lines.append(f"a candidate timed in both fused and fused_every (two compiles): {repeat['timings']} timings, "
                     f"|difference| median {math.expm1(repeat['median']):.1%}, 95th percentile "
                     f"{math.expm1(repeat['p95']):.1%}; the fastest by one within {PICK_TOLERANCE:.0%} by the other on "
                     f"{repeat['picks within tolerance']} of {repeat['kernels']} kernels")
    candidates = [v for v in variants if v in CANDIDATE_VARIANTS]
    for pick in (v for v in ("rules", "first_pick", "fused") if v in variants and candidates):
        within, counted = pick_accuracy(frame, pick, candidates)
        if counted:
            lines.append(f"{pick}'s launch within {PICK_TOLERANCE:.0%} of the fastest of it and {', '.join(candidates)}: "
                         f"{within} of {counted} fused sites ({within / counted:.0%})")
    return "\n".join(lines)


def launch_variants(specs: list[str]) -> dict[str, dict]:
    """``{NAME: every safe site fused (forced) with the expert launch override SPEC}`` for each ``NAME=SPEC`` of
    ``--launch``.

    Raises:
        ValueError: a spec without ``=``, or a name that is already a variant."""
    out = {}
    for spec in specs:
        name, sep, launch = spec.partition("=")
        if not (name and sep and launch) or name in VARIANTS:
            raise ValueError(f"--launch {spec!r}: expected NAME=SPEC with a new NAME (not one of {sorted(VARIANTS)})")
        out[name] = harness.FORCED | {"reduction_transpose_fusion_launch_config": launch}
    return out


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seed", type=int, default=None, help="the sites' seed (default: a fresh one)")
    parser.add_argument("--sites", type=int, default=48)
    parser.add_argument("--variants", nargs="+", default=["fused"],
                        help=f"of {', '.join(sorted(VARIANTS))}, and the names that --launch defines")
    parser.add_argument("--launch", nargs="+", default=[], metavar="NAME=SPEC",
                        help="a variant NAME: every safe site fused with the expert launch override SPEC, e.g. "
                             "row128=XBLOCK=128,R0_BLOCK=64 (the data behind a new candidate)")
    parser.add_argument("--rows", type=int, nargs=2, default=ROWS, metavar=("LO", "HI"), help="N's range")
    parser.add_argument("--cols", type=int, nargs=2, default=COLS, metavar=("LO", "HI"), help="C's range")
    parser.add_argument("--max-bytes", type=int, default=MAX_TENSOR_BYTES, help="a full-size input's bytes at most")
    parser.add_argument("--families", nargs="+", default=FAMILIES, choices=FAMILIES)
    parser.add_argument("--only", nargs="+", default=[], metavar="SEED:INDEX",
                        help="these sites of earlier seeds instead of a fresh draw (picked_sites)")
    parser.add_argument("--out", type=pathlib.Path, default=HERE / "results")
    args = parser.parse_args(argv)
    VARIANTS.update(launch_variants(args.launch))
    if unknown := set(args.variants) - set(VARIANTS):
        parser.error(f"unknown variants {sorted(unknown)}: not of {sorted(VARIANTS)} or --launch")
    seed = secrets.randbelow(2**31) if args.seed is None else args.seed
    drawn = (tuple(args.rows), tuple(args.cols), args.max_bytes, tuple(args.families))
    ranges = "" if drawn == (ROWS, COLS, MAX_TENSOR_BYTES, FAMILIES) else (
        f"-n{args.rows[0]}-{args.rows[1]}-c{args.cols[0]}-{args.cols[1]}-b{args.max_bytes}")
    if args.only:  # the file is named after the picks' checksum; each row keeps its own seed
        sites, label = picked_sites(args.only), f"picked-{zlib.crc32(' '.join(args.only).encode()):08x}"
    else:
        sites, label = draw_sites(seed, args.sites, *drawn), f"{seed}{ranges}"
    print(f"sites {label}: {len(sites)}" + ("" if HAS_GPU else " (no GPU: codegen on a fake H200, no times)"))
    meta = provenance(f"random-{label}") | dict(seed=seed)
    gpu = ("h200" if "H200" in meta["gpu"] else meta["gpu"].replace(" ", "-").lower()) if HAS_GPU else "cpu-codegen"
    stem = args.out / f"{datetime.date.today().isoformat()}-{gpu}-random-{label}"
    args.out.mkdir(parents=True, exist_ok=True)
    rows = []
    for site in tqdm(sites, unit="site"):
        try:
            rows.append(meta | (measure(site, args.variants) if HAS_GPU else codegen(site, args.variants)))
        except Exception as e:  # a failing site is a result to report
            rows.append(meta | site | dict(error=f"{type(e).__name__}: {e}"[:500]))
            print(f"site {site}: {rows[-1]['error']}", file=sys.stderr)
        finally:
            if HAS_GPU:
                torch.cuda.empty_cache()
        frame = pd.DataFrame(rows)
        frame.to_csv(f"{stem}.csv", index=False)  # after every site: a run cut off keeps what it measured
    stem.with_suffix(".json").write_text(frame.to_json(orient="records", indent=1))
    shown = [c for c in ("family", "dtype", "shape", "kernels_stock", *[f"kernels_{v}" for v in args.variants],
                         "stock_us", *[f"speedup_{v}" for v in args.variants], "noise_pct") if c in frame]
    print(frame[shown].to_string(index=False, float_format=lambda v: f"{v:.3f}"))
    print(summarize(frame, args.variants))
    print(f"wrote {stem}.csv, .json")


if __name__ == "__main__":
    sys.exit(main())
