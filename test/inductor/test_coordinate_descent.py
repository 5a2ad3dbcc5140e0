"""scheduler.tuned_by_coordinate_descent: Inductor's own reduction kernels that store a tensor transposed, and only
those, are compiled with Inductor's coordinate descent on (their ``inductor_meta``), while the fusion is on.

The workloads: a row amax beside a transposed fp8 copy of the same tensor (torchao's rowwise cast, whose transposed
copy Inductor fuses into the row reduction's kernel), and torchao's rowwise transposed cast (F5-rowwise: a column
amax read by the transposed copy, one two-loop kernel of Inductor's), against a marked site (its own launch, timed by
the package), a row reduction that stores nothing transposed, and a transposed copy beside no reduction.
"""

from __future__ import annotations

import re
import threading

import pytest
import torch
import torch._inductor.config as inductor_config

from reduction_transpose_fusion import _torch_private, scheduler
from reduction_transpose_fusion_testing import families, interpret
from reduction_transpose_fusion_testing.edge_cases import row_amax_and_transposed_cast

FP8 = torch.float8_e4m3fn
ON = {"reduction_transpose_fusion": True}
TUNED = "'coordinate_descent_tuning': True"


def row_sum_and_row_major_cast(x: torch.Tensor):
    return x.float().sum(1), (x.float() * 2).to(FP8)


def transposed_cast(x: torch.Tensor):
    return (x.float() * 2).to(FP8).t().contiguous()


def flipped(x: torch.Tensor):
    y = x.flip(1).float() * 2  # loads at a stride of -1, stores contiguous: no transposed store
    return y.sum(1), y


def strided(x: torch.Tensor):
    y = x[:, ::2].float() * 2  # loads at a stride of 2
    return y.amax(1), y


def shifted_columns(x: torch.Tensor):
    idx = torch.arange(x.shape[1], device=x.device) - 1  # Inductor wraps the negative index in a Where
    y = x[:, idx].float() * 2
    return y.sum(1), y


def last_dim_sum_and_transpose_3d(x: torch.Tensor):
    return x.float().sum(-1), x.transpose(1, 2).contiguous()


def tuned_kernels(fn, specs, **options) -> dict[str, bool]:
    """{kernel name: compiled with coordinate descent} of ``fn``'s output module on the fake H200."""
    src = interpret.generate(fn, interpret.fake_inputs(*specs), **options)
    metas = re.findall(r"^\s*inductor_meta=(.*'kernel_name': '(\w+)'.*)$", src, re.M)
    assert metas, "no kernel found in the output module"
    return {name: TUNED in meta for meta, name in metas}


ROW_AMAX = (row_amax_and_transposed_cast, (((4096, 2048), torch.bfloat16), ((1, 2048), torch.float32)))


def test_a_row_reduction_that_stores_transposed_is_tuned(decisions):
    tuned = tuned_kernels(*ROW_AMAX, **ON)
    reductions = [name for name in tuned if name.startswith("triton_red")]
    assert reductions and all(tuned[name] for name in reductions), tuned
    assert not any(tuned[name] for name in tuned if name not in reductions), tuned
    assert any("tuned by coordinate descent" in line for line in decisions), decisions


@pytest.mark.parametrize("fn,specs,dynamic", [
    (row_amax_and_transposed_cast, ROW_AMAX[1], (0,)),
    (last_dim_sum_and_transpose_3d, (((8, 512, 512), torch.bfloat16),), ()),
], ids=["dynamic-rows", "3d-transpose"])
def test_a_transposed_store_is_found_in_any_loop_order_and_with_dynamic_sizes(fn, specs, dynamic):
    src = interpret.generate(fn, interpret.fake_inputs(*specs, dynamic=dynamic), **ON)
    assert src.count(TUNED) == 1, src


def test_a_two_loop_column_reduction_that_stores_transposed_is_tuned():
    """At C = 16384 Inductor does not split the column amax, and fuses the transposed cast into a second loop of
    the same kernel, which the package leaves unmarked (the cast reads the amax)."""
    tuned = tuned_kernels(families.f5_rowwise, (((2048, 16384), torch.bfloat16),), **ON)
    assert len(tuned) == 1 and all(tuned.values()), tuned


def test_a_kernel_too_small_to_time_keeps_stocks_config():
    """Tuned where its transposed stores move at least TUNED_MIN_BYTES: F1-t fp16 [205, 16429] (6.7 MB in, tuned
    1.24x over stock on the H100), not [126, 2148] (0.5 MB, a 3.7 µs kernel) nor the row amax at [256, 512]."""
    def tuned(fn, *specs):
        return any(tuned_kernels(fn, specs, **ON).values())

    assert tuned(families.f1_t, ((205, 16429), torch.float16))
    assert not tuned(families.f1_t, ((126, 2148), torch.float16))
    assert not tuned(row_amax_and_transposed_cast, ((256, 512), torch.bfloat16), ((1, 512), torch.float32))
    assert tuned(row_amax_and_transposed_cast, *ROW_AMAX[1])


@pytest.mark.parametrize("fn,specs", [
    (row_sum_and_row_major_cast, (((4096, 2048), torch.bfloat16),)),
    (transposed_cast, (((4096, 2048), torch.bfloat16),)),
    (flipped, (((1024, 512), torch.bfloat16),)),
    (strided, (((1024, 512), torch.bfloat16),)),
    (shifted_columns, (((1024, 512), torch.bfloat16),)),
], ids=["row-reduction-no-transposed-store", "transposed-copy-no-reduction", "flip", "strided-slice",
        "index-in-a-where"])
def test_kernels_that_do_not_reduce_and_store_transposed_are_not_tuned(fn, specs, monkeypatch):
    monkeypatch.setattr(scheduler, "TUNED_MIN_BYTES", 0)  # not for their size: some of these move under the bound
    tuned = tuned_kernels(fn, specs, **ON)
    assert not any(tuned.values()), tuned


def test_a_marked_site_keeps_the_packages_launch_untuned(decisions):
    tuned = tuned_kernels(families.f1_t, (((4096, 1024), torch.bfloat16),), **ON)
    assert any(line.startswith("fused ") for line in decisions), decisions
    assert not any(tuned.values()), tuned


@pytest.mark.parametrize("options", [
    {"reduction_transpose_fusion": False},
    ON | {"reduction_transpose_fusion_autotune": False},
    ON | {"deterministic": True},
], ids=["fusion-off", "autotune-off", "inductor-deterministic"])
def test_nothing_is_tuned_with_the_fusion_or_autotuning_off(options):
    assert not any(tuned_kernels(*ROW_AMAX, **options).values())


def test_inductors_own_switch_still_tunes_every_kernel():
    """The package only adds kernels; ``coordinate_descent_tuning=True`` (``mode="max-autotune"``) keeps its meaning."""
    tuned = tuned_kernels(transposed_cast, (((4096, 2048), torch.bfloat16),), **ON, coordinate_descent_tuning=True)
    assert all(tuned.values()), tuned
    assert inductor_config.coordinate_descent_tuning is False  # the patch is undone


CHECKED = f"'{_torch_private.TUNING_CHECK_KEY}': True"


def test_the_package_checks_the_walk_of_the_kernels_it_tunes_only():
    """The kernels the package tunes carry the key that has their walk's config checked
    (``_torch_private.check_tuning_of``); with Inductor's own switch, the other kernels are tuned unchecked."""
    src = interpret.generate(ROW_AMAX[0], interpret.fake_inputs(*ROW_AMAX[1]), **ON)
    assert src.count(CHECKED) == src.count(TUNED) == 1, src
    src = interpret.generate(transposed_cast, interpret.fake_inputs(((4096, 2048), torch.bfloat16)), **ON,
                             coordinate_descent_tuning=True)
    assert src.count(TUNED) >= 1 and CHECKED not in src, src


class _Config:
    def __init__(self, xblock: int):
        self.kwargs, self.num_warps = {"XBLOCK": xblock, "R0_BLOCK": 512}, 8

    def __eq__(self, other):
        return self.kwargs == other.kwargs


class _Launcher:
    def __init__(self, xblock: int):
        self.config = _Config(xblock)


class _CompileResult:
    """A precompiled config (``CachingAutotuner.compile_results``): a new launcher of the same config each time."""

    def __init__(self, launcher: _Launcher):
        self.config = launcher.config

    def make_launcher(self) -> _Launcher:
        launcher = _Launcher(0)
        launcher.config = self.config
        return launcher


class _Autotuner:
    """What the wrapper reads of a ``CachingAutotuner``."""

    def __init__(self, marked: bool = True, configs=()):
        self.inductor_meta = {"kernel_name": "triton_red_fused_0"} | ({_torch_private.TUNING_CHECK_KEY: True}
                                                                     if marked else {})
        self.autotune_time_taken_ns, self.saved = 7, []
        self.compile_results = [_CompileResult(launcher) for launcher in configs]

    def save_cache_hook(self, config, time_ns, found_by_coordesc):
        self.saved.append((config, time_ns, found_by_coordesc))


@pytest.fixture
def check_now(monkeypatch):
    """The wrapper's checks of the GPU's state (a capture under way, free memory) pass: the tests call it on fakes."""
    monkeypatch.setattr(_torch_private, "_no_check_now", lambda args: "")


@pytest.mark.parametrize("times,kept", [
    ({"start": 10.0, "walk": 9.0, "other": 9.5}, "walk"),
    ({"start": 10.0, "walk": 12.0, "other": 9.0}, "other"),
    ({"start": 10.0, "walk": 9.8, "other": 11.0}, "start"),
    ({"start": 10.0, "walk": 12.0, "other": None}, "start"),
    ({"start": None, "walk": 12.0, "other": 9.0}, "walk"),
], ids=["walk-10%-faster", "another-config-fastest", "none-3%-faster", "one-not-timed", "start-not-timed"])
def test_the_launcher_kept_is_the_fastest_by_graph_replay_if_3_percent_faster_than_the_start(times, kept, check_now):
    """``scheduler.keep_faster_tuning`` through ``_torch_private.checked_tuning``: of the walk's start, the walk's
    config and Inductor's other configs (each once), the fastest by graph replay, where it beats the start by
    ``select_algorithm.AUTOTUNE_MARGIN`` (3%); else the start.  A launcher other than the walk's is saved to the
    autotune cache as the walk's result and marked found (no later call or process walks again); a launcher that
    cannot be timed is left out, and a start that cannot be timed leaves Inductor's choice (the walk's)."""
    launchers = {"start": _Launcher(8), "walk": _Launcher(16), "other": _Launcher(32)}
    autotuner = _Autotuner(configs=[launchers["start"], _Launcher(8), launchers["other"]])  # start's config twice

    def launcher_ms(launcher, args, kwargs):
        assert args == ("x",) and kwargs == {"extra": 1}  # the call's own arguments
        us = times[next(key for key, one in launchers.items() if one.config == launcher.config)]
        if us is None:
            raise RuntimeError("capture failed")
        return us / 1e3

    wrapped = _torch_private.checked_tuning(lambda self, launcher, *a, **k: launchers["walk"],
                                            scheduler.keep_faster_tuning, launcher_ms)
    chosen = wrapped(autotuner, launchers["start"], "x", extra=1)
    assert chosen.config == launchers[kept].config
    if kept == "walk":
        assert autotuner.saved == [] and not hasattr(chosen.config, "found_by_coordesc")
    else:
        assert autotuner.saved == [(chosen.config, 7, True)] and chosen.config.found_by_coordesc


def test_a_kernel_not_marked_or_with_one_config_is_not_timed(check_now):
    start = _Launcher(8)

    def launcher_ms(launcher, args, kwargs):
        raise AssertionError("timed")

    walk_to = {"not-marked": _Launcher(16), "walk-kept-its-start": start}
    for case, marked in (("not-marked", False), ("walk-kept-its-start", True)):
        wrapped = _torch_private.checked_tuning(lambda self, launcher, *a, **k: walk_to[case],
                                                scheduler.keep_faster_tuning, launcher_ms)
        assert wrapped(_Autotuner(marked, configs=[start]), start) is walk_to[case], case


def test_the_check_wraps_inductors_coordinate_descent_once():
    from torch._inductor.runtime.triton_heuristics import CachingAutotuner

    wrapped = CachingAutotuner.coordinate_descent_tuning
    assert getattr(wrapped, "_rtf_wrapped", False)  # installed at import
    _torch_private.check_coordinate_descent(scheduler.keep_faster_tuning)
    assert CachingAutotuner.coordinate_descent_tuning is wrapped


def test_a_start_not_timed_leaves_inductors_choice_even_where_the_walk_kept_its_start(check_now):
    """Where the walk returned its start, ``others`` holds only Inductor's other configs: a start that cannot be timed
    must leave the start (Inductor's choice), not the first of those."""
    start, other = _Launcher(8), _Launcher(32)

    def launcher_ms(launcher, args, kwargs):
        if launcher.config == start.config:
            raise torch.OutOfMemoryError("no room for the copies")
        return 1e-3

    autotuner = _Autotuner(configs=[start, other])
    wrapped = _torch_private.checked_tuning(lambda self, launcher, *a, **k: launcher, scheduler.keep_faster_tuning,
                                            launcher_ms)
    assert wrapped(autotuner, start) is start and autotuner.saved == []


@pytest.mark.parametrize("why", ["deterministic", "capturing"])
def test_no_config_is_timed_in_deterministic_mode_or_during_a_capture(why, monkeypatch):
    """Inductor's deterministic mode keeps a reduction's config (another would sum in another order); a first call
    inside a CUDA-graph capture cannot time anything without breaking the capture."""
    start, walk = _Launcher(8), _Launcher(16)
    autotuner = _Autotuner(configs=[start, _Launcher(32)])
    if why == "deterministic":
        autotuner.deterministic_mode = True
        monkeypatch.setattr(_torch_private, "_no_check_now", lambda args: "")
    else:
        monkeypatch.setattr(_torch_private, "_no_check_now", lambda args: "its first call is inside a capture")

    def launcher_ms(launcher, args, kwargs):
        raise AssertionError("timed")

    wrapped = _torch_private.checked_tuning(lambda self, launcher, *a, **k: walk, scheduler.keep_faster_tuning,
                                            launcher_ms)
    assert wrapped(autotuner, start) is walk


def test_configs_whose_binaries_were_dropped_are_compiled_again():
    """torch 2.15 keeps only the autotuning's pick in ``compile_results``: the configs recorded before
    (``record_autotuned_configs``) are compiled again, each once and none already timed (``skip``); one that fails to
    compile is left out."""
    start, other, broken = _Launcher(8), _Launcher(32), _Launcher(64)

    class Pruned(_Autotuner):
        def __init__(self):
            super().__init__(configs=[start])  # the pick's binary only
            setattr(self, _torch_private._TUNED_CONFIGS, [start.config, other.config, broken.config])
            self.lock, self.compiled = threading.Lock(), []

        def _precompile_config(self, config):
            if config == broken.config:
                raise RuntimeError("out of resources")
            self.compiled.append(config)
            launcher = _Launcher(0)
            launcher.config = config
            return _CompileResult(launcher)

    autotuner = Pruned()
    configs = [launcher.config for launcher in _torch_private._config_launchers(autotuner, [])]
    assert configs == [start.config, other.config] and autotuner.compiled == [other.config]
    autotuner.compiled.clear()
    assert _torch_private._config_launchers(autotuner, [start.config, other.config]) == []
    assert autotuner.compiled == []  # nothing compiled for a config already timed


def test_a_copy_for_timing_keeps_the_layout_the_kernel_was_compiled_for():
    """A slice of a wider buffer and an output at a row stride wider than its rows (a ``torch.cat`` buffer): the copy
    has the same sizes, strides and storage offset, so the kernel's strided accesses stay inside it, and the same
    values; ``clone()`` would pack them."""
    from reduction_transpose_fusion.runtime.benchmarking import copy_args

    wide = torch.randn(64, 96)
    for tensor in (wide[:, :48], wide[8:, 16:].t()):
        copy, = copy_args([tensor])
        assert (copy.shape, copy.stride(), copy.storage_offset()) == (tensor.shape, tensor.stride(),
                                                                      tensor.storage_offset())
        assert torch.equal(copy, tensor)
        assert copy.untyped_storage().data_ptr() != tensor.untyped_storage().data_ptr()
        last = tensor.storage_offset() + sum((n - 1) * s for n, s in zip(tensor.shape, tensor.stride()))
        assert copy.untyped_storage().nbytes() >= (last + 1) * tensor.element_size()
    empty, = copy_args([torch.empty(0, 4)])
    assert empty.shape == (0, 4)
    assert copy_args([3, "x"]) == [3, "x"]
