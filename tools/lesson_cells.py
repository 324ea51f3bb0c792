"""Узлы pytest для проходов уроков (tools/lesson_passes.py): тетрадка -> проходы -> ячейки.

Ячейку исполняет и сверяет nbval (его IPyNbCell), а этот файл добавляет три вещи:
- свой процесс ядра у каждого прохода, с окружением прохода (переносимость — другой путь кода NumPy);
- сверку каждой картинки с картинкой в тетрадке (tools/committed_figures.py): nbval картинок не сравнивает,
  а картинка, заменённая в тетрадке руками, — это вывод, которого урок не рисует;
- отчёт, который читает преподаватель: урок, проход, ячейка, её первая строка и первые различающиеся строки
  (`-` в тетрадке, `+` сейчас) или исключение с его сообщением и строкой, где оно случилось.
"""

import copy
import difflib
import json
import os
import re

import pytest
from nbval.kernel import CURRENT_ENV_KERNEL_NAME, RunningKernel, start_new_kernel
from nbval.plugin import IPyNbCell, IPyNbFile, NbCellError, coalesce_streams, transform_streams_for_comparison

from tools import committed_figures
from tools.lesson_passes import PASSES, SLOW_PASSES, chosen_passes, in_ci, portability_once

MAX_LINES = 8
ANSI = re.compile(r"\x1b\[[0-9;]*m")


class LessonFile(pytest.File):
    """Тетрадка урока: по проходу на каждый выбранный вид (--lesson-passes)."""

    def collect(self):
        number = self.path.name[:2]
        for kind in chosen_passes(self.config):
            name = f"урок {number} · {PASSES[kind]}"
            lesson_pass = LessonPass.from_parent(self, path=self.path, name=name, nodeid=f"{self.nodeid}::{name}", kind=kind)
            if (kind, number) in SLOW_PASSES:
                lesson_pass.add_marker(pytest.mark.slow)         # метку видят и ячейки прохода: -m смотрит на родителей
            yield lesson_pass


class LessonPass(IPyNbFile):
    """Один проход одного урока: своё ядро, ячейки по порядку (в повторном запуске — каждая дважды)."""

    def __init__(self, *args, kind, **kwargs):
        super().__init__(*args, **kwargs)
        self.kind = kind
        self.crashed_at = None          # номер первой ячейки, упавшей с исключением

    def environment(self):
        if self.kind != "portability":
            return dict(os.environ)
        env, disabled, note = portability_once()
        if not disabled:
            if in_ci():
                pytest.fail(f"в CI проход переносимости обязателен: {note}", pytrace=False)
            pytest.skip(note)
        return env

    def setup(self):
        env = self.environment()
        kernel = RunningKernel.__new__(RunningKernel)        # nbval не передаёт ядру окружение — запускаем сами
        kernel.km, kernel.kc = start_new_kernel(startup_timeout=self.config.option.nbval_kernel_startup_timeout,
                                                kernel_name=CURRENT_ENV_KERNEL_NAME, stderr=open(os.devnull, "w"),
                                                cwd=str(self.path.parent), env=env)
        kernel._ensure_iopub_up()
        self.kernel = kernel
        self.setup_sanitize_files()

    def collect(self):
        runs = ("первый запуск", "второй запуск") if self.kind == "rerun" else ("",)
        for cell in super().collect():
            for run in runs:
                name = f"ячейка {cell.cell_num}" + (f" · {run}" if run else "")
                # своя копия ячейки у каждого запуска: nbval, склеивая потоки, меняет сохранённые выводы на месте
                yield LessonCell.from_parent(self, name=name, cell_num=cell.cell_num, cell=copy.deepcopy(cell.cell),
                                             options=cell.options)


class LessonCell(IPyNbCell):
    """Ячейка урока в одном проходе: вывод сверяет nbval, картинки — committed_figures, отчёт — по-русски."""

    def runtest(self):
        try:
            super().runtest()
        except NbCellError as error:
            if self.parent.crashed_at is None and _exception(self):
                self.parent.crashed_at = self.cell_num
            raise error
        if (self.options["check"] and self.cell.execution_count is not None
                and not self.config.getoption("no_figure_compare")):
            problems = committed_figures.differences(self.cell.outputs, self.test_outputs)
            if problems:
                raise FigureDiffers(problems)

    def reportinfo(self):
        return self.path, None, self.nodeid

    def repr_failure(self, excinfo, style=None):
        first = next((s for s in self.cell.source.splitlines() if s.strip()), "")[:120]
        head = f"{self.parent.name} · {self.name}: {first}"
        error = excinfo.value
        if isinstance(error, FigureDiffers):
            return "\n".join([head, *(f"  {line}" for line in error.problems)])
        if not isinstance(error, NbCellError):
            return f"{head}\n  сбой самой проверки: {type(error).__name__}: {error}"
        found = _exception(self)
        if found and found["ename"] == "NameError" and self.parent.crashed_at not in (None, self.cell_num):
            return f"{head}\n  NameError вслед за ячейкой {self.parent.crashed_at}, упавшей выше: {found['evalue']}"
        message = str(error).splitlines()[0][:300] if str(error) else type(error).__name__
        if not found and message != OUTPUTS_DIFFER:
            # не расхождение выводов и не исключение ячейки: nbval не дождался ядра и т. п. — разница выводов тут
            # ничего не объясняет (у ячейки nbval-ignore-output их и не сравнивают), говорим, что случилось
            said = next((text for start, text in NBVAL_MESSAGES.items() if message.startswith(start)), "ячейка не проверена")
            return f"{head}\n  ! {said} (nbval: {message})"
        lines = _first_differences(self) or [message]
        if found:
            lines += [f"  строка: {line}" for line in _failing_lines(found)]
        return "\n".join([head, *(f"  {line}" for line in lines)])


OUTPUTS_DIFFER = "Cell outputs differ"          # так nbval называет расхождение выводов — его разбирает _first_differences
# Другие отказы nbval (не расхождение и не исключение в ячейке): начало сообщения -> что сказать преподавателю.
NBVAL_MESSAGES = {
    "Timeout of": "ядро не успело: ячейка не закончилась за отведённое время или её вывод не дошёл до проверки за "
                  "5 с (так было на перегруженной машине: make test WORKERS=4 на 2 ядрах)",
    "Unrun reference cell has outputs": "в тетрадке у ячейки есть вывод, а номера исполнения нет: тетрадку правили "
                                        "руками — пересоберите её (make notebooks)",
}


class FigureDiffers(Exception):
    def __init__(self, problems):
        super().__init__("; ".join(problems))
        self.problems = problems


def _exception(item):
    return next((o for o in item.test_outputs or [] if o.get("output_type") == "error"), None)


def _failing_lines(error):
    """Строки кода, на которых стояло исключение (IPython отмечает их стрелкой ---->), без цветов."""
    lines = [ANSI.sub("", line) for frame in error.get("traceback", []) for line in frame.splitlines()]
    marked = [line.strip() for line in lines if line.lstrip().startswith("---->") or line.lstrip().startswith("->")]
    return [line[:200] for line in marked[-2:]]


def _texts(item, outputs):
    """Выводы ячейки так, как их сравнивает nbval: ключ (поток или MIME-тип) -> очищенный текст."""
    skip = item.parent.skip_compare
    texts = {}
    for output in transform_streams_for_comparison(coalesce_streams(list(outputs))):
        for key, value in output.items():
            if key in skip:
                continue
            parts = value.items() if key == "data" else [(key, value)]
            for name, part in parts:
                if name not in skip:
                    text = item.sanitize(part)
                    texts.setdefault(name, []).append(text if isinstance(text, str) else json.dumps(text))
    return {key: "\n".join(values) for key, values in texts.items()}


def _first_differences(item):
    """Первые строки, которыми новый вывод отличается от сохранённого ('- ' было, '+ ' стало)."""
    if item.test_outputs is None:
        return []
    error = _exception(item)
    if error:
        text = f"! исключение {error['ename']}: {error['evalue']}".splitlines()
        return [line[:300] for line in text[:6]] + ([f"  … и ещё {len(text) - 6} строк"] if len(text) > 6 else [])
    reference, fresh = _texts(item, item.cell.outputs), _texts(item, item.test_outputs)
    lines = []
    for key in sorted(set(reference) | set(fresh)):
        if key not in fresh:
            lines.append(f"! нет вывода {key} (в тетрадке он есть)")
        elif key not in reference:
            lines.append(f"! лишний вывод {key}: {fresh[key].splitlines()[:1]}")
        elif reference[key] != fresh[key]:
            lines += _paired_diff(key, reference[key].splitlines(), fresh[key].splitlines())
    return lines[:MAX_LINES]


def _paired_diff(key, old, new):
    """Различающиеся строки парами: строка тетрадки (-) и то, чем она стала (+), чтобы обе уместились в отчёт."""
    lines = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(a=old, b=new, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        before, after = old[i1:i2], new[j1:j2]
        for k in range(max(len(before), len(after))):
            lines += [f"- [{key}] {before[k]}"[:300]] if k < len(before) else []
            lines += [f"+ [{key}] {after[k]}"[:300]] if k < len(after) else []
    return lines or [f"! [{key}] различаются пробелы"]
