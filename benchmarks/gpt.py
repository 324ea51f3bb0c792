"""Шаг обучения GPT урока 10: course_lib под `nt.fast()` против той же модели в PyTorch, в одном процессе.

Запуск (PyTorch не зависимость курса — поставьте его в отдельное окружение, как для benchmarks/attention.py):

    python3 -m venv /tmp/torch-env && /tmp/torch-env/bin/pip install torch numpy threadpoolctl
    PYTHONPATH=. /tmp/torch-env/bin/python benchmarks/gpt.py [--repeats 20]

Шаг — прямой проход, кросс-энтропия следующего символа, обратный проход и шаг Adam; float32.
Две конфигурации: урока 10 (V = 175, T = 64, d_model = 64, 4 головы, 2 блока, батч 16) и CPU-рецепт
nanoGPT (d_model = 128, 4 блока, 4 головы, T = 64, батч 12). Модель PyTorch — та же: эмбеддинги
токена и позиции с разбросом 0.1, блоки pre-norm (TransformerEncoderLayer(norm_first=True), GELU-tanh, без
dropout), причинная маска, итоговый LayerNorm, линейная голова.

Соперники меряются по очереди (measure_interleaved из benchmarks/attention.py): медианы по часам и
процессорного времени (все потоки процесса). Цель (issue 27) — шаг course_lib не дороже 1.2× шага PyTorch
**в одном потоке**, по процессорному времени: класс упирается в ядра сервера, и шаг, который
занимает два ядра, стоит классу вдвое. PyTorch на всех ядрах печатается для сравнения по часам.
Потоки: BLAS NumPy — один. Потоки OpenBLAS ещё ~0.1 с крутятся после каждого умножения и отнимали бы
ядра у потоков PyTorch в том же процессе (torch брал 131 мс вместо 35). Свой пул course_lib под `nt.fast()`
(слитое внимание, большие умножения) слушается OMP_NUM_THREADS, как на сервере класса: поэтому course_lib,
как и torch, меряется дважды — в один поток (для цели) и на всех ядрах (по часам, для сравнения). На шаге
урока 10 матрицы малы, и пул почти не включается; у рецепта nanoGPT он берёт второе ядро.
"""

import argparse
import os
import statistics
from unittest import mock

import numpy as np
from threadpoolctl import threadpool_limits

import course_lib as nt
from attention import cpu_count, measure_interleaved, ms, optional_torch, print_setup
from course_lib.engine_room import memory
from course_lib.optim import Adam
from course_lib.russian import number, plural

CONFIGS = {   # имя: (V, T, d_model, головы, блоки, батч)
    "урок 10": (175, 64, 64, 4, 2, 16),
    "CPU-рецепт nanoGPT": (175, 64, 128, 4, 4, 12),
}
OURS_ONE = "course_lib, 1 поток"
TARGET = 1.2      # course_lib / PyTorch в одном потоке, по процессорному времени


def course_lib_step(V, T, D, H, L, N, rng):
    nt.manual_seed(0)
    model = nt.GPT(V, T, D, H, L).to(np.float32)
    optimizer = Adam(model.parameters(), lr=3e-3)
    ids = rng.integers(0, V, size=(N, T + 1))

    def step():
        with nt.fast():
            loss = nt.cross_entropy(model(ids[:, :-1]), ids[:, 1:])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()

    return model, step


def torch_step(torch, V, T, D, H, L, N, rng):
    F = torch.nn.functional

    class GPT(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.tokens, self.positions = torch.nn.Embedding(V, D), torch.nn.Embedding(T, D)
            self.blocks = torch.nn.ModuleList(
                torch.nn.TransformerEncoderLayer(D, H, dim_feedforward=4 * D, dropout=0.0, batch_first=True,
                                                 norm_first=True, activation=lambda v: F.gelu(v, approximate="tanh"))
                for _ in range(L))
            self.ln_final, self.unembed = torch.nn.LayerNorm(D), torch.nn.Linear(D, V)
            for table in (self.tokens.weight, self.positions.weight):
                torch.nn.init.normal_(table, std=0.1)                # как EMBEDDING_STD в course_lib/nn/gpt.py
            self.register_buffer("blocked", torch.ones(T, T, dtype=torch.bool).triu(1))   # True = «нельзя»

        def forward(self, ids):
            x = self.tokens(ids) + self.positions.weight[: ids.shape[1]]
            for block in self.blocks:
                x = block(x, src_mask=self.blocked, is_causal=True)
            return self.unembed(self.ln_final(x))

    torch.manual_seed(0)
    model = GPT()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    ids = torch.from_numpy(rng.integers(0, V, size=(N, T + 1)))

    def step():
        logits = model(ids[:, :-1])
        loss = F.cross_entropy(logits.reshape(-1, V), ids[:, 1:].reshape(-1))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

    return model, step


def untuned_memory_step(repeats):
    """Шаг урока 10 без настройки памяти engine_room/memory.py (она на весь процесс: мерить, пока её нет)."""
    if memory._asked is not None:
        return None
    memory._asked = False                  # как будто glibc отказалась: nt.fast() её не попросит
    try:
        _, step = course_lib_step(*CONFIGS["урок 10"], np.random.default_rng(0))
        return measure_interleaved({"шаг": _course_lib_threads(1, step)}, repeats)["шаг"]
    finally:
        memory._asked = None               # дальше — как обычно: первый nt.fast() попросит


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=20, help="замеров на соперника (по умолчанию 20)")
    args = parser.parse_args()
    torch = optional_torch(1)
    print(__doc__.splitlines()[0])
    print_setup(torch)
    print("BLAS NumPy на время замеров — в один поток (см. выше, почему)")
    cores = cpu_count()
    all_cores = f"torch, {plural(cores, 'поток', 'потока', 'потоков')}"
    ours_all = f"course_lib, {plural(cores, 'поток', 'потока', 'потоков')}"
    with threadpool_limits(limits=1, user_api="blas"):
        untuned = untuned_memory_step(args.repeats)
        for name, (V, T, D, H, L, N) in CONFIGS.items():
            rng = np.random.default_rng(0)
            model, ours = course_lib_step(V, T, D, H, L, N, rng)
            steps = {OURS_ONE: _course_lib_threads(1, ours)}
            if cores > 1:
                steps[ours_all] = _course_lib_threads(cores, ours)
            if torch is not None:
                tmodel, theirs = torch_step(torch, V, T, D, H, L, N, rng)
                assert sum(p.numel() for p in tmodel.parameters()) == model.num_params()   # та же модель
                steps["torch, 1 поток"] = _threads(torch, 1, theirs)
                if cores > 1:
                    steps[all_cores] = _threads(torch, cores, theirs)
            cpu = {}
            times = measure_interleaved(steps, args.repeats, cpu=cpu)
            print(f"\n{name}: V={V}, T={T}, d_model={D}, h={H}, блоков {L}, батч {N}; параметров {number(model.num_params())}")
            for who, t in times.items():
                print(f"  {who:<26} {ms(t)[0]:7.1f} мс на шаг по часам, {ms(cpu[who])[0]:7.1f} мс процессора")
            if name == "урок 10" and untuned is not None:
                ratio = statistics.median(untuned) / statistics.median(times[OURS_ONE])
                print(f"  {'память: без настройки glibc':<26} {ms(untuned)[0]:7.1f} мс на шаг — "
                      f"настройка (engine_room/memory.py) ускоряет шаг в {ratio:.2f} раза")
            if torch is not None:
                ours_cpu = statistics.median(cpu[OURS_ONE])
                ratio = ours_cpu / statistics.median(cpu["torch, 1 поток"])
                verdict = "цель выполнена" if ratio <= TARGET else f"цель {TARGET}× НЕ выполнена"
                print(f"  course_lib / torch в 1 поток, процессорное время: {ratio:.2f}×  {verdict}")
                if cores > 1:
                    wall = statistics.median(times[ours_all]) / statistics.median(times[all_cores])
                    print(f"  course_lib / torch на {cores} ядрах, по часам: {wall:.2f}× (для сравнения; "
                          f"оба берут все ядра)")


def _course_lib_threads(count, step):
    """Шаг course_lib, пул которого берёт count ядер (OMP_NUM_THREADS на время шага; engine_room/pool.py)."""
    def run():
        with mock.patch.dict(os.environ, {"OMP_NUM_THREADS": str(count)}):
            step()
    return run


def _threads(torch, count, step):
    """Шаг PyTorch в count потоков: число потоков ставится перед каждым вызовом (соперники идут по очереди)."""
    def run():
        torch.set_num_threads(count)
        step()
    return run


if __name__ == "__main__":
    main()
