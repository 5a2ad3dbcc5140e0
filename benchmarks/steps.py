"""Real training steps with the fusion off, on, and off again: the main job's ``models`` suite (GPU only).

    python -m benchmarks.run                                   # on a GPU: this suite (every step below)
    python -m benchmarks.run --suite models --steps 'float8-mlp-*'

Each step (:data:`STEPS`) is a model built from a fixed seed, compiled with ``torch.compile`` (a fresh compile each
time: Dynamo reset, no FX-graph or AOTAutograd cache), trained by plain SGD on fixed random data.  The variants
``off``, ``on``, ``off_again`` and ``on_again`` are four fresh compiles; each ``_again`` has its flag as the first
has, and an Inductor option that changes no code (:data:`NO_OP`) so that Dynamo compiles it anew rather than serving
it the first's graph.  The speedup is the geometric mean of the two ``off`` times over that of the two ``on`` times,
and the noise is the larger spread of a pair, compile to compile: a host-bound step (the transformer block without
CUDA graphs) ran 4% apart between two compiles of the same stock code, and its fused compiles gave 0.94-1.04x of
stock in three runs where one ``off`` pair agreed to 1.6%, so one compile a side is not enough.  For each:

* the losses of the first :data:`LOSS_STEPS` steps (off and on must agree to fp32 rounding: the fused sums' order
  differs from stock's, every other output is bit-equal);
* compile seconds (the first step, forward and backward), Inductor's generated kernel count, and the sites fused
  (0: the flag changed no code, and any spread of ``on`` from ``off`` is noise);
* the median step time over :data:`TIMED_STEPS` steps after :data:`WARMUP_STEPS` warm-up steps, each step between
  two CUDA events (the step's span on the GPU, launch gaps included, as a training loop sees it); the four
  variants stay in memory and are timed in :data:`ROUNDS` interleaved rounds (:func:`time_interleaved`);
* ``host_ms``: the median CPU time to issue one step with the GPU idle at its start (:func:`host_ms`); a step whose
  ``host_ms`` is near its ``ms`` is host-bound, and its time is the launch cost on the CPU, not the kernels';
* a per-kernel attribution from ``torch.profiler`` over :data:`PROFILED_STEPS` steps: CUDA time per step of each
  kernel name (Inductor's kernel ordinal dropped, so the same fused kernel of two compiles has one name), off
  against on, so the kernels the flag removed and added and their µs are visible; with, for each Inductor kernel,
  the MB it moves a step (Inductor's estimate of its loads and stores, recorded as it compiles:
  ``_torch_private.recording_kernel_bytes``) and the copy SOL of those bytes (a device-to-device copy of the same
  bytes a launch, timed in the same run: ``harness.copy_sol_ms``), so each pass reads as a % of copy SOL.

A step may add Inductor options to all four variants (``Step.options``): the transformer block also runs under
CUDA graphs (``triton.cudagraphs``, what ``mode="reduce-overhead"`` sets), where the host's launch cost is gone.

torchao (``Float8Linear``, ``convert_to_float8_training``) and timm (ViT-B/16, random init) are needed; a step whose
package is missing is reported as skipped.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import re
import time
from typing import Any, Callable

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch._inductor import metrics

from benchmarks import harness
from reduction_transpose_fusion._torch_private import recording_kernel_bytes
from reduction_transpose_fusion_testing.logs import decision_log

LOSS_STEPS = 3
WARMUP_STEPS = 5
TIMED_STEPS = 40
ROUNDS = 4
PROFILED_STEPS = 3
# The default value of an option: a distinct option set, the same compiled code (Dynamo compiles off_again and on_again anew)
NO_OP = {"trace.enabled": False}
VARIANTS = (("off", harness.STOCK), ("on", harness.FUSED), ("off_again", harness.STOCK | NO_OP),
            ("on_again", harness.FUSED | NO_OP))
CUDAGRAPHS = {"triton.cudagraphs": True}
HOST_STEPS = 20
LR = 1e-3


@dataclasses.dataclass(frozen=True)
class Step:
    """One training step: ``build()`` returns (model, batch, loss_fn) on the GPU, from fixed seeds; ``options``:
    Inductor options every variant of the step compiles with."""

    name: str
    build: Callable[[], tuple[nn.Module, tuple, Callable]]
    description: str
    options: dict = dataclasses.field(default_factory=dict)


def _float8(model: nn.Module, recipe: str) -> nn.Module:
    """``convert_to_float8_training`` with torchao's ``recipe`` ("tensorwise" or "rowwise"), on every Linear whose
    sizes are multiples of 16 (``torch._scaled_mm``'s requirement)."""
    from torchao.float8 import Float8LinearConfig, convert_to_float8_training

    def multiples_of_16(module, fqn):
        return isinstance(module, nn.Linear) and module.in_features % 16 == 0 and module.out_features % 16 == 0

    return convert_to_float8_training(model, config=Float8LinearConfig.from_recipe_name(recipe),
                                      module_filter_fn=multiples_of_16)


def _mse(model, batch):
    x, target = batch
    return F.mse_loss(model(x).float(), target.float())


def _cross_entropy(model, batch):
    x, labels = batch
    return F.cross_entropy(model(x).float(), labels)


def float8_mlp(tokens: int, dim: int, hidden: int, recipe: str):
    """``Linear(dim, hidden) -> GELU -> Linear(hidden, dim)``, bias on, bf16, Float8 training with ``recipe``; batch
    ``[tokens, dim]`` and an MSE loss to a random target."""
    def build():
        torch.manual_seed(0)
        model = nn.Sequential(nn.Linear(dim, hidden), nn.GELU(), nn.Linear(hidden, dim))
        model = _float8(model.to(torch.bfloat16).cuda(), recipe)
        gen = torch.Generator(device="cuda").manual_seed(1)
        x = torch.randn(tokens, dim, device="cuda", dtype=torch.bfloat16, generator=gen)
        target = torch.randn(tokens, dim, device="cuda", dtype=torch.bfloat16, generator=gen)
        return model, (x, target), _mse
    return build


def vit_b16_float8(batch: int):
    """timm ``vit_base_patch16_224`` (random init, no download), bf16, Float8 tensorwise training on its Linear
    layers whose sizes are multiples of 16 (all but the 1000-class head); cross-entropy on random labels."""
    def build():
        import timm

        torch.manual_seed(0)
        model = timm.create_model("vit_base_patch16_224", pretrained=False)
        model = _float8(model.to(torch.bfloat16).cuda(), "tensorwise")
        gen = torch.Generator(device="cuda").manual_seed(1)
        images = torch.randn(batch, 3, 224, 224, device="cuda", dtype=torch.bfloat16, generator=gen)
        labels = torch.randint(0, 1000, (batch,), device="cuda", generator=gen)
        return model, (images, labels), _cross_entropy
    return build


class Block(nn.Module):
    """A pre-norm transformer block: LayerNorm, attention with biased qkv and output Linear layers, LayerNorm, and
    a biased ``dim -> 4 dim -> dim`` GELU MLP."""

    def __init__(self, dim: int, heads: int) -> None:
        super().__init__()
        self.heads = heads
        self.norm1, self.norm2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.qkv, self.proj = nn.Linear(dim, 3 * dim), nn.Linear(dim, dim)
        self.fc1, self.fc2 = nn.Linear(dim, 4 * dim), nn.Linear(4 * dim, dim)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(self.norm1(x)).view(b, t, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        attn = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(attn.transpose(1, 2).reshape(b, t, d))
        return x + self.fc2(F.gelu(self.fc1(self.norm2(x)), approximate="tanh"))


def transformer_block_float8(batch: int, seq: int, dim: int, heads: int):
    """:class:`Block` in bf16 with Float8 tensorwise Linear layers; batch ``[batch, seq, dim]``, MSE loss."""
    def build():
        torch.manual_seed(0)
        model = _float8(Block(dim, heads).to(torch.bfloat16).cuda(), "tensorwise")
        gen = torch.Generator(device="cuda").manual_seed(1)
        x = torch.randn(batch, seq, dim, device="cuda", dtype=torch.bfloat16, generator=gen)
        target = torch.randn(batch, seq, dim, device="cuda", dtype=torch.bfloat16, generator=gen)
        return model, (x, target), _mse
    return build


STEPS = (
    Step("float8-mlp-tensorwise/16384x4096x4096", float8_mlp(16384, 4096, 4096, "tensorwise"),
         "torchao Float8Linear MLP, tensorwise, tokens x dim x hidden, bias, GELU, bf16"),
    Step("float8-mlp-rowwise/16384x4096x4096", float8_mlp(16384, 4096, 4096, "rowwise"),
         "torchao Float8Linear MLP, rowwise, tokens x dim x hidden, bias, GELU, bf16"),
    Step("float8-mlp-tensorwise/8192x4096x14336", float8_mlp(8192, 4096, 14336, "tensorwise"),
         "torchao Float8Linear MLP, tensorwise, tokens x dim x hidden, bias, GELU, bf16"),
    Step("float8-mlp-rowwise/8192x4096x14336", float8_mlp(8192, 4096, 14336, "rowwise"),
         "torchao Float8Linear MLP, rowwise, tokens x dim x hidden, bias, GELU, bf16"),
    Step("vit-b16-float8/batch128", vit_b16_float8(128),
         "timm vit_base_patch16_224, random init, bf16, Float8 tensorwise Linear layers (head excluded)"),
    Step("transformer-block-float8/8x1024x1024", transformer_block_float8(8, 1024, 1024, 16),
         "pre-norm block, LayerNorm + biased Linear layers, bf16, Float8 tensorwise, batch x seq x dim"),
    Step("transformer-block-float8/8x1024x1024/cudagraphs", transformer_block_float8(8, 1024, 1024, 16),
         "the block above under CUDA graphs (triton.cudagraphs, as mode='reduce-overhead'): no host launch cost",
         CUDAGRAPHS),
    Step("transformer-block-float8/8x2048x2048", transformer_block_float8(8, 2048, 2048, 16),
         "pre-norm block, LayerNorm + biased Linear layers, bf16, Float8 tensorwise, batch x seq x dim"),
)


def compile_variant(step: Step, options: dict) -> dict[str, Any]:
    """Build ``step``'s model, compile it with Inductor ``options`` (a fresh compile: Dynamo does not reuse another
    module's graph, and ``harness.FRESH`` turns the FX-graph and autotune caches off) and train it for
    :data:`LOSS_STEPS` + :data:`WARMUP_STEPS` steps: its first losses, compile seconds, kernel count, decisions, and
    ``train_step``."""
    model, batch, loss_fn = step.build()
    harness.forget_compiled_kernels()  # the "off again" compile tunes its kernels anew, as "off" did
    compiled = torch.compile(model, options=options | step.options | harness.FRESH)
    optimizer = torch.optim.SGD(model.parameters(), lr=LR)

    def train_step():
        optimizer.zero_grad(set_to_none=True)
        loss = loss_fn(compiled, batch)
        loss.backward()
        optimizer.step()
        return loss

    metrics.reset()
    start = time.perf_counter()
    with decision_log() as decisions, recording_kernel_bytes() as recorded:
        losses = [train_step().item()]
    compile_s = time.perf_counter() - start
    kernels = metrics.generated_kernel_count
    if not kernels:  # Dynamo reused another variant's graph: it would not be this variant's code
        raise RuntimeError(f"{step.name}: the variant compiled no kernels (a cached graph was reused)")
    losses += [train_step().item() for _ in range(LOSS_STEPS - 1)]
    for _ in range(WARMUP_STEPS):
        train_step()
    torch.cuda.synchronize()
    return dict(losses=losses, compile_s=compile_s, kernels=kernels, decisions=decisions, train_step=train_step,
                launch_bytes=launch_bytes(recorded))


def launch_bytes(recorded: dict[str, list]) -> dict[str, float]:
    """{kernel name without Inductor's ordinal: bytes a launch moves} from :func:`recording_kernel_bytes`' record
    (the mean over the kernels of that name; NaN where an estimate failed)."""
    grouped: dict[str, list] = {}
    for name, sizes in recorded.items():
        grouped.setdefault(_ORDINAL.sub("", name), []).extend(sizes)
    return {name: math.nan if None in sizes else sum(sizes) / len(sizes) for name, sizes in grouped.items()}


def host_ms(train_step: Callable[[], Any]) -> float:
    """Median ms of CPU time to issue one step, over :data:`HOST_STEPS` steps, each with the GPU idle at its start
    (a synchronize before it, not timed)."""
    times = []
    for _ in range(HOST_STEPS):
        torch.cuda.synchronize()
        start = time.perf_counter()
        train_step()
        times.append((time.perf_counter() - start) * 1e3)
    torch.cuda.synchronize()
    return sorted(times)[len(times) // 2]


def fused_sites(decisions: list[str]) -> int:
    """Sites the fusion emitted as one kernel, from the decision log's ``fused ...`` lines."""
    return sum(d.startswith("fused ") for d in decisions)


def time_interleaved(variants: dict[str, dict[str, Any]]) -> None:
    """Median step ms of each variant (``ms``) over :data:`TIMED_STEPS` steps, timed in :data:`ROUNDS` rounds that
    take every variant in turn, so that a drift of the GPU's clocks or memory over the run (a first variant 17%
    slower than the same variant timed last, in a run that timed them one after the other) falls on all of them.
    Each step is timed between two CUDA events.  Then the host time of each (``host_ms``, :func:`host_ms`) and its
    kernel profile (``profile``)."""
    times: dict[str, list[float]] = {name: [] for name in variants}
    for _ in range(ROUNDS):
        for name, variant in variants.items():
            events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
                      for _ in range(TIMED_STEPS // ROUNDS)]
            variant["train_step"]()  # the first step after another model's: not timed
            for begin, end in events:
                begin.record()
                variant["train_step"]()
                end.record()
            torch.cuda.synchronize()
            times[name] += [b.elapsed_time(e) for b, e in events]
    for name, variant in variants.items():
        variant["ms"] = sorted(times[name])[len(times[name]) // 2]
        variant["host_ms"] = host_ms(variant["train_step"])
        variant["profile"] = kernel_profile(variant["train_step"])


_ORDINAL = re.compile(r"_\d+$")


def kernel_profile(train_step: Callable[[], Any]) -> dict[str, tuple[float, float]]:
    """{kernel name: (µs per step, launches per step)} over :data:`PROFILED_STEPS` steps, by ``torch.profiler``'s
    CUDA activity; Inductor's trailing kernel ordinal is dropped from each name (``triton_red_fused_sum_3`` ->
    ``triton_red_fused_sum``)."""
    from torch.profiler import ProfilerActivity, profile

    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(PROFILED_STEPS):
            train_step()
        torch.cuda.synchronize()
    totals: dict[str, list[float]] = {}
    for event in prof.events():
        if event.device_type != torch.autograd.DeviceType.CUDA:
            continue
        name = _ORDINAL.sub("", event.name)
        total = totals.setdefault(name, [0.0, 0])
        total[0] += event.device_time / PROFILED_STEPS
        total[1] += 1 / PROFILED_STEPS
    return {name: (us, n) for name, (us, n) in totals.items()}


def attribution(off: dict[str, tuple], on: dict[str, tuple], bytes_off: dict[str, float] | None = None,
                bytes_on: dict[str, float] | None = None) -> list[dict[str, Any]]:
    """Kernels whose time or launch count differs off and on: one row each, with ``change`` "removed" (fewer
    launches on), "added" (more launches on) or "same launches"; largest time difference first.  ``bytes_off`` and
    ``bytes_on`` (:func:`launch_bytes`) give each row ``bytes_off``/``bytes_on``, the bytes a launch moves (NaN for
    a kernel Inductor did not define: a GEMM, a copy), and ``mb_off``/``mb_on``, MB a step."""
    bytes_off, bytes_on = bytes_off or {}, bytes_on or {}
    rows = []
    for name in sorted(set(off) | set(on)):
        (us_off, n_off), (us_on, n_on) = off.get(name, (0.0, 0)), on.get(name, (0.0, 0))
        change = "removed" if n_on < n_off - 0.5 else "added" if n_on > n_off + 0.5 else "same launches"
        b_off, b_on = bytes_off.get(name, math.nan), bytes_on.get(name, math.nan)
        rows.append(dict(kernel=name, us_off=us_off, us_on=us_on, delta_us=us_on - us_off, launches_off=n_off,
                         launches_on=n_on, change=change, bytes_off=b_off, bytes_on=b_on, mb_off=b_off * n_off / 1e6,
                         mb_on=b_on * n_on / 1e6))
    return sorted(rows, key=lambda r: -abs(r["delta_us"]))


def with_copy_sol(rows: list[dict[str, Any]], copy_sol_us: Callable[[int], float]) -> list[dict[str, Any]]:
    """``rows`` (:func:`attribution`) with ``sol_us_off``/``sol_us_on``, the copy SOL µs a step of each kernel's
    bytes (``copy_sol_us(bytes a launch)`` times its launches a step), and ``pct_of_sol_off``/``pct_of_sol_on``,
    that SOL over the kernel's µs in %; NaN where a side has no bytes or no time."""
    out = []
    for r in rows:
        extra = {}
        for side in ("off", "on"):
            nbytes, launches, us = r[f"bytes_{side}"], r[f"launches_{side}"], r[f"us_{side}"]
            known = not math.isnan(nbytes) and nbytes > 0 and launches
            sol = copy_sol_us(int(nbytes)) * launches if known else math.nan
            extra |= {f"sol_us_{side}": sol, f"pct_of_sol_{side}": sol / us * 100 if us > 0 else math.nan}
        out.append(r | extra)
    return out


def measure(step: Step) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """(the step's result row, its kernel attribution rows) for ``step``."""
    torch._dynamo.reset()  # once: the variants' models are distinct modules, each compiled with its own options
    runs = {label: compile_variant(step, options) for label, options in VARIANTS}
    time_interleaved(runs)
    off, on, off_again, on_again = (runs[label] for label, _ in VARIANTS)
    loss_diff = max(abs(a - b) / max(abs(a), 1e-30) for a, b in zip(off["losses"], on["losses"]))
    removed = [r for r in attribution(off["profile"], on["profile"], off["launch_bytes"], on["launch_bytes"])
               if r["change"] != "same launches" or abs(r["delta_us"]) > 0.02 * max(r["us_off"], 1.0)]
    removed = with_copy_sol(removed, _copy_sol_us)
    row = dict(
        step=step.name, description=step.description,
        kernels_off=off["kernels"], kernels_on=on["kernels"], fused_sites=fused_sites(on["decisions"]),
        **step_times(off, on, off_again, on_again),
        compile_s_off=off["compile_s"], compile_s_on=on["compile_s"],
        losses_off=" ".join(f"{v:.7g}" for v in off["losses"]), losses_on=" ".join(f"{v:.7g}" for v in on["losses"]),
        loss_rel_diff=loss_diff,
        decisions=" | ".join(on["decisions"]),
    )
    runs.clear()  # the four models and their compiled graphs
    torch.cuda.empty_cache()
    return row, [dict(step=step.name) | r for r in removed]


def table(rows: list[dict[str, Any]]) -> str:
    """The real-step table: kernels, sites fused, ms off / off again and on / on again, speedup, noise (GPU span and
    host), host ms, compile seconds, loss agreement."""
    lines = ["| step | kernels off → on | sites fused | ms off / again | ms on / again | speedup | noise | "
             "host ms off / on | host noise | compile s off / on | first losses agree |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        if "error" in r and isinstance(r.get("error"), str):
            lines.append(f"| {r['step']} | {r['error'][:80]} | | | | | | | | | |")
            continue
        lines.append(f"| {r['step']} | {r['kernels_off']} → {r['kernels_on']} | {r.get('fused_sites', '')} "
                     f"| {r['ms_off']:.3f} / {r['ms_off_again']:.3f} | {r['ms_on']:.3f} / {r['ms_on_again']:.3f} "
                     f"| {r['speedup']:.3f}x | {r['noise_pct']:.1f}% | "
                     f"{r.get('host_ms_off', math.nan):.2f} / {r.get('host_ms_on', math.nan):.2f} | "
                     f"{r.get('host_noise_pct', math.nan):.1f}% | "
                     f"{r['compile_s_off']:.0f} / {r['compile_s_on']:.0f} | "
                     f"{'yes' if r['loss_rel_diff'] < 1e-4 else 'NO'} ({r['loss_rel_diff']:.1e}) |")
    return "\n".join(lines)


def step_times(off: dict[str, float], on: dict[str, float], off_again: dict[str, float], on_again: dict[str, float]
               ) -> dict[str, float]:
    """The timing columns of a step's row from its four compiles' ``ms`` and ``host_ms``: each time, the speedup
    (geometric mean of the two off compiles over that of the two on compiles), ``noise_pct`` and ``host_noise_pct``
    (the wider :func:`spread_pct` of the two pairs)."""
    times = {}
    for key in ("ms", "host_ms"):
        times |= {f"{key}_off": off[key], f"{key}_on": on[key], f"{key}_off_again": off_again[key],
                  f"{key}_on_again": on_again[key]}
    times["noise_pct"] = max(spread_pct(off["ms"], off_again["ms"]), spread_pct(on["ms"], on_again["ms"]))
    times["host_noise_pct"] = max(spread_pct(off["host_ms"], off_again["host_ms"]),
                                  spread_pct(on["host_ms"], on_again["host_ms"]))
    times["speedup"] = geomean([off["ms"], off_again["ms"]]) / geomean([on["ms"], on_again["ms"]])
    return times


def spread_pct(first: float, again: float) -> float:
    """How far ``again`` is from ``first``, in % of ``first``: the noise of two fresh compiles of the same code."""
    return abs(first - again) / first * 100


def geomean(values) -> float:
    values = [v for v in values if v == v]
    return math.exp(sum(map(math.log, values)) / len(values)) if values else math.nan


@functools.cache
def _copy_sol_us(nbytes: int) -> float:
    """µs of a device-to-device copy of ``nbytes`` (half read, half written; ``harness.copy_sol_ms``), once per size."""
    return harness.copy_sol_ms(nbytes) * 1e3
