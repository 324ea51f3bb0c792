"""Судья для книги и машинного отделения: если пути разошлись, какой из них неверен — по независимому эталону.

Эталон считается заново, без course_lib: формулы во float64 на NumPy (внимание, GELU, Linear, LayerNorm,
слой многоголового внимания и блок трансформера из них) и центральные разности этих формул для градиентов.
Считается он только тогда, когда пути разошлись.
"""

import numpy as np

TOLERANCE = 1e-12


def attention(q, k, v, mask=None, scale=None):
    """(context, weights) по формуле урока 05: softmax(q kᵀ · scale, закрытое — −∞) @ v; закрытая строка — нули."""
    scale = 1 / np.sqrt(q.shape[-1]) if scale is None else scale
    scores = q @ np.swapaxes(k, -1, -2) * scale
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    top = scores.max(axis=-1, keepdims=True)
    exp = np.exp(scores - np.where(np.isfinite(top), top, 0))
    total = exp.sum(axis=-1, keepdims=True)
    weights = np.where(total > 0, exp / np.where(total > 0, total, 1), 0)
    return weights @ v, weights


def gelu(x):
    return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x**3)))


def linear(x, weight, bias):
    return x @ weight + bias


def layer_norm(x, weight, bias, eps):
    centred = x - x.mean(axis=-1, keepdims=True)
    return centred / np.sqrt((centred**2).mean(axis=-1, keepdims=True) + eps) * weight + bias


def multi_head_attention(x, params, heads, causal, mask=None, prefix=""):
    """Слой урока 06: головы из столбцов q, k, v, внимание каждой, склейка и W_o. params — {имя: массив} как
    у named_parameters() (prefix — путь слоя внутри блока); mask — True = «можно смотреть», до (N, h, T, T)."""
    N, T, D = x.shape
    d = D // heads

    def split(y):                                   # (N, T, D) -> (N, h, T, d)
        return y.reshape(N, T, heads, d).transpose(0, 2, 1, 3)

    q, k, v = (split(linear(x, params[f"{prefix}W_{n}.weight"], params[f"{prefix}W_{n}.bias"])) for n in "qkv")
    allowed = np.tril(np.ones((T, T), dtype=bool)) if causal else np.ones((T, T), dtype=bool)
    if mask is not None:
        allowed = allowed & mask
    context, _ = attention(q, k, v, allowed, 1 / np.sqrt(d))
    merged = context.transpose(0, 2, 1, 3).reshape(N, T, D)
    return linear(merged, params[f"{prefix}W_o.weight"], params[f"{prefix}W_o.bias"])


def transformer_block(x, params, heads, causal, mask=None, eps=1e-5):
    """Блок урока 09, pre-norm: x + внимание(LayerNorm(x)), потом x + W_down(GELU(W_up(LayerNorm(x))))."""
    x = x + multi_head_attention(layer_norm(x, params["ln1.weight"], params["ln1.bias"], eps), params, heads, causal,
                                 mask, prefix="attention.")
    hidden = gelu(linear(layer_norm(x, params["ln2.weight"], params["ln2.bias"], eps),
                         params["ffn.W_up.weight"], params["ffn.W_up.bias"]))
    return x + linear(hidden, params["ffn.W_down.weight"], params["ffn.W_down.bias"])


def numeric_grads(f, arrays, upstreams, eps=1e-6):
    """Градиенты Σ f(arrays)[i] · upstreams[i] по каждому входу — центральными разностями (f — на NumPy)."""
    def loss(values):
        outs = f(*values)
        outs = outs if isinstance(outs, tuple) else (outs,)
        return sum((out * up).sum() for out, up in zip(outs, upstreams))

    grads = []
    for i, array in enumerate(arrays):
        grad = np.zeros_like(array, dtype=float)
        for index in np.ndindex(array.shape):
            values = [a.astype(float).copy() for a in arrays]
            values[i][index] += eps
            up = loss(values)
            values[i][index] -= 2 * eps
            grad[index] = (up - loss(values)) / (2 * eps)
        grads.append(grad)
    return grads


def verdict(name, book, fast, reference, how, tolerance=TOLERANCE):
    """None, если книга и машинное отделение совпали; иначе — по-русски, какой путь дальше от эталона reference()."""
    book, fast = np.asarray(book), np.asarray(fast)
    if book.shape != fast.shape:
        return f"{name}: под nt.fast() форма {fast.shape}, а по книге {book.shape}"
    gap = np.abs(book - fast).max(initial=0)
    if gap < tolerance:
        return None
    exact = np.asarray(reference())
    off_book, off_fast = np.abs(book - exact).max(initial=0), np.abs(fast - exact).max(initial=0)
    wrong = "машинное отделение (nt.fast())" if off_fast > off_book else "книга"
    return (f"{name}: книга и машинное отделение разошлись на {gap:.1e}; от эталона ({how}) книга отстоит "
            f"на {off_book:.1e}, машинное отделение — на {off_fast:.1e}: неверно {wrong}")
