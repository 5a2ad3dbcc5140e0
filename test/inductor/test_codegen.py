"""CUDA codegen on the fake H200 (CPU only): kernel structure with the flag off and on, for every family and dtype.

Kernel counts here test structure, not speed; the H200 numbers are in benchmarks/results/.
"""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys

import unittest.mock

import pytest
import torch
from torch._inductor.runtime.runtime_utils import next_power_of_2
from torch._inductor.scheduler import Scheduler

from reduction_transpose_fusion.codegen.triton import (EVICT_FIRST, LAUNCH_ORDER_FINISHER, ONE_TILE_CHUNK_LINE,
                                                       RSPLIT_FROM_GRID, SHIFTED_OFFSET_LINE, _shift_last_tile,
                                                       cache_hints, finish_group_of, prefetch_row_loop)
from reduction_transpose_fusion import choices as choices_module
from reduction_transpose_fusion_testing import compile_cubins, families, interpret
from reduction_transpose_fusion_testing.edge_cases import reads_its_own_sum
from reduction_transpose_fusion_testing.logs import decision_log
from reduction_transpose_fusion_testing.processes import child_environ
from reduction_transpose_fusion_testing.stock_codegen import key, normalize

ON = families.FUSE_EVERY_SITE
OFF = dict(reduction_transpose_fusion=False)
# real-model sizes: ViT-B/16 MLP activations (batch 128); 310 MB in fp32, 155 MB in bf16/fp16 (above the 8 KiB gate)
ROWS, COLS = 25216, 3072
CASES = [(name, dt) for name in families.CASES for dt in families.DTYPES]


def generate(name: str, dtype: str, rows: int = ROWS, cols: int = COLS, **options) -> str:
    case = families.CASES[name]
    return interpret.generate(case.fn, interpret.fake_inputs(*case.specs(rows, cols, families.DTYPES[dtype])), **options)


def kernel_launches(module_source: str) -> list[tuple[str, list[str]]]:
    """(kernel name, argument names) of each kernel launch in the wrapper's call()."""
    return [(m.group(1), [a.strip() for a in m.group(2).split(",")])
            for m in re.finditer(r"^\s*(\w+)\.run\((.*?)(?:, stream=\w+)?\)$", module_source, re.M)]


def fixed_launch(kernel_source: str) -> dict[str, int]:
    """The launch a fused kernel's ``fixed_config`` decorator holds (``XBLOCK``, ``RSPLIT``, ``num_warps``, ...)."""
    return ast.literal_eval(re.search(r"config=(\{.*?\})", kernel_source).group(1))


def compile_for_sm90(kernels: dict[str, list[str]]) -> dict[str, dict]:
    """``reduction_transpose_fusion_testing.compile_cubins``'s report for ``{label: [kernel name, source]}``, from a
    process without ``TRITON_INTERPRET`` (ptxas for sm_90a, no GPU)."""
    return compile_cubins.in_subprocess(kernels)


@pytest.fixture(scope="session")
def stock_sources() -> dict[str, str]:
    """Stock Inductor's code for every case, from a process that never imports the package."""
    wanted = [[name, ROWS, COLS, dt] for name, dt in CASES] + [[name, 128, 1024, "fp32"] for name in families.CASES]
    wanted.append(["F1-t", 200, 2, "fp32"])
    proc = subprocess.run([sys.executable, "-m", "reduction_transpose_fusion_testing.stock_codegen"],
                          input=json.dumps(wanted), capture_output=True, text=True, env=child_environ(),
                          timeout=1800)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return json.loads(proc.stdout)


@pytest.mark.parametrize("name,dtype", CASES)
def test_flag_on_emits_one_kernel_that_reads_each_input_once(name, dtype):
    on = generate(name, dtype, **ON)
    launches = kernel_launches(on)
    assert len(interpret.kernel_names(on)) == 1 and len(launches) == 1, launches
    (kernel, args), = launches
    src = interpret.kernel_sources(on)[kernel]
    signature = re.search(r"def \w+\((.*?)\):", src).group(1).split(", ")
    n_inputs = len(families.CASES[name].shapes(ROWS, COLS))
    prefetched = "r0_offset_next" in src  # the prologue loads the first row tile, the loop each next one
    for i in range(n_inputs):
        pointer = signature[args.index(f"arg{i}_1")]
        assert src.count(f"tl.load({pointer} +") + src.count(f"tl.load({pointer})") == 1 + prefetched, (pointer, src)
    assert "'launch_cooperative_grid': False" in src and "x_grid_barrier" not in src


@pytest.mark.parametrize("name,dtype", CASES)
def test_flag_off_is_stock_and_splits(name, dtype, stock_sources):
    off = normalize(generate(name, dtype, **OFF))
    assert off == stock_sources[key(name, ROWS, COLS, dtype)]
    assert len(kernel_launches(off)) >= 2  # what the fusion replaces: the split reduction and the copy


# torch 2.15's scheduler re-indexes a transposed copy of a pointwise result to fuse it elsewhere
# (Scheduler._can_reindex_consumer_for_index_inversion); torch 2.11's does not
REINDEXES_POINTWISE_COPIES = hasattr(Scheduler, "_can_reindex_consumer_for_index_inversion")


@pytest.mark.parametrize("name", list(families.CASES))
def test_sites_stock_does_not_split_stay_stock(name, stock_sources):
    """N = 128: stock's split factor is 1, so it emits one kernel; such sites ran 0.79-0.96x fused on the H200
    (torch 2.11).  torch 2.15's stock takes F5's fp8 copy out of that kernel by loop-index inversion (two kernels,
    the cast's and the copy's); the package leaves the site to stock there too (not measured on a GPU).  One more row
    and stock splits (3-4 kernels), and the site can fuse.  Stock's one kernel, a reduction that stores transposed,
    is too small (0.5 MB) for coordinate descent to tune (scheduler.TUNED_MIN_BYTES): the source is stock's."""
    small_n = normalize(generate(name, "fp32", 128, 1024, reduction_transpose_fusion=True))
    assert small_n == stock_sources[key(name, 128, 1024, "fp32")]
    inverted = name == "F5-fp8-cast-transpose-dbias" and REINDEXES_POINTWISE_COPIES
    assert len(kernel_launches(small_n)) == (2 if inverted else 1)
    rows = 130 if name == "F4-flatten" else 129  # F4's input is [2, rows // 2, C]
    assert len(kernel_launches(generate(name, "fp32", rows, 1024, **OFF))) >= 3
    # the site is then the cost model's to decide (at 0.5 MB it predicts no gain); without the model it fuses
    fused = generate(name, "fp32", rows, 1024, reduction_transpose_fusion=True,
                     reduction_transpose_fusion_profitability=False)
    assert len(kernel_launches(fused)) == 1


def _expand_rows(c, r, s):
    y = c * r.expand_as(c) * s.expand_as(c)  # [N, 1] broadcast along C: Inductor does not count such reads
    return y.t().contiguous(), y.sum(0)


def _transposed_and_bias(a, b, c, bias):
    y = c + a.t() * b.t() + bias.expand_as(c)  # [C] broadcast along N: not counted either
    return y.t().contiguous(), y.sum(0)


def _one_transposed(a, c):
    y = c + a.t()  # one read contiguous along N, one along C: a tie, which Inductor calls outer
    return y.t().contiguous(), y.sum(0)


def _two_transposed(a, b, c):
    y = c + a.t() * b.t()  # two of three reads contiguous along N: an inner reduction, which stock does not split
    return y.t().contiguous(), y.sum(0)


@pytest.mark.parametrize("fn,shapes", [
    (_expand_rows, [(4096, 1024), (4096, 1), (4096, 1)]),
    (_transposed_and_bias, [(1024, 4096), (1024, 4096), (4096, 1024), (1024,)]),
    (_one_transposed, [(1024, 4096), (4096, 1024)]),
    (_two_transposed, [(1024, 4096), (1024, 4096), (4096, 1024)]),
], ids=["expand-rows", "transposed-and-bias", "one-transposed", "two-transposed"])
def test_fuses_exactly_where_stock_splits(fn, shapes, decisions):
    """The rule follows stock's own decision for producers that read transposed or broadcast inputs: fused into one
    kernel where stock splits the reduction (3 kernels), left to stock where stock emits one kernel."""
    inputs = interpret.fake_inputs(*[(shape, torch.float32) for shape in shapes])
    stock = len(kernel_launches(interpret.generate(fn, inputs, **OFF)))
    decisions.clear()
    on = len(kernel_launches(interpret.generate(fn, inputs, reduction_transpose_fusion=True)))
    fused = any(r.startswith("fused ") for r in decisions)
    assert (stock, on, fused) in ((3, 1, True), (1, 1, False)), (stock, on, decisions)


def test_a_site_of_few_rows_takes_the_column_tile(decisions):
    """fp32[200, 64] (stock: 3 kernels): the cost model predicts the column tile (Inductor's persistent reduction,
    unsplit: all 200 rows of 8 columns a program, no partials, no semaphores) faster than the split and stock; one
    kernel, the copy bit-exact."""
    case = families.CASES["F1-t"]
    src = generate("F1-t", "fp32", 200, 64, reduction_transpose_fusion=True)
    (kernel,) = interpret.kernel_sources(src).values()
    assert "sem_ptr" not in kernel and "RSPLIT" not in kernel and "for r0_offset" not in kernel  # one tile, no loop
    assert "config={'XBLOCK': 8, 'num_warps': 4" in kernel and "R0_BLOCK: tl.constexpr = 256" in kernel
    assert any("the column tile, Inductor's persistent reduction unsplit (the cost model: predicted fused the column "
               "tile" in line for line in decisions), decisions
    x = torch.randn(200, 64, generator=torch.Generator().manual_seed(3))
    out, ref = interpret.run_on_cpu(src, [x]), case.fn(x.double())
    assert torch.equal(families.bits(out[0]), families.bits(x.t().contiguous()))
    assert families.rel_err(out[1], ref[1]) <= families.TOLERANCE[torch.float32]


def test_inductors_own_launch_only_as_the_experts_unsplit(decisions):
    """The cost model never chooses Inductor's own launch of the unsplit reduction (the walk) on its own: with a
    dynamic N (no column tile) the split is its only launch, and fp32[200, 64] is then left to stock; LayerNorm
    backward f32[181, 5082], where it priced the walk 3% under the column tile, takes the tile.  An expert launch
    is the expert's: UNSPLIT=1 walks a site of thousands of rows, any other key splits a site of few."""
    case = families.CASES["F1-t"]
    dynamic = interpret.generate(case.fn, interpret.fake_inputs(*case.specs(200, 64, torch.float32), dynamic=(0,)),
                                 reduction_transpose_fusion=True)
    assert len(interpret.kernel_names(dynamic)) == 3
    assert not any("own launch of the unsplit" in line for line in decisions)
    decisions.clear()
    (tile,) = interpret.kernel_sources(generate("F3-layernorm-backward", "fp32", 181, 5082, **ON)).values()
    assert "sem_ptr" not in tile and "for r0_offset" not in tile and "R0_BLOCK: tl.constexpr = 256" in tile
    assert any("the column tile, Inductor's persistent reduction unsplit (the cost model" in line
               for line in decisions), decisions
    (walk,) = interpret.kernel_sources(generate("F1-t", "fp32", 8192, 64, **ON,
                                                reduction_transpose_fusion_launch_config="UNSPLIT=1")).values()
    assert "@triton_heuristics.reduction(" in walk and "sem_ptr" not in walk
    for launch in ("num_warps=4", "UNSPLIT=0"):
        (split,) = interpret.kernel_sources(generate("F1-t", "fp32", 200, 64, **ON,
                                                     reduction_transpose_fusion_launch_config=launch)).values()
        assert "sem_ptr" in split and "RSPLIT" in fixed_launch(split), launch


def test_the_cost_model_prices_the_launch_it_emits(decisions):
    """Under the expert's UNSPLIT=1 the model prices the walk alone (thousands of rows: slower than stock, so the
    site stays stock's); a wide C with few rows, which stock emits unsplit, keeps the package's launch."""
    src = generate("F1-t", "fp32", 16384, 1024, reduction_transpose_fusion=True,
                   reduction_transpose_fusion_launch_config="UNSPLIT=1")
    assert len(interpret.kernel_names(src)) == 3
    assert any("cost model predicts no clear gain" in line and "the walk" in line for line in decisions)
    (wide,) = interpret.kernel_sources(generate("F1-t", "fp32", 67, 16124, **ON)).values()
    assert fixed_launch(wide)["RSPLIT"] == 1 and "@triton_heuristics.fixed_config(" in wide


def test_below_the_gate_is_stock(stock_sources):
    # 200 x 2 fp32 = 1600 bytes, below the default 2 KiB gate, though stock splits it
    below = normalize(generate("F1-t", "fp32", 200, 2, reduction_transpose_fusion=True))
    assert below == stock_sources[key("F1-t", 200, 2, "fp32")]
    assert len(kernel_launches(below)) == 3


def test_gate_compares_the_bytes_of_the_transposed_tensor():
    nbytes = ROWS * COLS * 2  # bf16
    at = generate("F1-t", "bf16", reduction_transpose_fusion=True, reduction_transpose_fusion_min_bytes=nbytes)
    above = generate("F1-t", "bf16", reduction_transpose_fusion=True, reduction_transpose_fusion_min_bytes=nbytes + 1)
    assert len(kernel_launches(at)) == 1
    assert len(kernel_launches(above)) >= 2


def test_fp8_gate_counts_fp8_bytes():
    # F5 transposes q = fp8(g * s): one byte an element, whatever g's dtype
    nbytes = ROWS * COLS
    src = generate("F5-fp8-cast-transpose-dbias", "fp32", reduction_transpose_fusion=True,
                   reduction_transpose_fusion_min_bytes=nbytes)
    assert len(kernel_launches(src)) == 1
    src = generate("F5-fp8-cast-transpose-dbias", "fp32", reduction_transpose_fusion=True,
                   reduction_transpose_fusion_min_bytes=nbytes + 1)
    assert len(kernel_launches(src)) >= 2


def test_launch_override_reaches_the_kernel():
    src = generate("F1-t", "fp32", **ON,
                   reduction_transpose_fusion_launch_config="XBLOCK=32,R0_BLOCK=128,RSPLIT=5,num_warps=2")
    assert "config={'XBLOCK': 32, 'R0_BLOCK': 128, 'RSPLIT': 5, 'num_warps': 2, 'num_stages': 1}" in src


@pytest.mark.slow
def test_fused_kernels_compile_to_sm90a_without_spills():
    kernels = {}
    for name, dtype in CASES:
        (kernel, src), = interpret.kernel_sources(generate(name, dtype, **ON)).items()
        kernels[f"{name}/{dtype}"] = [kernel, src]
    report = compile_for_sm90(kernels)
    assert set(report) == set(kernels)
    for name, usage in report.items():
        assert usage["target"] == "sm_90a", (name, usage)
        assert usage["spill_bytes"] == 0 and usage["stack_bytes"] == 0, (name, usage)
        assert 0 < usage["registers"] <= 255, (name, usage)


# The heavy tiles and the scalar tile of an fp8 cast (runtime/triton_heuristics.py) size their grid for 4 resident
# programs per SM, which holds only if the compiled kernel needs at most 65536 / (4 * threads) registers a thread
# (H200: 65536 per SM, allocated in units of 8 a thread); the other scalar tiles of odd C and N take two row tiles a
# program, many waves, and must not spill.
# Shapes of the corpus cases they were measured on.
FOUR_PER_SM = [
    ("F1-t", "fp32", 25229, 3067),  # odd C and N
    ("F2-mul-add", "bf16", 8191, 1021),  # odd C and N, a producer
    ("F5-fp8-cast-transpose-dbias", "bf16", 4099, 769),  # odd C and N, an fp8 cast
    ("F2-gelu-backward", "bf16", 25216, 3072),  # heavy producer, 8 warps
    ("F2-gelu-backward", "bf16", 32768, 11008),
]


def resident_programs(registers: int, num_warps: int) -> int:
    """Programs of ``num_warps`` warps an H200 SM holds at once: 65536 registers, allocated in units of 8 a thread,
    and 2048 threads."""
    threads = 32 * num_warps
    return min(65536 // (threads * -(-registers // 8) * 8), 2048 // threads)


@pytest.mark.slow
def test_heavy_tiles_fit_four_programs_per_sm_and_scalar_tiles_do_not_spill():
    kernels, warps, many_waves = {}, {}, {}
    for name, dtype, rows, cols in FOUR_PER_SM:
        (kernel, src), = interpret.kernel_sources(generate(name, dtype, rows, cols, **ON)).items()
        label = f"{name}/{dtype}/{rows}x{cols}"
        kernels[label] = [kernel, src]
        warps[label] = int(re.search(r"'num_warps': (\d+)", src).group(1))
        launch = fixed_launch(src)
        many_waves[label] = launch["RSPLIT"] * -(-cols // launch["XBLOCK"]) > 4 * 132  # odd C and N: 2 tiles each
    for label, usage in compile_for_sm90(kernels).items():
        assert usage["spill_bytes"] == usage["stack_bytes"] == 0, (label, usage)  # spills: the stack frame
        if not many_waves[label]:  # one wave: 4 programs of each SM resident at once
            assert resident_programs(usage["registers"], warps[label]) >= 4, (label, warps[label], usage)
    assert [many_waves[f"{n}/{d}/{r}x{c}"] for n, d, r, c in FOUR_PER_SM] == [True, True, False, False, False]


@pytest.mark.slow
def test_an_even_one_wave_rsplit_keeps_the_finish_vectorized():
    """bf16[8192, 1024]: one wave would take RSPLIT 33, whose finish loads the partials rows (RSPLIT words apart) as
    scalars, and the kernel compiled to 203 registers (2 programs an SM; 1.28x copy SOL on the H200); the rule's RSPLIT
    32 keeps the loads 16 bytes wide and the kernel at 128 registers, so 4 programs of 4 warps fit (0.99x)."""
    (kernel, src), = interpret.kernel_sources(generate("F1-t", "bf16", 8192, 1024, **ON)).items()
    assert fixed_launch(src)["RSPLIT"] == 32 and "for r0_offset" in src  # one wave, looped
    (usage,) = compile_for_sm90({"copy": [kernel, src]}).values()
    assert resident_programs(usage["registers"], 4) >= 4, usage


def test_thousands_of_programs_a_column_block_compile_for_sm90():
    """f32[2100001, 33] (odd C and N: one row tile a program, RSPLIT 32813) and LayerNorm backward over f32[4200001, 33]
    (two tiles a program, the ticket): the last-program finish must not build an [XBLOCK, RSPLIT] mask, which Triton
    refuses past 2**20 elements (found by a review, 2026-11-30: a compile error, not a fallback)."""
    kernels = {}
    for label, fn, rows in (("sum", families.f1_t, 2100001), ("layernorm", families.f3_layernorm_backward, 4200001)):
        specs = [((rows, 33), torch.float32)] * (2 if label == "layernorm" else 1)
        (name, src), = interpret.kernel_sources(interpret.generate(fn, interpret.fake_inputs(*specs), **ON)).items()
        assert fixed_launch(src)["RSPLIT"] > 16384 and "rsplit_mask" not in src
        kernels[label] = [name, src]
    assert all(usage["spill_bytes"] == usage["stack_bytes"] == 0 for usage in compile_for_sm90(kernels).values())


def test_a_reduction_read_by_a_full_size_op_is_left_to_stock(decisions):
    """x / x.sum(0) beside the copy: one kernel would need a grid barrier between the sum and the division."""
    on = interpret.generate(reads_its_own_sum, interpret.fake_inputs(((ROWS, COLS), torch.float32)), **ON)
    off = interpret.generate(reads_its_own_sum, interpret.fake_inputs(((ROWS, COLS), torch.float32)), **OFF)
    assert normalize(on) == normalize(off)
    assert any("its result is read by the full-size" in d for d in decisions)


@pytest.mark.usefixtures("unseen_reader")
def test_a_reduction_read_in_a_later_loop_keeps_the_grid_barrier_on_a_resident_grid():
    src = interpret.generate(reads_its_own_sum, interpret.fake_inputs(((ROWS, COLS), torch.float32)), **ON)
    (kernel,) = interpret.kernel_sources(src).values()
    assert "x_grid_barrier" in kernel and "'launch_cooperative_grid': True" in kernel
    launch = fixed_launch(kernel)
    programs = launch["RSPLIT"] * -(-COLS // launch["XBLOCK"])
    assert launch["RSPLIT"] > 1 and programs <= 132  # one program per SM is always co-resident


@pytest.mark.usefixtures("unseen_reader")
def test_a_grid_barrier_kernels_rsplit_above_32_is_even():
    """bf16[8192, 256]: 4 column blocks, so one program per SM over them is RSPLIT 33, whose finish loads its partials
    as scalars (195 registers against 128 at 32, ptxas; a review): rounded down as one wave's is."""
    src = interpret.generate(reads_its_own_sum, interpret.fake_inputs(((8192, 256), torch.bfloat16)), **ON)
    (kernel,) = interpret.kernel_sources(src).values()
    assert "x_grid_barrier" in kernel and fixed_launch(kernel)["RSPLIT"] == 32


@pytest.mark.usefixtures("unseen_reader")
def test_a_grid_barrier_kernel_whose_column_blocks_fill_the_gpu_is_launched_as_an_ordinary_grid():
    """With more column blocks than SMs the barrier kernel gets RSPLIT 1: it has no barrier to wait on, and a
    cooperative launch of its grid (more programs than are resident at once) would be refused on the GPU."""
    rows, cols = 64, 200 * 64  # 200 column blocks of 64 on the fake H200's 132 SMs
    x = torch.randn(rows, cols, generator=torch.Generator().manual_seed(1))
    src = interpret.generate(reads_its_own_sum, interpret.fake_inputs(((rows, cols), torch.float32)), **ON)
    (kernel,) = interpret.kernel_sources(src).values()
    launch = fixed_launch(kernel)
    assert launch["RSPLIT"] == 1 and -(-cols // launch["XBLOCK"]) > 132
    assert "'launch_cooperative_grid': False" in kernel and "x_grid_barrier" in kernel
    out = interpret.run_on_cpu(src, [x])
    ref = reads_its_own_sum(x.double())
    assert torch.equal(families.bits(out[0]), families.bits(x.t().contiguous()))
    for got, want in zip(out[1:], ref[1:]):
        assert families.rel_err(got, want) <= families.TOLERANCE[torch.float32]


def sum_and_argmax(x):
    return x.t().contiguous(), x.sum(0), x.argmax(0)


def sum_and_count(x):
    return x.t().contiguous(), x.sum(0), (x > 0).sum(0)


@pytest.mark.parametrize("fn,rows,dtype,launch,rows_of_partials", [
    (sum_and_argmax, 1001, torch.bfloat16, "RSPLIT=3", 3),  # bf16 values (198 bytes), then int32 indices
    # odd C and N, chunked: fp32 sums (33 x 17 x 4), then int64 counts (the last-program finish: a small site's
    # default is the separate finish)
    (sum_and_count, 2111, torch.float32, "SEPARATE_FINISH=0", 2),
])
def test_every_workspace_row_starts_16_byte_aligned(fn, rows, dtype, launch, rows_of_partials):
    """Stock packs the partials rows back to back: a bf16 argmax value row of 33 x 3 x 2 = 198 bytes put the int32
    index row at byte 594, and 2244 bytes of fp32 sums put an int64 row at byte 2244.  Every row now starts at a
    multiple of 16 (the argmax's numerics run on the GPU: test_gpu.py::test_argmax_beside_the_sum_on_gpu).  (With one
    reduction and row tiles the fp32 sums are flagged words in the semaphores buffer instead: see the tests below.)"""
    src = interpret.generate(fn, interpret.fake_inputs(((rows, 33), dtype)), **ON,
                             reduction_transpose_fusion_launch_config=launch)
    (kernel,) = interpret.kernel_sources(src).values()
    offsets = [int(o) for o in re.findall(r"\(ws_ptr \+ (\d+)\)", kernel)]
    assert len(offsets) == rows_of_partials and all(o % 16 == 0 for o in offsets), offsets


def reads_its_sum_later(x):
    s = x.sum(0)
    return x.t().contiguous(), s, x / s


@pytest.mark.usefixtures("unseen_reader")
def test_a_grid_barrier_kernel_with_odd_c_and_n_keeps_the_one_wave_rsplit():
    """Row tiles a program are for the last-program finish only: a kernel whose sum is read in a later loop keeps the
    one-wave RSPLIT (<= 64), capped at one program per SM over the column blocks."""
    src = interpret.generate(reads_its_sum_later, interpret.fake_inputs(((16383, 31), torch.float32)), **ON)
    (kernel,) = interpret.kernel_sources(src).values()
    launch = fixed_launch(kernel)
    assert "x_grid_barrier" in kernel and "rsplit_ks" not in kernel and launch["RSPLIT"] == 64


def test_one_row_tile_a_program_is_a_persistent_kernel_without_a_ticket():
    """bf16[8192, 14336]: one wave would split the rows in two, so one row tile a program: no loop, no
    ``[XBLOCK, R0_BLOCK]`` accumulator, no R0_BLOCK argument; the partials are flagged words in the semaphores
    buffer (no workspace), the finisher is the last program in launch order, and no atomic is left."""
    (kernel,) = interpret.kernel_sources(generate("F1-t", "bf16", 8192, 14336, **ON)).values()
    launch = fixed_launch(kernel)
    assert "R0_BLOCK" not in launch and launch["RSPLIT"] == 8192 // 128
    assert "for r0_offset" not in kernel and "R0_BLOCK : tl.constexpr" not in kernel
    body = kernel[kernel.index("@triton.jit"):]
    assert "ws_ptr" not in body and "atomic" not in body
    assert LAUNCH_ORDER_FINISHER in kernel and "volatile=True" in kernel


def test_one_row_tile_a_program_with_dynamic_rows_is_a_grid_of_row_tiles():
    """The persistent kernel's R0_BLOCK is a constexpr computed from N, so a dynamic N cannot have it; the kernel
    launches one program per row tile instead (RowTileGrid, RSPLIT from the grid, the row loop written once) and
    sizes its flagged words from N."""
    case = families.CASES["F1-t"]
    src = interpret.generate(case.fn, interpret.fake_inputs(*case.specs(8192, 14336, torch.bfloat16), dynamic=(0,)),
                             **ON)
    (kernel,) = interpret.kernel_sources(src).values()
    assert "for r0_offset" not in kernel and LAUNCH_ORDER_FINISHER in kernel and RSPLIT_FROM_GRID in kernel
    assert "'grid_type': 'RowTileGrid'" in kernel and fixed_launch(kernel)["R0_BLOCK"] == 128
    # a program's rows are one tile, with no division by RSPLIT, and its loads carry no eviction hint (as the
    # persistent kernel's: 7-13% faster on the H200)
    assert ONE_TILE_CHUNK_LINE in kernel and "// RSPLIT" not in kernel and EVICT_FIRST not in kernel
    assert re.search(r"semaphores_rtf_cuda_0 = empty_strided_cuda\(\(\d+ \+ 14336\*\(\(127 \+ s\d+\) // 128\)", src), src


def test_the_last_row_tile_is_shifted_only_where_the_row_mask_masks_nothing_else():
    """The shifted last tile drops the row mask from loads and stores and makes it the program's own rows for the
    accumulators; a body that uses the row mask anywhere else (a masked value that is stored) keeps the masked
    tile, since the rows two programs share would be written with different values."""
    body = ["r0_index = r0_offset + r0_base", "r0_mask = r0_index < r0_numel", "r0_1 = r0_index",
            "tmp0 = tl.load(in_ptr0 + (x0 + 64*r0_1), r0_mask & xmask, other=0.0)",
            "_tmp2 = tl.where(r0_mask & xmask, tmp0, _tmp2)", "tl.store(out_ptr0 + (r0_1 + ks0*x0), tmp0, r0_mask)"]
    shifted = _shift_last_tile(body)
    assert shifted[1] == "r0_mask = r0_index >= rsplit_start  # the rows before are the tile before's"
    assert shifted[3].endswith(", xmask, other=0.0)") and shifted[5].endswith(", xmask)") and shifted[4] == body[4]
    assert _shift_last_tile([*body, "tmp5 = tl.where(r0_mask, tmp0, 0.0)"]) is None
    assert _shift_last_tile(body[:1] + body[2:]) is None  # no row mask line


def test_the_wide_fp8_cast_keeps_its_row_mask():
    """The shift cost the wide fp32 -> fp8 cast's row-tile kernel registers (215 against 124, sm_90a): 1-byte
    kernels keep the masked last tile."""
    case = families.CASES["F5-fp8-cast-transpose-dbias"]
    fake = interpret.fake_inputs(*case.specs(4096, 30522, torch.float32), dynamic=(0,))
    (kernel,) = interpret.kernel_sources(interpret.generate(case.fn, fake, **ON)).values()
    assert "'grid_type': 'RowTileGrid'" in kernel and SHIFTED_OFFSET_LINE not in kernel


@pytest.mark.parametrize("cols,xblock,warps", [(30522, 128, 8), (32000, 64, 4)])
def test_a_static_n_puts_the_wide_fp32_to_fp8_cast_on_the_row_tile_grid(cols, xblock, warps):
    """The wide fp32 -> fp8 cast, left to stock with N static until 2026-12-01 (rule 3b: 0.99x fused on
    one wave), now fuses with the default flags onto one program per row tile (1.18x faster than stock for
    [4096, 30522], sweeps/2026-12-01-h200-sweep-staticgrid.csv), with the plain X64 tile on 4 warps where the fp8
    rows are 16-byte aligned; the 1-byte kernel keeps its row mask (no shifted tile)."""
    (kernel,) = interpret.kernel_sources(generate("F5-fp8-cast-transpose-dbias", "fp32", 4096, cols,
                                                  reduction_transpose_fusion=True)).values()
    launch = fixed_launch(kernel)
    assert "'grid_type': 'RowTileGrid'" in kernel and ONE_TILE_CHUNK_LINE in kernel and "for r0_offset" not in kernel
    assert (launch["XBLOCK"], launch["num_warps"], launch["RSPLIT"]) == (xblock, warps, 4096 // launch["R0_BLOCK"])
    assert SHIFTED_OFFSET_LINE not in kernel


def test_a_dynamic_n_is_cast_to_int32_in_an_int32_kernel():
    """Inductor passes dynamic sizes as int64 even to a kernel it indexes in int32 (having guarded that every buffer
    fits), which cost LayerNorm backward's one-wave kernel 13-21% on the H200; the fused kernel casts them to int32
    first thing where the launch says so (not on the wide path, runtime/triton_heuristics.py).  Not where the kernel
    indexes in int64 (more than 2**31 elements), and not with the flag off."""
    case = families.CASES["F3-layernorm-backward"]

    def kernel(rows, cols, dtype, **options):
        fake = interpret.fake_inputs(*case.specs(rows, cols, dtype), dynamic=(0,))
        return "\n".join(interpret.kernel_sources(interpret.generate(case.fn, fake, **options)).values())

    fused = kernel(25216, 768, torch.float32, **ON)
    assert re.search(r"^def \w+\(.*\bks0\b.*\):\n    ks0 = ks0\.to\(tl\.int32\)", fused, re.M), fused
    assert "ks0 = ks0.to(tl.int32)" not in kernel(25216, 768, torch.float32, **OFF)
    wide = kernel(4096, 30522, torch.float32, **ON)  # the wide path: Inductor's int64 (11% faster than int32)
    assert "ks0 = ks0.to(tl.int32)" not in wide
    assert "ks0 = ks0.to(tl.int32)" in kernel(4096, 30522, torch.float32, **ON,
                                              reduction_transpose_fusion_launch_config="INT32_SIZES=1")
    huge = kernel(65536, 50257, torch.bfloat16, **ON)  # 3.3e9 elements
    assert "'xnumel': 'i64'" in huge and ".to(tl.int32)" not in huge.split("xnumel =")[0]


@pytest.mark.slow
def test_the_row_tile_grid_kernel_has_the_registers_of_a_persistent_one():
    """The looped kernel keeps an [XBLOCK, R0_BLOCK] fp32 accumulator live across its loop: bf16[8192, 50257] with
    N dynamic compiled to 128 registers with 1 or 4 row tiles a program (8 warps: 2 programs an SM), against 48 for
    the static persistent kernel of the same tile.  One program per row tile, straight-line: 64 (sm_90a, ptxas on
    CPU)."""
    case = families.CASES["F1-t"]
    kernels = {}
    for label, dims, launch in (("static", (), ""), ("row tiles", (0,), ""), ("looped", (0,), "TILES_PER_PROGRAM=4")):
        fake = interpret.fake_inputs(*case.specs(8192, 50257, torch.bfloat16), dynamic=dims)
        options = {**ON, "reduction_transpose_fusion_launch_config": launch}
        (name, source), = interpret.kernel_sources(interpret.generate(case.fn, fake, **options)).items()
        kernels[label] = [name, source]
    regs = {label: usage["registers"] for label, usage in compile_for_sm90(kernels).items()}
    assert regs["row tiles"] <= regs["static"] + 24 and regs["looped"] >= regs["row tiles"] + 32, regs


@pytest.mark.slow
def test_the_shifted_row_tile_kernel_has_the_registers_of_a_persistent_one():
    """With N dynamic the row-tile kernel's last tile may be partial, and its row mask on every load and store took
    bf16[32768, 14336]'s kernel to 115 registers (4 warps: 4 programs an SM); with the last tile shifted to end at row N
    it takes 53, against 64 for the static persistent kernel of the same X64 tile (sm_90a, ptxas on CPU)."""
    case = families.CASES["F1-t"]
    kernels = {}
    for label, dims, shift in (("static", (), True), ("shifted", (0,), True), ("masked", (0,), False)):
        fake = interpret.fake_inputs(*case.specs(32768, 14336, torch.bfloat16), dynamic=dims)
        options = {**ON, "reduction_transpose_fusion_launch_config": "XBLOCK=64"}
        with unittest.mock.patch.object(choices_module, "_rows_fill_a_tile", lambda rows, rblock: shift):
            (name, source), = interpret.kernel_sources(interpret.generate(case.fn, fake, **options)).items()
        assert (SHIFTED_OFFSET_LINE in source) == (label == "shifted"), label
        kernels[label] = [name, source]
    regs = {label: usage["registers"] for label, usage in compile_for_sm90(kernels).items()}
    assert regs["shifted"] <= regs["static"] + 8 and regs["masked"] >= regs["shifted"] + 32, regs


def test_several_reductions_with_row_tiles_keep_the_ticket():
    """fp32 sums and int64 counts with odd C and N: two row tiles a program, the chunked finish, but no flagged words
    (several reductions); the ticket's winner (any program: the interpreter shuffles them) reads both workspaces.
    (The last-program finish: the default for this small site is the separate finish.)"""
    x = torch.randn(2111, 33, generator=torch.Generator().manual_seed(5))
    src = interpret.generate(sum_and_count, interpret.fake_inputs(((2111, 33), torch.float32)), **ON,
                             reduction_transpose_fusion_launch_config="SEPARATE_FINISH=0")
    (kernel,) = interpret.kernel_sources(src).values()
    assert "rsplit_ks" in kernel and "_words" not in kernel and "atomic_add" in kernel
    out = interpret.run_on_cpu(src, [x])
    assert torch.equal(out[0], x.t().contiguous()) and torch.equal(out[2], (x > 0).sum(0))
    assert families.rel_err(out[1], x.double().sum(0)) <= families.TOLERANCE[torch.float32]


def transposed_and_amax(x):
    return x.t().contiguous(), x.amax(0)


def transposed_and_amin(x):
    return x.t().contiguous(), x.amin(0)


@pytest.mark.parametrize("group", [0, 16], ids=["one-level", "groups-of-16"])
@pytest.mark.parametrize("fn,reduce", [(families.f1_t, "sum"), (transposed_and_amax, "amax"),
                                       (transposed_and_amin, "amin")], ids=["sum", "amax", "amin"])
@pytest.mark.parametrize("special", [float("nan"), float("inf"), float("-inf"), -0.0])
def test_flagged_partials_carry_nan_inf_and_negative_zero(fn, reduce, special, group):
    """A partial's word is its fp32 bits + 1 (NaN made canonical first), never 0: column 3 holds the special value in
    every row, so every program's partial of it is that value; the other columns reduce as usual.  RSPLIT 33 (odd C
    and N, one row tile a program) is one level under the default FINISH_GROUP (64); with groups of 16 the last
    program of each group re-encodes its group's result as a word, and the finisher combines the three group words.
    The interpreter runs each group's last program after its group and the finisher after its column block, the
    rest shuffled, and checks the semaphores buffer is zero again after the kernel.  (The last-program finish: the
    default for this small site is the separate finish.)"""
    rows, cols = 2111, 33
    x = torch.randn(rows, cols, generator=torch.Generator().manual_seed(7))
    x[:, 3] = special
    launch = f"FINISH_GROUP={group}" if group else "SEPARATE_FINISH=0"
    src = interpret.generate(fn, interpret.fake_inputs(((rows, cols), torch.float32)),
                             **ON, reduction_transpose_fusion_launch_config=launch)
    (kernel,) = interpret.kernel_sources(src).values()
    assert LAUNCH_ORDER_FINISHER in kernel and finish_group_of(kernel) == group and "'RSPLIT': 33," in kernel
    if group:
        assert "tl.range(0, 3, 16)" in kernel  # the finisher reads ceil(33 / 16) group words a column
    t, out = interpret.run_on_cpu(src, [x])
    assert torch.equal(families.bits(t), families.bits(x.t().contiguous()))
    want = getattr(x.double(), reduce)(0)
    assert torch.equal(out.isnan(), want.isnan())
    assert torch.equal(families.bits(out[3]), families.bits(want[3].float())) or want[3].isnan()
    keep = torch.arange(cols) != 3
    assert families.rel_err(out[keep], want[keep]) <= families.TOLERANCE[torch.float32]


def test_one_level_flagged_finish_up_to_one_group():
    """With RSPLIT at most FINISH_GROUP (64) the flagged finish stays one level: the finisher reads the RSPLIT words."""
    (kernel,) = interpret.kernel_sources(generate("F1-t", "bf16", 8192, 14336, **ON)).values()  # RSPLIT 64
    assert LAUNCH_ORDER_FINISHER in kernel and finish_group_of(kernel) == 0
    (kernel,) = interpret.kernel_sources(generate("F1-t", "bf16", 8320, 14336, **ON)).values()  # RSPLIT 65
    assert finish_group_of(kernel) == 64 and "tl.range(0, 2, 16)" in kernel


def barrier_then_fused(x, y):
    s = x.sum(0)
    return x.t().contiguous(), s, x * s, y.t().contiguous(), y.sum(0)


@pytest.mark.usefixtures("unseen_reader")
def test_last_program_finish_kernels_do_not_share_the_grid_barriers_semaphores():
    """Inductor's grid barrier leaves its semaphore words at 0x80000000, not 0 (it flips bit 31); a ticket or flagged
    words on the same buffer after it would never see its count or would read a stale word as a partial.  The
    barrier kernel keeps Inductor's ``semaphores_cuda_0``; the last-program-finish kernels get their own buffer,
    zeroed once per call like it (found by a review, 2026-11-30).  (The second site is small: it takes the
    last-program finish by the expert's key, not the separate finish, which has no semaphores.)"""
    src = interpret.generate(barrier_then_fused, interpret.fake_inputs(((1000, 2560), torch.float32),
                                                                       ((2111, 33), torch.float32)), **ON,
                             reduction_transpose_fusion_launch_config="SEPARATE_FINISH=0")
    kernels = interpret.kernel_sources(src)
    barrier = [n for n, k in kernels.items() if "x_grid_barrier" in k]
    finish = [n for n, k in kernels.items() if LAUNCH_ORDER_FINISHER in k]
    assert len(barrier) == 1 and len(finish) == 1, list(kernels)
    launches = dict(kernel_launches(src))
    assert "semaphores_cuda_0" in launches[barrier[0]] and "semaphores_cuda_0" not in launches[finish[0]]
    assert "semaphores_rtf_cuda_0" in launches[finish[0]]
    assert "semaphores_cuda_0.zero_()" in src and "semaphores_rtf_cuda_0.zero_()" in src


@pytest.mark.parametrize("rows,cols", [(64, 8_400_000), (127, 2_100_001)])
@pytest.mark.parametrize("dynamic", [(), (1,)], ids=["static", "dynamic-C"])
def test_more_column_blocks_than_the_grid_y_limit_keep_inductors_own_launch(rows, cols, dynamic):
    """65625 or 65626 column blocks of the fused launch would exceed CUDA's gridDim.y of 65535 (found by the
    review, 2026-11-30): the kernel keeps Inductor's launch of the unsplit reduction, whose grid puts the
    column blocks in dim 0.  A dynamic C whose hint is that large too (a smaller one fuses under a guard on C)."""
    src = interpret.generate(families.f1_t, interpret.fake_inputs(((rows, cols), torch.bfloat16), dynamic=dynamic),
                             **ON)
    (kernel,) = interpret.kernel_sources(src).values()
    assert "fixed_config" not in kernel and "CooperativeReductionGrid" not in kernel
    assert "'grid_type': 'Grid1D'" in kernel


def row_loop(kernel_source: str) -> str:
    """The generated kernel's row loop: its header and the lines indented under it."""
    lines = kernel_source.split("\n")
    start = next(i for i, line in enumerate(lines) if line.strip().startswith("for r0_offset in"))
    indent = len(lines[start]) - len(lines[start].lstrip()) + 4
    end = next((i for i in range(start + 1, len(lines)) if not lines[i].startswith(" " * indent)), len(lines))
    return "\n".join(lines[start:end])


def test_the_prefetched_loop_issues_the_next_tiles_loads_before_the_current_tiles_compute():
    (kernel,) = interpret.kernel_sources(generate("F2-gelu-backward", "bf16", **ON)).values()
    loop = row_loop(kernel)
    loads = [line.strip() for line in loop.split("\n") if "tl.load(" in line]
    assert len(loads) == 2 and all(re.match(r"tmp\d+_next = tl\.load\(in_ptr\d \+ \(x0 \+ 3072\*r0_1_next\), "
                                            r"r0_mask_next,", load) for load in loads)
    # the loads come before the tanh, and the prologue before the loop loads the chunk's first tile
    assert loop.index("tl.load(") < loop.index("libdevice.tanh") and kernel.count("tl.load(in_ptr0") == 2
    assert kernel.index("r0_offset_next = tl.where(rsplit_start < rsplit_end") < kernel.index("for r0_offset in")
    off = interpret.kernel_sources(generate("F2-gelu-backward", "bf16",
                                            reduction_transpose_fusion_launch_config="PREFETCH=0", **ON))
    assert "r0_offset_next" not in next(iter(off.values()))


def input_loads(kernel: str) -> list[str]:
    return [line.strip() for line in kernel.split("\n") if "tl.load(in_ptr" in line]


@pytest.mark.parametrize("rows,cols,hint", [
    (8192, 4096, False),  # 192 MiB moved (two bf16 inputs read, the transposed copy written): no hint
    (4096, 768, True),  # 18 MiB: Inductor's hint
])
def test_a_looped_kernel_moving_120_mib_or_more_loads_without_the_evict_first_hint(rows, cols, hint):
    (kernel,) = interpret.kernel_sources(generate("F3-layernorm-backward", "bf16", rows, cols, **ON)).values()
    assert "for r0_offset in" in kernel  # the looped one-wave kernel
    loads = input_loads(kernel)
    assert len(loads) == 2 and all((EVICT_FIRST in load) is hint for load in loads)
    forced = interpret.kernel_sources(generate("F3-layernorm-backward", "bf16", rows, cols, **ON,
                                               reduction_transpose_fusion_launch_config=f"EVICT_FIRST={int(hint)}"))
    assert all((EVICT_FIRST in load) is hint for load in input_loads(next(iter(forced.values()))))


def test_without_the_evict_first_hint_only_the_input_loads_lose_it():
    (kernel,) = interpret.kernel_sources(generate("F5-fp8-cast-transpose-dbias", "bf16", 4096, 3072, **ON,
                                                  reduction_transpose_fusion_launch_config="EVICT_FIRST=0")).values()
    # the workspace's peers load keeps its hint; the input loads lose theirs
    assert all(EVICT_FIRST not in load for load in input_loads(kernel)) and EVICT_FIRST in kernel


def test_cache_hints_drop_the_hint_from_input_loads_only():
    kernel = LOOP.format(second="tmp1 = tmp0 * tl.load(ws_ptr + (x0), None" + EVICT_FIRST + ")").replace(
        "tl.load(in_ptr0 + (x0 + 64*r0_1), None)", "tl.load(in_ptr0 + (x0 + 64*r0_1), None" + EVICT_FIRST + ")")
    dropped = cache_hints(kernel)
    assert "tl.load(in_ptr0 + (x0 + 64*r0_1), None)" in dropped and dropped.count(EVICT_FIRST) == 1  # ws_ptr's kept
    assert "cache_modifier" not in dropped and dropped.count("tl.store(") == kernel.count("tl.store(")
    # an input Inductor overwrites in place (in_out_ptr) is a full-size input too (review)
    in_place = kernel.replace("in_ptr0", "in_out_ptr0").replace("tl.store(out_ptr0", "tl.store(in_out_ptr0")
    assert "tl.load(in_out_ptr0 + (x0 + 64*r0_1), None)" in cache_hints(in_place)


@pytest.mark.parametrize("name,dtype,launch", [
    ("F3-layernorm-backward", "bf16", ""),  # two reductions: not heavy, no prefetch
    ("F1-t", "bf16", "PREFETCH=1,TILES_PER_PROGRAM=1"),  # the persistent kernel has no loop to prefetch
])
def test_kernels_that_do_not_prefetch(name, dtype, launch):
    (kernel,) = interpret.kernel_sources(generate(name, dtype, reduction_transpose_fusion_launch_config=launch,
                                                  **ON)).values()
    assert "r0_offset_next" not in kernel


LOOP = """\
    for r0_offset in tl.range(rsplit_start, rsplit_end, R0_BLOCK):
        r0_index = r0_offset + r0_base
        r0_1 = r0_index
        tmp0 = tl.load(in_ptr0 + (x0 + 64*r0_1), None)
        {second}
        tl.store(out_ptr0 + (r0_1 + 64*x0), tmp1, None)
    tmp2 = tl.sum(_tmp3, 1)[:, None]"""


@pytest.mark.parametrize("second", [
    "tmp1 = tl.load(in_ptr1 + (tmp0), None)",  # an indirect load
    "tmp1 = tmp0 * tl.load(in_ptr1 + (x0 + 64*r0_1), None)",  # a load after compute
    "\n        tmp1 = tmp0 * tl.load(in_ptr1 + (x0 + 64*r0_1), None)",  # the same after a blank line
    "tmp1 = tmp0 * tmp0\n        x0 = x0 + 1",  # a name the loads read, reassigned further on (a block pointer)
])
def test_loops_the_prefetch_cannot_rewrite_are_left_alone(second):
    assert prefetch_row_loop(LOOP.format(second=second)) is None
    assert prefetch_row_loop(LOOP.format(second="tmp1 = tmp0 * tmp0")) is not None


def test_block_pointers_are_left_to_stock():
    """Inductor's block pointers (triton.use_block_ptr) start every program of a cooperative row split at row 0, and
    the loop advances them with tl.advance (review, 2026-11-30: wrong transposed copies with RSPLIT > 1,
    and with the prefetch a stale tile): such sites are left to stock, which splits the reduction."""
    with decision_log() as decisions:
        on = generate("F2-gelu-backward", "bf16", **ON, **{"triton.use_block_ptr": True})
    assert any(d.startswith("skip ") and "triton.use_block_ptr" in d for d in decisions), decisions
    off = generate("F2-gelu-backward", "bf16", **OFF, **{"triton.use_block_ptr": True})
    assert len(kernel_launches(on)) == len(kernel_launches(off)) >= 2
    assert all("rsplit" not in src for src in interpret.kernel_sources(on).values())


@pytest.mark.parametrize("name,xblock", [("F1-t", 64), ("F4-flatten", 64), ("F2-mul-add", 128)])
def test_the_persistent_tile_widens_where_the_kernel_moves_a_lot(name, xblock):
    """bf16[65536, 1024], one row tile a program: a copy (flattened from 3-D or not) moves 4 bytes an element, 256 MiB,
    and keeps X64; ``a * b + 1`` moves 6, 384 MiB, and takes X128 (bigtile2 sweep: 1.139 -> 1.087x copy SOL).  The
    bytes come from the kernel's distinct full-size buffers (``choices._itemsizes``)."""
    (kernel,) = interpret.kernel_sources(generate(name, "bf16", 65536, 1024, **ON)).values()
    assert fixed_launch(kernel)["XBLOCK"] == xblock and "for r0_offset" not in kernel


def realized_producer(a, b, c, d, e):
    z = a * b + c * d + e  # more than four reads: Inductor realizes z as a buffer the fused kernel never stores
    return z.t().contiguous(), z.sum(0)


@pytest.mark.parametrize("what", ["dynamic C", "a buffer held in registers"])
def test_no_wider_tile_where_it_was_not_measured(what):
    """A dynamic C (the X128 kernel compiled to 255 registers and spilled) and the bytes moved counted from memory
    only: z = a * b + c * d + e over bf16[1792, 14336] moves 5 x 2 + 2 = 12 bytes an element, 294 MiB; z's own buffer
    (2 more, 343 MiB) is never stored (review, 2026-11-30)."""
    if what == "dynamic C":
        case = families.CASES["F1-t"]
        fake = interpret.fake_inputs(*case.specs(32768, 14336, torch.bfloat16), dynamic=(1,))
        src = interpret.generate(case.fn, fake, **ON)
    else:
        src = interpret.generate(realized_producer, interpret.fake_inputs(*[((1792, 14336), torch.bfloat16)] * 5),
                                 **ON)
    (kernel,) = [k for k in interpret.kernel_sources(src).values() if "sem_ptr" in k]
    # a dynamic C not proven a multiple of 16 has scalar loads, so its tile is narrower still (choices._vector_cols)
    assert fixed_launch(kernel)["XBLOCK"] == (32 if what == "dynamic C" else 64) and "for r0_offset" not in kernel


def four_input_producer(a, b, c, d):
    y = a * b + c * d
    return y.t().contiguous(), y.sum(0)


@pytest.mark.slow
def test_the_wider_persistent_tile_compiles_without_spills():
    """X128 R128 on 4 warps is 128 tile elements a thread: on the H200 a copy compiled to 121-123 registers and
    ``a * b + 1`` to 189-195 (bigtile sweeps); more inputs must not spill either (sm_90a, ptxas on CPU)."""
    kernels = {}
    for label, fn, inputs in (("copy", families.f1_t, 1), ("a*b+c*d", four_input_producer, 4)):
        fake = interpret.fake_inputs(*[((32768, 4096), torch.bfloat16)] * inputs)
        (name, src), = interpret.kernel_sources(interpret.generate(fn, fake, **ON)).items()
        assert fixed_launch(src)["XBLOCK"] == 128 and "for r0_offset" not in src
        kernels[label] = [name, src]
    for label, usage in compile_for_sm90(kernels).items():  # ptxas puts spills in the stack frame
        assert usage["spill_bytes"] == usage["stack_bytes"] == 0 and 0 < usage["registers"] <= 255, (label, usage)


@pytest.mark.parametrize("rows,cols", [(8191, 1021), (8191, 4096), (25229, 3067)])
def test_the_logged_persistent_tile_is_the_one_the_kernel_computes(rows, cols):
    """The persistent kernel computes its R0_BLOCK from RSPLIT (``next_power_of_2(ceil(N / RSPLIT))``).  Where the
    partials budget capped RSPLIT that was twice the logged R0_BLOCK and 17 of 81 programs a column block got no rows
    (bf16[8191, 1021] and [8191, 4096]; review, 2026-11-30); the log and the launch now agree."""
    with decision_log() as records:
        src = generate("F1-t", "fp32" if cols == 3067 else "bf16", rows, cols, **ON)
    (kernel,) = interpret.kernel_sources(src).values()
    (logged,) = [re.search(r"R0_BLOCK=(\d+), RSPLIT=(\d+)", r) for r in records if r.startswith("fused ")]
    r0_block, rsplit = int(logged.group(1)), int(logged.group(2))
    assert f"'RSPLIT': {rsplit}" in kernel
    assert f"R0_BLOCK: tl.constexpr = triton_helpers.constexpr_next_power_of_2(({rows} + RSPLIT - 1) // RSPLIT)" in kernel
    assert r0_block == next_power_of_2(-(-rows // rsplit)) and rsplit == -(-rows // r0_block)


def test_the_guarded_dynamic_n_stores_16_byte_vectors():
    """With N dynamic, the transposed copy's stores are 16-byte vectors (PTX ``st.global.v4.b32``, sm_90a) when N's
    hint is a multiple of 16 (guarded to stay one, ``choices._vector_rows``) and 2-byte scalars when it is not."""
    case = families.CASES["F1-t"]
    kernels = {}
    flattened = families.CASES["F4-flatten"]  # [2, T, C] with T dynamic: N = 2 T
    for label, fn, shape, dims in (("guarded", case.fn, (4096, 1024), (0,)), ("unguarded", case.fn, (4104, 1024), (0,)),
                                   ("guarded 2T", flattened.fn, (2, 2048, 1024), (1,))):
        fake = interpret.fake_inputs((shape, torch.bfloat16), dynamic=dims)
        (name, source), = interpret.kernel_sources(interpret.generate(fn, fake, **ON)).items()
        kernels[label] = [name, source]
    stores = {label: usage["global_stores"] for label, usage in compile_for_sm90(kernels).items()}
    for label in ("guarded", "guarded 2T"):
        assert stores[label].get("v4.b32", 0) >= 4 and stores[label].get("b16", 0) <= 2, stores
    assert stores["unguarded"].get("b16", 0) >= 16, stores


@pytest.mark.slow
@pytest.mark.parametrize("rows,cols", [(3152, 3072), (3152, 768), (8192, 1024), (4096, 768)])
def test_the_fp32_to_fp8_cast_on_one_wave_launches_no_more_programs_than_are_resident(rows, cols):
    """One wave means every program resident at once.  The looped cast of f32 to fp8 compiled to 213-224 registers
    (sm_90a, ptxas on CPU), 2 programs of 4 warps an SM, and the 3-an-SM wave launched 300-384 programs, 1.1-1.5 waves
    of 264 (residency sweep: 7-17% slower than one true wave); [4096, 768], one full row tile a program, compiles to
    128 and keeps its 384 programs, 4 an SM resident."""
    (kernel, src), = interpret.kernel_sources(generate("F5-fp8-cast-transpose-dbias", "fp32", rows, cols, **ON)).items()
    launch = fixed_launch(src)
    (usage,) = compile_for_sm90({"cast": [kernel, src]}).values()
    resident = resident_programs(usage["registers"], launch["num_warps"])
    assert launch["RSPLIT"] * -(-cols // launch["XBLOCK"]) <= 132 * resident, (launch, usage)
