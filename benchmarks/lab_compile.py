"""Where a fused case's compile time goes (GPU only): stock against the fusion, timed and untimed.

    python -m benchmarks.lab_compile --out DIR [--cases 'llama8k/*' ...] [--variants stock fused ...]

For each corpus case (``benchmarks/cases.csv``, suite ``corpus``, the ``--cases`` patterns) compiles the case's graph
with the fusion off (``stock``), on (``fused``, the default: launch candidates timed at the first compile), on with
the candidates timed under the name ``triton_`` (``fused_unnamed``) and on with
``reduction_transpose_fusion_autotune`` off (``first_pick``: the cost model's first pick, untimed), the
``--variants`` given (all by default) in that order, each at its own row count (N, N+1, ...) so that no variant hits
another's Triton or Inductor kernel cache, and attributes the wall seconds of the compile
(:func:`benchmarks.harness.compile_fn`: Dynamo, Inductor, the first call) to the package's stages by timers wrapped
around them: the candidates' codegen (``candidate_kernel_source``), their compile ahead of the timing
(``compile_kernel_sources``), their timing (``time_kernel_source``), Inductor's own first-call autotuning of its
kernels (``CachingAutotuner.benchmark_all_configs``) and the wait for the emitted kernels' compile
(``AsyncCompile.wait``); and counts the entries each compile added to Triton's cache (a kernel compiled twice under
two keys counts twice).
Writes ``lab-compile.csv`` as it goes: one row per (case, variant, repeat); ``--repeats`` measures each case again,
the variants in reverse order every other time.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import cProfile
import dataclasses
import fnmatch
import functools
import os
import pathlib
import pstats
import time
import unittest.mock

import pandas as pd
import torch

from benchmarks import harness, run  # first: without a GPU, run installs the fake H200 before Inductor is imported
from reduction_transpose_fusion import _torch_private
from torch._inductor.async_compile import AsyncCompile  # noqa: E402  (isort: after benchmarks.run)
from torch._inductor.runtime import triton_heuristics as inductor_heuristics

VARIANTS = {"stock": harness.STOCK, "fused": harness.FUSED, "fused_unnamed": harness.FUSED,
            "first_pick": harness.FUSED | {"reduction_transpose_fusion_autotune": False}}
# what each variant patches: fused_unnamed, the timed candidates keep the name ``triton_``
# (``_torch_private.named_as_emitted`` left out), so that the emitted kernel's compile cannot reuse theirs
PATCHES = {"fused_unnamed": ("named_as_emitted", lambda source, schedule: source)}
# (owner, attribute) of each stage timed, by its column name
STAGES = {
    "codegen_candidates_s": (_torch_private, "candidate_kernel_source"),
    "compile_candidates_s": (_torch_private, "compile_kernel_sources"),
    "time_candidates_s": (_torch_private, "time_kernel_source"),
    "inductor_autotune_s": (inductor_heuristics.CachingAutotuner, "benchmark_all_configs"),
    "kernels_compile_wait_s": (AsyncCompile, "wait"),
}
DEFAULT_CASES = ["llama8k/*", "mid/*", "bert/F3-fp32", "vit-b128/F4-bf16", "gpt2/F3-fp16"]


@contextlib.contextmanager
def timed_stages():
    """Within the block, the stages of :data:`STAGES` add their wall seconds to the dict this yields (a stage called
    inside another counts in both)."""
    seconds = collections.Counter()
    saved = []
    for column, (owner, attribute) in STAGES.items():
        original = getattr(owner, attribute)

        def wrapper(*args, __original=original, __column=column, **kwargs):
            start = time.perf_counter()
            try:
                return __original(*args, **kwargs)
            finally:
                seconds[__column] += time.perf_counter() - start

        functools.update_wrapper(wrapper, original)
        setattr(owner, attribute, wrapper)
        saved.append((owner, attribute, original))
    try:
        yield seconds
    finally:
        for owner, attribute, original in saved:
            setattr(owner, attribute, original)


def measure(case: harness.Case, variants: list[str], first_row_offset: int = 0) -> list[dict]:
    """One row per variant of ``variants`` (names in :data:`VARIANTS`), in that order, each at N +
    ``first_row_offset`` + its place: compile seconds, kernels, each stage's seconds, and the entries the compile added
    to Triton's cache directory (``triton_cache_entries``; where a kernel compiled twice under two keys, it counts
    twice)."""
    rows = []
    for offset, name in enumerate(variants, first_row_offset):
        options = VARIANTS[name]
        shape = dataclasses.replace(case, rows=case.rows + offset)
        inputs = shape.family_case.inputs(shape.rows, shape.cols, shape.torch_dtype, device="cuda", seed=0)
        patch = (unittest.mock.patch.object(_torch_private, *PATCHES[name]) if name in PATCHES
                 else contextlib.nullcontext())
        before = _triton_cache_entries()
        with timed_stages() as stages, patch:
            _, kernels, seconds, _ = harness.compile_fn(shape.family_case.fn, inputs, options | harness.FRESH)
        rows.append(dict(case=case.name, variant=name, rows=shape.rows, cols=shape.cols, kernels=kernels,
                         compile_s=seconds) | {c: stages[c] for c in STAGES}
                    | dict(triton_cache_entries=_triton_cache_entries() - before))
        print(" ".join(f"{k}={v:.3f}" if isinstance(v, float) else f"{k}={v}" for k, v in rows[-1].items()),
              flush=True)
        del inputs
        torch.cuda.empty_cache()
    return rows


def profile_one(case: harness.Case, row_offset: int, lines: int) -> None:
    """Print the ``lines`` functions of most cumulative time in one fused compile of ``case`` at N + ``row_offset``
    (cProfile: this thread only; the compile workers' time shows as the wait for them)."""
    shape = dataclasses.replace(case, rows=case.rows + row_offset)
    inputs = shape.family_case.inputs(shape.rows, shape.cols, shape.torch_dtype, device="cuda", seed=0)
    with cProfile.Profile() as profiler:
        harness.compile_fn(shape.family_case.fn, inputs, harness.FUSED | harness.FRESH)
    pstats.Stats(profiler).sort_stats("cumulative").print_stats(lines)


def _triton_cache_entries() -> int:
    """Entries in Triton's cache directory (Inductor's, ``TRITON_CACHE_DIR``, set at its first compile); 0 before."""
    directory = os.environ.get("TRITON_CACHE_DIR")
    return len(os.listdir(directory)) if directory and os.path.isdir(directory) else 0


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=pathlib.Path, required=True)
    parser.add_argument("--cases", nargs="*", default=DEFAULT_CASES)
    parser.add_argument("--variants", nargs="*", default=list(VARIANTS), choices=list(VARIANTS))
    parser.add_argument("--profile", type=int, default=0, metavar="LINES",
                        help="then profile one more compile of the first case (cProfile, this thread), fused, and "
                             "print this many lines of it by cumulative time")
    parser.add_argument("--repeats", type=int, default=1,
                        help="measure each case this many times, the variants in reverse order every other time")
    args = parser.parse_args(argv)
    if not run.HAS_GPU:
        raise SystemExit("lab_compile needs a GPU: the compile it times includes the candidates' timing")
    cases = [c for c in run.load_cases("corpus", []) if any(fnmatch.fnmatch(c.name, p) for p in args.cases)]
    per_case = len(args.variants) * args.repeats
    # a first compile warms the process (Inductor's compile workers, Triton's driver): not counted, and at row counts
    # that no measured compile takes (it would warm that case's caches)
    measure(cases[0], args.variants, per_case)
    args.out.mkdir(parents=True, exist_ok=True)
    rows = []
    for case in cases:
        for repeat in range(args.repeats):
            order = args.variants if repeat % 2 == 0 else args.variants[::-1]
            rows += [r | dict(repeat=repeat) for r in measure(case, order, repeat * len(args.variants))]
        pd.DataFrame(rows).to_csv(args.out / "lab-compile.csv", index=False)  # kept as it goes: a run cut short
    if args.profile:
        profile_one(cases[0], 2 * per_case, args.profile)
    frame = pd.DataFrame(rows)
    pd.set_option("display.width", 200)
    totals = frame.groupby("variant")[["compile_s", *STAGES, "triton_cache_entries"]].sum()
    print(totals.to_string(float_format=lambda v: f"{v:.2f}"))
    if "stock" in totals.index:
        print("compile time against stock's:",
              (totals["compile_s"] / totals.loc["stock", "compile_s"]).round(3).to_dict())


if __name__ == "__main__":
    main()
