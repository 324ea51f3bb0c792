"""Страница урока для сайта (tools/build_site.py): тетрадку рисует nbconvert, `HTMLExporter` с шаблоном basic.

Шаблон, подсветку кода и разметку Markdown даёт nbconvert — то же, чем Jupyter сохраняет тетрадку в HTML.
Сайт добавляет к этому одно: препроцессор `SitePreprocessor` переписывает выходы ячеек до экспорта —
    виджет (text/plain «AttentionExplorer(children=(HBox(…») -> проигрыватель кадров (build_site.Player);
    рисунок (image/png) -> файл figures/урок-k.png с описанием для экранного диктора (site_describe.py);
    прочий виджет (полоса прогресса) -> строка «здесь в Jupyter — живой виджет»;
    ячейка с упражнением (`check_…(`) -> строка «здесь его не проверить».
Данные виджетов в метаданных тетрадки (widget-state) экспорту не нужны: страница ничего не грузит извне.
Ссылки на уроки и справочники в готовой странице ведут на их страницы (`site.links`, из build_site).
"""

import base64
import copy
import html
import re
import time

import nbformat
from nbconvert import HTMLExporter
from nbconvert.preprocessors import Preprocessor


def _html(markup):
    """Выход ячейки, который nbconvert вставит как есть."""
    return nbformat.from_dict({"output_type": "display_data", "metadata": {}, "data": {"text/html": markup}})


class SitePreprocessor(Preprocessor):
    """Выходы ячеек урока -> то, что показывает статический сайт (см. описание модуля)."""

    def __init__(self, site, lesson, recorder, out, report, budget, **kwargs):
        super().__init__(**kwargs)
        self.site, self.lesson, self.recorder, self.out = site, lesson, recorder, out
        self.report, self.budget = report, budget
        self.figure_count = self.widget_number = 0

    def preprocess_cell(self, cell, resources, index):
        if cell.cell_type == "code":
            cell.outputs = self._outputs(cell, index)
        return cell, resources

    def _outputs(self, cell, index):
        site, report = self.site, self.report
        figures = list(self.recorder.figures.get(index, []))
        shown = list(self.recorder.widgets.get(index, []))
        images = [o for o in cell.outputs if "image/png" in o.get("data", {})
                  and not site.WIDGET_REPR.match("".join(o["data"].get("text/plain", "")))]
        matched = len(images) == len(figures)
        if not matched and images:
            report["warnings"].append(f"{self.lesson.stem}, ячейка {index}: рисунков в тетрадке {len(images)}, "
                                      f"при исполнении {len(figures)} — описание по коду ячейки")
        outputs = []
        if re.search(r"\bcheck_\w+\(", cell.source):
            outputs.append(_html('<p class="static-note">Упражнение: здесь его не проверить — код не исполняется. '
                                 f'Решайте в живом курсе ({site.LIVE}).</p>'))
        for output in cell.outputs:
            if output.output_type not in ("execute_result", "display_data"):
                outputs.append(output)                       # текст и ошибки nbconvert рисует сам
                continue
            data = output.get("data", {})
            text = "".join(data.get("text/plain", ""))
            widget = site.WIDGET_REPR.match(text)
            if widget and shown:
                outputs.append(_html(self._player(index, widget.group(1), *shown.pop(0))))
            elif "image/png" in data:
                outputs.append(_html(self._figure(cell, data, figures.pop(0) if matched and figures else None, widget)))
            elif "text/html" in data or "text/markdown" in data:
                outputs.append(output)
            elif site.OTHER_WIDGET.match(text):
                outputs.append(_html('<p class="static-note">Здесь в Jupyter — живой виджет '
                                     f'({html.escape(site.OTHER_WIDGET.match(text).group(1))}, например полоса '
                                     'прогресса обучения); в статической версии его нет.</p>'))
            elif text:
                kept = copy.deepcopy(output)
                kept["data"] = {"text/plain": text}          # без widget-view: только текст
                outputs.append(kept)
        return outputs

    def _player(self, index, name, explorer, start):
        if type(explorer).__name__ != name:
            self.report["warnings"].append(f"{self.lesson.stem}, ячейка {index}: в тетрадке {name}, "
                                           f"при исполнении {type(explorer).__name__}")
        self.widget_number += 1
        ident = f"w{self.lesson.number}-{self.widget_number}"
        started = time.perf_counter()
        player = self.site.Player(explorer, start, ident, self.out, self.budget).build()
        self.report["players"].append({
            "lesson": self.lesson.stem, "id": ident, "widget": type(explorer).__name__, "frames": len(player.files),
            "states": len(player.frames), "bytes": player.bytes, "full": player.full,
            "seconds": time.perf_counter() - started,
            "states_when_published": (len(player.frames) if self.budget == self.site.PUBLISH
                                      else player.states_when_published()),
            "controls": player.names})
        return player.html()

    def _figure(self, cell, data, lines, widget):
        self.figure_count += 1
        name = f"figures/{self.lesson.stem}-{self.figure_count}.png"
        (self.out / name).parent.mkdir(parents=True, exist_ok=True)
        (self.out / name).write_bytes(base64.b64decode("".join(data["image/png"])))
        lines = lines if lines is not None else self.site.cell_fallback(cell)
        if widget:
            lines = ["Виджет из тетрадки не удалось сопоставить: показана его начальная картинка"] + lines
        ident = f"fig-{self.lesson.number}-{self.figure_count}"
        alt = lines[0] if lines else "рисунок"
        return (f'<figure class="nb-figure"><img src="{name}" alt="{html.escape(alt[:200])}" '
                f'aria-describedby="{ident}">{self.site.description_html(ident, lines)}</figure>')


def lesson_body(site, lesson, recorder, out, report, budget):
    """HTML ячеек урока (без <head>): nbconvert HTMLExporter, шаблон basic, выходы — от SitePreprocessor.

    site — что сборщик даёт странице (build_site.render_lesson): Player, PUBLISH, WIDGET_REPR, OTHER_WIDGET, LIVE,
    cell_fallback, description_html, links."""
    notebook = copy.deepcopy(lesson.notebook)                 # препроцессор переписывает выходы: не в самом уроке
    notebook.metadata.pop("widgets", None)                   # состояние виджетов: проигрыватели вместо них
    exporter = HTMLExporter(template_name="basic", exclude_input_prompt=True, exclude_output_prompt=True)
    exporter.register_preprocessor(SitePreprocessor(site, lesson, recorder, out, report, budget), enabled=True)
    body, _ = exporter.from_notebook_node(notebook)
    body = body.replace('<div class="input_area">', '<div class="input_area" role="region" aria-label="код ячейки">')
    return site.links(body)
