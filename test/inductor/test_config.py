"""The switches: registration, environment variables, config.patch, the cache key, the version check, the log."""

from __future__ import annotations

import logging

import pytest
import torch
import torch._inductor.config as inductor_config
from torch._inductor.codecache import compiled_fx_graph_hash
from torch._inductor.compile_fx import compile_fx
from torch.fx.experimental.proxy_tensor import make_fx

from reduction_transpose_fusion import config
from reduction_transpose_fusion.fx_passes import reduction_transpose
from reduction_transpose_fusion_testing import families, interpret
from reduction_transpose_fusion_testing.processes import run_python


def test_entries_are_registered_with_their_defaults():
    assert inductor_config.reduction_transpose_fusion is False
    assert inductor_config.reduction_transpose_fusion_min_bytes == 2048
    assert inductor_config.reduction_transpose_fusion_profitability is True
    assert inductor_config.reduction_transpose_fusion_launch_config == ""
    with inductor_config.patch(reduction_transpose_fusion=True, reduction_transpose_fusion_min_bytes=5):
        assert config.enabled() and config.min_bytes() == 5
    assert not config.enabled()


def test_environment_variables_set_the_defaults():
    out = run_python(
        "import reduction_transpose_fusion, torch._inductor.config as c;"
        "print(c.reduction_transpose_fusion, c.reduction_transpose_fusion_min_bytes)",
        TORCHINDUCTOR_REDUCTION_TRANSPOSE_FUSION="1", TORCHINDUCTOR_REDUCTION_TRANSPOSE_FUSION_MIN_BYTES="12345",
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["True", "12345"]


def test_a_bad_environment_value_is_a_clear_error():
    out = run_python("import reduction_transpose_fusion", TORCHINDUCTOR_REDUCTION_TRANSPOSE_FUSION_MIN_BYTES="64MB")
    assert out.returncode != 0
    assert ("TORCHINDUCTOR_REDUCTION_TRANSPOSE_FUSION_MIN_BYTES='64MB': reduction_transpose_fusion_min_bytes must be "
            "an int >= 0, got '64MB'") in out.stderr


# (entry, environment value, value set in code): each bad value has one message, however it was set
BAD_VALUES = [
    ("reduction_transpose_fusion_min_bytes", "-1", -1),
    ("reduction_transpose_fusion_min_bytes", "8k", "8k"),
    ("reduction_transpose_fusion_launch_config", "FOO=1", "FOO=1"),
    ("reduction_transpose_fusion", "yes", "yes"),
    ("reduction_transpose_fusion_profitability", "2", "2"),
    ("reduction_transpose_fusion_timed_candidates", "-2", -2),
    ("reduction_transpose_fusion_timed_candidates", "two", "two"),
]


def _message(name, value) -> str:
    """The message ``config.validate`` gives for ``name = value`` set in code."""
    with inductor_config.patch({name: value}):
        with pytest.raises(ValueError) as err:
            config.validate()
    return str(err.value)


@pytest.mark.parametrize("name,raw,value", BAD_VALUES)
def test_every_bad_environment_value_fails_the_import_with_the_message_of_the_same_value_set_in_code(name, raw, value):
    env = next(e.env for e in config.ENTRIES if e.name == name)
    out = run_python("import reduction_transpose_fusion", **{env: raw})
    assert out.returncode != 0
    assert f"ValueError: {env}={raw!r}: {_message(name, value)}" in out.stderr, out.stderr[-2000:]


def test_a_switch_spelled_true_in_the_environment_says_the_environment_takes_1_or_0():
    out = run_python("import reduction_transpose_fusion", TORCHINDUCTOR_REDUCTION_TRANSPOSE_FUSION="true")
    assert out.returncode != 0
    assert ("TORCHINDUCTOR_REDUCTION_TRANSPOSE_FUSION='true': reduction_transpose_fusion must be True or False (or 1 "
            "or 0), got 'true'; an environment variable takes 1 or 0") in out.stderr, out.stderr[-2000:]


def test_good_environment_values_pass_the_import_check():
    out = run_python(
        "import reduction_transpose_fusion, torch._inductor.config as c;"
        "print(c.reduction_transpose_fusion_profitability, repr(c.reduction_transpose_fusion_launch_config))",
        TORCHINDUCTOR_REDUCTION_TRANSPOSE_FUSION_PROFITABILITY="0",
        TORCHINDUCTOR_REDUCTION_TRANSPOSE_FUSION_LAUNCH_CONFIG="XBLOCK=32",
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split() == ["False", "'XBLOCK=32'"]


def _compile_for(device: str, **options):
    """Compile a graph with no site for ``device`` ("cuda": the fake H200's codegen; "cpu": Inductor's C++)."""
    fn = lambda x: (x * 2).sum(1)  # noqa: E731
    if device == "cuda":
        return interpret.generate(fn, interpret.fake_inputs(((64, 64), torch.float32)), **options)
    x = torch.randn(8, 8)
    with inductor_config.patch(options):
        return compile_fx(make_fx(fn)(x), [x])


@pytest.mark.parametrize("name,raw,value", BAD_VALUES)
@pytest.mark.parametrize("device", ["cuda", "cpu"])
@pytest.mark.parametrize("flag", [True, False])
def test_a_bad_value_set_in_code_fails_every_compile_on_either_device_with_the_flag_on_or_off(name, raw, value,
                                                                                            device, flag):
    options = {"reduction_transpose_fusion": flag, name: value}
    with pytest.raises(Exception) as err:
        _compile_for(device, **options)
    assert _message(name, value) in str(err.value)


@pytest.mark.parametrize("value", [1, 0, True, False])
def test_the_documented_switch_spellings_work_through_torch_compile_options(value):
    fn = torch.compile(lambda x: x, options={"reduction_transpose_fusion": value,
                                              "reduction_transpose_fusion_profitability": value})
    assert fn is not None  # torch's own type check used to refuse 1 and 0 here


def test_a_bad_value_in_torch_compile_options_gets_the_package_message():
    fn = torch.compile(lambda x: x + 1, options={"reduction_transpose_fusion": "yes"})
    with pytest.raises(Exception) as err:
        fn(torch.randn(4))
    assert _message("reduction_transpose_fusion", "yes") in str(err.value)


def test_the_flag_on_for_a_cpu_graph_logs_that_it_changes_nothing(decisions):
    _compile_for("cpu", reduction_transpose_fusion=True)
    assert decisions == ["reduction_transpose_fusion is on, but this graph is compiled for cpu, not CUDA: the fusion "
                         "applies to CUDA graphs only, so it changes nothing here"]
    decisions.clear()
    _compile_for("cpu", reduction_transpose_fusion=False)
    assert decisions == []


def test_bad_values_raise():
    with inductor_config.patch(reduction_transpose_fusion_min_bytes=-1):
        with pytest.raises(ValueError, match="min_bytes"):
            config.min_bytes()
    with inductor_config.patch(reduction_transpose_fusion_launch_config="XBLOCK=64,WARPS=4"):
        with pytest.raises(ValueError, match="WARPS=4"):
            config.launch_override()
    for switch, read in (("reduction_transpose_fusion", config.enabled),
                         ("reduction_transpose_fusion_profitability", config.profitability)):
        with inductor_config.patch(switch, "0"):  # would be true as bool("0") (2026-11-30)
            with pytest.raises(ValueError, match=rf"{switch} must be True or False \(or 1 or 0\), got '0'"):
                read()
        for value in (0, 1):
            with inductor_config.patch(switch, value):
                assert read() is bool(value)


@pytest.mark.parametrize("option", [dict(reduction_transpose_fusion_min_bytes=-1),
                                    dict(reduction_transpose_fusion_launch_config="WARPS=4")])
def test_a_bad_value_fails_any_graph_that_compiles_with_the_flag_on(option):
    """Not only graphs with a site: a graph without one used to compile silently (2026-11-30)."""
    with pytest.raises(Exception, match="min_bytes must be an int|WARPS=4"):
        interpret.generate(lambda x: (x * 2).sum(1), interpret.fake_inputs(((64, 64), torch.float32)),
                           reduction_transpose_fusion=True, **option)


# the parser's message for a switch key given another value than 0 or 1
SWITCHES_0_OR_1 = ("PREFETCH, INT32_SIZES, SHIFT_LAST_TILE, ROW_TILE_GRID, EVICT_FIRST, UNSPLIT, SEPARATE_FINISH, "
                   "COLUMN_TILE: 0 or 1")


@pytest.mark.parametrize("text,match", [
    ("num_warps=3", "num_warps=3 is not a power of two"),
    ("num_warps=64", "num_warps=64 is not a power of two from 1 to 32"),
    ("R0_BLOCK=48", "R0_BLOCK=48 is not a power of two"),
    # Inductor drops the mask of a fixed block of 1: rows past N were read and written
    ("XBLOCK=1", "XBLOCK=1 is not a power of two of at least 2"),
    ("R0_BLOCK=1", "R0_BLOCK=1 is not a power of two of at least 2"),
    (f"RSPLIT={2**31}", "grid x limit"),
    ("FINISH_GROUP=24", "FINISH_GROUP=24 is not a multiple of 16"),
    ("UNSPLIT=1,num_warps=8", "UNSPLIT=1 is Inductor's own launch and takes no other key"),
    ("FINISH_GROUP=\uff11\uff16", "bad item"),  # full-width digits are not an int of the config's grammar
    ("PREFETCH=2", SWITCHES_0_OR_1),
    ("SHIFT_LAST_TILE=3", SWITCHES_0_OR_1),
    ("RSPLIT=0", "bad item"),  # only TILES_PER_PROGRAM takes 0
    ("XBLOCK=0", "bad item"),
    ("XBLOCK=64,XBLOCK=16", "XBLOCK is given twice"),
    (None, "must be a string"),
])
def test_launch_overrides_the_gpu_would_refuse_are_clear_errors(text, match):
    with inductor_config.patch(reduction_transpose_fusion_launch_config=text):
        with pytest.raises(ValueError, match=match):
            config.launch_override()


def test_a_valid_launch_override_parses():
    with inductor_config.patch(reduction_transpose_fusion_launch_config=" XBLOCK=32, num_warps=8 ,RSPLIT=3"):
        assert config.launch_override() == {"XBLOCK": 32, "num_warps": 8, "RSPLIT": 3}
    with inductor_config.patch(reduction_transpose_fusion_launch_config="PREFETCH=0"):
        assert config.launch_override() == {"PREFETCH": 0}
    with inductor_config.patch(reduction_transpose_fusion_launch_config="TILES_PER_PROGRAM=0"):  # one wave
        assert config.launch_override() == {"TILES_PER_PROGRAM": 0}


@pytest.mark.parametrize("version", ["2.10.2+cu128", "2.15.1", "2.16.0.dev20260301+cpu", "unknown"])
def test_torch_versions_outside_the_range_are_refused(version):
    out = run_python(f"import torch; torch.__version__ = {version!r}; import reduction_transpose_fusion")
    assert out.returncode != 0
    assert "ImportError: reduction_transpose_fusion supports torch 2.11.0 through 2.15.0; " in out.stderr
    assert f"found torch {version}, outside that range" in out.stderr


@pytest.mark.parametrize("version", ["2.11.0+cu130", "2.13.0+cpu", "2.15.0a0+gitabc1234"])
def test_torch_versions_in_the_range_import(version):
    """The range's ends are included, and a local build label or a pre-release is its release; the installed torch
    stands in for each (only the version check reads the version string: the package's code must import on the
    installed torch as it is)."""
    out = run_python(f"import torch; torch.__version__ = {version!r}; import reduction_transpose_fusion")
    assert out.returncode == 0, out.stderr[-2000:]


_X = torch.randn(8, 4)  # one input for every key: the hash covers small real inputs' values too


def _key(**options) -> str:
    gm = make_fx(lambda x: (x.t().contiguous(), x.sum(0)))(_X)
    with inductor_config.patch(options):
        return compiled_fx_graph_hash(gm, [_X], {}, [])[0]


def test_flag_gate_and_package_code_are_in_the_fx_graph_cache_key(monkeypatch):
    base = _key()
    assert _key() == base
    assert _key(reduction_transpose_fusion=True) != base
    assert _key(reduction_transpose_fusion_min_bytes=1) != base
    assert _key(reduction_transpose_fusion_profitability=False) != base
    monkeypatch.setattr(reduction_transpose, "_package_hash", lambda: b"another version of the package")
    assert _key() != base


def test_torch_logs_enables_the_decision_log():
    # TORCH_LOGS takes any importable module; torch imports the package while parsing it
    out = run_python("import torch, logging; print(logging.getLogger('reduction_transpose_fusion.choices')"
                     ".getEffectiveLevel())", TORCH_LOGS="reduction_transpose_fusion")
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.split()[-1] == str(logging.INFO)


def test_each_site_is_logged_fused_or_skipped_with_why(decisions):
    case = families.CASES["F1-t"]
    for rows, cols in ((4096, 1024), (64, 1024), (200, 2)):
        interpret.generate(case.fn, interpret.fake_inputs(*case.specs(rows, cols, torch.float32)),
                           reduction_transpose_fusion=True)
    text = "\n".join(decisions)
    assert "fused sum_1 with transposed copy clone into one kernel (C=1024, N=4096)" in text
    assert "candidate clone + sum_1 (x=arg0_1, float32, N=4096, C=1024, 16777216 bytes)" in text
    assert ("skip clone + sum_1 (x=arg0_1, float32, N=64, C=1024, 262144 bytes): stock already emits one unsplit "
            "kernel (N=64: its split factor is 1") in text
    assert "skip clone + sum_1 (x=arg0_1, float32, N=200, C=2, 1600 bytes): 1600 bytes transposed < gate 2048" in text


IMPORTED = "import sys, torch; print('reduction_transpose_fusion' in sys.modules)"


def test_torch_imports_the_package_when_one_of_its_environment_variables_is_set():
    """The ``torch.backends`` entry point (pyproject.toml): the variables work without an import in the user's code."""
    from importlib.metadata import entry_points

    assert "reduction_transpose_fusion" in {e.name for e in entry_points(group="torch.backends")}, \
        "the entry point is not installed (pip install -e .)"
    out = run_python(IMPORTED + "; print(torch._inductor.config.reduction_transpose_fusion)",
                     TORCHINDUCTOR_REDUCTION_TRANSPOSE_FUSION="1")
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split() == ["True", "True"]


@pytest.mark.parametrize("env", [{}, {"TORCH_DEVICE_BACKEND_AUTOLOAD": "0",
                                      "TORCHINDUCTOR_REDUCTION_TRANSPOSE_FUSION": "1"}], ids=["unset", "autoload-off"])
def test_torch_does_not_import_the_package_otherwise(env):
    out = run_python(IMPORTED, **env)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split() == ["False"]


def test_a_bad_environment_value_warns_at_torch_import_and_fails_the_explicit_import():
    out = run_python("import torch", TORCHINDUCTOR_REDUCTION_TRANSPOSE_FUSION="true")
    assert out.returncode == 0, out.stderr[-2000:]
    assert ("RuntimeWarning: TORCHINDUCTOR_REDUCTION_TRANSPOSE_FUSION set, but reduction_transpose_fusion could not "
            "be imported, so the fusion is off: ValueError: TORCHINDUCTOR_REDUCTION_TRANSPOSE_FUSION='true'") \
        in out.stderr, out.stderr[-2000:]
    out = run_python("import torch, reduction_transpose_fusion", TORCHINDUCTOR_REDUCTION_TRANSPOSE_FUSION="true")
    assert out.returncode != 0 and "ValueError: TORCHINDUCTOR_REDUCTION_TRANSPOSE_FUSION='true'" in out.stderr


def test_a_refused_environment_value_adds_no_entry():
    """After a failed import a value set in code is refused by torch as unknown, not kept unchecked (the entries
    were added before the environment was checked)."""
    out = run_python("import torch._inductor.config as c\ntry:\n    import reduction_transpose_fusion\n"
                     "except ValueError:\n    pass\nprint(sorted(k for k in c._config if 'reduction_transpose' in k))",
                     TORCHINDUCTOR_REDUCTION_TRANSPOSE_FUSION_MIN_BYTES="8k", TORCH_DEVICE_BACKEND_AUTOLOAD="0")
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split() == ["[]"]


def test_a_misspelled_environment_variable_fails_the_import():
    out = run_python("import reduction_transpose_fusion", TORCHINDUCTOR_REDUCTION_TRANSPOSE_FUSION_MINBYTES="1")
    assert out.returncode != 0
    assert ("ValueError: TORCHINDUCTOR_REDUCTION_TRANSPOSE_FUSION_MINBYTES: not a variable of "
            "reduction_transpose_fusion (misspelled?)") in out.stderr, out.stderr[-2000:]
