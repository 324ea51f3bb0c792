"""Общие прогоны обучения для процессов проверки (только `make test`, ученику не нужно и им не ставится).

Уроки 09 и 10 учат модели (`train_induction`, `train_gpt`). В одном ядре повторный вызов берётся из памяти
прогонов (`course_lib/props/run_memory.py`), а между ядрами проверки — из этой папки: кто первым
попросил прогон, тот учит и кладёт его сюда, остальные (сайт, браузер) читают. Так урок 10 учится один раз на
обычном пути NumPy (проход «повторный запуск»), а не ещё и в сборке сайта, и в браузере. Проход переносимости
учит сам: в ключе — переменные окружения пути кода NumPy, и его прогоны другие.

Ключ прогона — его аргументы (ключ памяти прогонов) и отпечаток всего, от чего прогон зависит: исходников и
данных course_lib, версии NumPy, путей кода NumPy и числа потоков BLAS. Папку очищает запуск pytest
(`start()` из плагина проходов, `--shared-runs fresh` по умолчанию); браузерная стадия `make test` идёт с
`--shared-runs keep` и берёт прогоны из неё. Где папка, процессы проверки узнают из переменной VARIABLE —
её ставит `start()`, и её наследуют процессы xdist и ядра; вложенный pytest (тесты самого плагина) папку не
очищает, раз она уже назначена.

Файл прогона — не pickle: дерево JSON и массивы .npz (allow_pickle=False); объекты — только классов
course_lib, собираются без вызова их кода (`__new__` и поля). Чужой или испорченный файл — не прогон: его
пропускаем и учим сами.

Параллельно: на каждый ключ — блокировка файла (пакет filelock: flock на Linux и macOS, msvcrt на Windows);
второй процесс ждёт первого (не дольше WAIT секунд), потом читает готовый прогон. Упал первый — блокировку
снимает система, и учит второй.
"""

import hashlib
import importlib
import json
import os
import pathlib
import shutil
import sys
import time

import numpy as np
from filelock import FileLock, Timeout

ROOT = pathlib.Path(__file__).resolve().parent.parent
FOLDER = ROOT / "test-artifacts" / "shared-runs"
VARIABLE = "COURSE_TEST_SHARED_RUNS"
WAIT = 900                       # секунд ждать чужого обучения, потом учить самим
ENV = ("NPY_DISABLE_CPU_FEATURES", "NPY_ENABLE_CPU_FEATURES", "OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS",
       "MKL_NUM_THREADS", "OPENBLAS_CORETYPE")

class Unshareable(Exception):
    """Прогон нельзя записать без pickle (в нём функция или объект не из course_lib): учим, но не делимся."""


# ---------------------------------------------------------------- ключ

def _code_fingerprint():
    digest = hashlib.blake2b(digest_size=16)
    package = ROOT / "course_lib"
    for path in sorted(p for p in package.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
        digest.update(path.relative_to(package).as_posix().encode())
        digest.update(path.read_bytes())
    digest.update(np.__version__.encode())
    digest.update(sys.version.encode())
    for name in ENV:
        digest.update(f"{name}={os.environ.get(name)!r}".encode())
    return digest.hexdigest()


def _canonical(value):
    """Ключ памяти прогонов -> строка, одинаковая в любом процессе; None — ключ не переносится между процессами."""
    if isinstance(value, (tuple, list)):
        parts = [_canonical(v) for v in value]
        return None if None in parts else f"{type(value).__name__}({','.join(parts)})"
    if isinstance(value, np.ndarray):
        from course_lib.props.run_memory import fingerprint      # тот же отпечаток, что у ключей памяти прогонов
        return f"array({fingerprint(value)})"
    if value is None or isinstance(value, (bool, int, float, str, range)):
        return repr(value)
    return None                  # функция, объект: их repr в другом процессе другой


def key_digest(kind, key, code=None):
    canonical = _canonical(key)
    if canonical is None:
        return None
    return hashlib.blake2b(f"{kind}\n{canonical}\n{code or _code_fingerprint()}".encode(), digest_size=20).hexdigest()


# ---------------------------------------------------------------- запись и чтение без pickle

def encode(value):
    """value -> (дерево JSON, [массивы]); общие объекты (одна и та же матрица весов дважды) остаются общими."""
    arrays, seen = [], {}

    def walk(v):
        if v is None or isinstance(v, (bool, str)):
            return v
        if type(v) is int:
            return v
        if type(v) is float:
            return {"$float": repr(v)}                                 # repr: и nan, и inf, и все знаки
        if id(v) in seen:
            return {"$ref": seen[id(v)][0]}
        if isinstance(v, (np.ndarray, np.generic)):
            if v.dtype.hasobject:
                raise Unshareable(f"массив объектов {v.dtype}")
            seen[id(v)] = (len(seen), v)
            arrays.append(np.asarray(v))
            return {"$array": len(arrays) - 1, "$id": seen[id(v)][0], "scalar": isinstance(v, np.generic)}
        if isinstance(v, tuple):
            return {"$tuple": [walk(x) for x in v]}
        if isinstance(v, list):
            return [walk(x) for x in v]
        if isinstance(v, range):
            return {"$range": [v.start, v.stop, v.step]}
        if isinstance(v, dict):
            return {"$dict": [[walk(k), walk(x)] for k, x in v.items()]}
        if isinstance(v, np.dtype):
            return {"$dtype": v.str}
        cls = type(v)
        if not cls.__module__.startswith("course_lib.") or not hasattr(v, "__dict__") or hasattr(cls, "__slots__"):
            raise Unshareable(f"{cls.__module__}.{cls.__qualname__}")
        seen[id(v)] = (len(seen), v)
        return {"$object": f"{cls.__module__}:{cls.__qualname__}", "$id": seen[id(v)][0],
                "state": {"$dict": [[k, walk(x)] for k, x in vars(v).items()]}}

    return walk(value), arrays


def decode(tree, arrays):
    """Обратно к encode: объекты — только классов из course_lib, без вызова __init__ и без pickle."""
    made = {}

    def walk(v):
        if not isinstance(v, (dict, list)):
            return v
        if isinstance(v, list):
            return [walk(x) for x in v]
        if "$float" in v:
            return float(v["$float"])
        if "$ref" in v:
            return made[v["$ref"]]
        if "$array" in v:
            array = arrays[v["$array"]]
            made[v["$id"]] = array[()] if v["scalar"] else array
            return made[v["$id"]]
        if "$tuple" in v:
            return tuple(walk(x) for x in v["$tuple"])
        if "$range" in v:
            return range(*v["$range"])
        if "$dict" in v:
            return {_hashable(walk(k)): walk(x) for k, x in v["$dict"]}
        if "$dtype" in v:
            return np.dtype(v["$dtype"])
        if "$object" in v:
            module, _, name = v["$object"].partition(":")
            if not module.startswith("course_lib."):
                raise ValueError(f"в файле прогона объект не из course_lib: {v['$object']}")
            cls = importlib.import_module(module)
            for part in name.split("."):
                cls = getattr(cls, part)
            if not isinstance(cls, type):
                raise ValueError(f"в файле прогона {v['$object']} — не класс")
            obj = cls.__new__(cls)
            made[v["$id"]] = obj
            obj.__dict__.update(walk(v["state"]))
            return obj
        raise ValueError(f"в файле прогона непонятный узел {sorted(v)[:3]}")

    return walk(tree)


def _hashable(key):
    return tuple(_hashable(k) for k in key) if isinstance(key, list) else key


def save(path, value):
    tree, arrays = encode(value)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(tmp, "wb") as f:
        np.savez(f, tree=np.frombuffer(json.dumps(tree).encode(), dtype=np.uint8),
                 **{f"a{i}": a for i, a in enumerate(arrays)})
    os.replace(tmp, path)                                         # читатель видит файл целиком или никакой


def load(path):
    with np.load(path, allow_pickle=False) as data:
        tree = json.loads(data["tree"].tobytes().decode())
        arrays = [data[f"a{i}"] for i in range(len(data.files) - 1)]
    return decode(tree, arrays)


# ---------------------------------------------------------------- общая память прогонов

class SharedRuns:
    """Папка прогонов: fetch_or_train(kind, key, train) — готовый прогон из папки или train() и в папку."""

    def __init__(self, folder=FOLDER):
        self.folder = pathlib.Path(folder)
        self.code = _code_fingerprint()
        self.loaded, self.trained = [], []

    def fetch_or_train(self, kind, key, train):
        digest = key_digest(kind, key, self.code)
        if digest is None or not self.folder.is_dir():
            return train()
        path = self.folder / f"{kind}-{digest}.npz"
        lock = FileLock(self.folder / f".{digest}.lock")
        try:
            lock.acquire(timeout=WAIT, poll_interval=0.2)           # ждём того, кто учит этот прогон сейчас
        except Timeout:
            return train()
        try:
            if path.exists():
                try:
                    run = load(path)
                    self.loaded.append(kind)
                    return run
                except Exception as error:                          # noqa: BLE001 — испорченный файл: учим сами
                    print(f"shared_runs: {path.name} не читается ({type(error).__name__}: {error}) — учим заново",
                          file=sys.stderr)
            run = train()
            self.trained.append(kind)
            try:
                save(path, run)
            except Unshareable:
                pass
            return run
        finally:
            lock.release()


def start(mode="fresh", folder=FOLDER):
    """Начало проверки -> папка прогонов или None. mode: fresh — пустая папка, keep — как есть (браузерная
    стадия make test), off — без общих прогонов (каждый учит сам). Папка уже назначена (VARIABLE) — её и берём."""
    if os.environ.get(VARIABLE):
        return pathlib.Path(os.environ[VARIABLE])
    if mode == "off":
        return None
    folder = pathlib.Path(folder)
    if mode != "keep" and folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True, exist_ok=True)
    os.chmod(folder, 0o700)                                      # прогоны читает только тот, кто гоняет проверки
    os.environ[VARIABLE] = str(folder)
    return folder


def install():
    """Память прогонов этого процесса спрашивает папку из VARIABLE (автозапуск ядер проверки, сборка сайта в
    тесте) -> SharedRuns или None, если папки нет."""
    folder = os.environ.get(VARIABLE)
    if not folder:
        return None
    from course_lib.props.run_memory import RunMemory
    if getattr(RunMemory.recall, "shared_runs", None) is not None:
        return RunMemory.recall.shared_runs
    shared, original = SharedRuns(folder), RunMemory.recall

    def recall(self, key, train):
        return original(self, key, lambda: shared.fetch_or_train(self.kind, key, train))

    recall.shared_runs, recall.original = shared, original
    RunMemory.recall = recall
    return shared


def uninstall():
    from course_lib.props.run_memory import RunMemory
    original = getattr(RunMemory.recall, "original", None)
    if original is not None:
        RunMemory.recall = original
