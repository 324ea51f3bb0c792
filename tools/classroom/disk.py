"""Место ученика: его дом (а в нём ~/work, ~/.local, всё, что он пишет у себя) — свой образ ext4 размера DISK.

Один ученик, забивший свой образ, получает «No space left on device» у себя, а соседи сохраняют как раньше:
их образы — другие файлы, а место под каждый образ занято заранее (fallocate), поэтому и полный диск сервера
не портит ни одного образа. Образы лежат в <state>/disks/<имя>.ext4 (class/state/disks — только для root).

Первый раз (образа ещё нет): образ делается, в него копируется всё, что уже было в доме ученика (cp -a — владельцы,
права и время файлов те же), копия сверяется, и только тогда прежние файлы дома удаляются, а образ монтируется
на место дома. Уже смонтированный дом не трогается (так после kill -9 хаба), образ без монтирования (так после
перезагрузки) монтируется снова. make class-stop образы не отмонтирует: работа учеников видна и make results.
"""

import os
import pathlib
import shutil
import subprocess
import tempfile

MOUNT_OPTIONS = "loop,nosuid,nodev"


class DiskError(RuntimeError):
    """Образ ученика не сделать или не смонтировать: текст говорит, что сделать."""


def _run(argv):
    done = subprocess.run(argv, capture_output=True, text=True)
    if done.returncode != 0:
        raise DiskError(f"{' '.join(map(str, argv))} не прошла (код {done.returncode}): "
                        f"{(done.stderr or done.stdout).strip()[-400:]}")
    return done.stdout


def image_of(state, name):
    return pathlib.Path(state) / "disks" / f"{name}.ext4"


def mounted_source(path):
    """Что смонтировано ровно в path (устройство или файл образа) или None."""
    path = os.path.realpath(path)
    found = None
    try:
        lines = pathlib.Path("/proc/self/mountinfo").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        left, _, right = line.partition(" - ")
        fields = left.split()
        if len(fields) > 4 and fields[4].encode().decode("unicode_escape") == path:
            found = right.split()[1]            # последнее монтирование поверх — то, что видно
    return found


def missing_tools():
    """Каких программ нет (mkfs.ext4, mount, umount, losetup) — для текста ошибки."""
    path = "/usr/sbin:/sbin:/usr/bin:/bin"
    return [tool for tool in ("mkfs.ext4", "mount", "umount", "losetup") if not shutil.which(tool, path=path)]


def unavailable():
    """Почему образы домов здесь не сделать (текст по-русски) или None, если можно."""
    if os.geteuid() != 0:
        return "образ дома монтирует только root"
    if missing_tools():
        return f"нет программ {', '.join(missing_tools())} (apt-get install e2fsprogs mount)"
    if not pathlib.Path("/dev/loop-control").exists():
        return "нет /dev/loop-control: эта машина (контейнер?) не даёт loop-устройств"
    return None


def used_bytes(folder):
    total = 0
    for root, _, files in os.walk(folder):
        for file in files:
            try:
                total += os.lstat(os.path.join(root, file)).st_blocks * 512
            except OSError:
                pass
    return total


def _listing(folder):
    """(путь, размер, владелец, права) каждого файла и папки — чтобы сверить копию с оригиналом."""
    rows = set()
    folder = pathlib.Path(folder)
    for path in folder.rglob("*"):
        if path.name == "lost+found" and path.parent == folder:
            continue
        info = path.lstat()
        rows.add((str(path.relative_to(folder)), info.st_size if path.is_file() else 0, info.st_uid, info.st_mode))
    return rows


def make_image(image, size, entry):
    """Новый образ ext4 размера size, корень — ученика entry, 0700; место занято сразу (fallocate)."""
    image.parent.mkdir(parents=True, exist_ok=True)
    os.chmod(image.parent, 0o700)
    partial = image.with_suffix(".partial")
    partial.unlink(missing_ok=True)
    try:
        with open(partial, "wb") as out:
            os.posix_fallocate(out.fileno(), 0, size)
    except OSError as error:
        partial.unlink(missing_ok=True)
        raise DiskError(f"не занять {size // 2**20} МБ под образ {image}: {error.strerror}. Освободите место на диске "
                        "сервера или уменьшите DISK=") from None
    os.chmod(partial, 0o600)
    # -m 0: без запаса для root (в образе пишет только ученик); корень образа — ученика;
    # nodiscard: mkfs не возвращает занятое место диску (иначе образ снова с дырами)
    _run(["mkfs.ext4", "-q", "-F", "-m", "0", "-E", f"root_owner={entry.pw_uid}:{entry.pw_gid},nodiscard",
         str(partial)])
    return partial


def ensure_home_image(entry, state, size):
    """Дом ученика entry — на его образе; -> строка для отчёта или None, если уже был.

    size None (DISK=no): новых образов нет, но уже сделанный образ монтируется — иначе работа ученика пропала бы
    с глаз после перезагрузки."""
    home = pathlib.Path(entry.pw_dir)
    image = image_of(state, entry.pw_name)
    source = mounted_source(home)
    if source is not None:
        return None                                           # уже смонтирован (хаб перезапущен)
    if size is None and not image.exists():
        return None                                           # DISK=no и образа не было: дом как есть
    reason = unavailable()
    if reason:
        raise DiskError(f"место учеников (DISK=) здесь не ограничить: {reason}. Запустите класс с DISK=no "
                        "(без предела места) или на машине, где это есть")
    made = None
    if not image.exists():
        used = used_bytes(home)
        if used > size * 0.8:
            raise DiskError(f"дом ученика {entry.pw_name} уже занимает {used // 2**20} МБ, а DISK — "
                            f"{size // 2**20} МБ: поднимите DISK= (не меньше {used * 2 // 2**20}M) или освободите его дом")
        partial = make_image(image, size, entry)
        with tempfile.TemporaryDirectory(prefix="attention-disk-") as scratch:
            _run(["mount", "-o", MOUNT_OPTIONS, str(partial), scratch])
            try:
                _run(["cp", "-a", f"{home}/.", scratch])
                os.chown(scratch, entry.pw_uid, entry.pw_gid)
                os.chmod(scratch, 0o700)
                lost = pathlib.Path(scratch) / "lost+found"
                if lost.is_dir():
                    shutil.rmtree(lost)
                if _listing(scratch) != _listing(home):
                    raise DiskError(f"копия дома ученика {entry.pw_name} в образ не совпала с оригиналом — "
                                    "ничего не удалено; посмотрите, не меняет ли кто-то его файлы, и запустите снова")
            finally:
                _run(["umount", scratch])
        partial.rename(image)
        for child in home.iterdir():                           # копия сверена: прежние файлы — только в образе
            if child.is_dir() and not child.is_symlink():
                shutil.rmtree(child)
            else:
                child.unlink()
        made = f"дом ученика {entry.pw_name} перенесён в свой образ {image_of(state, entry.pw_name)} ({size // 2**20} МБ)"
    _run(["mount", "-o", MOUNT_OPTIONS, str(image), str(home)])
    os.chmod(home, 0o700)
    return made or f"дом ученика {entry.pw_name}: образ {image} смонтирован снова"


def release(home):
    """Отмонтировать образ с дома (для удаления записи); -> удалось ли."""
    if mounted_source(home) is None:
        return True
    return subprocess.run(["umount", str(home)], capture_output=True).returncode == 0
