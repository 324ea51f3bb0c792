"""Список учеников класса (class/learners.txt): каждая плохая строка названа по-русски с номером, и при плохом
списке make class не делает ничего — ни одной записи системы наполовину."""

import os
import secrets
import subprocess
import sys

import pytest

from posix_only import skip_module_without

skip_module_without("pwd", "os.geteuid")                 # записи системы класса — только Linux; до import pwd
import pwd  # noqa: E402

from tools.classroom import accounts, limits  # noqa: E402


def problem_of(text):
    with pytest.raises(accounts.LearnersError) as caught:
        accounts.parse(text)
    return str(caught.value)


def test_good_list_keeps_order_and_skips_comments_and_blanks():
    assert accounts.parse("# класс 9Б\nanna\n\n  boris_k  # староста\nvera-2\n_x\n") == ["anna", "boris_k", "vera-2", "_x"]


@pytest.mark.parametrize("text", ["", "\n\n", "# только комментарий\n   \n"])
def test_empty_list_is_refused(text):
    assert "нет ни одного имени" in problem_of(text)


@pytest.mark.parametrize("name, why", [
    ("анна", "не латиница"),
    ("anna petrova", "пробел"),
    ("Anna", "заглавные"),
    ("-anna", "начинается с «-»"),
    ("a" * 33, "длиннее 32"),
    ("root", "служебное"),
    ("daemon", "системная запись"),
    ("9anna", "не с цифры"),
    ("anna.p", "только строчные a–z"),
])
def test_name_that_cannot_be_an_account_is_named_with_its_line(name, why):
    text = problem_of(f"boris\n{name}\n")
    assert f"строка 2: «{name}»" in text and why in text, text


def test_every_bad_line_is_listed_and_nothing_is_taken():
    text = problem_of("anna\nАнна\nboris\nanna\n\nBoris\nvera\n")
    assert "не сделано ничего" in text
    for line in ("строка 2: «Анна»", "строка 4: «anna» — повтор: это имя уже в строке 1", "строка 6: «Boris»"):
        assert line in text, text
    assert "строка 1:" not in text and "строка 3:" not in text and "строка 7:" not in text


def test_missing_list_says_where_the_example_is(tmp_path):
    with pytest.raises(accounts.LearnersError, match="learners.example.txt"):
        accounts.read(tmp_path / "learners.txt")


def test_bad_teacher_name_is_refused():
    with pytest.raises(accounts.LearnersError, match="TEACHER=«Учитель»"):
        accounts.check_teacher("Учитель")


@pytest.mark.parametrize("text", ["1.5G", "много", "100M", "-1G"])
def test_memory_limit_must_be_a_size_that_fits_a_kernel(text):
    with pytest.raises(ValueError, match="предел памяти ученика"):
        limits.memory_bytes(text)


def test_memory_limit_sizes():
    assert limits.memory_bytes("1536M") == 1536 * 2**20 and limits.memory_bytes("2g") == 2 * 2**30


@pytest.mark.skipif(os.geteuid() != 0, reason="make class делает записи системы только от root")
def test_make_class_with_a_bad_list_creates_no_account(tmp_path):
    prefix = "clb" + "".join(secrets.choice("abcdefghijkmnpqrstuvwxyz") for _ in range(5))
    good = [prefix + "a", prefix + "b"]
    (tmp_path / "learners.txt").write_text(f"{good[0]}\n{prefix}Z\n{good[1]}\n", encoding="utf-8")
    try:
        done = subprocess.run([sys.executable, "-m", "tools.classroom.hub", "start", "--learners",
                               str(tmp_path / "learners.txt"), "--state", str(tmp_path / "state"),
                               "--teacher", prefix + "t", "--port", "1"],
                              cwd=accounts.ROOT, capture_output=True, text=True, timeout=60)
        assert done.returncode == 2 and f"строка 2: «{prefix}Z» — заглавные" in done.stderr, done.stderr
        for name in [*good, prefix + "t"]:
            with pytest.raises(KeyError):
                pwd.getpwnam(name)
        assert not (tmp_path / "state").exists()
    finally:
        for name in [*good, prefix + "t"]:
            subprocess.run(["userdel", "--remove", name], capture_output=True)


def test_listening_beyond_this_machine_without_tls_warns():
    from tools.classroom.hub import welcome
    base = {"host": "127.0.0.1", "port": 8000, "cert": "", "teacher": "teacher", "learners": ["anna"],
            "memory": limits.memory_bytes()}
    assert not any("ВНИМАНИЕ" in line for line in welcome(base, accounts.ROOT))
    open_net = "\n".join(welcome({**base, "host": "0.0.0.0"}, accounts.ROOT))
    assert "ВНИМАНИЕ" in open_net and "TLS" in open_net and "закрытой сети" in open_net
    with_tls = welcome({**base, "host": "0.0.0.0", "cert": "/etc/ssl/fullchain.pem"}, accounts.ROOT)
    assert not any("ВНИМАНИЕ" in line for line in with_tls) and with_tls[0].startswith("Класс запущен: https://")
