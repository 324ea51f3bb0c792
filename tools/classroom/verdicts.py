"""Служба хаба `class-verdicts`: вердикты проверок учеников — туда, куда ученик не пишет, и с подписью.

Ядро ученика (course_lib/exercises/_record.py) отправляет сюда вердикт POST-запросом со своим ключом
JUPYTERHUB_API_TOKEN (его хаб даёт серверу ученика, ядра его наследуют). Служба спрашивает хаб, чей это
ключ (GET /hub/api/user с этим же ключом): имя ученика берётся только оттуда, имени в теле запроса нет.
Строка вердикта дописывается в <state>/verdicts/<ученик>.jsonl (папка 0700, файлы 0600, владелец root)
с подписью HMAC-SHA256 секретом <state>/verdict-secret (0600, только root). `make results` сверяет подпись
каждой строки: изменённая строка не засчитывается и помечается «⚠️ подпись не сошлась».

Что это даёт и чего нет: прошлые строки ученик не перепишет и не сотрёт, а за другого ученика не запишет.
Но проверка идёт в ядре ученика, от его имени: отправить службе «решено» руками он может так же, как это
делает ядро. Запись говорит, кто, когда и что отправил, а не что решение своё.

Запускает службу хаб (class/jupyterhub_config.py): python -m tools.classroom.verdicts --state <state>.
"""

import argparse
import errno
import hashlib
import hmac
import http.server
import json
import os
import pathlib
import re
import sys
import threading
import time
import urllib.error
import urllib.request

NAME = "class-verdicts"
SCOPE = f"access:services!service={NAME}"       # это право ключа ученика даёт роль user (jupyterhub_config.py)
BODY_FIELDS = ("lesson", "exercise", "status", "message", "answer")
BODY_LIMIT = 64 * 2**10                         # вердикт — сотни байт; больше — не вердикт
SECRET = "verdict-secret"
SPOOL = "verdicts"
ACCOUNT = re.compile(r"[a-z_][a-z0-9_-]{0,31}")     # как в tools/classroom/results.py: ученики — записи Linux


class Rejected(Exception):
    """Запрос не принят: код HTTP и почему (по-русски)."""

    def __init__(self, code, text):
        super().__init__(text)
        self.code = code


# --- подпись: её ставит служба, сверяет make results ---

def read_secret(state):
    """Секрет подписи из <state>/verdict-secret -> bytes (файл делает make class, tools/classroom/hub.py)."""
    return (pathlib.Path(state) / SECRET).read_text().strip().encode()


def _payload(entry):
    """Что подписывается: все поля строки, кроме самой подписи, в одном порядке."""
    return json.dumps({k: v for k, v in entry.items() if k != "sig"}, ensure_ascii=False, sort_keys=True).encode()


def _mac(secret, entry):
    """HMAC-SHA256 секретом по всем полям строки, кроме sig."""
    return hmac.new(secret, _payload(entry), hashlib.sha256).hexdigest()


def sign(secret, entry):
    """Строка спула (str, с \\n): entry с полем sig — HMAC-SHA256 секретом по остальным полям."""
    signed = {**entry, "sig": _mac(secret, entry)}
    return json.dumps(signed, ensure_ascii=False) + "\n"


def signature_ok(secret, entry, learner):
    """Подпись строки сошлась и строка — этого ученика (строку из чужого спула не перенести)."""
    sig = entry.get("sig")
    if not isinstance(sig, str) or entry.get("learner") != learner:
        return False
    return hmac.compare_digest(sig, _mac(secret, entry))


def spool_path(state, learner):
    return pathlib.Path(state) / SPOOL / f"{learner}.jsonl"


def append(state, secret, learner, body, now=None):
    """Дописать подписанную строку вердикта ученика learner; -> записанная строка."""
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S+00:00", time.gmtime(now))     # время ставит служба, не ядро
    line = sign(secret, {"learner": learner, **{k: body[k] for k in BODY_FIELDS}, "time": stamp})
    folder = pathlib.Path(state) / SPOOL
    folder.mkdir(mode=0o700, exist_ok=True)
    os.chmod(folder, 0o700)
    # одна запись write с O_APPEND: строки одновременных запросов не перемешиваются
    fd = os.open(spool_path(state, learner), os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW, 0o600)
    try:
        os.write(fd, line.encode("utf-8"))
    finally:
        os.close(fd)
    return line


# --- запрос ядра: кто (по ключу) и что (тело) ---

def check_body(raw):
    """Тело запроса -> словарь полей BODY_FIELDS; что не так -> Rejected(400) по-русски."""
    from tools.classroom.collect import LESSON_OF, STATUSES, _short

    expected = "ожидался JSON-объект с полями " + ", ".join(BODY_FIELDS)
    try:
        body = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise Rejected(400, f"тело запроса не JSON в UTF-8: {expected}") from None
    if not isinstance(body, dict):
        raise Rejected(400, f"{expected}, а пришло {_short(body)}")
    extra = sorted(set(body) - set(BODY_FIELDS))
    if extra:
        raise Rejected(400, f"лишние поля {', '.join(map(repr, extra))}: {expected} (имя ученика служба берёт "
                            f"из ключа, время ставит сама)")
    for field in BODY_FIELDS:
        if not isinstance(body.get(field), str):
            raise Rejected(400, f"поле «{field}»: ожидался текст, а пришло {_short(body.get(field))}")
    if body["status"] not in STATUSES:
        raise Rejected(400, f"поле «status»: ожидалось одно из {', '.join(STATUSES)}, а пришло {_short(body['status'])}")
    if LESSON_OF.get(body["exercise"]) != body["lesson"]:
        raise Rejected(400, f"упражнения {_short(body['exercise'])} в уроке {_short(body['lesson'])} в курсе нет")
    return {field: body[field] for field in BODY_FIELDS}


def learner_of(header, hub_api, timeout=10):
    """Заголовок Authorization -> имя ученика по ответу хаба; нет ключа, чужой ключ, нет права -> Rejected(403)."""
    scheme, _, token = (header or "").strip().partition(" ")
    if scheme.lower() not in ("token", "bearer") or not token.strip():
        raise Rejected(403, "нет ключа: нужен заголовок «Authorization: token <JUPYTERHUB_API_TOKEN>» "
                            "(его даёт хаб серверу ученика)")
    request = urllib.request.Request(hub_api.rstrip("/") + "/user", headers={"Authorization": f"token {token.strip()}"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as reply:
            model = json.loads(reply.read())
    except urllib.error.HTTPError as error:
        if error.code in (401, 403):
            raise Rejected(403, "ключ не принят хабом: он неверный, отозван или истёк") from None
        raise Rejected(503, f"хаб ответил {error.code} на вопрос «чей ключ» — вердикт не записан") from None
    except (OSError, ValueError) as error:
        raise Rejected(503, f"хаб не отвечает ({error}) — вердикт не записан") from None
    if not isinstance(model, dict) or model.get("kind") != "user" or not isinstance(model.get("name"), str):
        raise Rejected(403, "это ключ не ученика (служба или что-то другое): вердикты пишут только ученики")
    if not ACCOUNT.fullmatch(model["name"]):              # имя станет именем файла спула: только имя записи Linux
        raise Rejected(403, f"имя {model['name']!r} не может быть учётной записью ученика класса")
    scopes = model.get("scopes") or []
    if SCOPE not in scopes and "access:services" not in scopes:
        raise Rejected(403, f"у ключа нет права {SCOPE}: его дают роль user и Spawner.server_token_scopes "
                            f"в class/jupyterhub_config.py")
    return model["name"]


class Handler(http.server.BaseHTTPRequestHandler):
    server_version = NAME
    timeout = 15                        # секунд на запрос: ядро, которое замолчало посреди тела, не держит поток

    def do_POST(self):                                      # noqa: N802 — так зовёт http.server
        try:
            if self.path.rstrip("/") != self.server.prefix.rstrip("/") + "/record":
                raise Rejected(404, f"адрес {self.path!r} не тот: вердикт отправляют POST на "
                                    f"{self.server.prefix.rstrip('/')}/record")
            learner = learner_of(self.headers.get("Authorization"), self.server.hub_api)
            length = self.headers.get("Content-Length", "")
            if not length.isdigit():
                raise Rejected(400, "нет длины тела (Content-Length): ожидался JSON-объект вердикта")
            if int(length) > BODY_LIMIT:
                raise Rejected(400, f"тело запроса {length} байт, а вердикт не больше {BODY_LIMIT} байт")
            body = check_body(self.rfile.read(int(length)))
            with self.server.lock:
                append(self.server.state, self.server.secret, learner, body)
        except Rejected as why:
            self._reply(why.code, {"error": str(why)})
        else:
            self._reply(201, {"recorded": learner})

    def do_GET(self):                                       # noqa: N802
        self._reply(405, {"error": "вердикт отправляют POST-запросом на …/record"})

    def _reply(self, code, data):
        text = json.dumps(data, ensure_ascii=False).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(text)))
        self.end_headers()
        self.wfile.write(text)

    def log_message(self, format, *args):                   # noqa: A002 — в журнал хаба, без тел запросов
        sys.stderr.write(f"[{NAME}] {self.address_string()} {format % args}\n")


def server(state, port, hub_api, prefix="/services/class-verdicts/", host="127.0.0.1"):
    """HTTP-сервер службы (ещё не запущен); секрет читается сейчас: без него служба не стартует."""
    httpd = http.server.ThreadingHTTPServer((host, port), Handler)
    httpd.state, httpd.hub_api, httpd.prefix = pathlib.Path(state), hub_api, prefix
    httpd.secret, httpd.lock = read_secret(state), threading.Lock()
    return httpd


def _exit_with_parent(httpd):
    """Хаб убит (kill -9): служба не переживает его и не держит порт для следующего make class."""
    parent = os.getppid()
    while os.getppid() == parent:
        time.sleep(1)
    httpd.shutdown()


def main(argv=None):
    parser = argparse.ArgumentParser(description="Служба хаба class-verdicts: подписанные вердикты учеников")
    parser.add_argument("--state", required=True, help="папка состояния класса (class/state)")
    args = parser.parse_args(argv)
    url = os.environ.get("JUPYTERHUB_SERVICE_URL", "")
    hub_api = os.environ.get("JUPYTERHUB_API_URL", "")
    if not url or not hub_api:
        print(f"{NAME}: нет JUPYTERHUB_SERVICE_URL или JUPYTERHUB_API_URL — службу запускает хаб "
              f"(class/jupyterhub_config.py), а не человек", file=sys.stderr)
        return 2
    port = int(url.rsplit(":", 1)[1].split("/", 1)[0])
    deadline = time.monotonic() + 15
    while True:                                             # порт может держать служба убитого хаба ещё секунду
        try:
            httpd = server(args.state, port, hub_api, os.environ.get("JUPYTERHUB_SERVICE_PREFIX", f"/services/{NAME}/"))
            break
        except OSError as error:
            if time.monotonic() > deadline or error.errno != errno.EADDRINUSE:
                print(f"{NAME}: не запустить службу на 127.0.0.1:{port}: {error}", file=sys.stderr)
                return 2
            time.sleep(0.5)
    threading.Thread(target=_exit_with_parent, args=(httpd,), daemon=True).start()
    print(f"{NAME}: принимаю вердикты на 127.0.0.1:{port}, пишу в {pathlib.Path(args.state) / SPOOL}", file=sys.stderr)
    httpd.serve_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main())
