"""Joint graphs of torchao ``Float8Linear`` training steps for the fake CUDA device (CPU only).

:func:`joint_graph` traces a module's forward and its backward through torchao's own autograd functions, ``y`` and
``autograd.grad(y, (x, *params), g)``, with the output gradient ``g`` a graph input.  The trace runs on fake CPU
tensors (on fake CUDA tensors the autograd engine asks the CUDA runtime for a context the fake H200 does not have)
and is then retargeted to the fake CUDA device.  Call ``fake_cuda.install()`` first.
"""

from __future__ import annotations

import torch
from torch import nn
from torch._subclasses.fake_tensor import FakeTensorMode
from torch.func import functional_call
from torch.fx.experimental.proxy_tensor import make_fx

from . import interpret


def float8_mlp(dim: int, hidden: int, recipe: str) -> nn.Module:
    """``Linear(dim, hidden) -> GELU -> Linear(hidden, dim)``, bias on, bf16, on the meta device, converted by torchao's
    ``convert_to_float8_training`` with ``recipe`` ("tensorwise" or "rowwise"): the main job's MLP steps
    (``benchmarks/steps.py``)."""
    from torchao.float8 import Float8LinearConfig, convert_to_float8_training

    with torch.device("meta"):
        model = nn.Sequential(nn.Linear(dim, hidden), nn.GELU(), nn.Linear(hidden, dim)).to(torch.bfloat16)
    return convert_to_float8_training(model, config=Float8LinearConfig.from_recipe_name(recipe))


def joint_graph(model: nn.Module, x_shape: tuple[int, ...], y_shape: tuple[int, ...],
                dtype: torch.dtype = torch.bfloat16) -> tuple[torch.fx.GraphModule, list[torch.Tensor], str]:
    """The joint graph of one training step of ``model`` (on the meta device) for the fake CUDA device.

    Args:
        model: the module; its parameters' shapes and dtypes become graph inputs.
        x_shape, y_shape: the shapes of its input and of its output (and of ``g``), both of ``dtype``.

    Returns:
        ``(graph module, fake CUDA inputs x, *params, g, name of g's placeholder)``.
    """
    names = [name for name, _ in model.named_parameters()]

    def step(x, *params_and_g):
        *params, g = params_and_g
        leaves = [t.detach().requires_grad_() for t in (x, *params)]
        y = functional_call(model, dict(zip(names, leaves[1:])), (leaves[0],))
        return (y, *torch.autograd.grad(y, leaves, g))

    specs = [(tuple(x_shape), dtype)] + [(tuple(p.shape), p.dtype) for _, p in model.named_parameters()]
    specs.append((tuple(y_shape), dtype))
    with FakeTensorMode():
        cpu_inputs = [torch.empty(shape, dtype=dt) for shape, dt in specs]
    gm = make_fx(step, tracing_mode="fake")(*cpu_inputs)
    cuda = torch.device("cuda", 0)
    for node in gm.graph.nodes:  # tensors the trace created (scalars, ones) on the device of the inputs
        if isinstance(node.kwargs.get("device"), torch.device) and node.kwargs["device"].type == "cpu":
            node.kwargs = {**node.kwargs, "device": cuda}
        if "device(type='cpu')" in repr((node.args, node.kwargs)):
            raise AssertionError(f"{node.format_node()} stays on the CPU")
    gm.recompile()
    placeholders = [node.name for node in gm.graph.nodes if node.op == "placeholder"]
    assert len(placeholders) == len(specs)
    return gm, interpret.fake_inputs(*specs), placeholders[-1]
