"""Which generated Triton kernels read a given buffer, from Inductor's Python output module alone.

The output module (what ``torch._inductor.utils.run_and_get_code`` / ``get_code`` or :func:`.interpret.generate`
return) defines each kernel as ``name = async_compile.triton('name', '''<source>''', ...)`` and launches it in
``call`` as ``name.run(arg, ...)``, the arguments in the order of the kernel's ``def`` parameters.  A kernel reads a
buffer when one of its launches passes the buffer (or a view of it: ``reinterpret_tensor(buf, ...)``, or a name
bound to such a view) as a pointer parameter that the source loads from: ``tl.load(param ...)``, or a block pointer
or tensor descriptor built on it.

Only the Python wrapper is understood (not ``cpp_wrapper``'s C++), and no kernel is run.  Names are matched as
whole identifiers (``arg3_1`` never matches ``arg3_10``).  A line Inductor marks ``# reuse`` rebinds a dead
buffer's memory to a new value; such a name is not taken for a view of the old buffer.
"""

from __future__ import annotations

import ast
import re

__all__ = ["kernel_sources", "kernel_params", "kernel_launches", "kernels_reading"]

_DEFINITION = re.compile(r"^(\w+) = async_compile\.triton\('\w+', '''\n(.*?)''', device_str", re.M | re.S)
_VIEWS = {"reinterpret_tensor", "as_strided", "view", "reshape"}


def kernel_sources(module_source: str) -> dict[str, str]:
    """{kernel name: its Triton source} for each kernel the output module defines."""
    return {m.group(1): m.group(2) for m in _DEFINITION.finditer(module_source)}


def kernel_params(kernel_source: str, name: str) -> list[str]:
    """The parameter names of ``def name(...)`` in one kernel's Triton source, in order (constexprs included)."""
    m = re.search(rf"^def {re.escape(name)}\((.*?)\):", kernel_source, re.M | re.S)
    if m is None:
        raise ValueError(f"no 'def {name}(...)' in the kernel's source")
    return [p.split(":")[0].strip() for p in m.group(1).split(",") if p.strip()]


def _names_in(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _view_of(value: ast.AST) -> str | None:
    """The buffer ``value`` is a view of (``b``, ``reinterpret_tensor(b, ...)``, ``b.view(...)``), else None."""
    if isinstance(value, ast.Name):
        return value.id
    if isinstance(value, ast.Call):
        func = value.func
        if isinstance(func, ast.Name) and func.id in _VIEWS and value.args and isinstance(value.args[0], ast.Name):
            return value.args[0].id
        if isinstance(func, ast.Attribute) and func.attr in _VIEWS and isinstance(func.value, ast.Name):
            return func.value.id
    return None


def kernel_launches(module_source: str) -> list[tuple[str, dict[str, ast.expr]]]:
    """Each Triton kernel launch of the module, in source order: ``(kernel name, {parameter: argument expression})``.

    Raises:
        ValueError: if a launch passes more positional arguments than the kernel has parameters.
    """
    definitions = kernel_sources(module_source)
    params = {name: kernel_params(src, name) for name, src in definitions.items()}
    launches = []
    for node in ast.walk(ast.parse(module_source)):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "run"
                and isinstance(node.func.value, ast.Name) and node.func.value.id in definitions):
            continue
        name = node.func.value.id
        if len(node.args) > len(params[name]):
            raise ValueError(f"{name} is launched with {len(node.args)} arguments but has {len(params[name])} "
                             f"parameters: {params[name]}")
        bound = dict(zip(params[name], node.args))
        bound.update({kw.arg: kw.value for kw in node.keywords if kw.arg in params[name]})
        launches.append((node.lineno, name, bound))
    return [(name, bound) for _, name, bound in sorted(launches, key=lambda t: t[0])]


def _aliases(module_source: str, buffer_name: str) -> set[str]:
    """``buffer_name`` and every name bound to a view of it (transitively), ``# reuse`` lines excepted."""
    lines = module_source.splitlines()
    views = []
    for node in ast.walk(ast.parse(module_source)):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            base = _view_of(node.value)
            if base is not None and "# reuse" not in lines[node.lineno - 1]:
                views.append((node.targets[0].id, base))
    names = {buffer_name}
    changed = True
    while changed:
        changed = False
        for target, base in views:
            if base in names and target not in names:
                names.add(target)
                changed = True
    return names


def _loads_from(kernel_source: str, param: str) -> bool:
    p = re.escape(param)
    return re.search(rf"tl\.load\(\s*{p}\b|make_block_ptr\(\s*(base\s*=\s*)?{p}\b"
                     rf"|make_tensor_descriptor\(\s*(base\s*=\s*)?{p}\b", kernel_source) is not None


def kernels_reading(module_source: str, buffer_name: str) -> list[str]:
    """Names of the Triton kernels that load ``buffer_name`` (a graph input such as ``arg3_1``, or a ``bufN``), each
    once, in the order of their first such launch.

    ``module_source``: one Inductor output module (Python wrapper).  A kernel counts when some launch binds the
    buffer, or a view of it, to a parameter that its source loads from (a kernel that only stores to it does not).

    Raises:
        ValueError: if the module launches no Triton kernel at all, or a launch does not fit its kernel's parameters
            (the module is not one this parser understands).
    """
    definitions = kernel_sources(module_source)
    launches = kernel_launches(module_source)
    if not launches:
        raise ValueError("the module launches no Triton kernel (not a Python output module of Inductor?)")
    names = _aliases(module_source, buffer_name)
    out: list[str] = []
    for kernel, bound in launches:
        if kernel in out:
            continue
        if any(_names_in(arg) & names and _loads_from(definitions[kernel], param) for param, arg in bound.items()):
            out.append(kernel)
    return out
