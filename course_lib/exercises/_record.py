"""Вердикт — ещё и запись для учителя: каждая проверка дописывает строку в `work/.verdicts.jsonl`.

Папку ученика отмечает файл `.course-work` (его кладёт `tools/workspace.py`, когда создаёт work/). Проверка
ищет отметку в текущей папке ядра (это папка тетрадки) и выше; нет отметки — урок открыт не из work/
(например, lessons/ или тесты курса), и ничего не пишется. Строка — JSON: урок, упражнение, status
(solved / wrong / not_started), напечатанный вердикт, время (UTC) и имя проверенной функции. Решения
курса (`softmax_solution`, …) не записываются: это не ответ ученика. Собирает записи `make results`.
Записать не вышло (папка только для чтения, нет места) — урок идёт дальше, одна заметка на ядро.

На сервере класса (хаб задаёт CLASS_VERDICTS_URL, и у сервера ученика есть JUPYTERHUB_API_TOKEN) файл
в work/ не пишется: его ученик может править. Вердикт уходит службе хаба class-verdicts
(tools/classroom/verdicts.py), она узнаёт ученика по ключу и пишет подписанную строку туда, куда ученику
не дотянуться. Служба не ответила — урок идёт дальше, заметка говорит, что вердикт на сервер не записан.
"""

import datetime
import errno
import json
import os
import pathlib

MARKER = ".course-work"
RECORD = ".verdicts.jsonl"
# На Windows нет O_NOFOLLOW (ссылки там по умолчанию создаёт только администратор), а без O_BINARY os.open
# открывает файл в текстовом режиме (\n -> \r\n). Без getattr проверка в work/ на Windows падала бы с AttributeError.
NO_FOLLOW = getattr(os, "O_NOFOLLOW", 0)
BINARY = getattr(os, "O_BINARY", 0)

SEND_TIMEOUT = 5        # секунд на ответ службы: дольше проверка ученика ждать не должна
_noted = False          # заметку «не записано» печатаем один раз на ядро


def work_folder(start=None):
    """Ближайшая папка с отметкой `.course-work`: `start` (по умолчанию текущая) или выше; None — если нет."""
    try:
        here = pathlib.Path(start or os.getcwd()).resolve()
        return next((folder for folder in (here, *here.parents) if (folder / MARKER).is_file()), None)
    except OSError:                                 # текущую папку удалили, нет прав заглянуть выше
        return None


def record(exercise, candidate, result):
    """Дописывает вердикт `result` проверки `exercise` (например, 'check_softmax') в work/.verdicts.jsonl.

    На сервере класса (заданы CLASS_VERDICTS_URL и JUPYTERHUB_API_TOKEN) — отправляет его службе class-verdicts.
    """
    from course_lib.exercises import BY_LESSON     # здесь, а не наверху: __init__ пакета импортирует нас

    answer = getattr(candidate, "__name__", "") if callable(candidate) else ""
    answer = answer if isinstance(answer, str) else ""
    lesson = next((number for number, names in BY_LESSON.items() if exercise in names), None)
    if answer.endswith("_solution") or lesson is None:
        return
    folder = work_folder()
    if folder is None:
        return
    status = "solved" if result.passed else "wrong" if result.solved else "not_started"
    verdict = {"lesson": lesson, "exercise": exercise, "status": status, "message": result.message}
    url, token = os.environ.get("CLASS_VERDICTS_URL"), os.environ.get("JUPYTERHUB_API_TOKEN")
    if url and token:
        _send(url, token, {**verdict, "answer": answer})
        return
    line = json.dumps({**verdict, "time": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
                       "answer": answer}, ensure_ascii=False) + "\n"
    try:
        # одна запись write с O_APPEND: строки ядер, которые пишут одновременно, не перемешиваются
        fd = os.open(folder / RECORD, os.O_WRONLY | os.O_APPEND | os.O_CREAT | NO_FOLLOW | BINARY, 0o600)
        try:
            os.write(fd, line.encode("utf-8"))
        finally:
            os.close(fd)
    except OSError as error:
        _note(folder / RECORD, error)


def _send(url, token, body):
    """Вердикт — службе хаба class-verdicts; не вышло -> одна заметка на ядро, проверка идёт дальше."""
    import urllib.error
    import urllib.request

    request = urllib.request.Request(url, data=json.dumps(body, ensure_ascii=False).encode("utf-8"), method="POST",
                                     headers={"Authorization": f"token {token}", "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=SEND_TIMEOUT) as reply:
            reply.read()
        return
    except urllib.error.HTTPError as error:
        try:
            said = json.loads(error.read().decode("utf-8")).get("error", "")
        except (OSError, ValueError, AttributeError):
            said = ""
        reason = f"служба ответила {error.code}" + (f": {said}" if said else "")
    except (OSError, ValueError) as error:        # нет службы, не тот адрес, срок вышел
        reason = f"служба не отвечает ({getattr(error, 'reason', error)})"
    global _noted
    if not _noted:
        _noted = True
        print(f"ℹ️ вердикт не записан на сервере класса ({url}: {reason}). Учитель его не увидит — скажите ему; "
              f"урок идёт дальше, проверки работают как обычно.")


def _note(path, error):
    global _noted
    if _noted:
        return
    _noted = True
    reason = {errno.EACCES: "нет прав на запись", errno.EPERM: "нет прав на запись",
              errno.EROFS: "папка только для чтения", errno.ENOSPC: "нет места на диске",
              errno.ELOOP: "это ссылка, а не файл", errno.EISDIR: "это папка, а не файл"}.get(error.errno, str(error))
    print(f"ℹ️ вердикт не записан для учителя ({path}: {reason}). Урок идёт дальше, проверки работают как обычно.")
