"""The Gluon lab kernel of ``benchmarks/lab_gluon.py`` is what its docstring says it is: a transpose whose load and
store layouts differ only in the order of their registers, so the tile moves through no shared memory and no warp
shuffle, with 16-byte vectors both ways (checked in the PTX that Triton compiles for sm_90a, without a GPU)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from benchmarks import lab_gluon


@pytest.mark.parametrize("itemsize", sorted(lab_gluon.CONFIGS))
def test_the_load_and_store_layouts_hold_the_same_elements_in_the_same_threads(itemsize):
    for spt, tpw, wpc, xb, rb in lab_gluon.CONFIGS[itemsize]:
        load, store = lab_gluon.tile_layouts(spt, tpw, wpc, (xb, rb))
        assert load.lane_bases == store.lane_bases and load.warp_bases == store.warp_bases
        assert sorted(load.reg_bases) == sorted(store.reg_bases) and load.reg_bases != store.reg_bases
        # the first register bases run along C for the load and along N for the store: the 16-byte vectors
        assert load.reg_bases[0] == [0, 1] and store.reg_bases[0] == [1, 0]
        assert spt[1] * itemsize % 16 == 0 and 2 ** len(load.reg_bases) * 32 * wpc[0] * wpc[1] == xb * rb


_COMPILE = r"""
import json, re, triton
from triton.backends.compiler import GPUTarget
from triton.experimental.gluon._runtime import GluonASTSource
from benchmarks import lab_gluon as lg
out = {}
for dtype, itemsize in (("*fp32", 4), ("*bf16", 2)):
    spt, tpw, wpc, xb, rb = lg.CONFIGS[itemsize][0]
    load, store = lg.tile_layouts(spt, tpw, wpc, (xb, rb))
    sig = {"x_ptr": dtype, "t_ptr": dtype, "sum_ptr": "*fp32", "N": "i32", "C": "i32", "LL": "constexpr",
           "LS": "constexpr", "XB": "constexpr", "RB": "constexpr", "SUM": "constexpr", "ORDER": "constexpr"}
    consts = {"LL": load, "LS": store, "XB": xb, "RB": rb, "SUM": 0, "ORDER": 0}
    attrs = {(i,): [["tt.divisibility", 16]] for i in range(5)}
    kernel = triton.compile(GluonASTSource(lg.gluon_transpose, sig, consts, attrs), target=GPUTarget("cuda", 90, 32),
                            options={"num_warps": wpc[0] * wpc[1]})
    ptx = kernel.asm["ptx"]
    out[dtype] = {op: len(re.findall(r"\b" + re.escape(op) + r"\b", ptx))
                  for op in ("ld.global.v4.b32", "st.global.v4.b32", "st.shared", "ld.shared", "shfl.sync")}
print(json.dumps(out))
"""


def test_the_transpose_compiles_to_vector_accesses_and_no_shared_memory():
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    proc = subprocess.run([sys.executable, "-c", _COMPILE], capture_output=True, text=True, env=env,
                          cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    assert proc.returncode == 0, proc.stderr[-3000:]
    for dtype, ops in json.loads(proc.stdout.splitlines()[-1]).items():
        assert ops["ld.global.v4.b32"] > 0 and ops["st.global.v4.b32"] > 0, (dtype, ops)
        assert ops["st.shared"] == ops["ld.shared"] == ops["shfl.sync"] == 0, (dtype, ops)
