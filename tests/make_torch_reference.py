"""Эталонные значения PyTorch: слои урока 09 -> tests/data/torch_layers.npz, GPT урока 10 -> torch_gpt.npz.

PyTorch не зависимость курса: скрипт запускают один раз в отдельном окружении
(не в .venv курса), а тесты (test_layers.py, test_gpt_torch.py) читают только готовые .npz:

    python3 -m venv /work/torchvenv && /work/torchvenv/bin/pip install torch==2.13.0 numpy
    /work/torchvenv/bin/python tests/make_torch_reference.py

Входы и веса берутся из np.random.default_rng с фиксированными номерами и лежат в том же
файле, так что тест кладёт в course_lib ровно те числа, что видел PyTorch. Всё в float64.
Веса Linear в course_lib — (d_in, d_out), в torch — (d_out, d_in): здесь они транспонируются.
"""

import pathlib

import numpy as np
import torch
import torch.nn.functional as F

OUT = pathlib.Path(__file__).parent / "data" / "torch_layers.npz"
OUT_GPT = OUT.with_name("torch_gpt.npz")
N, T, D, H, D_FF = 2, 5, 8, 2, 32
GPT_VOCAB, GPT_MAX_LEN, GPT_LAYERS, GPT_T = 11, 8, 2, 7     # T < max_len: у последней позиции градиент 0
BLOCK_NAMES = ["ln1.weight", "ln1.bias"] + [f"attention.W_{n}.{p}" for n in "qkvo" for p in ("weight", "bias")] + [
    "ln2.weight", "ln2.bias", "ffn.W_up.weight", "ffn.W_up.bias", "ffn.W_down.weight", "ffn.W_down.bias"]


def linear_params(rng, name, d_in, d_out):
    return {f"{name}.weight": rng.normal(size=(d_in, d_out)) / np.sqrt(d_in), f"{name}.bias": rng.normal(size=d_out) * 0.1}


def torch_block(d_model, num_heads, d_ff, params, prefix=""):
    """TransformerEncoderLayer(norm_first=True) с GELU-tanh и без dropout, веса — из params[prefix + имя]."""
    layer = torch.nn.TransformerEncoderLayer(d_model, num_heads, dim_feedforward=d_ff, dropout=0.0, batch_first=True,
                                             norm_first=True, activation=lambda v: F.gelu(v, approximate="tanh"))
    t = lambda name: torch.from_numpy(params[prefix + name])   # noqa: E731
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
    return layer


def block_params(rng, d_model, d_ff, prefix=""):
    """Случайные веса блока с именами course_lib (LayerNorm — не единицы и не нули)."""
    params = {}
    for name in ("attention.W_q", "attention.W_k", "attention.W_v", "attention.W_o"):
        params.update(linear_params(rng, prefix + name, d_model, d_model))
    params.update(linear_params(rng, prefix + "ffn.W_up", d_model, d_ff))
    params.update(linear_params(rng, prefix + "ffn.W_down", d_ff, d_model))
    for name in ("ln1", "ln2"):
        params[f"{prefix}{name}.weight"] = 1 + 0.1 * rng.normal(size=d_model)
        params[f"{prefix}{name}.bias"] = 0.1 * rng.normal(size=d_model)
    return params


def block_grads(layer, prefix=""):
    """Градиенты TransformerEncoderLayer под именами и в раскладке course_lib ((d_in, d_out) у Linear)."""
    sa = layer.self_attn
    q, k, v = sa.in_proj_weight.grad.numpy().reshape(3, -1, sa.embed_dim)
    bq, bk, bv = sa.in_proj_bias.grad.numpy().reshape(3, -1)
    grads = {"attention.W_q.weight": q.T, "attention.W_k.weight": k.T, "attention.W_v.weight": v.T,
             "attention.W_q.bias": bq, "attention.W_k.bias": bk, "attention.W_v.bias": bv,
             "attention.W_o.weight": sa.out_proj.weight.grad.numpy().T, "attention.W_o.bias": sa.out_proj.bias.grad.numpy(),
             "ffn.W_up.weight": layer.linear1.weight.grad.numpy().T, "ffn.W_up.bias": layer.linear1.bias.grad.numpy(),
             "ffn.W_down.weight": layer.linear2.weight.grad.numpy().T, "ffn.W_down.bias": layer.linear2.bias.grad.numpy(),
             "ln1.weight": layer.norm1.weight.grad.numpy(), "ln1.bias": layer.norm1.bias.grad.numpy(),
             "ln2.weight": layer.norm2.weight.grad.numpy(), "ln2.bias": layer.norm2.bias.grad.numpy()}
    return {prefix + name: value for name, value in grads.items()}


def gpt_reference():
    """GPT урока 10 в PyTorch: (эмбеддинги токена + позиции)·0.1 -> блоки -> LayerNorm -> Linear
    (у course_lib множитель 0.1 — в начальных весах таблиц; tests/test_gpt.py переводит одно в другое).

    Параметры и градиенты пишутся списком в порядке course_lib `model.named_parameters()`
    (param.000, grad.000, …; имена — в names): так тест не зависит от имён атрибутов.
    Loss — кросс-энтропия следующего токена, как при обучении.
    """
    rng = np.random.default_rng(10)
    V, L, n_layers, T_ = GPT_VOCAB, GPT_MAX_LEN, GPT_LAYERS, GPT_T
    params = {"tokens.weight": rng.normal(size=(V, D)), "positions.weight": rng.normal(size=(L, D))}
    for i in range(n_layers):
        params.update(block_params(rng, D, D_FF, prefix=f"blocks.{i}."))
    params["ln_final.weight"], params["ln_final.bias"] = 1 + 0.1 * rng.normal(size=D), 0.1 * rng.normal(size=D)
    params.update(linear_params(rng, "unembed", D, V))
    names = ["tokens.weight", "positions.weight"] + [f"blocks.{i}.{n}" for i in range(n_layers) for n in BLOCK_NAMES] + [
        "ln_final.weight", "ln_final.bias", "unembed.weight", "unembed.bias"]
    assert sorted(names) == sorted(params)

    t = lambda name: torch.from_numpy(params[name]).clone().requires_grad_(True)   # noqa: E731
    tokens, positions = t("tokens.weight"), t("positions.weight")
    layers = [torch_block(D, H, D_FF, params, prefix=f"blocks.{i}.") for i in range(n_layers)]
    ln_final = torch.nn.LayerNorm(D, eps=1e-5)
    unembed = torch.nn.Linear(D, V)
    with torch.no_grad():
        ln_final.weight.copy_(torch.from_numpy(params["ln_final.weight"]))
        ln_final.bias.copy_(torch.from_numpy(params["ln_final.bias"]))
        unembed.weight.copy_(torch.from_numpy(params["unembed.weight"]).T)
        unembed.bias.copy_(torch.from_numpy(params["unembed.bias"]))
    ids = rng.integers(0, V, size=(N, T_))
    tids = torch.from_numpy(ids)
    x = (F.embedding(tids, tokens) + positions[:T_]) * 0.1
    blocked = torch.ones(T_, T_, dtype=torch.bool).triu(1)        # в torch True = «смотреть нельзя»
    for layer in layers:
        layer.eval()
        x = layer(x, src_mask=blocked, is_causal=True)
    logits = unembed(ln_final(x))
    loss = F.cross_entropy(logits[:, :-1].reshape(-1, V), tids[:, 1:].reshape(-1))
    loss.backward()

    grads = {"tokens.weight": tokens.grad.numpy(), "positions.weight": positions.grad.numpy(),
             "ln_final.weight": ln_final.weight.grad.numpy(), "ln_final.bias": ln_final.bias.grad.numpy(),
             "unembed.weight": unembed.weight.grad.numpy().T, "unembed.bias": unembed.bias.grad.numpy()}
    for i, layer in enumerate(layers):
        grads.update(block_grads(layer, prefix=f"blocks.{i}."))
    ref = {"torch_version": np.array(torch.__version__), "names": np.array(names),
           "config": np.array([V, L, D, H, n_layers]), "ids": ids,
           "logits": logits.detach().numpy(), "loss": np.array(loss.item())}
    for i, name in enumerate(names):
        ref[f"param.{i:03d}"], ref[f"grad.{i:03d}"] = params[name], grads[name]
    np.savez(OUT_GPT, **ref)
    print(f"записано {OUT_GPT} (torch {torch.__version__}): {len(ref)} массивов")


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
    params = block_params(rng, D, D_FF)
    layer = torch_block(D, H, D_FF, params)
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
    gpt_reference()


if __name__ == "__main__":
    main()
