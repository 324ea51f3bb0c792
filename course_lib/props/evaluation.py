"""Числа, которыми урок 07 проверяет обученное внимание: точность и куда смотрят головы."""

from dataclasses import dataclass

import numpy as np

from course_lib.autograd.tensor import no_grad
from course_lib.props.training import relations_logits


@dataclass
class BankReport:
    """accuracy — доля верных смыслов; cue_weight — средний вес от «банка» на решающее слово;
    uniform — 1/T, столько же было бы при равномерном внимании."""
    accuracy: float
    cue_weight: float
    uniform: float


def bank_report(model, data):
    """Точность модели на предложениях data (BankData) и средний вес «банк» -> решающее слово.

    Вес усредняется по предложениям, где решающее слово есть, и по головам.
    """
    logits, weights = model.predict(data.ids, read_at=data.bank)       # (N, C), (N, h, T, T)
    has_cue = data.cue >= 0
    rows = np.flatnonzero(has_cue)
    cue_weights = weights[rows, :, data.bank[rows], data.cue[rows]]     # (N_cue, h)
    return BankReport(float((logits.argmax(-1) == data.labels).mean()),
                      float(cue_weights.mean()) if rows.size else float("nan"),
                      1 / data.ids.shape[1])


def queries_outer(view):
    """Копия view (..., Q) с осью запросов внешней в памяти — как у weights[..., q, k] с массивами q, k:
    NumPy складывает такой массив по запросам в том же порядке, и среднее выходит то же, бит в бит."""
    return np.moveaxis(np.moveaxis(view, -1, 0).copy(), 0, -1)


def relation_scores(weights):
    """Сколько веса каждая голова отдаёт предыдущей позиции и первой: (previous (h,), first (h,)).

    weights: (..., h, T, T), T ≥ 3. Считаем по запросам t = 2…T−1: при t = 1 предыдущая
    позиция и есть первая, и по ней головы не различить. Ведущие оси (батч) усредняются.
    """
    weights = np.asarray(getattr(weights, "data", weights))
    if weights.ndim < 3 or weights.shape[-1] != weights.shape[-2] or weights.shape[-1] < 3:
        raise ValueError(f"relation_scores ждёт веса формы (…, h, T, T) с T ≥ 3, а пришла форма {weights.shape}")
    weights = weights.reshape(-1, *weights.shape[-3:])                  # (B, h, T, T)
    # запросы 2…T−1: диагональ под главной (weights[t, t − 1]) без строки 1 и столбец 0 без строк 0, 1
    below = queries_outer(np.diagonal(weights, offset=-1, axis1=-2, axis2=-1)[..., 1:])
    previous = below.mean(axis=(0, -1))                                 # (B, h, T−2) -> (h,)
    first = queries_outer(weights[..., 2:, 0]).mean(axis=(0, -1))   # (B, h, T−2) -> (h,)
    return previous, first


def head_difference(weights, a=0, b=1):
    """Насколько по-разному смотрят головы a и b: средняя по строкам t ≥ 2 полувариация
    ½·Σ|w_a − w_b| — 0, если строки совпадают, 1, если у них нет общих ключей. weights: (…, h, T, T)."""
    weights = np.asarray(getattr(weights, "data", weights))
    rows_a = weights[..., a, 2:, :]                                      # (…, T−2, T)
    rows_b = weights[..., b, 2:, :]
    return float(0.5 * np.abs(rows_a - rows_b).sum(axis=-1).mean())


@dataclass
class RelationsReport:
    """accuracy — доля позиций, где верны оба ответа; previous, first — (h,) из relation_scores;
    difference — head_difference между головами 0 и 1."""
    accuracy: float
    previous: np.ndarray
    first: np.ndarray
    difference: float

    def head_roles(self):
        """Номера голов (с нуля): (какая смотрит на предыдущую, какая — на первую)."""
        return int(np.argmax(self.previous)), int(np.argmax(self.first))


def relations_report(model, data):
    """Точность на data (RelationsData) и где смотрят головы; выходной слой выдаёт 2K чисел (см. relations_loss)."""
    with no_grad():
        first_logits, previous_logits = relations_logits(model, data)   # (N, T−1, K) каждая
    right = (first_logits.data.argmax(-1) == data.first) & (previous_logits.data.argmax(-1) == data.previous)
    weights = model.predict(data.ids)[1]                                # (N, h, T, T)
    previous, first = relation_scores(weights)
    return RelationsReport(float(right.mean()), previous, first, head_difference(weights))
