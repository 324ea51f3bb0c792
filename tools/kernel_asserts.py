"""В ядрах проходов уроков голый `assert` урока падает со значениями, как в pytest (его же переписывание assert).

Без этого упавший `assert after.accuracy >= 0.95` в отчёте — `AssertionError: ` без единого числа; с ним —
`assert 0.91 >= 0.95` и откуда 0.91 взялось. Утверждение с сообщением остаётся своим сообщением: pytest к нему
добавляет значения после него. Ставится в автозапуск ядер рядом с проверкой картинок (tools/lesson_figures.py);
у ученика в `make lab` этого нет.
"""

import ast


class AssertValues(ast.NodeTransformer):
    """Преобразователь ячеек IPython: assert -> assert с разбором значений (_pytest.assertion.rewrite)."""

    def visit(self, node):
        from _pytest.assertion.rewrite import rewrite_asserts

        if isinstance(node, ast.Module) and any(isinstance(n, ast.Assert) for n in ast.walk(node)):
            rewrite_asserts(node, b"")
        return node


def install():
    shell = get_ipython()  # noqa: F821 — автозапуск исполняется в ядре IPython
    shell.ast_transformers.append(AssertValues())
