"""Слои библиотеки видны в дереве, и стрелки импортов идут в одну сторону — вниз.

    помощники (_checks, blas, rng, measure)  ←  движок (autograd/)  ←  машинное отделение (engine_room/)
        ←  functional, optim  ←  efficient  ←  nn/  ←  props/ (реквизит уроков)  ←  vis  ←  widgets/, exercises/

`doctor` стоит особняком: на него опирается только `course_lib/__init__.py`. Тест читает все
`import` в каждом файле — и наверху, и внутри функций — и падает на любой стрелке вверх.
Тот же порядок описан в MAINTAINERS.md («Как устроена библиотека»): меняете здесь — поменяйте и там.
"""

import ast
import collections
import pathlib
import subprocess
import sys

import numpy as np
import pytest

import course_lib as nt

LIBRARY = pathlib.Path(__file__).resolve().parent.parent / "course_lib"

# Ранг слоя: модуль может импортировать только модули с рангом не выше своего
# (внутри одного ранга — только если это тот же пакет: widgets не ходит в exercises и наоборот).
RANKS = {
    "_checks": 0, "russian": 0, "blas": 0.25, "rng": 0.5, "measure": 0.5,
    "autograd": 1,
    "engine_room": 1.5,                # быстрые операции строят Tensor движка; книга (functional, nn) зовёт их под nt.fast()
    "functional": 2, "optim": 2,
    "efficient": 3,
    "nn": 4,
    "props": 5,
    "vis": 6,
    "widgets": 7, "exercises": 7,
    "doctor": 8,
}


def layer_of(module):
    """'course_lib.nn.attention' -> 'nn'; 'course_lib' -> None (пакет целиком)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else None


def module_name(path):
    relative = path.relative_to(LIBRARY.parent).with_suffix("")
    parts = list(relative.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def imported_modules(path):
    """Все модули course_lib, которые файл импортирует где угодно (и внутри функций)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = module_name(path) if path.name == "__init__.py" else module_name(path).rpartition(".")[0]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:                                          # from . import x, from ..nn import y
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            if source == "course_lib":                              # from course_lib import vis, nn
                found += [(f"course_lib.{alias.name}", node.lineno) for alias in node.names]
            else:
                found.append((source, node.lineno))
    return [(name, line) for name, line in found if name == "course_lib" or name.startswith("course_lib.")]


def library_files():
    return sorted(p for p in LIBRARY.rglob("*.py") if p.name != "__init__.py" or p.parent != LIBRARY)


def upward_arrows(path):
    me = layer_of(module_name(path))
    arrows = []
    for target, line in imported_modules(path):
        other = layer_of(target)
        if other is None:
            arrows.append(f"{path.relative_to(LIBRARY.parent)}:{line}: импорт всего course_lib изнутри библиотеки")
        elif other not in RANKS:
            arrows.append(f"{path.relative_to(LIBRARY.parent)}:{line}: слой «{other}» не описан в RANKS")
        elif other != me and (RANKS[other] > RANKS[me] or RANKS[other] == RANKS[me]):
            arrows.append(f"{path.relative_to(LIBRARY.parent)}:{line}: {me} -> {other} — стрелка вверх или вбок")
    return arrows


def test_every_layer_is_known():
    layers = {layer_of(module_name(p)) for p in library_files()}
    assert layers <= set(RANKS), f"новые слои без места в порядке: {layers - set(RANKS)}"


def test_imports_point_down():
    arrows = [arrow for path in library_files() for arrow in upward_arrows(path)]
    assert not arrows, "стрелки импортов против порядка слоёв:\n" + "\n".join(arrows)


def test_the_check_catches_an_upward_import(tmp_path, monkeypatch):
    """Сам тест не слепой: импорт виджетов из движка, спрятанный в функцию, он видит."""
    source = "def f():\n    from course_lib.widgets import softmax  # внутри функции тоже считается\n"
    fake_path = tmp_path / "course_lib" / "autograd" / "_fake_for_test.py"
    fake_path.parent.mkdir(parents=True)
    fake_path.write_text(source, encoding="utf-8")
    monkeypatch.setattr(sys.modules[__name__], "LIBRARY", tmp_path / "course_lib")
    assert upward_arrows(fake_path) == ["course_lib/autograd/_fake_for_test.py:2: autograd -> widgets — стрелка вверх или вбок"]


def test_only_multi_head_attention_calls_its_private_parts(monkeypatch):
    """Частные методы MultiHeadAttention (`_split`, `_merge`, `_check_input`) зовёт только он сам.

    Проверка делом, а не чтением файлов: подменяем их шпионами, прогоняем каждый модуль, который
    держит слой внимания (блок, модели реквизита, генерацию с кэшем, веса для виджетов), и смотрим,
    откуда пришёл вызов. Если снаружи понадобилось частное — ему пора стать публичным (как step, scores).
    """
    from course_lib.nn.attention import MultiHeadAttention
    from course_lib.props.generation import TinyDecoder, generate_with_cache
    from course_lib.props.induction import ablate, attention_only
    from course_lib.props.models import TinyAttention
    from course_lib.widgets.common import attention_weights

    callers = collections.Counter()
    for name in [n for n in vars(MultiHeadAttention) if n.startswith("_") and not n.startswith("__")]:
        def spy(self, *args, _original=getattr(MultiHeadAttention, name)):
            callers[sys._getframe(1).f_globals["__name__"]] += 1     # модуль того, кто позвал
            return _original(self, *args)
        monkeypatch.setattr(MultiHeadAttention, name, spy)

    nt.manual_seed(0)
    x, ids = np.random.default_rng(0).normal(size=(1, 4, 8)), np.array([[1, 2, 3, 1]])
    block = nt.TransformerBlock(8, 2)
    block(x)
    block.step(x, block.attention.new_cache(1, 4))
    ablate(attention_only(num_layers=1, d_model=8, num_heads=2), [(0, 1)]).attention_weights(ids[0])
    generate_with_cache(TinyDecoder(vocab_size=5, d_model=8, num_heads=2, max_len=8), ids, steps=2)
    TinyAttention(5, 2, d_model=8, num_heads=2).attention_weights(ids[0])
    attention_weights(block.attention, x[0], causal=True, scaled=False)
    assert set(callers) == {"course_lib.nn.attention"}, f"частные части MultiHeadAttention зовут снаружи: {dict(callers)}"

    block.attention._split(nt.tensor(x))                  # сам тест не слепой: вызов снаружи он видит
    assert callers[__name__] == 1


@pytest.mark.parametrize("heavy", ["ipywidgets", "matplotlib"])
def test_import_course_lib_stays_light(heavy):
    code = f"import sys, course_lib; print({heavy!r} in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False", f"import course_lib тянет {heavy}"


def test_maintainers_map_names_every_part_of_the_library():
    guide = (LIBRARY.parent / "MAINTAINERS.md").read_text(encoding="utf-8")
    tree = guide[guide.index("## Как устроен репозиторий"):guide.index("### Как устроена библиотека")]
    parts = {p.name for p in LIBRARY.iterdir() if p.suffix == ".py" and p.name != "__init__.py"}
    parts |= {p.name + "/" for p in LIBRARY.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    for package in ("autograd", "engine_room", "nn", "props"):
        parts |= {p.name for p in (LIBRARY / package).glob("*.py") if p.name != "__init__.py"}
    missing = sorted(name for name in parts if name.removesuffix(".py") not in tree)
    assert not missing, f"в карте репозитория (MAINTAINERS.md) нет: {missing}"
