"""x @ W слоя Linear быстрее: пачка векторов — одной матрицей, большое умножение — кусками на все ядра (pool.py)."""

from course_lib.engine_room.inputs import check_tensor
from course_lib.engine_room.pool import matmul


def fast_linear(x, weight):
    """x (..., d_in) @ weight (d_in, d_out) -> (..., d_out) — то же, что `x @ weight`, со своим backward.

    NumPy умножает пачку (N, T, d_in) на матрицу по одной матрице (T, d_in) за вызов BLAS; здесь
    пачка сложена в одну матрицу (N·T, d_in): один большой вызов BLAS заметно быстрее многих
    маленьких, а большой ещё и делится по ядрам (pool.matmul). Градиент весов — тоже одним
    умножением (N·T, d_in)ᵀ @ (N·T, d_out): сразу сумма по батчу, без массива (N, d_in, d_out).
    """
    check_tensor(x, "x", "fast_linear", "(…, d_in)", "x @ weight или слой nt.nn.Linear", axes=1)
    check_tensor(weight, "weight", "fast_linear", "(d_in, d_out)", "x @ weight или слой nt.nn.Linear")
    if weight.ndim != 2 or x.shape[-1] != weight.shape[0]:
        raise ValueError(f"fast_linear: x (…, d_in) @ weight (d_in, d_out) — weight матрица, и её первая ось равна "
                         f"последней оси x, а пришли x {x.shape} и weight {weight.shape}")
    rows = x.data.reshape(-1, x.shape[-1])                          # (..., d_in) -> (n, d_in)
    product = matmul(rows, weight.data)                             # (n, d_in) @ (d_in, d_out) -> (n, d_out)
    out = x._child(product.reshape(x.shape[:-1] + weight.shape[-1:]), weight)

    def _backward(g):
        g_rows = g.reshape(-1, g.shape[-1])                         # (..., d_out) -> (n, d_out)
        grad_x = matmul(g_rows, weight.data.T).reshape(x.shape)     # dL/dx = g Wᵀ
        grad_weight = matmul(rows.T, g_rows)                        # dL/dW = xᵀ g по всем n строкам сразу
        return grad_x, grad_weight

    out._backward = _backward
    return out
