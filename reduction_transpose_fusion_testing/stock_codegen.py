"""Generate stock Inductor's code for family cases in a process that never imports reduction_transpose_fusion.

    python -m reduction_transpose_fusion_testing.stock_codegen < cases.json > sources.json

Input: a list of ``[case name, rows, cols, dtype name]`` (see :mod:`.families`).  Output: ``{"name/rows/cols/dtype":
normalized module source}``.  Used to check that with the flag off the package changes nothing.
"""

from __future__ import annotations

import json
import re
import sys

VOLATILE = re.compile(r"^(# kernel path: |# AOT ID: ).*$", re.M)


def normalize(module_source: str) -> str:
    """Drop what differs between two compiles of the same graph: temporary kernel paths and the graph counter."""
    return VOLATILE.sub(r"\1<volatile>", module_source)


def key(name: str, rows: int, cols: int, dtype: str) -> str:
    return f"{name}/{rows}/{cols}/{dtype}"


def main() -> None:
    from reduction_transpose_fusion_testing import fake_cuda

    fake_cuda.install()
    from reduction_transpose_fusion_testing import families, interpret

    if "reduction_transpose_fusion" in sys.modules:
        raise SystemExit("stock_codegen must not import reduction_transpose_fusion")
    out = {}
    for name, rows, cols, dtype in json.load(sys.stdin):
        case = families.CASES[name]
        inputs = interpret.fake_inputs(*case.specs(rows, cols, families.DTYPES[dtype]))
        out[key(name, rows, cols, dtype)] = normalize(interpret.generate(case.fn, inputs))
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
