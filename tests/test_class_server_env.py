"""Проверки курса, запущенные учителем из терминала или ядра своего класса (там заданы CLASS_VERDICTS_URL,
JUPYTERHUB_API_TOKEN и CLASS_STATE), не шлют вердиктов настоящему классу и проходят, как на чистой машине."""

import http.server
import os
import pathlib
import subprocess
import sys
import threading

ROOT = pathlib.Path(__file__).resolve().parents[1]


def test_checks_run_inside_a_class_do_not_reach_the_class(tmp_path):
    asked = []

    class Service(http.server.BaseHTTPRequestHandler):           # «служба class-verdicts» настоящего класса
        def do_POST(self):
            asked.append(self.path)
            self.send_response(200)
            self.end_headers()

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Service)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        env = {**os.environ, "PYTHONPATH": str(ROOT), "JUPYTERHUB_API_TOKEN": "ключ-учителя",
               "CLASS_VERDICTS_URL": f"http://127.0.0.1:{server.server_port}/services/class-verdicts/record",
               "CLASS_STATE": str(tmp_path / "настоящий-класс"), "JUPYTERHUB_USER": "teacher"}
        done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                               "tests/test_class_results.py::test_three_learners_exact_table_and_page"],
                              cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    finally:
        server.shutdown()
        server.server_close()
    assert done.returncode == 0 and "1 passed" in done.stdout, done.stdout[-3000:] + done.stderr[-2000:]
    assert asked == [], f"проверки из терминала класса отправили вердикты настоящему классу: {asked}"
