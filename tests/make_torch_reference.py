"""Эталонные значения PyTorch для слоёв урока 09 -> tests/data/torch_layers.npz.

PyTorch не зависимость курса: скрипт запускают один раз в отдельном окружении
(не в .venv курса), а тесты (test_layers.py) читают только готовый .npz:

    python3 -m venv /work/scratch-torch && /work/scratch-torch/bin/pip install torch numpy
    /work/scratch-torch/bin/python tests/make_torch_reference.py

Входы и веса берутся из np.random.default_rng с фиксированными номерами и лежат в том же
файле, так что тест кладёт в course_lib ровно те числа, что видел PyTorch. Всё в float64.
Веса Linear в course_lib — (d_in, d_out), в torch — (d_out, d_in): здесь они транспонируются.
"""

import pathlib

import numpy as np
import torch
import torch.nn.functional as F

OUT = pathlib.Path(__file__).parent / "data" / "torch_layers.npz"
N, T, D, H, D_FF = 2, 5, 8, 2, 32


def linear_params(rng, name, d_in, d_out):
    return {f"{name}.weight": rng.normal(size=(d_in, d_out)) / np.sqrt(d_in), f"{name}.bias": rng.normal(size=d_out) * 0.1}


def main():
    torch.set_default_dtype(torch.float64)
    rng = np.random.default_rng(2026)
    ref = {"torch_version": np.array(torch.__version__)}

    # GELU (tanh): от −6 до 6 и случайные точки
    x = np.concatenate([np.linspace(-6, 6, 49), rng.normal(size=31) * 3])
    ref["gelu.x"], ref["gelu.y"] = x, F.gelu(torch.from_numpy(x), approximate="tanh").numpy()

    # LayerNorm с не-единичными weight, bias; у строк разный масштаб и сдвиг
    x = rng.normal(size=(N, T, D)) * rng.uniform(0.1, 10, size=(N, T, 1)) + rng.normal(size=(N, T, 1)) * 5
    weight, bias = rng.normal(size=D), rng.normal(size=D)
    ln = torch.nn.LayerNorm(D, eps=1e-5)
    with torch.no_grad():
        ln.weight.copy_(torch.from_numpy(weight))
        ln.bias.copy_(torch.from_numpy(bias))
    tx = torch.from_numpy(x).requires_grad_(True)
    upstream = rng.normal(size=(N, T, D))
    y = ln(tx)
    y.backward(torch.from_numpy(upstream))
    ref.update({"ln.x": x, "ln.weight": weight, "ln.bias": bias, "ln.y": y.detach().numpy(),
                "ln.upstream": upstream, "ln.grad_x": tx.grad.numpy(),
                "ln.grad_weight": ln.weight.grad.numpy(), "ln.grad_bias": ln.bias.grad.numpy()})

    # Блок pre-norm = TransformerEncoderLayer(norm_first=True) с GELU-tanh, без dropout, причинный
    params = {}
    for name in ("attention.W_q", "attention.W_k", "attention.W_v", "attention.W_o"):
        params.update(linear_params(rng, name, D, D))
    params.update(linear_params(rng, "ffn.W_up", D, D_FF))
    params.update(linear_params(rng, "ffn.W_down", D_FF, D))
    for name in ("ln1", "ln2"):
        params[f"{name}.weight"], params[f"{name}.bias"] = 1 + 0.1 * rng.normal(size=D), 0.1 * rng.normal(size=D)
    layer = torch.nn.TransformerEncoderLayer(D, H, dim_feedforward=D_FF, dropout=0.0, batch_first=True,
                                             norm_first=True, activation=lambda v: F.gelu(v, approximate="tanh"))
    t = lambda name: torch.from_numpy(params[name])   # noqa: E731
    with torch.no_grad():
        sa = layer.self_attn
        sa.in_proj_weight.copy_(torch.cat([t(f"attention.W_{n}.weight").T for n in "qkv"]))
        sa.in_proj_bias.copy_(torch.cat([t(f"attention.W_{n}.bias") for n in "qkv"]))
        sa.out_proj.weight.copy_(t("attention.W_o.weight").T)
        sa.out_proj.bias.copy_(t("attention.W_o.bias"))
        layer.linear1.weight.copy_(t("ffn.W_up.weight").T)
        layer.linear1.bias.copy_(t("ffn.W_up.bias"))
        layer.linear2.weight.copy_(t("ffn.W_down.weight").T)
        layer.linear2.bias.copy_(t("ffn.W_down.bias"))
        for ours, theirs in (("ln1", layer.norm1), ("ln2", layer.norm2)):
            theirs.weight.copy_(t(f"{ours}.weight"))
            theirs.bias.copy_(t(f"{ours}.bias"))
    layer.eval()
    x = rng.normal(size=(N, T, D))
    upstream = rng.normal(size=(N, T, D))
    tx = torch.from_numpy(x).requires_grad_(True)
    blocked = torch.ones(T, T, dtype=torch.bool).triu(1)          # в torch True = «смотреть нельзя»
    y = layer(tx, src_mask=blocked, is_causal=True)
    y.backward(torch.from_numpy(upstream))
    ref.update({"block.x": x, "block.y": y.detach().numpy(), "block.upstream": upstream, "block.grad_x": tx.grad.numpy(),
                "block.grad_W_up": layer.linear1.weight.grad.numpy().T})
    ref.update({f"block.param.{name}": value for name, value in params.items()})

    np.savez(OUT, **ref)
    print(f"записано {OUT} (torch {torch.__version__}): {len(ref)} массивов")


if __name__ == "__main__":
    main()
