"""The random-site generator (benchmarks/random_sites.py) and the training-step suite's helpers (benchmarks/steps.py)."""

from __future__ import annotations

import math
import re

import pytest
import torch

from benchmarks import harness, lab_steps, random_sites, steps
from reduction_transpose_fusion_testing import families


def test_sites_are_a_function_of_the_seed_and_stay_in_range():
    a, b = random_sites.draw_sites(7, 64), random_sites.draw_sites(7, 64)
    assert a == b and a != random_sites.draw_sites(8, 64)
    for site in a:
        case = families.ALL_CASES[site["family"]]
        rows, cols = site["rows"], site["cols"]
        assert random_sites.ROWS[0] // 4 <= rows <= random_sites.ROWS[1] and random_sites.COLS[0] <= cols <= random_sites.COLS[1]
        assert rows * cols * families.DTYPES[site["dtype"]].itemsize <= random_sites.MAX_TENSOR_BYTES
        shape = case.shapes(rows, cols)[0]
        assert math.prod(shape) == rows * cols  # F4's leading dims split N exactly
    assert {s["family"] for s in random_sites.draw_sites(1, 400)} == set(random_sites.FAMILIES)


def test_a_loss_is_slower_than_stock_by_more_than_the_margin_and_the_noise():
    assert random_sites.loses(0.95, 0.0)
    assert not random_sites.loses(0.98, 0.0)  # within 3%
    assert not random_sites.loses(0.95, 3.0)  # within 3% + 3% noise
    assert not random_sites.loses(1.2, 0.0)


def test_the_summary_counts_fused_losses_apart_from_sites_left_to_stock():
    import pandas as pd

    tuned = "amax_1: Inductor's own reduction stores transposed: tuned by coordinate descent at its first call"
    frame = pd.DataFrame(dict(
        family=["F1-t"] * 5, dtype=["bf16"] * 5, shape=["64x64"] * 5, noise_pct=[0.0] * 5,
        speedup_fused=[0.80, 0.90, 1.50, 1.00, 0.85], loses_fused=[True, True, False, False, True],
        decisions_fused=["fused sum_1 with transposed copy clone into one kernel", "skip clone + sum_1: gate",
                         "fused sum_1 with transposed copy clone into one kernel", "skip clone + sum_1: gate",
                         f"skip clone + amax_1: two passes | {tuned}"]))
    line = random_sites.summarize(frame, ["fused"])
    assert ("5 sites; slower than stock by more than 3% + noise: 1 fused, 1 only tuned by coordinate descent "
            "(Inductor's own kernels), 1 left to stock") in line, line
    assert "worst 0.800x" in line


def test_a_site_with_a_kernel_tuned_by_coordinate_descent_is_not_stocks_code():
    tuned = "amax_1: Inductor's own reduction stores transposed: tuned by coordinate descent at its first call"
    assert random_sites.left_to_stock("skip clone + sum_1: gate")
    assert not random_sites.left_to_stock(f"skip clone + sum_1: gate | {tuned}")


def test_pick_accuracy_counts_fused_sites_whose_pick_is_within_the_tolerance_of_the_fastest():
    import pandas as pd

    fused, skipped = "fused sum_1 with transposed copy clone into one kernel", "skip clone + sum_1: gate"
    frame = pd.DataFrame(dict(
        decisions_rules=[fused, fused, fused, skipped],
        rules_us=[10.0, 10.4, 12.0, 5.0], tiles1_us=[11.0, 10.0, 10.0, 1.0], wave_us=[10.5, 12.0, 11.0, 1.0]))
    # site 0: the rules' is the fastest; site 1: 4% over the fastest; site 2: 20% over; site 3 left to stock
    assert random_sites.pick_accuracy(frame, "rules", ["tiles1", "wave"]) == (2, 3)
    assert random_sites.pick_accuracy(frame, "rules", ["tiles1", "wave"], tolerance=0.01) == (1, 3)
    assert random_sites.pick_accuracy(frame, "rules", ["prefetch"]) == (0, 0)  # not timed: nothing counted


def test_candidate_timings_read_both_log_formats():
    before = "sum_1: launch candidates timed at compile: rules 8.5 us; TILES_PER_PROGRAM=1 16.7 us; emitted rules"
    ranked = ("amax, sum_1: launch candidates timed at compile: rules 8.5 us (model 7.9); PREFETCH=1 not timed "
              "(model 9.1); UNSPLIT=1 inf us (model inf); emitted rules")
    assert random_sites.candidate_timings(f"fused sum_1 | {before}") == [
        ("sum_1", [("rules", 8.5, None), ("TILES_PER_PROGRAM=1", 16.7, None)])]
    assert random_sites.candidate_timings(ranked) == [
        ("amax, sum_1", [("rules", 8.5, 7.9), ("PREFETCH=1", None, 9.1), ("UNSPLIT=1", math.inf, math.inf)])]


def test_model_pick_accuracy_counts_kernels_with_every_default_candidate_timed():
    import pandas as pd

    def line(times, models):
        names = random_sites.DEFAULT_CANDIDATES
        items = "; ".join(f"{n} {t} us (model {m})" for n, t, m in zip(names, times, models))
        return f"sum_1: launch candidates timed at compile: {items}; emitted rules"

    n = len(random_sites.DEFAULT_CANDIDATES)
    right = line([10.0] + [5.0] * (n - 1), [9.0, 4.0] + [6.0] * (n - 2))  # the model's first (4.0) ran 5.0: fastest
    wrong = line([5.0] + [10.0] * (n - 1), [9.0, 4.0] + [6.0] * (n - 2))  # it ran 10.0, twice the fastest
    partial = right.replace(f"{random_sites.DEFAULT_CANDIDATES[-1]} 5.0 us", f"{random_sites.DEFAULT_CANDIDATES[-1]} not timed")
    frame = pd.DataFrame(dict(decisions_fused_every=[right, wrong, partial, None], decisions_fused_all=[right] * 4))
    assert random_sites.model_pick_accuracy(frame) == (1, 2)
    assert random_sites.model_pick_accuracy(frame, "fused_all") == (4, 4)
    # one tile priced within select_algorithm.FIRST_PICK_MARGIN of the rules' launch: the rules' launch is the pick
    near = [9.0, 8.8] + [9.5] * (n - 2)
    kept_right = line([5.0] + [10.0] * (n - 1), near)  # the rules' launch ran fastest
    kept_wrong = line([10.0] + [5.0] * (n - 1), near)  # it ran twice the fastest
    kept = pd.DataFrame(dict(decisions_fused_every=[kept_right, kept_wrong]))
    assert random_sites.model_pick_accuracy(kept) == (1, 2)


def test_compile_to_compile_compares_the_candidates_both_compiles_timed():
    import pandas as pd

    def line(items):
        return "sum_1: launch candidates timed at compile: " + "; ".join(items) + "; emitted rules"

    one_tile = "TILES_PER_PROGRAM=1 8.0 us (model 7.0)"
    first = line(["rules 10.0 us (model 9.0)", one_tile, "PREFETCH=1 not timed (model 9.5)"])
    second = line(["rules 11.0 us (model 9.0)", one_tile, "PREFETCH=1 7.0 us (model 9.5)"])
    flipped = line(["rules 7.0 us (model 9.0)", one_tile, "PREFETCH=1 7.0 us (model 9.5)"])
    frame = pd.DataFrame(dict(decisions_fused=[first, first, None], decisions_fused_every=[second, flipped, second]))
    repeat = random_sites.compile_to_compile(frame)
    assert repeat["timings"] == 4  # rules and one tile in both, twice; the prefetch timed in one only
    # |log ratios| 0.095 (rules 10 -> 11) and 0 (one tile) in the first row, 0.357 (rules 10 -> 7) and 0 in the second
    assert math.isclose(repeat["median"], math.log(1.1) / 2)
    # one tile the fastest of the two by the first compile: also by the second (8.0 < 11.0), not after the flip (7.0)
    assert (repeat["kernels"], repeat["picks within tolerance"]) == (2, 1)
    assert random_sites.compile_to_compile(frame.assign(decisions_fused_every=None)) == {}


def test_the_pick_loss_counts_a_miss_where_the_pick_is_slow_and_gives_the_rules_launch_its_margin():
    import numpy as np

    from benchmarks import lab_ranking

    def loss(weight, base):
        # the rules' split launch (10 µs, priced 9), a launch one term above it (6 µs, the fastest) and the walk
        # (12 µs, priced 11); the fast launch is priced 9 · exp(weight)
        kernel = dict(us=np.array([10.0, 6.0, 12.0]), fixed=np.log([np.nan, np.nan, 11.0]),
                      split=np.array([True, True, False]), log_split=np.log([9.0, 9.0, 9.0]), base=base,
                      terms=np.array([[0.0], [1.0], [0.0]]))
        return lab_ranking._pick_loss(np.array([weight]), [kernel], np.zeros(1)) - lab_ranking.PICK_PENALTY * weight**2

    assert loss(-0.5, None) < 0.1  # priced 5.5 µs: picked, the fastest (the logistic step gives it 0.08)
    assert loss(0.5, None) > 0.9  # priced 14.8 µs: the rules' launch (10 µs) is picked, a miss
    # priced 8.56 µs, 5% under the rules' 9: mostly the pick, but not past FIRST_PICK_MARGIN (7.5%) once the rules'
    # launch is the baseline, which then takes most of the softmin's weight
    assert loss(-0.05, None) < 0.5 < loss(-0.05, 0)
    assert loss(-0.5, 0) < 0.1  # 39% under the rules' price: past the margin, picked


@pytest.mark.slow
def test_lab_alike_counts_fewer_timed_kernels_with_the_graph_memo():
    """benchmarks.lab_alike on a small Float8 stack (in a fresh process: torchao rewrites Inductor's min/max codegen
    for the process): with the memo, kernels alike take an earlier choice, so fewer kernels and fewer candidates are
    timed, and every kernel timed without it is either timed or alike with it; the output defines the same kernels."""
    pytest.importorskip("torchao")
    from reduction_transpose_fusion_testing.processes import run_python

    run = run_python("from benchmarks import lab_alike; "
                     "lab_alike.main(['--layers', '3', '--dim', '512', '--hidden', '2048', '--tokens', '4096'])")
    assert run.returncode == 0, run.stderr[-3000:]
    with_memo, without = ({key: int(value) for key, value in re.findall(r"(kernels timed|timings|kernels alike|"
                                                                          r"kernels defined) (\d+)", line)}
                          for line in run.stdout.strip().splitlines()[-2:])
    assert with_memo["kernels alike"] > 0 and without["kernels alike"] == 0
    assert with_memo["kernels timed"] + with_memo["kernels alike"] == without["kernels timed"]
    assert with_memo["timings"] < without["timings"]
    assert with_memo["kernels defined"] == without["kernels defined"]


def test_the_attribution_names_what_the_flag_removed_and_added():
    off = {"triton_red_fused_sum": (100.0, 1), "triton_poi_fused_clone": (80.0, 1), "gemm": (500.0, 2)}
    on = {"triton_unk_fused_clone_sum": (120.0, 1), "gemm": (501.0, 2)}
    rows = steps.attribution(off, on)
    change = {r["kernel"]: r["change"] for r in rows}
    assert change == {"triton_red_fused_sum": "removed", "triton_poi_fused_clone": "removed",
                      "triton_unk_fused_clone_sum": "added", "gemm": "same launches"}
    assert rows[0]["kernel"] == "triton_unk_fused_clone_sum" and rows[0]["delta_us"] == 120.0  # largest change first
    assert steps._ORDINAL.sub("", "triton_red_fused_sum_12") == "triton_red_fused_sum"


def test_the_step_table_says_whether_the_first_losses_agree():
    row = dict(step="s", kernels_off=4, kernels_on=3, fused_sites=1, ms_off=2.0, ms_on=1.0, ms_off_again=2.02,
               ms_on_again=1.01, speedup=2.0, noise_pct=1.0, host_ms_off=0.5, host_ms_on=0.25, host_noise_pct=4.0,
               compile_s_off=10.0, compile_s_on=9.0, loss_rel_diff=0.0)
    assert ("| s | 4 → 3 | 1 | 2.000 / 2.020 | 1.000 / 1.010 | 2.000x | 1.0% | 0.50 / 0.25 | 4.0% | 10 / 9 | yes"
            in steps.table([row]))
    assert "| NO (" in steps.table([row | dict(loss_rel_diff=0.5)])
    assert "ImportError" in steps.table([dict(step="t", error="ImportError: no timm")])


def test_fused_sites_counts_the_fused_decisions_only():
    decisions = ["candidate clone + sum (x=a)", "fused sum with transposed copy clone into one kernel (C=8, N=8)",
                 "skip clone_2 + sum_2 (x=b): too small", "fused sum_3 with transposed copy clone_3 into one kernel"]
    assert steps.fused_sites(decisions) == 2
    assert steps.fused_sites([]) == 0


@pytest.mark.parametrize("first", ["off", "on"])
def test_each_again_variant_is_a_fresh_compile_of_the_same_code(first):
    options = dict(steps.VARIANTS)
    again = options[f"{first}_again"]
    # distinct options (so Dynamo compiles it anew) that differ from the first's only by an option at its default value
    assert again != options[first]
    extra = {k: v for k, v in again.items() if options[first].get(k) != v}
    from torch._inductor import config as inductor_config
    assert extra and all(inductor_config.get_config_copy()[k] == v for k, v in extra.items())


def test_the_step_noise_is_the_wider_pair_and_the_speedup_uses_both_compiles():
    run = lambda ms, host: dict(ms=ms, host_ms=host)  # noqa: E731
    times = steps.step_times(run(4.0, 3.0), run(3.6, 3.3), run(4.2, 3.03), run(4.0, 3.3))
    assert times["ms_on_again"] == 4.0 and times["host_ms_off_again"] == 3.03
    assert times["noise_pct"] == pytest.approx(100 * 0.4 / 3.6)  # the on pair is the wider
    assert times["host_noise_pct"] == pytest.approx(1.0)
    assert times["speedup"] == pytest.approx((4.0 * 4.2 / (3.6 * 4.0)) ** 0.5)  # not 4.0 / 3.6 from one pair


def test_the_transformer_block_keeps_its_shape():
    block = steps.Block(64, 4)
    x = torch.randn(2, 16, 64)
    assert block(x).shape == x.shape


def test_float8_conversion_takes_only_linears_whose_sizes_are_multiples_of_16():
    """In a fresh process: importing torchao changes what Inductor emits for a max in the importing process
    (``triton_helpers.maximum`` becomes a ``tl.where``), which the codegen tests compare against stock's sources."""
    pytest.importorskip("torchao")
    from reduction_transpose_fusion_testing.processes import run_python

    done = run_python(
        "import torch\n"
        "from benchmarks import steps\n"
        "m = steps._float8(torch.nn.Sequential(torch.nn.Linear(32, 48), torch.nn.Linear(48, 10)), 'tensorwise')\n"
        "print(type(m[0]).__name__, type(m[1]).__name__)\n")
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split()[-2:] == ["Float8Linear", "Linear"]


def test_the_attribution_gives_each_kernel_its_bytes_and_its_share_of_copy_sol():
    off = {"triton_red_fused_sum": (100.0, 1), "gemm": (500.0, 2)}
    on = {"triton_unk_fused_clone_sum": (120.0, 2), "gemm": (500.0, 2)}
    rows = steps.attribution(off, on, {"triton_red_fused_sum": 4e6}, {"triton_unk_fused_clone_sum": 3e6})
    by = {r["kernel"]: r for r in rows}
    assert by["triton_unk_fused_clone_sum"]["mb_on"] == 6.0 and by["triton_red_fused_sum"]["mb_off"] == 4.0
    assert math.isnan(by["gemm"]["mb_on"])  # not an Inductor kernel: no estimate
    rows = {r["kernel"]: r for r in steps.with_copy_sol(rows, lambda nbytes: nbytes / 3e6 * 50.0)}  # 50 µs a 3 MB
    fused = rows["triton_unk_fused_clone_sum"]
    assert fused["sol_us_on"] == 100.0 and fused["pct_of_sol_on"] == pytest.approx(100 / 120 * 100)
    assert math.isnan(fused["sol_us_off"]) and math.isnan(fused["pct_of_sol_off"])  # not launched off
    assert rows["triton_red_fused_sum"]["pct_of_sol_off"] == pytest.approx(4 / 3 * 50)
    assert math.isnan(rows["gemm"]["pct_of_sol_on"])


def test_launch_bytes_are_a_launchs_mean_by_name_without_the_ordinal():
    sizes = steps.launch_bytes({"triton_poi_fused_add_1": [100], "triton_poi_fused_add_7": [300, 200],
                                "triton_red_fused_sum_2": [None, 5]})
    assert sizes["triton_poi_fused_add"] == 200 and math.isnan(sizes["triton_red_fused_sum"])


@pytest.mark.parametrize("flag,expected", [
    (False, 3),  # stock: the split reduction's two kernels and the transposed copy
    (True, 1),  # the fused kernel
])
def test_the_recorded_bytes_are_what_each_kernel_reads_and_writes(flag, expected):
    from reduction_transpose_fusion._torch_private import recording_kernel_bytes
    from reduction_transpose_fusion_testing import interpret

    rows, cols = 4096, 768
    case = families.CASES["F1-t"]
    inputs = interpret.fake_inputs(*case.specs(rows, cols, torch.float32))
    with recording_kernel_bytes() as recorded:
        interpret.generate(case.fn, inputs, reduction_transpose_fusion=flag, fx_graph_cache=False)
    assert len(recorded) == expected and all(len(sizes) == 1 for sizes in recorded.values()), recorded
    copy = [sizes[0] for name, sizes in recorded.items() if "clone" in name]
    assert copy == [2 * rows * cols * 4 + (flag and cols * 4)]  # x read, x.T written (and the sum, fused)
    interpret.generate(case.fn, inputs, reduction_transpose_fusion=flag, fx_graph_cache=False)
    assert all(len(sizes) == 1 for sizes in recorded.values())  # nothing recorded outside the block


def test_the_separate_finish_leaves_its_kernels_bytes_unknown_not_doubled():
    """The finish kernel is named as the fused one but for Inductor's ordinal, and the profile adds their launches
    under one name: the estimate (the fused kernel's) must not count for both."""
    from reduction_transpose_fusion._torch_private import recording_kernel_bytes
    from reduction_transpose_fusion_testing import interpret

    case = families.CASES["F1-t"]
    inputs = interpret.fake_inputs(*case.specs(1000, 40, torch.float32))
    with recording_kernel_bytes() as recorded:
        interpret.generate(case.fn, inputs, reduction_transpose_fusion=True, fx_graph_cache=False,
                           reduction_transpose_fusion_min_bytes=0,
                           reduction_transpose_fusion_launch_config="SEPARATE_FINISH=1,RSPLIT=4")
    assert len(recorded) == 2 and sorted(len(s) for s in recorded.values()) == [1, 1], recorded
    (name,) = {steps._ORDINAL.sub("", n) for n in recorded}
    assert math.isnan(steps.launch_bytes(recorded)[name])


def test_the_recorder_puts_inductors_define_kernel_back_after_an_error():
    from reduction_transpose_fusion._torch_private import TritonScheduling, recording_kernel_bytes

    original = TritonScheduling.define_kernel
    with pytest.raises(RuntimeError, match="mid-compile"):
        with recording_kernel_bytes():
            assert TritonScheduling.define_kernel is not original
            raise RuntimeError("mid-compile")
    assert TritonScheduling.define_kernel is original


def test_a_fresh_compiles_kernels_do_not_read_inductors_autotune_cache():
    """``harness.FRESH`` compiles every kernel with Inductor's autotune cache off (each kernel's ``inductor_meta``),
    so a second compile of the same kernel tunes anew instead of reading the config the first one tuned."""
    from benchmarks import harness
    from reduction_transpose_fusion_testing import interpret

    case = families.ALL_CASES["F2-mul-add"]
    specs = case.specs(4096, 512, torch.float32)
    fresh = interpret.generate(case.fn, interpret.fake_inputs(*specs), **(harness.STOCK | harness.FRESH))
    cached = interpret.generate(case.fn, interpret.fake_inputs(*specs), **harness.STOCK)
    kernels = len(interpret.kernel_names(fresh))
    assert kernels > 1 and fresh.count("'autotune_local_cache': False") == kernels
    assert cached.count("'autotune_local_cache': True") == len(interpret.kernel_names(cached))


def test_each_random_site_graph_is_captured_before_the_next_compile(monkeypatch):
    """``random_sites.measure`` captures each compile's CUDA graph before the next compile: a later compile of the same
    function with the same options replaces the code the earlier compiled function runs (Dynamo's one cache entry
    for it), so stock's graph captured after its repeat compile replayed the repeat's code, and the noise column
    measured one compile twice.  The compiles and captures are stubbed (no GPU); their order is what is checked."""
    events = []
    site = random_sites.draw_sites(1, 1)[0]
    inputs = [torch.randn(8, 4)]
    monkeypatch.setattr(type(families.ALL_CASES[site["family"]]), "inputs", lambda self, *a, **k: inputs)

    def compile_fn(fn, first, options):
        events.append("compile")
        return (lambda *a: torch.zeros(3)), 1, 0.1, []

    def capture(fn, input_sets, calls):
        events.append("graph")
        return fn

    monkeypatch.setattr(random_sites.harness, "compile_fn", compile_fn)
    monkeypatch.setattr(random_sites.harness, "check", lambda *a: (0.0, True))
    monkeypatch.setattr(random_sites, "graph", capture)
    monkeypatch.setattr(random_sites, "time_graphs", lambda graphs, calls: {name: 1.0 for name in graphs})
    random_sites.measure(site, ["fused", "first_pick"])
    assert events == ["compile", "graph"] * 4  # stock, its repeat and the two variants, each captured at once


def test_a_corpus_case_captures_stock_before_the_fused_compile_and_times_both_after(monkeypatch):
    """``harness.measure`` captures stock's graph before it compiles the fused version (each compile resets Dynamo, so
    a stock call after the fused compile compiled stock a third time and timed that compile, not the one whose
    compile time is reported), and times both graphs after both compiles, so neither is timed right after its own
    compile.  Compiles, captures and timings are stubbed (no GPU); their order is what is checked."""
    from benchmarks import harness

    family = next(iter(families.CASES))
    row = harness.Case(name="c", family=family, dtype="fp32", rows=8, cols=4, suites="", source="")
    monkeypatch.setattr(type(row.family_case), "inputs", lambda self, *a, **k: [torch.randn(8, 4)])
    events = []

    def compile_fn(fn, inputs, options, row_dims=None):
        label = "fused" if options.get("reduction_transpose_fusion") else "stock"
        events.append(f"compile {label}")
        return (lambda *a: events.append(f"call {label}") or torch.zeros(3)), 1, 0.1, []

    def capture(fn):
        fn()
        return events[-1].replace("call", "graph")

    def time_graph(graph):
        events.append(f"time {graph}")
        return 1.0

    monkeypatch.setattr(harness, "compile_fn", compile_fn)
    monkeypatch.setattr(harness, "capture", capture)
    monkeypatch.setattr(harness, "time_graph", time_graph)
    monkeypatch.setattr(harness, "check", lambda *a: (0.0, True))
    monkeypatch.setattr(harness, "copy_sol_ms", lambda n: 1.0)
    monkeypatch.setattr(harness, "_common", lambda row, inputs, moved: dict(bytes_moved=moved))
    harness.measure(row, eager=False)
    assert events.count("compile stock") == 1 and events.count("compile fused") == 1
    fused_compile = events.index("compile fused")
    assert fused_compile > max(i for i, e in enumerate(events) if e == "call stock")
    assert [e for e in events[fused_compile:] if e.startswith("time")] == [
        "time graph stock", "time graph fused", "time graph fused"]


def test_picked_sites_are_the_sites_their_seeds_drew_and_keep_their_seed():
    """``random_sites.picked_sites`` gives the INDEX-th site of SEED's draw (the one a run of that seed measured), with
    its seed, and refuses a spec that is not SEED:INDEX."""
    picked = random_sites.picked_sites(["1224050316:19", "7:0"])
    assert picked[0] == random_sites.draw_sites(1224050316, 48)[19] | {"seed": 1224050316}
    assert picked[1] == random_sites.draw_sites(7, 1)[0] | {"seed": 7}
    for bad in ("1224050316", "12:x", "12:-1"):
        with pytest.raises(ValueError, match="SEED:INDEX"):
            random_sites.picked_sites([bad])


def test_launch_variants_force_every_safe_site_with_the_given_override_and_refuse_a_bad_spec():
    """``random_sites --launch NAME=SPEC`` defines a variant: every safe site fused (the profitability rules off) with
    the expert launch override SPEC; a spec without a name or override, or a name already taken, is refused."""
    out = random_sites.launch_variants(["row128=XBLOCK=128,R0_BLOCK=64"])
    assert out == {"row128": harness.FORCED | {"reduction_transpose_fusion_launch_config": "XBLOCK=128,R0_BLOCK=64"}}
    for bad in ("row128", "row128=", "fused=XBLOCK=32", "=XBLOCK=32"):
        with pytest.raises(ValueError, match="NAME=SPEC"):
            random_sites.launch_variants([bad])


def test_an_inductor_option_runs_the_step_off_and_on_with_it_set():
    variants = lab_steps.inductor_variants(["realize_opcount_threshold=8", "max_autotune=True"])
    assert variants == {
        "off+realize_opcount_threshold=8": harness.STOCK | {"realize_opcount_threshold": 8},
        "on+realize_opcount_threshold=8": harness.FUSED | {"realize_opcount_threshold": 8},
        "off+max_autotune=True": harness.STOCK | {"max_autotune": True},
        "on+max_autotune=True": harness.FUSED | {"max_autotune": True},
    }
    for bad in ("realize_opcount_threshold", "=8", "realize_opcount_threshold=eight"):
        with pytest.raises(ValueError):
            lab_steps.inductor_variants([bad])


@pytest.mark.parametrize("argv,says", [(["--suite", "bogus"], "--suite bogus: not a suite; the suites are"),
                                       (["--suite", "main", "--names", "no-such-case-*"],
                                        "no case of the main suite matches")])
def test_the_main_job_refuses_a_suite_or_case_pattern_that_names_nothing(argv, says, capsys):
    """An unknown suite, or case patterns that match no case, end the main job with a usage error (exit 2) before
    anything is compiled or written, naming what was asked."""
    from benchmarks import run

    with pytest.raises(SystemExit) as ended:
        run.main(argv + ["--out", "/nonexistent/never-written"])
    assert ended.value.code == 2
    assert says in capsys.readouterr().err


def test_the_check_counts_an_fp16_sum_past_its_range_as_eager_has_it_and_a_differing_inf_as_an_error():
    """``y = a * b + 1`` summed over 30000 rows: a column of ``a = b = 1.5`` sums to 97500, past fp16's 65504, so
    eager's sum is Inf there, and so is a correct output's; the error is taken over the finite columns.  An output
    finite where eager's is Inf is an error."""
    case = families.ALL_CASES["F2-mul-add"]
    seed = torch.seed() % 2**31
    inputs = case.inputs(30000, 3, torch.float16, seed=seed)
    inputs[0][:, 1] = inputs[1][:, 1] = 1.5
    out = case.fn(*inputs)
    assert out[1][1].isinf() and out[1][[0, 2]].isfinite().all()
    err, exact = harness.check(case, inputs, out, out)
    assert exact and err < families.TOLERANCE[torch.float16], err
    wrong = [out[0], out[1].clone()]
    wrong[1][1] = 65504
    assert harness.check(case, inputs, wrong, out)[0] == math.inf
