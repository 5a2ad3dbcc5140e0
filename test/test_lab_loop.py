"""The lab kernel of ``benchmarks/lab_loop.py`` computes what the fused kernel does (its timings are only
comparable if it does): the transposed copy bit-exact and the column sums, for every switch it times."""

from __future__ import annotations

import pytest
import torch

from reduction_transpose_fusion_testing import families


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
@pytest.mark.parametrize("acc,prefetch,tiles_per_program,interleave", [
    (0, 0, 0, 0), (0, 1, 0, 0), (1, 0, 0, 0), (1, 1, 0, 0), (0, 1, 2, 0), (2, 0, 0, 0), (0, 0, 0, 1), (1, 0, 0, 1)])
def test_lab_kernel_matches_reference(dtype, acc, prefetch, tiles_per_program, interleave):
    from benchmarks import lab_loop

    x = torch.randn(1000, 128, generator=torch.Generator().manual_seed(acc * 10 + prefetch)).to(dtype)
    _, _, (t, total), rsplit = lab_loop.run_lab(x, False, 1.0, 64, 64, 4, 3, acc, prefetch, tiles_per_program,
                                                interleave)
    assert rsplit > 1  # several programs per column block, so the ticket finish runs
    assert torch.equal(families.bits(t), families.bits(x.t().contiguous()))
    if acc < 2:  # ACC=2 is the bound: no accumulation at all
        ref = x.double().sum(0)
        assert families.rel_err(total, ref) < 1e-5


def test_lab_kernel_rejects_a_partial_column_block():
    from benchmarks import lab_loop

    with pytest.raises(ValueError, match="multiple of XBLOCK"):
        lab_loop.run_lab(torch.randn(100, 100), False, 1.0, 64, 64, 4, 3, 0, 0)


@pytest.mark.parametrize("order,finish", [(0, 0), (1, 0), (2, 0), (0, 2), (1, 2)])
def test_one_tile_kernel_matches_reference(order, finish):
    """Every order visits every tile once: the copy is bit-exact and the per-tile partials sum to the column sums;
    with the finish, the last program of each column block writes those sums."""
    from benchmarks import lab_loop

    x = torch.randn(1000, 256, generator=torch.Generator().manual_seed(order)).to(torch.bfloat16)
    # 4 column blocks: a partial group of 3; 16 row tiles summed 4 at a time
    _, _, t, ws, total = lab_loop.run_one_tile(x, 64, 64, 4, order, partials=1, group=3, finish=finish, chunk=4)
    assert torch.equal(families.bits(t), families.bits(x.t().contiguous()))
    ref = x.double().sum(0)
    assert families.rel_err(ws.sum(1), ref) < 1e-5
    if finish:
        assert families.rel_err(total, ref) < 1e-5


@pytest.mark.parametrize("tiles,ticket,chunk", [(1, 1, 4), (1, 2, 4), (2, 2, 16), (4, 1, 4), (4, 2, 64), (1, 3, 4), (1, 6, 4),
                                               (2, 5, 4), (1, 5, 16)])
@pytest.mark.parametrize("n,c", [(1000, 256), (999, 101)])
def test_tile_ticket_kernel_matches_reference(tiles, ticket, chunk, n, c):
    """Every tile is copied once, wherever its store sits against the ticket, and the last program of each column
    block sums every program's partials (odd N and C: the masks; more programs than ``chunk``: the finish loop)."""
    from benchmarks import lab_loop

    x = torch.randn(n, c, generator=torch.Generator().manual_seed(tiles * 7 + ticket)).to(torch.bfloat16)
    _, _, t, total = lab_loop.run_tile_ticket(x, 64, 32, 4, tiles, 1, ticket, chunk)
    assert torch.equal(families.bits(t), families.bits(x.t().contiguous()))
    assert families.rel_err(total, x.double().sum(0)) < 1e-5
