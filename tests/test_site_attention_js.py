"""Внимание сайта на JavaScript (tools/site/attention.js) считает то же, что course_lib, до 1e-6.

Node исполняет attention.js на случайных случаях — формы, маски (и строки, где закрыто всё), причинная маска
при T_q < T_k, scale, температуры, большие и маленькие числа — и ответы сверяются с
course_lib.functional.softmax, scaled_dot_product_attention и entropy.
"""

import json
import pathlib
import shutil
import subprocess

import numpy as np
import pytest

from course_lib.functional import entropy, scaled_dot_product_attention, softmax

ROOT = pathlib.Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "tools" / "site" / "attention.js"
RUNNER = """
const A = require(process.argv[1]);
const cases = JSON.parse(require('fs').readFileSync(0, 'utf8'));
const out = cases.map(c => c.kind === 'softmax'
  ? {weights: A.softmax(c.row, c.temperature, c.mask), entropy: A.entropy(A.softmax(c.row, c.temperature, c.mask))}
  : A.scaledDotProductAttention(c.q, c.k, c.v, c.mask, c.scale, c.causal));
process.stdout.write(JSON.stringify(out));
"""


def _node(cases):
    node = shutil.which("node")
    if node is None:
        pytest.skip("нет node (apt-get install nodejs): JavaScript сайта не проверить")
    done = subprocess.run([node, "-e", RUNNER, str(SCRIPT)], input=json.dumps(cases), capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, f"node упал: {done.stderr}"
    return json.loads(done.stdout)


def _magnitude(rng):
    return 10.0 ** rng.uniform(-3, 3)                 # от 0.001 до 1000: и почти ровные веса, и почти one-hot


def _attention_cases(rng, count):
    cases = []
    for _ in range(count):
        T_q, T_k, d_k, d_v = (int(x) for x in rng.integers(1, [9, 9, 17, 6]))
        if rng.random() < 0.4:
            T_q = T_k                                  # самовнимание, как в виджетах
        q = rng.normal(size=(T_q, d_k)) * _magnitude(rng)
        k = rng.normal(size=(T_k, d_k)) * _magnitude(rng)
        v = rng.normal(size=(T_k, d_v))
        mask = None
        if rng.random() < 0.5:
            mask = rng.random((T_q, T_k)) < 0.7
            if T_q > 1 and rng.random() < 0.5:
                mask[rng.integers(T_q)] = False        # запрос, которому некуда смотреть: нулевые веса
        scale = None if rng.random() < 0.5 else float(10.0 ** rng.uniform(-2, 1))
        causal = bool(rng.random() < 0.4)
        cases.append({"kind": "sdpa", "q": q.tolist(), "k": k.tolist(), "v": v.tolist(),
                      "mask": None if mask is None else mask.tolist(), "scale": scale, "causal": causal})
    return cases


def _softmax_cases(rng, count):
    cases = []
    for _ in range(count):
        n = int(rng.integers(1, 12))
        row = rng.normal(size=n) * _magnitude(rng)
        if rng.random() < 0.2:
            row[rng.integers(n)] = rng.choice([1e4, -1e4, 5e2])       # одна оценка далеко от остальных
        mask = None if rng.random() < 0.6 else (rng.random(n) < 0.6)
        if mask is not None and rng.random() < 0.2:
            mask[:] = False                                           # закрыто всё: нулевые веса
        temperature = float(10.0 ** rng.uniform(-2, 2))               # τ урока 02: от 0.1 до 10, и шире
        cases.append({"kind": "softmax", "row": row.tolist(), "temperature": temperature,
                      "mask": None if mask is None else mask.tolist()})
    return cases


def _expected_softmax(case):
    row = np.asarray(case["row"]) / case["temperature"]
    if case["mask"] is not None:
        row = np.where(case["mask"], row, -np.inf)
    weights = softmax(row)
    return weights, float(entropy(weights))


def test_js_softmax_with_temperature_and_mask_matches_course_lib():
    rng = np.random.default_rng(37)
    cases = _softmax_cases(rng, 300)
    for case, got in zip(cases, _node(cases)):
        weights, bits = _expected_softmax(case)
        np.testing.assert_allclose(got["weights"], weights, rtol=0, atol=1e-6, err_msg=json.dumps(case)[:300])
        assert abs(got["entropy"] - bits) < 1e-6, case
    assert any(not any(c["mask"]) for c in cases if c["mask"] is not None)   # случай «закрыто всё» был


def test_js_scaled_dot_product_attention_matches_course_lib():
    rng = np.random.default_rng(2026)
    cases = _attention_cases(rng, 300)
    for case, got in zip(cases, _node(cases)):
        mask = None if case["mask"] is None else np.asarray(case["mask"], dtype=bool)
        context, weights = scaled_dot_product_attention(np.asarray(case["q"]), np.asarray(case["k"]),
                                                        np.asarray(case["v"]), mask, case["scale"], case["causal"])
        where = json.dumps({k: case[k] for k in ("mask", "scale", "causal")})[:300]
        np.testing.assert_allclose(got["weights"], weights, rtol=0, atol=1e-6, err_msg=where)
        np.testing.assert_allclose(got["context"], context, rtol=1e-6, atol=1e-6, err_msg=where)
    assert any(c["causal"] and len(c["q"]) < len(c["k"]) for c in cases)   # причинная маска при T_q < T_k была


def test_js_causal_mask_is_course_libs():
    from course_lib.functional import causal_mask
    got = _node([{"kind": "sdpa", "q": [[1.0]] * T, "k": [[1.0]] * T, "v": None, "mask": None, "scale": 1.0,
                  "causal": True} for T in range(1, 7)])
    for T, answer in zip(range(1, 7), got):
        assert (np.asarray(answer["weights"]) > 0).tolist() == causal_mask(T).tolist()
