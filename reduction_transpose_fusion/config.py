"""The package's switches, registered as entries of ``torch._inductor.config``.

Importing the package adds the entries below, so they work like Inductor's own: ``config.patch(...)``,
``torch.compile(options={...})``, the environment variables named here (read once, at import), and the FX-graph /
AOTAutograd cache keys (a changed value never reuses a compiled graph).  The entries exist only once the package is
imported: before that torch refuses them as it refuses any unknown option (``torch._inductor.config.
reduction_transpose_fusion does not exist``, ``Unexpected optimization option``).  ``import reduction_transpose_fusion``
first.  The environment variables need no import: where one is set, torch imports the package with itself (the
``torch.backends`` entry point, ``_reduction_transpose_fusion_autoload``).

Every value is checked in one place, :func:`validate`, with one message an entry, however it was set: at import for
the environment variables (the message then names the variable), and at every compile for values set in code
(``config.x = ...``, ``config.patch``, ``options=``), for graphs compiled for CUDA or the CPU, with the fusion on or
off (the package's device passes call it; a repeated check of unchanged values is one tuple comparison).

Read them at call time through :func:`enabled`, :func:`min_bytes` and :func:`launch_override`, never by caching a
value, so that ``config.patch`` in tests and user code takes effect.
"""

from __future__ import annotations

import dataclasses
import os
import re

import torch._inductor.config as inductor_config

from _reduction_transpose_fusion_autoload import ENV_PREFIX  # every variable's prefix: the autoload's test

from . import _torch_private
from .codegen.triton import FINISH_CHUNK
from .runtime.triton_heuristics import MAX_GRID_X
from .select_algorithm import TIMED_CANDIDATES


@dataclasses.dataclass(frozen=True)
class Entry:
    name: str
    default: object
    env: str
    doc: str


ENTRIES = (
    # Off by default: the fusion changes the kernels Inductor emits, so users opt in.
    Entry(
        "reduction_transpose_fusion",
        False,
        "TORCHINDUCTOR_REDUCTION_TRANSPOSE_FUSION",
        "Fuse a transposed contiguous copy of x [N, C] and reductions of x over its leading dims into one kernel.",
    ),
    # The gate.  Compared with the bytes of the tensor that is transposed: numel(x) * x.element_size(), where x is
    # the operand of the permute, in its own dtype (for q = g.to(float8); q.t().contiguous() that is q's bytes).
    # 2 KiB, about the smallest site stock splits that was measured: on the H200 what separates losses from gains is
    # stock's split and the cost model (fx_passes/profitability.py; skip_reason in fx_passes/reduction_transpose.py),
    # not the bytes.  Sites of a few rows that stock splits ran 1.9-2.0x faster fused with Inductor's own unsplit
    # launch down to bf16[158, 9] = 2.8 KiB and fp16[2, 107, 11] = 4.6 KiB (results/lab/2026-12-04-h200-random-
    # 54490917-walk.csv); the split launch ran 1.04-1.20x faster down to fp32[256, 8] = 8 KiB (the gate sweep, two
    # runs, sweeps/2026-11-30-h200-sweep-gate-run{1,2}.csv), and every site stock emits as one kernel (N <= 128) ran
    # slower fused at any size measured (7.5 KiB to 2 MiB, 0.79-0.96x).  Earlier gates: 64 MiB, 1 MiB
    # (2026-11-29-h200-corpus-forced.csv), 8 KiB (before the unsplit launch); the README has the table.
    Entry(
        "reduction_transpose_fusion_min_bytes",
        2048,
        "TORCHINDUCTOR_REDUCTION_TRANSPOSE_FUSION_MIN_BYTES",
        "Fuse only when the transposed tensor has at least this many bytes.",
    ),
    # The measured profitability rules beyond the gate (fx_passes/reduction_transpose.py, skip_reason): leave to
    # stock a site whose reduction stock does not split for a small N, and a wide copy or fp8 cast that stock already
    # emits as one kernel; both measured slower or no faster fused.  False fuses every safe site over the gate.
    Entry(
        "reduction_transpose_fusion_profitability",
        True,
        "TORCHINDUCTOR_REDUCTION_TRANSPOSE_FUSION_PROFITABILITY",
        "Apply the measured profitability rules (skip sites that ran slower fused on the H200).",
    ),
    # Expert override of the launch heuristic, e.g. "XBLOCK=64,R0_BLOCK=64,RSPLIT=16,num_warps=4,num_stages=1";
    # TILES_PER_PROGRAM=k sets RSPLIT to ceil(N / R0_BLOCK / k), capped by the 2% partials budget (RSPLIT, if also
    # given, wins; 0: one wave of looping programs); FINISH_GROUP=g (a multiple of 16) sets the programs a group of
    # the two-level flagged finish; PREFETCH=0/1 turns the looped kernel's register prefetch of the next row tile off
    # or on; with a dynamic N, INT32_SIZES=0/1 the cast of its size arguments to int32 and SHIFT_LAST_TILE=0/1 the
    # row-tile grid's last tile ending at row N; with a static N, ROW_TILE_GRID=0 keeps it off the row-tile grid and
    # =1 launches it as a dynamic N would be (runtime/triton_heuristics.py).
    # Keys left out keep the heuristic's value.  Used by the tuning sweep and by tests of odd configurations.
    Entry(
        "reduction_transpose_fusion_launch_config",
        "",
        "TORCHINDUCTOR_REDUCTION_TRANSPOSE_FUSION_LAUNCH_CONFIG",
        "Override the fused kernel's launch configuration (comma-separated KEY=INT).",
    ),

    # On by default, as Inductor times its own reductions' configs: with a GPU, each fused kernel of static shapes is
    # generated with each launch candidate (select_algorithm.py, CANDIDATES_BY_DTYPE; more under max_autotune), the
    # baseline and the candidates the cost model ranks first are timed (none where it prices the baseline fastest by a
    # margin, all of them under max_autotune), and the fastest is emitted.  False emits the cost model's first pick
    # among the default candidates, untimed (codegen/triton.py, _first_pick), for users who count compile time; a
    # launch override set above is used as given, untimed.
    Entry(
        "reduction_transpose_fusion_autotune",
        True,
        "TORCHINDUCTOR_REDUCTION_TRANSPOSE_FUSION_AUTOTUNE",
        "Time the fused kernel's launch candidates at compile time on the GPU and emit the fastest.",
    ),
    # With autotune on: how many of the launch candidates the cost model ranks fastest are timed beside the baseline
    # (select_algorithm.TIMED_CANDIDATES, none where the model prices the baseline fastest by UNTIMED_MARGIN).  -1
    # times every candidate of the kernel's class, always, as max_autotune does, but without max_autotune's wider
    # candidate space and without widening Inductor's own reduction configs (the launch Inductor's own candidate
    # runs at is then the one it runs at by default): what benchmarks.random_sites measures the ranking's accuracy
    # with.  More candidates timed cost compile time (about 0.5 s a launch on the H200 machine).
    Entry(
        "reduction_transpose_fusion_timed_candidates",
        TIMED_CANDIDATES,
        "TORCHINDUCTOR_REDUCTION_TRANSPOSE_FUSION_TIMED_CANDIDATES",
        "Time the cost model's first K launch candidates beside the baseline, and those it prices within "
        "select_algorithm.TIMED_BAND of the first (-1: every one; 0: the baseline only).",
    ),
    # On by default: with the fusion on, a small float value computed from a reduction (an fp8 cast's row or column
    # scale), or in float64 from a graph input (a rowwise backward's scale from its saved amax), is stored once
    # rather than recomputed by every element of the large op that broadcasts it (fx_passes/realize_scales.py; the
    # rowwise fp8 casts were bound by that arithmetic on the H200).  The scale's
    # bits stay stock's; an intermediate Inductor then stores differently can round differently (the module's
    # docstring).  False leaves Inductor's inlining as stock has it.
    Entry(
        "reduction_transpose_fusion_realize_scales",
        True,
        "TORCHINDUCTOR_REDUCTION_TRANSPOSE_FUSION_REALIZE_SCALES",
        "Compute a broadcast scale once instead of once per element of the op that reads it.",
    ),
    # On by default: with the fusion on, an fp8 cast's clamp to the format's largest finite value (torchao's
    # to_fp8_saturated) is dropped on GPUs whose conversion saturates by itself (compute capability 9.0), which
    # leaves every bit as it was and saves the kernel six instructions an element (fx_passes/saturating_casts.py).
    # False keeps the clamps, as stock has them.
    Entry(
        "reduction_transpose_fusion_saturating_casts",
        True,
        "TORCHINDUCTOR_REDUCTION_TRANSPOSE_FUSION_SATURATING_CASTS",
        "Drop an fp8 cast's clamp to the largest finite value where the GPU's conversion saturates.",
    ),
)

LAUNCH_KEYS = ("XBLOCK", "R0_BLOCK", "RSPLIT", "num_warps", "num_stages", "TILES_PER_PROGRAM", "FINISH_GROUP",
               "PREFETCH", "INT32_SIZES", "SHIFT_LAST_TILE", "ROW_TILE_GRID", "EVICT_FIRST", "UNSPLIT", "SEPARATE_FINISH",
               "COLUMN_TILE")
# Keys whose value is a switch, 0 or 1, not a positive count.  UNSPLIT=1: Inductor's own launch of the unsplit
# reduction (a few columns a program walk all N rows; its configs timed at the first call), alone; UNSPLIT=0: the
# package's launch.  SEPARATE_FINISH=1: the package's
# launch with the partials combined by a second kernel (no ticket, no semaphores), where the kernel allows it
# (codegen/triton.py); 0: the finish in the fused kernel's last program.  Like any key, either is an expert launch:
# the cost model no longer chooses the launch and no candidate is timed.  COLUMN_TILE=1: Inductor's
# persistent reduction, unsplit (all N rows of XBLOCK columns in one program's registers; runtime.triton_heuristics'
# column_tile), with XBLOCK and num_warps only; a site whose rows do not fit keeps the package's launch
_SWITCH_KEYS = ("PREFETCH", "INT32_SIZES", "SHIFT_LAST_TILE", "ROW_TILE_GRID", "EVICT_FIRST", "UNSPLIT",
                "SEPARATE_FINISH", "COLUMN_TILE")
# Keys that take 0 too: TILES_PER_PROGRAM=0 is one wave of looping programs
_ZERO_KEYS = ("TILES_PER_PROGRAM",)
_LAUNCH_ITEM = re.compile(r"^\s*(\w+)\s*=\s*(\d+)\s*$", re.ASCII)




def register() -> None:
    """Check the environment variables, then add every entry of :data:`ENTRIES` to ``torch._inductor.config`` with
    its variable's value.  Idempotent.  A refused variable adds no entry, so that after a failed import a value set
    in code is refused by torch as an unknown option, not kept unchecked.

    Raises:
        ValueError: ``"<ENV>='<raw>': <the entry's message>"`` for an environment variable whose value
            :func:`validate` would refuse (``TORCHINDUCTOR_REDUCTION_TRANSPOSE_FUSION_MIN_BYTES=-1`` or ``=8k``, a
            launch override with an unknown key), or a variable with the package's prefix that is none of its
            variables (a misspelling would otherwise be ignored).
    """
    values = environment_values()
    for e in ENTRIES:
        _torch_private.register_config_entry(e.name, e.default, values.get(e.name))


def environment_values() -> dict[str, object]:
    """{entry name: its environment variable's value, parsed as :func:`validate` reads it} for the variables set.

    Raises:
        ValueError: as :func:`register`.
    """
    known = {e.env for e in ENTRIES}
    unknown = sorted(name for name in os.environ if name.startswith(ENV_PREFIX) and name not in known)
    if unknown:
        raise ValueError(f"{unknown[0]}: not a variable of reduction_transpose_fusion (misspelled?); its variables "
                         f"are {', '.join(sorted(known))}")
    values = {}
    for e in ENTRIES:
        raw = os.environ.get(e.env)
        if raw is None:
            continue
        values[e.name] = _parse_env(raw, type(e.default))
        try:
            _CHECKS[e.name](values[e.name])
        except ValueError as err:
            spelled = "; an environment variable takes 1 or 0" if isinstance(e.default, bool) else ""
            raise ValueError(f"{e.env}={raw!r}: {err}{spelled}") from None
    return values


def _parse_env(raw: str, value_type: type) -> object:
    """``raw`` as ``value_type`` where it parses ("0"/"1" for a bool, decimal for an int), else ``raw`` itself, for
    the check to refuse with the same message as a value set in code."""
    if value_type is bool:
        return {"0": False, "1": True}.get(raw.strip(), raw)
    if value_type is int:
        try:
            return int(raw)
        except ValueError:
            return raw
    return raw


def validate() -> None:
    """Check the current value of every entry (:func:`enabled`, :func:`min_bytes`, :func:`profitability`,
    :func:`launch_override`): the one check, run at every compile whatever the flag and the device.  Values that
    passed stay passed: a call with the same values (and types) as the last valid ones returns at once.

    Raises:
        ValueError: the first entry's message, as its reader raises it.
    """
    global _last_valid
    values = tuple((type(v), v) for v in (getattr(inductor_config, e.name) for e in ENTRIES))
    if values == _last_valid:
        return
    for e in ENTRIES:
        _CHECKS[e.name](getattr(inductor_config, e.name))
    _last_valid = values


_last_valid: tuple = ()


def enabled() -> bool:
    """``torch._inductor.config.reduction_transpose_fusion``.

    Raises:
        ValueError: if it is not a bool, 0 or 1 (``"0"`` would be true; ``torch.compile(options=...)`` refuses it
            too).
    """
    return _switch("reduction_transpose_fusion")


def min_bytes() -> int:
    """``torch._inductor.config.reduction_transpose_fusion_min_bytes``, in bytes.

    Raises:
        ValueError: if it is negative or not an int.
    """
    return _checked("reduction_transpose_fusion_min_bytes")


def profitability() -> bool:
    """``torch._inductor.config.reduction_transpose_fusion_profitability``.

    Raises:
        ValueError: if it is not a bool, 0 or 1.
    """
    return _switch("reduction_transpose_fusion_profitability")


def autotune() -> bool:
    """``torch._inductor.config.reduction_transpose_fusion_autotune``.

    Raises:
        ValueError: if it is not a bool, 0 or 1.
    """
    return _switch("reduction_transpose_fusion_autotune")


def timed_candidates() -> int:
    """``torch._inductor.config.reduction_transpose_fusion_timed_candidates``: how many of the cost model's first
    launch candidates are timed beside the baseline; -1 for every candidate, whatever the model's margin.

    Raises:
        ValueError: if it is not an int >= -1.
    """
    return _checked("reduction_transpose_fusion_timed_candidates")


def _checked(name: str):
    """The entry's current value, through its check in :data:`_CHECKS`."""
    return _CHECKS[name](getattr(inductor_config, name))


def _check_int(name: str, value, least: int, meaning: str = "") -> int:
    """``value`` if it is an int (not a bool) of at least ``least``; else the entry's one message."""
    if not isinstance(value, int) or isinstance(value, bool) or value < least:
        raise ValueError(f"{name} must be an int >= {least}{meaning}, got {value!r}")
    return value


def realize_scales() -> bool:
    """``torch._inductor.config.reduction_transpose_fusion_realize_scales``.

    Raises:
        ValueError: if it is not a bool, 0 or 1.
    """
    return _switch("reduction_transpose_fusion_realize_scales")


def saturating_casts() -> bool:
    """``torch._inductor.config.reduction_transpose_fusion_saturating_casts``.

    Raises:
        ValueError: if it is not a bool, 0 or 1.
    """
    return _switch("reduction_transpose_fusion_saturating_casts")


def _switch(name: str) -> bool:
    return _check_switch(name, getattr(inductor_config, name))


def _check_switch(name: str, value) -> bool:
    if type(value) not in (bool, int) or value not in (0, 1):  # a string such as "0" would be true
        raise ValueError(f"{name} must be True or False (or 1 or 0), got {value!r}")
    return bool(value)


MAX_NUM_WARPS = 32  # 1024 threads, CUDA's limit for a block


def launch_override() -> dict[str, int]:
    """Parse ``reduction_transpose_fusion_launch_config`` into ``{key: int}`` (empty if unset).

    Raises:
        ValueError: if the entry is not a string; on a malformed item, an unknown or repeated key, a non-positive
            value (``PREFETCH``, ``INT32_SIZES``, ``SHIFT_LAST_TILE``, ``ROW_TILE_GRID``: not 0 or 1), a
            ``num_warps`` that is not a power of two up to 32 (Triton needs a power of two; CUDA allows 1024 threads a
            block), an ``XBLOCK`` or ``R0_BLOCK`` that is not a power of two of at least 2 (Inductor takes a fixed
            block of 1 for a dimension of one element and drops its mask, ``_has_constant_mask``,
            ``codegen/triton.py:5884``: the rows past N would be read and written; 2026-11-30), an ``RSPLIT`` past
            CUDA's grid x limit, or a ``FINISH_GROUP`` that is not a multiple of 16 (``FINISH_CHUNK``).  The tile's
            size and the workspace an ``RSPLIT`` needs are checked with the heuristic's blocks, when a site fuses
            (``launch_config``).
    """
    return _parse_launch_override(inductor_config.reduction_transpose_fusion_launch_config)


def _parse_launch_override(text) -> dict[str, int]:
    if not isinstance(text, str):
        raise ValueError(f"reduction_transpose_fusion_launch_config must be a string, got {text!r}")
    out: dict[str, int] = {}
    for item in filter(None, (s.strip() for s in text.split(","))):
        m = _LAUNCH_ITEM.match(item)
        key, value = (m.group(1), int(m.group(2))) if m else (None, None)
        if key in out:
            raise ValueError(f"reduction_transpose_fusion_launch_config: {key} is given twice ({text!r})")
        if key not in LAUNCH_KEYS or not (value in (0, 1) if key in _SWITCH_KEYS
                                                         else value >= (key not in _ZERO_KEYS)):
            raise ValueError(
                f"reduction_transpose_fusion_launch_config: bad item {item!r}; expected KEY=positive int with KEY "
                f"in {LAUNCH_KEYS} ({', '.join(_SWITCH_KEYS)}: 0 or 1; {', '.join(_ZERO_KEYS)}: 0 too, one wave), "
                "each key once"
            )
        out[key] = value
    if out.get("UNSPLIT") and len(out) > 1:
        raise ValueError(f"reduction_transpose_fusion_launch_config: UNSPLIT=1 is Inductor's own launch and takes no "
                         f"other key ({text!r})")
    if out.get("COLUMN_TILE") and out.keys() - {"COLUMN_TILE", "XBLOCK", "num_warps"}:
        raise ValueError(f"reduction_transpose_fusion_launch_config: COLUMN_TILE=1 takes only XBLOCK and num_warps "
                         f"({text!r})")
    warps = out.get("num_warps", 1)
    if warps & (warps - 1) or warps > MAX_NUM_WARPS:
        raise ValueError(f"reduction_transpose_fusion_launch_config: num_warps={warps} is not a power of two "
                         f"from 1 to {MAX_NUM_WARPS}")
    for key in ("XBLOCK", "R0_BLOCK"):
        block = out.get(key, 2)
        if block < 2 or block & (block - 1):
            raise ValueError(f"reduction_transpose_fusion_launch_config: {key}={block} is not a power of two of at "
                             "least 2")
    if out.get("RSPLIT", 1) > MAX_GRID_X:
        raise ValueError(f"reduction_transpose_fusion_launch_config: RSPLIT={out['RSPLIT']} exceeds CUDA's grid x "
                         f"limit ({MAX_GRID_X})")
    if out.get("FINISH_GROUP", 0) % FINISH_CHUNK:  # a group's finish reads FINISH_CHUNK partials rows a step
        raise ValueError(f"reduction_transpose_fusion_launch_config: FINISH_GROUP={out['FINISH_GROUP']} is not a "
                         f"multiple of {FINISH_CHUNK}")
    return out


# The check of each entry, from its value: the readers above and validate() call these, so each entry has one message
_CHECKS = {
    "reduction_transpose_fusion": lambda value: _check_switch("reduction_transpose_fusion", value),
    "reduction_transpose_fusion_min_bytes": lambda value: _check_int("reduction_transpose_fusion_min_bytes", value, 0),
    "reduction_transpose_fusion_profitability":
        lambda value: _check_switch("reduction_transpose_fusion_profitability", value),
    "reduction_transpose_fusion_launch_config": _parse_launch_override,
    "reduction_transpose_fusion_autotune": lambda value: _check_switch("reduction_transpose_fusion_autotune", value),
    "reduction_transpose_fusion_timed_candidates":
        lambda value: _check_int("reduction_transpose_fusion_timed_candidates", value, -1, " (-1: every candidate)"),
    "reduction_transpose_fusion_realize_scales":
        lambda value: _check_switch("reduction_transpose_fusion_realize_scales", value),
    "reduction_transpose_fusion_saturating_casts":
        lambda value: _check_switch("reduction_transpose_fusion_saturating_casts", value),
}
assert _CHECKS.keys() == {e.name for e in ENTRIES}
