"""Стоят ли в окружении ровно те версии, что в файле версий среды (tools/hosted/colab.txt): .ci/colab.

    .venv-colab/bin/python -m tools.hosted.pins tools/hosted/colab.txt

pip с `-c colab.txt` поставит закреплённую версию только тому пакету, который он ставит вообще; пакет,
который никто не потянул, молча не встанет — и проверка «курс работает на версиях Colab» проверит меньше,
чем обещает. Поэтому каждый пакет из файла должен стоять, и ровно той версии.
"""

import importlib.metadata
import pathlib
import sys


def pins(path):
    """{'ipython': '7.34.0', …} из строк «имя==версия» (комментарии # и пустые строки пропускаются)."""
    found = {}
    for number, line in enumerate(pathlib.Path(path).read_text(encoding="utf-8").splitlines(), 1):
        line = line.split("#")[0].strip()
        if not line:
            continue
        name, sep, version = line.partition("==")
        if not sep or not name.strip() or not version.strip():
            raise ValueError(f"{path}, строка {number}: ожидалось «имя==версия», а там {line!r}")
        found[name.strip()] = version.strip()
    return found


def mismatches(pinned, version=importlib.metadata.version):
    """[(имя, закреплено, стоит или None)] для пакетов, что стоят не той версии или не стоят вовсе."""
    wrong = []
    for name, wanted in pinned.items():
        try:
            got = version(name)
        except importlib.metadata.PackageNotFoundError:
            got = None
        if got != wanted:
            wrong.append((name, wanted, got))
    return wrong


def main(argv):
    if len(argv) != 1:
        print("ожидался один путь к файлу версий, например: python -m tools.hosted.pins tools/hosted/colab.txt",
              file=sys.stderr)
        return 2
    pinned = pins(argv[0])
    wrong = mismatches(pinned)
    for name, wanted, got in wrong:
        print(f"{argv[0]}: {name}=={wanted}, а стоит {got or 'ничего (пакет не поставлен)'}", file=sys.stderr)
    if not wrong:
        print(f"{argv[0]}: все {len(pinned)} версий стоят как закреплены")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
