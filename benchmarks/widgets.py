"""Задержка каждого ползунка каждого виджета курса на стороне ядра: от сдвига до готового кадра.

    .venv/bin/python benchmarks/widgets.py            # все виджеты
    .venv/bin/python benchmarks/widgets.py heads      # только те, в чьём имени есть «heads»

Без Jupyter: виджет создаётся так же, как в уроке, а его ползунки двигаются из Python — так же,
как их двигает браузер через comm (значение -> observe -> кадр). Каждый ползунок проходит
шагами вперёд от начального значения и обратно, как ученик с клавиатуры: первый заход в
новую раскладку (другое T, другое число голов, другой блок) строит фигуру, обратный путь
берёт её из кэша. Печатается таблица: виджет, ползунок, сдвигов, p50 и p95 в мс (процессорное
время главного потока ядра), p50 по часам, сколько из этого стоит кадр: сжатие в JPEG и перевод
в текст (base64 для data: URL, которым кадр уходит в браузер), и отдельно — медиана сдвигов в
новую раскладку (фигура строится, кэш не помогает; браузерный тест двигает ползунки именно так).

Виджет, показанный на экране, строит соседние раскладки заранее в фоновом потоке (Explorer(prefetch=...)).
Для таких виджетов есть вторая строка «на экране»: виджет показан, и между сдвигами — пауза,
пока фоновый поток не закончит (ученик смотрит на кадр). Так видно, что даёт фоновая постройка.

Цель (issue 14): p50 ≤ 100 мс и p95 ≤ 200 мс для каждого ползунка. Браузер добавляет к этому
доставку кадра и его показ (tests/test_browser.py печатает свою таблицу).
"""

import os
import sys
import time

import numpy as np

import course_lib as nt
from course_lib import widgets as W

MOVES = 8            # шагов вперёд (и столько же обратно) на ползунок


def bank_training():
    """Маленькое обучение задачи «две связи»: снимки, как у ползунка «шаг» урока 07."""
    from course_lib.props.models import TinyAttention
    from course_lib.props.tasks import letters, two_relations
    from course_lib.props.training import relations_loss, train

    data = two_relations(32, T=8, K=3, seed=0)
    nt.manual_seed(0)
    model = TinyAttention(3, 6, d_model=8, num_heads=2, max_len=8)      # K = 3 буквы, 2K ответов
    history = train(model, lambda m: relations_loss(m, data), steps=40, lr=0.05, probe=data.ids[0], snapshot_every=2)
    return history, letters(data.ids[0], numbered=True)


def induction_training():
    """Короткое обучение индукционной головы со снимками — как у ползунка «шаг» урока 09."""
    from course_lib.props.induction import attention_only, repeated_blocks
    from course_lib.props.induction_training import train_induction

    probe = repeated_blocks(1, 5, np.random.default_rng(0))[0]
    nt.manual_seed(0)
    history = train_induction(attention_only(2), steps=20, seed=0, probe=probe, snapshot_every=10)
    return history, [str(t) for t in probe]


def bank_layer():
    """Слой внимания вместо обученного в уроке 07: у виджета с model= ползунки d_k, голов и зерно заблокированы."""
    nt.manual_seed(0)
    return nt.MultiHeadAttention(8, 2)


def gpt_checkpoint():
    """GPT урока 10 из чекпойнта (модель и токенизатор) — как у ползунков генерации и голов."""
    from course_lib.props.gpt_checkpoint import lesson_checkpoint_path, load_gpt

    return load_gpt(lesson_checkpoint_path())


def gpt_training():
    """Короткое обучение GPT со снимками — как у ползунка «шаг» урока 10 (там 1000 шагов, снимок каждые 100)."""
    from course_lib.props.gpt_training import train_gpt
    from course_lib.props.text_file import lessons_text

    return train_gpt(lessons_text(), 20, seed=0, eval_every=10, snapshot_steps=(0, 10, 20), sample_len=40,
                     progress=lambda *args: None)


def widgets_of_the_course():
    """Имя -> фабрика виджета с теми же аргументами, что в уроках (и tests/test_widgets_ranges.py)."""
    from course_lib.props.embeddings import load_corpus, train_static_embeddings
    from course_lib.widgets.soft_search import CATALOGUE_KEYS, CATALOGUE_LABELS

    six = "кот сел на тёплый коврик и долго смотрел в окно"
    return {
        "00 temperature_heatmap": W.temperature_heatmap,
        "01 embeddings_explorer": lambda: W.embeddings_explorer(train_static_embeddings(load_corpus("ru"))),
        "02 softmax_explorer": lambda: W.softmax_explorer(CATALOGUE_KEYS @ [0.0, 4.0], CATALOGUE_LABELS),
        "02 soft_search_explorer": W.soft_search_explorer,
        "03 scaling_explorer": lambda: W.scaling_explorer(d_k=64, scaled=False),
        "03 attention_explorer": lambda: W.attention_explorer(sentence=six, d_k=8, heads=1),
        "04 permutation_explorer": lambda: W.permutation_explorer(sentence="кот сел на тёплый коврик"),
        "05 causal_explorer": lambda: W.causal_explorer(T=6, causal=True),
        "06 heads_explorer": lambda: W.heads_explorer(heads=4),
        "06 attention_explorer": lambda: W.attention_explorer(sentence=six, heads=4),
        "07 training_explorer": lambda: W.training_explorer(*bank_training(), query=7),
        "07 attention_explorer(model)": lambda: W.attention_explorer(sentence="вчера я видел банк у реки",
                                                                     model=bank_layer()),
        "08 online_softmax_explorer": lambda: W.online_softmax_explorer(block_size=6, step=1),
        "08 local_window_explorer": lambda: W.local_window_explorer(window=4, query=9),
        "09 induction_explorer": lambda: W.induction_explorer(*induction_training()),
        "10 samples_explorer": lambda: W.samples_explorer(gpt_training()),
        "10 sampling_explorer": lambda: W.sampling_explorer(*gpt_checkpoint()),
        "10 gpt_heads_explorer": lambda: W.gpt_heads_explorer(*gpt_checkpoint(), ["кот сел на тёплый коврик",
                                                                                  "банк выдал кредит"]),
    }


def path_of(control):
    """Значения, которые ползунок пройдёт: MOVES шагов вперёд (или назад у края) и обратно."""
    import ipywidgets as widgets

    if isinstance(control, widgets.Checkbox):
        return [not control.value, control.value] * (MOVES // 2)
    if isinstance(control, widgets.Dropdown):
        options = list(control.options)
        return options[1:MOVES + 1] + options[:MOVES][::-1]
    if isinstance(control, widgets.Text):
        return ["мама мыла раму", "кот сел на тёплый коврик", "собака кусает человека и кота"]
    if isinstance(control, widgets.FloatLogSlider):
        low, high, at = control.min, control.max, np.log10(control.value)
    else:
        low, high, at = control.min, control.max, control.value
    ahead = [at + control.step * i for i in range(1, MOVES + 1)]
    forward = [v for v in ahead if v <= high + 1e-9]
    backward = [v for v in (at - control.step * i for i in range(1, MOVES + 1)) if v >= low - 1e-9]
    if len(backward) > len(forward):               # у правого края — идём влево
        forward = backward
    if isinstance(control, widgets.FloatLogSlider):
        forward = [10 ** v for v in forward]
    return forward + forward[::-1][1:] + [control.value]


def measure(explorer, name, shown=False):
    """На каждый сдвиг ползунка `name`: мс процессорного времени ядра, мс по часам, мс на JPEG и на base64,
    и сколько видов (вызовов функции вида) посчитано за сдвиг.

    Время процессора — главного потока (`thread_time`): фоновая постройка раскладок сюда не входит.
    Число видов не зависит от загрузки машины: это счёт, а не время (issue 18: раньше соседние
    раскладки узнавали, считая соседние виды целиком, — до пяти видов на сдвиг T).
    shown: виджет на экране, перед каждым сдвигом фоновый поток успевает закончить.
    """
    control = explorer.controls[name]
    start = control.value
    cpu, wall, jpeg, text, built, views = [], [], [], [], [], []
    view, counted = explorer.view, []
    explorer.view = lambda **values: counted.append(1) or view(**values)
    for value in path_of(control):
        if control.value == value or getattr(control, "disabled", False):
            continue
        if shown:
            explorer.live.join_prefetch()
        redraws = explorer.live.full_redraws
        counted.clear()
        started, clock = time.thread_time(), time.perf_counter()
        control.value = value
        cpu.append((time.thread_time() - started) * 1000)
        views.append(len(counted))
        if explorer.live.full_redraws > redraws and not shown:
            built.append(cpu[-1])
        wall.append((time.perf_counter() - clock) * 1000)
        jpeg.append(explorer.live.encode_seconds * 1000)
        text.append(explorer.live.text_seconds * 1000)
    control.value = start
    explorer.view = view
    return cpu, wall, jpeg, text, built, views


def main(pattern=""):
    print(f"ядер: {os.cpu_count()}, загрузка машины (1 мин): {os.getloadavg()[0]:.1f}, "
          f"OPENBLAS_CORETYPE={os.environ.get('OPENBLAS_CORETYPE', '—')}")
    print("p50/p95 — процессорное время главного потока ядра на сдвиг (на занятой машине часы врут: они ждут чужие процессы);")
    print("«по часам» — p50 настенного времени; JPEG и data: URL — p50 сжатия кадра и перевода его в текст;")
    print("«видов» — сколько раз на сдвиг считалась функция вида (в среднем; 1 — только сам кадр).")
    print(f"{'виджет':<34} {'ползунок':<12} {'сдвигов':>7} {'p50, мс':>8} {'p95, мс':>8} {'по часам':>9} "
          f"{'JPEG':>6} {'data:URL':>8} {'видов':>6} {'новая раскладка':>15}")
    worst = []
    for widget, factory in widgets_of_the_course().items():
        if pattern not in widget:
            continue
        explorer = factory()
        passes = [(widget, False)]
        if explorer.prefetch_controls:
            passes.append((f"{widget} на экране", True))
        for label, shown in passes:
            if shown:
                explorer = factory()
                explorer._repr_mimebundle_()                 # так Jupyter показывает виджет
            for name in explorer.controls:
                if shown and name not in explorer.prefetch_controls:
                    continue                                 # остальные ползунки раскладку не меняют: как без экрана
                cpu, wall, jpeg, text, built, views = measure(explorer, name, shown)
                if not cpu:
                    continue
                p50, p95 = np.percentile(cpu, [50, 95])
                flag = "  <- выше цели" if p50 > 100 or p95 > 200 else ""
                # первый заход в раскладку (строится фигура) — так ползунок двигают в браузере: всё время в одну сторону
                fresh = f"{np.median(built):.0f} мс ×{len(built)}" if built else "—"
                print(f"{label:<34} {name:<12} {len(cpu):>7} {p50:>8.1f} {p95:>8.1f} {np.median(wall):>9.1f} "
                      f"{np.median(jpeg):>6.1f} {np.median(text):>8.2f} {np.mean(views):>6.2f} {fresh:>15}{flag}")
                worst.append((p95, label, name))
    if worst:
        p95, widget, name = max(worst)
        print(f"самый медленный по p95: {widget} / {name} — {p95:.0f} мс (цель: p50 ≤ 100, p95 ≤ 200)")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "")
