"""Упражнения урока 07: цикл обучения своими руками и «какая голова что делает»."""

import re

import numpy as np

from course_lib.autograd.tensor import Tensor
from course_lib.exercises._checker import (Crashed, Wrong, arrived, call, checker, expect_close, expect_numbers,
                                           expect_shape, recognize)
from course_lib.exercises._errors import describe
from course_lib.exercises._softmax import naive_softmax
from course_lib.props.evaluation import bank_report, relation_scores
from course_lib.props.models import TinyAttention
from course_lib.optim import Adam
from course_lib.rng import temporary_seed
from course_lib.props.tasks import BANK_VOCAB, CLASS_NAMES, bank_sentences
from course_lib.props.training import bank_loss

STEPS = 40            # на задаче «банк» этого хватает, чтобы внимание нашло решающее слово
ORDER = "zero_grad() -> loss = loss_fn(model) -> loss.backward() -> optimizer.step()"
FORWARD_IN_LOOP = (f"за steps = {STEPS} шагов loss_fn вызвана {{count}} раз: прямой проход — "
                   "внутри цикла, ровно один на шаг (после шага параметры другие, и loss надо считать заново)")
STEP_BEFORE_BACKWARD = ("optimizer.step() вызван раньше loss.backward(): градиентов этого шага ещё нет, и шаг делается "
                        f"по пустым (или прошлым) градиентам. Порядок такой: {ORDER}")

RETAIN_GRAPH = ("loss.backward(retain_graph=True) вызван {count} раз: здесь он не нужен — loss считается заново на каждом "
                "шаге, и граф прошлого шага больше не понадобится, а с retain_graph=True он остаётся в памяти. В PyTorch "
                "его добавляют, чтобы заглушить ошибку «второй backward по тому же графу» — а она значит, что прямой "
                "проход стоит вне цикла. Вызывайте loss.backward() без аргументов")


class _Loss(Tensor):
    """loss, который отдаёт проверка: замечает backward() и, как в PyTorch, отдаёт float(loss) — его число."""

    spy = None

    def __float__(self):
        return float(self.item())

    def backward(self, grad=None, retain_graph=False):
        self.spy.before_backward(retain_graph)
        return super().backward(grad, retain_graph=retain_graph)


class _Spy:
    """Считает, что делал цикл ученика: прямые и обратные проходы, шаги — и в каком состоянии были градиенты."""

    def __init__(self, model, data):
        self.events, self.losses = [], []
        self.steps_before_backward = self.steps_without_grad = self.stale_backwards = self.retained = 0
        self.model, self.data = model, data
        spy = self

        class SpyAdam(Adam):
            def step(self):
                last = next((event for event in reversed(spy.events) if event in ("forward", "backward")), None)
                if last != "backward":
                    spy.steps_before_backward += 1
                elif not spy.has_grads():
                    spy.steps_without_grad += 1
                spy.events.append("step")
                super().step()

        self.optimizer = SpyAdam(model.parameters(), lr=0.01)

    def has_grads(self):
        """Есть ли у параметров ненулевые градиенты (обнулить можно как угодно: zero_grad(), p.grad = None, …)."""
        return any(p.grad is not None and np.any(p.grad) for p in self.model.parameters())

    def loss_fn(self, model):
        loss = bank_loss(model, self.data)
        loss.__class__, loss.spy = _Loss, self
        self.events.append("forward")
        self.losses.append(loss.item())
        return loss

    def before_backward(self, retain_graph=False):
        """Градиенты перед backward() должны быть стёрты: иначе новый сложится со старым."""
        self.events.append("backward")
        self.retained += retain_graph is True
        if self.has_grads():
            self.stale_backwards += 1


@checker
def check_training_loop(candidate):
    """candidate(model, optimizer, loss_fn, steps) -> список loss.item() каждого шага."""
    with temporary_seed(0):
        model = TinyAttention(len(BANK_VOCAB), len(CLASS_NAMES), d_model=16, num_heads=1)
    spy = _Spy(model, bank_sentences(128, seed=5))
    start = [p.data.copy() for p in model.parameters()]
    try:
        out = call(candidate, model, spy.optimizer, spy.loss_fn, STEPS, raw=True)
    except Crashed as crash:
        if str(crash.error).startswith("backward():"):     # библиотека отказала: граф прошлого шага или веса уже сдвинуты
            raise Wrong(STEP_BEFORE_BACKWARD if spy.steps_before_backward else FORWARD_IN_LOOP.format(
                count=spy.events.count("forward"))) from None
        torch = re.search(r"(backward|zero_grad|step)\(\) got an unexpected keyword argument '(\w+)'", str(crash.error))
        if torch:
            raise crash.retold(f"у {torch[1]}() в course_lib нет аргумента {torch[2]} — он из PyTorch. Здесь "
                               "zero_grad(), loss.backward() и step() вызывают без аргументов: граф строится заново "
                               "на каждом шаге, и хранить его не нужно") from None
        raise
    count = spy.events.count
    if spy.retained:
        raise Wrong(RETAIN_GRAPH.format(count=spy.retained))
    if count("forward") == 0:
        raise Wrong("loss_fn ни разу не вызвана: на каждом шаге нужен прямой проход `loss = loss_fn(model)`")
    if count("forward") != STEPS:
        raise Wrong(FORWARD_IN_LOOP.format(count=count("forward")))
    if count("backward") == 0:
        raise Wrong("loss.backward() ни разу не вызван: без него у параметров нет градиентов, и шагать некуда")
    if count("step") == 0 and any(not np.array_equal(p.data, s) for p, s in zip(model.parameters(), start)):
        raise Wrong("параметры сдвинулись, но не переданным оптимизатором: optimizer.step() ни разу не вызван. "
                    "Похоже, вы создали свой (Adam(model.parameters()) внутри функции) или шагаете руками — "
                    "шагайте тем optimizer, что пришёл аргументом: у него свои настройки и своё состояние")
    if count("step") == 0:
        raise Wrong("optimizer.step() ни разу не вызван: градиенты посчитаны, но параметры так и не сдвинулись")
    if spy.steps_before_backward:
        raise Wrong(STEP_BEFORE_BACKWARD)
    if spy.steps_without_grad:
        raise Wrong(f"optimizer.step() вызван, когда градиентов уже нет: zero_grad() стоит между backward() и step()? "
                    f"Порядок такой: {ORDER}")
    if count("step") != STEPS:
        raise Wrong(f"optimizer.step() вызван {count('step')} раз, а шагов {STEPS}: один шаг — один step()")
    if spy.stale_backwards:
        raise Wrong("градиенты копятся от шага к шагу: backward() прибавляет новый градиент к старому, "
                    f"поэтому в начале каждого шага нужен optimizer.zero_grad(). Порядок: {ORDER}")
    losses = _numbers(out)
    if losses.shape != (STEPS,):
        raise Wrong(f"верните список из steps = {STEPS} чисел — loss каждого шага, а пришло {losses.size}")
    expect_close(losses, np.array(spy.losses), "в списке не те числа: на каждом шаге добавляйте loss.item() этого шага")
    if not losses[-1] < 0.5 * losses[0]:
        raise Wrong(f"loss почти не упал ({losses[0]:.3f} -> {losses[-1]:.3f}): проверьте порядок шагов — {ORDER}")
    report = bank_report(model, bank_sentences(400, seed=6))
    if report.cue_weight < 0.8:
        raise Wrong(f"loss упал, но «банк» смотрит на решающее слово лишь с весом {report.cue_weight:.2f} "
                    f"(нужно ≥ 0.8): проверьте порядок шагов — {ORDER}")
    return (f"за {STEPS} шагов loss упал с {losses[0]:.3f} до {losses[-1]:.4f}, "
            f"а «банк» смотрит на решающее слово с весом {report.cue_weight:.2f}")


def _numbers(out):
    """Список (кортеж, массив) чисел loss -> массив float; тензоры, методы без скобок и прочее — подсказкой."""
    if isinstance(out, Tensor) or (isinstance(out, (list, tuple)) and any(isinstance(x, Tensor) for x in out)):
        raise Wrong("в списке лежат тензоры, а нужны числа: добавляйте loss.item() — иначе список держит "
                    "в памяти весь граф каждого шага")
    if isinstance(out, (list, tuple)) and any(callable(x) for x in out):
        raise Wrong("в списке функции, а не числа: loss.item без скобок? Нужно loss.item()")
    if not isinstance(out, (list, tuple, np.ndarray)):
        raise Wrong(f"верните список чисел — loss каждого шага, а пришло {describe(out)}")
    try:
        values = np.asarray(out)
    except ValueError:
        values = np.asarray(out, dtype=object)
    if values.dtype.kind not in "iuf":
        raise Wrong(f"верните список чисел — loss каждого шага, а в списке не только числа: {arrived(values)}")
    return values.astype(float).ravel()


def _relation_examples():
    """Веса (h, T, T) со строками в сумме 1: обычные, побольше голов и длиннее, и самые короткие (T = 3, одна голова)."""
    for seed, (h, T) in ((7, (2, 6)), (8, (3, 9)), (9, (1, 3))):
        scores = np.random.default_rng(seed).normal(scale=2.0, size=(h, T, T))
        yield naive_softmax(scores)


@checker
def check_relation_scores(candidate):
    """candidate(weights (h, T, T)) -> (previous (h,), first (h,)): средний вес на t − 1 и на 0 по t = 2…T−1."""
    for weights in _relation_examples():
        _check_relation_example(candidate, weights)
    return "по этим двум числам видно, какая голова смотрит на предыдущую позицию, а какая — на первую"


def _check_relation_example(candidate, weights):
    h, T, _ = weights.shape
    where = f"для весов ({h}, {T}, {T})" + ("" if (h, T) == (2, 6) else " (T и h берите из weights.shape)")
    previous, first = call(candidate, weights.copy(), parts=("previous", "first"))
    reference_previous, reference_first = relation_scores(weights)
    expect_numbers(previous, f"{where}: previous", (h,))
    expect_numbers(first, f"{where}: first", (h,))
    if (previous.shape == () or first.shape == ()) and h > 1:
        raise Wrong(f"нужно по числу на каждую голову: previous и first формы (h,) = ({h},). "
                    "Усредняйте по запросам t (axis=-1), а не по всему сразу")
    expect_shape(previous, (h,), f"{where}: previous")
    expect_shape(first, (h,), f"{where}: first")
    t = np.arange(2, T)
    swapped = "previous и first перепутаны местами: сначала вес на предыдущую позицию, потом на первую"
    rows_columns = ("перепутаны строка и столбец: строка — кто смотрит (запрос t), столбец — на кого. "
                    "Вес «t смотрит на {}» — это weights[:, t, {}]")
    # при t = 0 индекс t − 1 = −1 — последний столбец, как в NumPy
    too_early = [(f"считайте по запросам t = 2…T−1, а у вас с t = {start}: при t = 1 предыдущая позиция "
                  "и есть первая, а t = 0 смотрит сам на себя — головы по ним не различить", np.arange(start, T))
                 for start in (0, 1)]
    # при T = 3 запрос один (t = 2), и «следующей позиции» t + 1 у него нет
    following = [(lambda: weights[:, t[:-1], t[:-1] + 1].mean(-1),
                  "t + 1 — это следующая позиция, а нужна предыдущая: weights[:, t, t - 1]")] if T > 3 else []
    recognize(previous, reference_previous, [(lambda: reference_first, swapped)] + [
        (lambda wide=wide: weights[:, wide, wide - 1].mean(-1), hint) for hint, wide in too_early] + [
        (lambda: weights[:, t - 1, t].mean(-1), rows_columns.format("t − 1", "t - 1"))] + following)
    recognize(first, reference_first, [(lambda: reference_previous, swapped)] + [
        (lambda wide=wide: weights[:, wide, 0].mean(-1), hint) for hint, wide in too_early] + [
        (lambda: weights[:, 0, t].mean(-1), rows_columns.format("первую позицию", "0"))])
    expect_close(previous, reference_previous, f"{where}: previous неверный — средний по t = 2…T−1 вес "
                                               "weights[:, t, t - 1]")
    expect_close(first, reference_first, f"{where}: first неверный — средний по t = 2…T−1 вес weights[:, t, 0]")
