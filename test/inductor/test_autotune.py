"""Launch candidates timed at compile time (``ReductionTransposeTritonScheduling``), on the fake H200.

The CPU has no GPU to time kernels on, so a stand-in replaces ``_torch_private.time_kernel_source`` (Inductor's
benchmarker) and ``real_gpu_present``; what is tested is everything around the timer: which candidates are generated
and timed, that one that comes out as the same kernel is timed once, and that the kernel emitted is the one chosen.
The timings of the real candidates on the H200 are in benchmarks/results/.
"""

from __future__ import annotations

import json
import logging
import math
import re
import tempfile
import unittest.mock

import pytest
import torch

from reduction_transpose_fusion import _torch_private, select_algorithm
from reduction_transpose_fusion.select_algorithm import (AUTOTUNE_CANDIDATES, AUTOTUNE_MARGIN, CANDIDATES_BY_DTYPE,
                                                        FIRST_PICK_MARGIN, MAX_AUTOTUNE_CANDIDATES, NARROW_COLS,
                                                        NARROW_TILE, STOCK_LAUNCH, TIMED_BAND, TIMED_CANDIDATES,
                                                        UNTIMED_MARGIN, candidates_to_time, describe, dtype_class,
                                                        fastest_candidate, first_pick, narrow_c_only)
from reduction_transpose_fusion_testing import families, interpret
from reduction_transpose_fusion_testing.logs import decision_log
from reduction_transpose_fusion_testing.output_code import kernel_sources
from reduction_transpose_fusion_testing.processes import run_python

ON = families.FUSE_EVERY_SITE
# bf16[8192, 4096]: the rules give one wave of looping programs, so one row tile a program (persistent) and the
# prefetched loop are other kernels
ROWS, COLS = 8192, 4096


class StandInTimer:
    """Stands in for ``time_kernel_source``: the i-th source it is given takes ``times[i]`` ms (1.0 past the end)."""

    def __init__(self, *times: float):
        self.times = times
        self.sources: list[str] = []
        self.every_config: list[bool] = []  # for each source: whether it was to be timed at each of its configs
        self.fast = lambda source: False  # or: a source it times at 0.5 ms, whatever its place

    def __call__(self, scheduling, source: str, names, every_config: bool = False) -> float:
        self.sources.append(source)
        self.every_config.append(every_config)
        i = len(self.sources) - 1
        return 0.5 if self.fast(source) else self.times[i] if i < len(self.times) else 1.0


def jit_function(source: str) -> str:
    """A kernel's ``@triton.jit`` function, its name included (what Triton's compile cache keys it by), from an output
    module's kernel or a candidate's benchmark module."""
    return re.search(r"^def \w+\(.*\n(?:(?:[ \t].*)?\n)*", source, re.M).group(0).rstrip()


def kernel_text(source: str) -> str:
    """A kernel's launch decorator and ``@triton.jit`` function with its name taken out (from an output module's
    kernel or a candidate's benchmark module, whose harness after the kernel is dropped)."""
    launch = re.search(r"^(@triton_heuristics\.\w+\(.*?)triton_meta=", source, re.M | re.S).group(1)
    return launch + "\n" + jit_function(source).split("(", 1)[1]


def compile_site(timer: StandInTimer, name: str = "F1-t", dtype=torch.bfloat16, gpu: bool = True,
                 shape: tuple[int, int] = (ROWS, COLS), **options) -> str:
    case = families.CASES[name]
    inputs = interpret.fake_inputs(*case.specs(*shape, dtype))
    with unittest.mock.patch.object(_torch_private, "time_kernel_source", timer), \
         unittest.mock.patch.object(_torch_private, "real_gpu_present", lambda: gpu):
        return interpret.generate(case.fn, inputs, **{**ON, **options})


def fused_kernel(module: str) -> str:
    """The one reduction kernel of ``module`` (F1's sum and transposed copy), as :func:`kernel_text`."""
    (source,) = [s for s in kernel_sources(module).values() if "tl.sum(" in s]
    return kernel_text(source)


def test_the_fastest_candidate_is_the_kernel_emitted():
    timer = StandInTimer(1.0, 0.5)  # the rules' launch, then the first other candidate: twice as fast
    module = compile_site(timer)
    timed = [kernel_text(s) for s in timer.sources]
    assert len(timed) >= 3, "one tile a program and the prefetched loop are other kernels than one wave"
    assert len(set(timed)) == len(timed), "a candidate that comes out as the same kernel is timed once"
    assert fused_kernel(module) == timed[1] != timed[0]


def test_a_kernel_alike_in_the_same_graph_takes_the_choice_timed_for_the_first():
    """Two sites alike in one graph (a model's repeated layers): the candidates are timed once, for the first, and the
    second takes its choice (Inductor then defines the one kernel for both); a site of another shape is timed."""
    case = families.CASES["F1-t"]

    def twice_and_another(a, b, c):
        return (*case.fn(a), *case.fn(b), *case.fn(c))

    inputs = interpret.fake_inputs(*case.specs(ROWS, COLS, torch.bfloat16), *case.specs(ROWS, COLS, torch.bfloat16),
                                   *case.specs(ROWS // 2, COLS, torch.bfloat16))
    alone = StandInTimer(1.0, 0.5)
    compile_site(alone)
    timer = StandInTimer(1.0, 0.5)  # the first site's rules' launch, then its first other candidate: twice as fast
    with unittest.mock.patch.object(_torch_private, "time_kernel_source", timer), \
         unittest.mock.patch.object(_torch_private, "real_gpu_present", lambda: True), decision_log() as log:
        module = interpret.generate(twice_and_another, inputs, **ON)
    half = StandInTimer(1.0, 0.5)
    compile_site(half, shape=(ROWS // 2, COLS))
    assert len(timer.sources) == len(alone.sources) + len(half.sources)
    assert [kernel_text(s) for s in timer.sources[:len(alone.sources)]] == [kernel_text(s) for s in alone.sources]
    other = timer.sources[len(alone.sources):]  # the other shape's, once
    assert all(f"rand_strided(({ROWS // 2}, {COLS})" in s and f"({ROWS}, {COLS})" not in s for s in other)
    assert sum("as timed for the same kernel earlier in this graph; emitted TILES_PER_PROGRAM=1" in m
               for m in log) == 1, log
    calls = re.findall(r"^\s*(triton_\w+)\.run\(", module, re.M)
    assert len(calls) == 3 and len(set(calls)) == 2, calls  # the two sites alike launch one kernel


def test_the_graph_memo_is_refused_outside_a_lowering():
    """After a compile (whose lowering leaves Inductor's NullHandler in ``V.graph``) no memo is handed out: one there
    would be shared by whatever ran next in the thread."""
    compile_site(StandInTimer())
    with pytest.raises(RuntimeError, match="graph being lowered"):
        _torch_private.graph_memo("launch choices")


def test_the_timed_candidates_are_compiled_together_before_the_first_is_timed():
    """The candidates to time go to ``_torch_private.compile_kernel_sources`` together, before the first is timed."""
    events = []
    timer = StandInTimer(1.0, 0.5)
    with unittest.mock.patch.object(_torch_private, "compile_kernel_sources",
                                    lambda sources: events.append(("compile", list(sources)))):
        compile_site(unittest.mock.Mock(side_effect=lambda *a, **k: events.append(("time", a[1])) or timer(*a, **k)))
    (kind, compiled), *timed = events
    assert kind == "compile" and [kind for kind, _ in timed] == ["time"] * len(compiled)
    assert len(compiled) >= 2 and compiled == [source for _, source in timed]


def test_a_reduction_without_its_copy_times_every_candidate():
    """Where Inductor kept the reductions apart from their copies (``choices.holds_copy`` False), outside the data the
    ranking was fit to, every candidate is timed, also where the model is sure; a kernel with its copy is not."""
    from reduction_transpose_fusion import choices

    def timed_flags(**patch):
        with decision_log() as log, unittest.mock.patch.object(choices, "holds_copy", **patch):
            compile_site(StandInTimer())
        (line,) = [m for m in log if "launch candidates timed at compile" in m]
        return [timed for _, timed, _ in _timed_line(log)], line

    # the model sure of the baseline wherever a margin applies: none timed, but on the every-candidate path
    with unittest.mock.patch("reduction_transpose_fusion.codegen.triton.candidates_to_time",
                             side_effect=lambda predicted, base, count, margin: (
                                 list(range(len(predicted))) if margin == math.inf else [])):
        alone, alone_line = timed_flags(new=lambda features, sites: False)
        with_copy, copy_line = timed_flags(wraps=choices.holds_copy)
    assert all(alone) and "every candidate timed" in alone_line
    assert not any(with_copy) and "every candidate timed" not in copy_line


def compiled_in_fresh_process(body: str, data, **env: str):
    """What ``body`` prints as JSON on its last line, run in a fresh process whose Triton compiles (sm_90a; this
    one's interprets kernels instead) under the fake H200, with ``config`` (Inductor's), ``PyCodeCache``,
    ``_torch_private``, ``os`` and the JSON ``data`` in scope; ``env``: environment variables set for it."""
    script = (
        "import json, os, sys\n"
        "from reduction_transpose_fusion_testing import fake_cuda\n"
        "fake_cuda.install()\n"
        "from torch._inductor import config\n"
        "from torch._inductor.codecache import PyCodeCache\n"
        "from reduction_transpose_fusion import _torch_private\n"
        "config.use_static_cuda_launcher = False\n"
        "data = json.load(sys.stdin)\n" + body)
    proc = run_python(script, stdin=json.dumps(data), **env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_compile_kernel_sources_compiles_each_kernel():
    """``compile_kernel_sources`` leaves each candidate's kernel compiled (sm_90a, in threads), so that its timing
    only loads it."""
    timer = StandInTimer(1.0, 0.5)
    compile_site(timer)
    counts = compiled_in_fresh_process(
        "_torch_private.compile_kernel_sources(data)\n"
        "print(json.dumps([len(PyCodeCache.load(s).triton_.compile_results) for s in data]))\n", timer.sources)
    assert len(counts) == len(timer.sources) >= 2 and all(n >= 1 for n in counts)


def test_the_timed_candidates_carry_the_emitted_kernels_name():
    """Each timed candidate's kernel is named as the kernel the graph emits, so the function the graph compiles is the
    winner's, name included, and the benchmark module still binds ``triton_`` for its ``call``."""
    timer = StandInTimer(1.0, 0.5)
    module = compile_site(timer)
    (name, emitted), = [(n, s) for n, s in kernel_sources(module).items() if "tl.sum(" in s]
    assert jit_function(emitted) == jit_function(timer.sources[1]) and jit_function(emitted).startswith(f"def {name}(")
    assert all(jit_function(s).startswith(f"def {name}(") and s.rstrip().endswith(f"triton_ = {name}")
               for s in timer.sources)


def ptxas_versions_differ() -> bool:
    """Whether torch ships a ptxas (the compile workers') whose version differs from Triton's bundled one."""
    import pathlib
    import subprocess

    import triton

    ours = pathlib.Path(torch.__file__).parent / "bin" / "ptxas"
    bundled = pathlib.Path(triton.__file__).parent / "backends" / "nvidia" / "bin" / "ptxas"
    versions = [subprocess.run([str(p), "--version"], capture_output=True, text=True).stdout
                for p in (ours, bundled) if p.exists()]
    return len(versions) == 2 and versions[0] != versions[1]


# what the compiling process did before the candidates compiled: Inductor's codegen read Triton's backend hash (the
# ptxas version in it), and it may have compiled a kernel itself, which sets the workers' ptxas without forgetting
BEFORE_THE_CANDIDATES = {
    "hash read": "import torch.utils._triton\ntorch.utils._triton.triton_hash_with_backend()\n",
    "hash read, then Inductor's own ptxas set": (
        "import torch.utils._triton\ntorch.utils._triton.triton_hash_with_backend()\n"
        "from torch._inductor.runtime.compile_tasks import _set_triton_ptxas_path\n_set_triton_ptxas_path()\n"),
}


@pytest.mark.skipif(not ptxas_versions_differ(), reason="one ptxas version here: the cache keys cannot differ by it")
@pytest.mark.parametrize("before", BEFORE_THE_CANDIDATES.values(), ids=BEFORE_THE_CANDIDATES.keys())
def test_the_emitted_kernels_compile_reads_the_timed_candidates_binary(before):
    """After ``compile_kernel_sources`` compiled the timed candidates in this process (threads: a fresh Triton
    cache), the emitted kernel's compile as a compile worker runs it, in another process, adds nothing to Triton's
    cache: a hit, so both keyed by the same ptxas (the workers set torch's own, whose version Triton's cache key
    holds), whatever the process had done before."""
    timer = StandInTimer(1.0, 0.5)
    module = compile_site(timer)
    # the kernel's source as the output module hands it to the compile workers, its first line included
    (name, emitted), = [m.groups() for m in re.finditer(r"async_compile\.triton\('(\w+)', '''(.*?)'''", module, re.S)
                        if "tl.sum(" in m.group(2)]
    worker = ("import functools\n"
              "from torch._inductor.codecache import _load_triton_kernel_from_source\n"
              "from torch._inductor.runtime.compile_tasks import _worker_compile_triton\n"
              "name, emitted = data\n"
              "before = len(os.listdir(os.environ['TRITON_CACHE_DIR']))\n"
              "_worker_compile_triton(functools.partial(_load_triton_kernel_from_source, name, emitted), {}, {})\n"
              "print(json.dumps([before, len(os.listdir(os.environ['TRITON_CACHE_DIR']))]))\n")
    with tempfile.TemporaryDirectory() as cache, tempfile.TemporaryDirectory() as modules:
        env = dict(TRITON_CACHE_DIR=cache, TORCHINDUCTOR_CACHE_DIR=modules, TORCHINDUCTOR_COMPILE_THREADS="1")
        # each process starts as a user's, no ptxas chosen (run_python's child_environ)
        compiled_in_fresh_process(before + "_torch_private.compile_kernel_sources(data)\nprint('[]')\n", timer.sources,
                                  **env)
        entries_before, entries_after = compiled_in_fresh_process(worker, [name, emitted], **env)
    assert entries_before > 0 and entries_after == entries_before


def test_a_candidate_within_the_margin_leaves_the_rules_launch():
    near = 1.0 * (1 - AUTOTUNE_MARGIN / 2)
    timer = StandInTimer(1.0, near, near, near)
    module = compile_site(timer)
    assert fused_kernel(module) == kernel_text(timer.sources[0])


def test_the_choice_is_logged_once_and_the_decision_once():
    with decision_log() as log:
        compile_site(StandInTimer(1.0, 0.5))
    timed = [m for m in log if "launch candidates timed at compile" in m]
    assert len(timed) == 1 and ("TILES_PER_PROGRAM=1", True) in [(n, t) for n, t, _ in _timed_line(log)], log
    assert len([m for m in log if m.startswith("fused ")]) == 1, "candidates' own decisions are not logged"


def test_max_autotune_times_more_candidates():
    default, wide = StandInTimer(), StandInTimer()
    compile_site(default)
    compile_site(wide, max_autotune=True)
    assert len(wide.sources) > len(default.sources)


@pytest.mark.parametrize("dtype, one_wave", [(torch.bfloat16, True), (torch.float32, False)])
def test_the_candidates_are_the_dtype_class_table(dtype, one_wave):
    """A bf16 kernel's candidates hold one wave; an f32 kernel's, whose table leaves it out, do not
    (``CANDIDATES_BY_DTYPE``)."""
    with decision_log() as log:
        compile_site(StandInTimer(), dtype=dtype)
    listed = [name for name, _, _ in _timed_line(log)]
    expected = narrow_c_only(CANDIDATES_BY_DTYPE[dtype_class(dtype.itemsize, dtype.itemsize)], COLS)
    assert listed == [describe(c) for c in expected]
    assert ("TILES_PER_PROGRAM=0" in listed) is one_wave


@pytest.mark.parametrize("cols, narrow", [(NARROW_COLS, True), (NARROW_COLS + 1, False)])
@pytest.mark.parametrize("path", ["class table", "reductions alone", "max_autotune"])
def test_the_narrow_tile_is_a_candidate_only_for_a_narrow_c(cols, narrow, path):
    """The 32-column tile of one row tile a program is a candidate where C is at most NARROW_COLS and not one column
    more, from the class table and from every class's (a reduction without its copy); max_autotune keeps it at any
    C."""
    from reduction_transpose_fusion import choices

    alone = unittest.mock.patch.object(choices, "holds_copy", new=lambda features, sites: path != "reductions alone")
    options = {"max_autotune": True} if path == "max_autotune" else {}
    with decision_log() as log, alone:
        compile_site(StandInTimer(), shape=(4096, cols), reduction_transpose_fusion_timed_candidates=-1, **options)
    listed = [name for name, _, _ in _timed_line(log)]
    assert (describe(NARROW_TILE) in listed) is (narrow or path == "max_autotune"), listed


def test_dtype_classes():
    assert [dtype_class(n, w) for n, w in ((1, 4), (1, 2), (2, 2), (2, 4), (4, 4))] == [
        "1-byte", "1-byte", "16-bit", "f32 to 16-bit", "f32"]
    for table in CANDIDATES_BY_DTYPE.values():  # each: the rules' first, stock's (a baseline) in it, in the union's order
        assert table[0] == {} and STOCK_LAUNCH in table
        assert [c for c in AUTOTUNE_CANDIDATES if c in table] == list(table)
    assert all(any(c in t for t in CANDIDATES_BY_DTYPE.values()) for c in AUTOTUNE_CANDIDATES)


def _timed_line(log: list[str], marker: str = "launch candidates timed at compile"
                ) -> list[tuple[str, bool, float | None]]:
    """(candidate, whether timed, the model's µs) for each candidate of the log's one line holding ``marker`` (the
    timed candidates' line; "launch candidates ranked, none timed" for autotune off's)."""
    (line,) = [m for m in log if marker in m]
    listed = line.split(marker)[1].split(": ", 1)[1].split("; emitted")[0].split("; ")
    out = []
    for item in listed:
        m = re.match(r"^(.+?) (?:[\d.]+ us|not timed)(?: \(model ([\d.]+|inf)\))?$", item)
        assert m, item
        out.append((m.group(1), "not timed" not in item, float(m.group(2)) if m.group(2) else None))
    return out


def test_the_baseline_and_the_models_first_candidates_are_timed():
    """bf16[8192, 4096]: the rules' own launch (the baseline) and the TIMED_CANDIDATES the cost model prices fastest
    are timed, the others not; each candidate's predicted µs is logged."""
    timer = StandInTimer()
    with decision_log() as log:
        compile_site(timer)
    listed = _timed_line(log)
    assert all(us is not None for _, _, us in listed), "every default candidate is priced"
    assert listed[0][0] == "rules" and listed[0][1], "the baseline is timed"
    timed_others = [us for name, timed, us in listed[1:] if timed]
    untimed = [us for _, timed, us in listed if not timed]
    assert untimed, "some candidate is left untimed"
    assert max(timed_others) <= min(untimed), "the untimed candidates are priced slower than the timed ones"
    assert len(timer.sources) <= 1 + TIMED_CANDIDATES


def test_nothing_is_timed_where_the_model_prices_the_baseline_fastest_by_the_margin():
    """bf16[1024, 256]: the cost model's pick (the column tile) is priced at least UNTIMED_MARGIN below every other
    candidate, so none is timed and it is emitted; under max_autotune all are timed."""
    timer = StandInTimer()
    with decision_log() as log:
        module = compile_site(timer, shape=(1024, 256))
    listed = _timed_line(log)
    assert timer.sources == [] and not any(timed for _, timed, _ in listed)
    base = listed[0][2]
    assert all(us >= (1 + UNTIMED_MARGIN) * base for name, _, us in listed[1:] if us != base), listed
    assert "none timed" in next(m for m in log if "timed at compile" in m)
    assert fused_kernel(module) == fused_kernel(compile_site(StandInTimer(), shape=(1024, 256),
                                                             reduction_transpose_fusion_autotune=False))
    wide = StandInTimer()
    compile_site(wide, shape=(1024, 256), max_autotune=True)
    assert len(wide.sources) >= 4


def test_max_autotune_times_every_candidate():
    with decision_log() as log:
        compile_site(StandInTimer(), max_autotune=True)
    assert all(timed for _, timed, _ in _timed_line(log))


@pytest.mark.parametrize("shape", [(ROWS, COLS), (1024, 256)], ids=["ranked", "sure-of-the-baseline"])
def test_timed_candidates_minus_one_times_every_default_candidate(shape):
    """-1 times every candidate of the class, also where the model is sure of the baseline, as max_autotune does,
    but over the default candidates only (max_autotune's wider space is not generated)."""
    with decision_log() as log:
        compile_site(StandInTimer(), shape=shape, reduction_transpose_fusion_timed_candidates=-1)
    listed = _timed_line(log)
    assert all(timed for _, timed, _ in listed), listed
    assert {name for name, _, _ in listed} <= {describe(c) for c in AUTOTUNE_CANDIDATES}


def test_timed_candidates_sets_how_many_of_the_models_first_are_timed():
    """bf16[8192, 4096]: with 0 the baseline's source alone is timed, with 1 the baseline's, the model's first and
    every candidate priced within TIMED_BAND of it (candidates that come out the baseline's source are timed with
    it)."""
    for count in (0, 1):
        timer = StandInTimer()
        with decision_log() as log:
            compile_site(timer, reduction_transpose_fusion_timed_candidates=count)
        listed = _timed_line(log)
        first = min((us, name) for name, _, us in listed[1:])
        assert first[0] < listed[0][2], "the case has a candidate the model prices below the baseline"
        timed = dict((name, timed) for name, timed, _ in listed)
        assert timed[first[1]] == bool(count), listed
        if count == 0:
            assert len(timer.sources) == 1, listed
        else:
            in_band = [name for name, _, us in listed if us <= TIMED_BAND * first[0]]
            assert all(timed[name] for name in in_band), listed
            assert len(timer.sources) >= 2, listed


def test_a_candidate_the_model_cannot_price_is_timed(caplog):
    from reduction_transpose_fusion import choices

    def no_price(*args, **kwargs):
        raise RuntimeError("no price (stand-in)")

    default, unpriced = StandInTimer(), StandInTimer()
    compile_site(default)
    with unittest.mock.patch.object(choices, "_predicted_us", no_price), \
         caplog.at_level(logging.DEBUG, logger="reduction_transpose_fusion.codegen.triton"):
        compile_site(unpriced)
    assert len(unpriced.sources) > len(default.sources)
    assert len(unpriced.sources) == len(set(map(kernel_text, unpriced.sources))) >= 4
    assert "not priced (no price (stand-in)): timed" in caplog.text


def test_the_column_tile_is_priced_where_stock_emits_the_kernel_unsplit():
    """A wide C: the cost model does not offer the column tile there, but the candidate is one, priced by the
    tile's formula (not ranked last as if it could not run)."""
    with decision_log() as log:
        compile_site(StandInTimer(), shape=WIDE)
    (tile,) = [us for name, _, us in _timed_line(log) if name == "COLUMN_TILE=1"]
    assert tile is not None and tile < math.inf


def test_candidates_to_time():
    # the baseline priced fastest by the margin, every other priced: none timed
    assert candidates_to_time([5.0, 6.0, 9.0], baseline=0, count=2, sure=0.2) == []
    assert candidates_to_time([5.0, 5.9, 9.0], baseline=0, count=2, sure=0.2) == [0, 1]  # within the margin
    assert candidates_to_time([5.0, None, 9.0], baseline=0, count=1, sure=0.2) == [0, 1]  # one not priced: timed
    assert candidates_to_time([5.0, 9.0], baseline=None, count=1, sure=0.2) == [0]  # no baseline among them
    assert candidates_to_time([5.0, 6.0], baseline=0, count=2, sure=math.inf) == [0, 1]  # max_autotune
    assert candidates_to_time([5.0, 3.0, 4.0, 9.0], baseline=0, count=2) == [0, 1, 2]
    assert candidates_to_time([5.0, 3.0, 4.0, 9.0], baseline=3, count=1, band=0.0) == [1, 3]
    assert candidates_to_time([5.0, None, 4.0, 9.0], baseline=None, count=1, band=0.0) == [1, 2]  # no price: timed
    assert candidates_to_time([2.0, 2.0, 2.0], baseline=2, count=1, band=0.0) == [0, 2]  # a tie: the earlier
    assert candidates_to_time([1.0, 1.1], baseline=0, count=5) == [0, 1]
    assert candidates_to_time([], baseline=None) == []
    # every candidate priced within the band of the fastest price is timed too, beyond the count (band 0: none)
    assert candidates_to_time([9.0, 4.0, 5.5, 5.7, 8.0], baseline=0, count=1, band=1.4) == [0, 1, 2]
    assert candidates_to_time([9.0, 4.0, 5.5, 5.7, 8.0], baseline=0, count=1, band=1.5) == [0, 1, 2, 3]
    assert candidates_to_time([9.0, 4.0, 5.5, 5.7, 8.0], baseline=0, count=1, band=1.0) == [0, 1]
    assert candidates_to_time([9.0, 4.0, 5.5, 5.7, 8.0], baseline=0, count=0, band=1.4) == [0]  # the baseline alone


def test_first_pick():
    assert first_pick([5.0, 4.0, 4.5], baseline=0, margin=0.1) == 1  # 20% faster than the rules' launch
    assert first_pick([5.0, 4.7, 4.6], baseline=0, margin=0.1) == 0  # the fastest only 8% faster
    assert first_pick([5.0, 4.7, 4.4], baseline=0, margin=0.1) == 2  # 12%: beyond the margin
    assert first_pick([5.0, 4.7, 4.6], baseline=0, margin=0.0) == 2
    assert first_pick([5.0, 4.7, 4.6], baseline=None, margin=0.5) == 2  # no rules' launch among them
    assert first_pick([None, 4.7, 4.6], baseline=0, margin=0.5) == 2  # the rules' launch not priced
    assert first_pick([5.0, None, 6.0], baseline=2, margin=0.1) == 0  # unpriced ones left out
    assert first_pick([4.0, 4.0], baseline=None, margin=0.0) == 0  # a tie: the earlier
    assert first_pick([None, None], baseline=0) is None
    # the default margin, FIRST_PICK_MARGIN
    assert first_pick([1.0, 1.0 - FIRST_PICK_MARGIN / 2], baseline=0) == 0
    assert first_pick([1.0, 1.0 - 2 * FIRST_PICK_MARGIN], baseline=0) == 1


@pytest.mark.parametrize("gpu", [True, False], ids=["gpu", "no-gpu"])
def test_autotune_off_emits_the_models_first_pick_untimed(gpu):
    """bf16[8192, 4096] with autotune off: every default candidate is generated and priced, none is timed (with or
    without a GPU), and the kernel emitted is the one the cost model prices fastest, one row tile a program here,
    not the rules' own launch (one wave of looping programs)."""
    timer = StandInTimer()
    with decision_log() as log:
        module = compile_site(timer, gpu=gpu, reduction_transpose_fusion_autotune=False)
    assert timer.sources == []
    listed = _timed_line(log, "launch candidates ranked, none timed")
    assert not any(timed for _, timed, _ in listed)
    prices = {name: us for name, _, us in listed}
    first = min(prices, key=prices.get)  # dicts keep the log's order: a tie goes to the earlier
    (line,) = [m for m in log if "launch candidates ranked, none timed" in m]
    assert f"emitted {first} (the cost model's first pick)" in line, line
    # priced beyond the margin that keeps the rules' launch
    assert first == "TILES_PER_PROGRAM=1" and prices[first] <= (1 - FIRST_PICK_MARGIN) * prices["rules"], line
    forced = compile_site(StandInTimer(), reduction_transpose_fusion_launch_config=first)
    assert fused_kernel(module) == fused_kernel(forced)
    assert fused_kernel(module) != fused_kernel(compile_site(StandInTimer(), gpu=False))  # the rules' launch


def test_autotune_off_keeps_the_rules_launch_within_the_margin():
    """The same site as above with a margin wider than the first pick's lead: the rules' launch is emitted."""
    with unittest.mock.patch.object(select_algorithm, "FIRST_PICK_MARGIN", 0.9), decision_log() as log:
        module = compile_site(StandInTimer(), reduction_transpose_fusion_autotune=False)
    (line,) = [m for m in log if "launch candidates ranked, none timed" in m]
    assert "emitted rules (the cost model's first pick: TILES_PER_PROGRAM=1 priced less than 90.0% below it)" in line, \
        line
    assert fused_kernel(module) == fused_kernel(compile_site(StandInTimer(), gpu=False))  # the rules' launch


@pytest.mark.parametrize("why", ["off", "override", "no_gpu", "dynamic", "deterministic"])
def test_no_candidates_timed(why):
    timer = StandInTimer()
    options = {"off": dict(reduction_transpose_fusion_autotune=False),
               "override": dict(reduction_transpose_fusion_launch_config="num_warps=4"),
               "deterministic": dict(deterministic=True)}.get(why, {})
    if why == "dynamic":  # N symbolic
        case = families.CASES["F1-t"]
        inputs = interpret.fake_inputs(*case.specs(ROWS, COLS, torch.bfloat16), dynamic=(0,))
        with unittest.mock.patch.object(_torch_private, "time_kernel_source", timer), \
             unittest.mock.patch.object(_torch_private, "real_gpu_present", lambda: True):
            module = interpret.generate(case.fn, inputs, **ON)
    else:
        module = compile_site(timer, gpu=why != "no_gpu", **options)
    assert timer.sources == []
    assert fused_kernel(module)  # still fused: with the rules' launch, or (off) the model's first pick


def test_no_candidates_timed_under_deterministic_algorithms():
    """The candidates' split launches finish by an atomic ticket: with no atomics allowed the site takes the column
    tile, untimed."""
    timer = StandInTimer()
    torch.use_deterministic_algorithms(True)
    try:
        module = compile_site(timer, shape=(1024, 256))
    finally:
        torch.use_deterministic_algorithms(False)
    assert timer.sources == []
    kernel = fused_kernel(module)
    assert "tl.atomic" not in kernel and "for r0_offset" not in kernel  # all 1024 rows in one program: the tile
    assert "R0_BLOCK: tl.constexpr = 1024" in kernel and "config={'XBLOCK': 16" in kernel


def test_fastest_candidate():
    rules, one_tile, prefetch = {}, {"TILES_PER_PROGRAM": 1}, {"PREFETCH": 1}
    assert fastest_candidate([(rules, 1.0), (one_tile, 0.5), (prefetch, 0.6)]) == one_tile
    assert fastest_candidate([(rules, 1.0), (one_tile, 1 - AUTOTUNE_MARGIN / 2)]) == rules
    assert fastest_candidate([(rules, math.inf), (one_tile, 2.0)]) == one_tile  # the rules' launch failed
    assert fastest_candidate([(one_tile, 2.0)]) == one_tile  # the rules' launch was not generated
    assert fastest_candidate([(rules, math.inf), (one_tile, math.inf)]) == rules
    assert fastest_candidate([]) == rules
    assert fastest_candidate([(rules, 1.0), (one_tile, 0.5), (prefetch, 0.5)]) == one_tile  # a tie: the earlier
    # against stock's own launch (a site stock emits unsplit): the rules' launch too must beat it by the margin
    assert fastest_candidate([(rules, 1 - AUTOTUNE_MARGIN / 2), (STOCK_LAUNCH, 1.0)], STOCK_LAUNCH) == STOCK_LAUNCH
    assert fastest_candidate([(rules, 0.5), (STOCK_LAUNCH, 1.0)], STOCK_LAUNCH) == rules
    assert fastest_candidate([(rules, 1.0), (one_tile, 2.0)], STOCK_LAUNCH) == rules  # stock's was not timed
    assert fastest_candidate([(rules, math.inf), (STOCK_LAUNCH, math.inf)], STOCK_LAUNCH) == STOCK_LAUNCH


# C = 16384 >= 2 * 32 * 132: stock's reduction is not split, its one kernel holds the transposed copy
WIDE = (1024, 16384)


@pytest.mark.parametrize("shape,stock_wins", [(WIDE, True), ((ROWS, COLS), False)], ids=["wide", "split"])
def test_a_tie_goes_to_stock_where_stock_emits_the_kernel_unsplit(shape, stock_wins):
    """Every candidate timed alike (within the margin): where stock emits the site's kernel unsplit, its own launch
    is the baseline and is emitted; where stock splits the reduction, the rules' launch is."""
    timer = StandInTimer()  # every candidate 1.0 ms
    with decision_log() as log:
        module = compile_site(timer, shape=shape)
    kernel = fused_kernel(module)
    assert ("fixed_config" not in kernel) is stock_wins, kernel.splitlines()[0]
    assert kernel == kernel_text(timer.sources[-1 if stock_wins else 0])
    assert any(("emitted UNSPLIT=1" in m) is stock_wins for m in log if "launch candidates timed" in m), log


@pytest.mark.parametrize("shape,stock_baseline", [(WIDE, True), ((ROWS, COLS), False)], ids=["wide", "split"])
def test_stocks_own_launch_as_the_baseline_is_timed_at_each_of_its_configs(shape, stock_baseline):
    timer = StandInTimer()
    compile_site(timer, shape=shape)
    stock = ["fixed_config" not in kernel_text(s) for s in timer.sources]
    # the baseline is always timed; elsewhere Inductor's own launch is one candidate, timed if the model ranks it
    assert stock.count(True) == 1 if stock_baseline else stock.count(True) <= 1
    assert timer.every_config == [is_stock and stock_baseline for is_stock in stock]


class _Launcher:
    def __init__(self, n_spills):
        self.n_spills = n_spills


def test_each_config_narrows_the_launchers_one_config_at_a_time_and_restores_them():
    from torch._inductor.runtime.triton_heuristics import CachingAutotuner
    kernel = object.__new__(CachingAutotuner)  # no compile: the launchers are stand-ins
    launchers = [_Launcher(0), _Launcher(40), _Launcher(None)]
    # configs None: a compiled kernel's (Inductor drops them once compiled; compile_kernel_sources compiles ahead)
    kernel.configs, kernel.launchers, kernel.inductor_meta = None, list(launchers), {"spill_threshold": 16}
    seen = [kernel.launchers for _ in _torch_private._each_config(kernel)]
    assert seen == [[launchers[0]], [launchers[2]]], "one config at a time, the one that spills left out"
    assert kernel.launchers == launchers
    kernel.launchers = launchers[:1]
    assert len(list(_torch_private._each_config(kernel))) == 1 and kernel.launchers == launchers[:1]
    assert len(list(_torch_private._each_config(None))) == 1


def test_stock_launch_when_it_is_fastest():
    timer = StandInTimer()
    timer.fast = lambda source: "fixed_config" not in source  # Inductor's own launch: its reduction heuristic's
    with decision_log() as log:
        module = compile_site(timer, max_autotune=True)  # every candidate timed, whatever the model ranks
    (stock,) = [s for s in timer.sources if "fixed_config" not in s]
    assert "fixed_config" not in fused_kernel(module) and "RSPLIT" not in fused_kernel(module)
    assert fused_kernel(module) == kernel_text(stock)
    assert any("emitted UNSPLIT=1" in m for m in log), log
    fused = [m for m in log if m.startswith("fused ")]
    assert len(fused) == 1 and "Inductor's own launch" in fused[0], "the site fused, with stock's launch: one record"


def test_candidates_are_not_counted_as_kernels():
    from torch._inductor import metrics
    counts = []
    for autotune in (False, True):
        metrics.reset()
        compile_site(StandInTimer(), reduction_transpose_fusion_autotune=autotune)
        counts.append(metrics.generated_kernel_count)
    assert counts[0] == counts[1] >= 1


def test_a_failed_timing_costs_the_candidate_not_the_compile():
    class FailingTimer(StandInTimer):
        def __call__(self, scheduling, source, names, every_config=False):
            if self.sources:  # every candidate after the rules' launch: out of memory for its random inputs
                self.sources.append(source)
                raise RuntimeError("CUDA out of memory (stand-in)")
            return super().__call__(scheduling, source, names, every_config)

    timer = FailingTimer(1.0)
    with decision_log() as log:
        module = compile_site(timer)
    assert len(timer.sources) >= 3 and fused_kernel(module) == kernel_text(timer.sources[0])
    assert any("not timed: CUDA out of memory (stand-in)" in m for m in log), log


def test_a_time_of_zero_is_no_time():
    timer = StandInTimer(1.0, 0.0, -0.1)  # in-place clones subtracted from a tiny kernel's time
    assert fused_kernel(compile_site(timer)) == kernel_text(timer.sources[0])


def test_the_emitted_module_is_the_same_as_without_candidates():
    """With the rules' launch chosen, the whole output module (wrapper and workspace names included) is the one
    compiled without candidates: generating them leaves nothing behind."""
    def text(module) -> str:  # but for the compile's serial number and temporary directory
        return re.sub(r"^# (AOT ID|kernel path): .*$", "", str(module), flags=re.M)

    with_candidates = compile_site(StandInTimer())
    without = compile_site(StandInTimer(), gpu=False)  # no GPU to time on: the rules' launch, no candidate generated
    assert "workspace" in str(without) and text(with_candidates) == text(without)


def test_candidate_tables():
    from reduction_transpose_fusion.config import LAUNCH_KEYS
    assert AUTOTUNE_CANDIDATES[0] == {} and MAX_AUTOTUNE_CANDIDATES[:len(AUTOTUNE_CANDIDATES)] == AUTOTUNE_CANDIDATES
    assert STOCK_LAUNCH in AUTOTUNE_CANDIDATES
    for candidate in MAX_AUTOTUNE_CANDIDATES:  # every other key is one the expert override takes
        assert candidate == STOCK_LAUNCH or set(candidate) <= set(LAUNCH_KEYS)
