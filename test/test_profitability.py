"""The profitability cost model (fx_passes/profitability.py) and its fit (benchmarks/fit_cost_model.py)."""

from __future__ import annotations

import dataclasses

import pytest

from reduction_transpose_fusion.fx_passes import profitability as p

MB = 10**6


def test_stock_pays_a_launch_per_kernel_and_the_second_read():
    one, two = p.estimate(4096, 4096, 1, 3 * MB, 2 * MB, 8, 64), p.estimate(4096, 4096, 2, 3 * MB, 2 * MB, 8, 64)
    assert one.stock_kernels == 3 and two.stock_kernels == 4
    assert two.stock_us - one.stock_us == pytest.approx(p.MODEL.stock_launch_us)
    more = p.estimate(4096, 4096, 1, 6 * MB, 2 * MB, 8, 64)
    assert more.stock_us - one.stock_us == pytest.approx(3 / p.MODEL.stock_mb_per_us)


def test_the_fused_kernel_pays_a_fixed_cost_its_bytes_and_its_partials():
    """One kernel: a fixed cost, its bytes at one bandwidth, and the last program's read of RSPLIT * R partials;
    a program's long walk down its rows bounds it instead."""
    base = p.estimate(1 << 16, 4096, 1, 300 * MB, 200 * MB, 8, 64)
    more_bytes = p.estimate(1 << 16, 4096, 1, 300 * MB, 260 * MB, 8, 64)
    wider = p.estimate(1 << 16, 4096, 2, 300 * MB, 200 * MB, 108, 64)
    assert more_bytes.fused_us - base.fused_us == pytest.approx(60 / p.MODEL.fused_mb_per_us)
    assert wider.fused_us - base.fused_us == pytest.approx(p.MODEL.finish_us_per_partial * (108 * 2 - 8))
    assert base.fused_us == pytest.approx(p.MODEL.fused_fixed_us + 8 * p.MODEL.finish_us_per_partial
                                          + 200 / p.MODEL.fused_mb_per_us)
    # two reductions over a narrow C on one wave of 64 programs: 1327 rows a program (bf16[84926, 15], 0.66x)
    narrow = p.estimate(84926, 15, 2, int(7.6 * MB), int(5.1 * MB), 64, 16)
    assert narrow.fused_us == pytest.approx(64 * 2 * p.MODEL.finish_us_per_partial + p.MODEL.row_us * 2 * 1327)
    assert narrow.speedup < p.MIN_PREDICTED_SPEEDUP


def test_a_tiny_site_cannot_pay_back_the_fixed_cost():
    """At a few hundred KB the fused kernel's fixed cost about equals stock's three launches: below the threshold."""
    tiny = p.estimate(1024, 64, 1, int(0.4 * MB), int(0.25 * MB), 8, 64)
    assert tiny.speedup < p.MIN_PREDICTED_SPEEDUP
    assert "programs" in tiny.describe() and "3 kernels" in tiny.describe()


def test_the_model_is_the_documented_fit():
    """The shipped constants are the fit to the committed results, and keep what the docstring says at the
    threshold: 1 loss in 184 sites (needs scipy, a bench dependency)."""
    pytest.importorskip("scipy")
    from benchmarks import fit_cost_model

    frame = fit_cost_model.sites(fit_cost_model.RANDOM, fit_cost_model.SUITES)
    assert len(frame) == 184
    refit = fit_cost_model.fit(frame)
    for field in dataclasses.fields(p.Model):
        assert getattr(refit, field.name) == pytest.approx(getattr(p.MODEL, field.name), rel=0.01), field.name
    assert "fuse where predicted >= 1.1: 155 of 184 fused, 1 slower" in fit_cost_model.report(frame, p.MODEL)
