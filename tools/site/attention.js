// Внимание в странице сайта: копия на JavaScript того, что считает course_lib (course_lib/functional.py).
//
// softmax(row, temperature, mask) — как softmax(scores / τ) с маской: закрытое -> −∞ -> вес 0, строка,
// где закрыто всё, — нулевые веса (без nan); устойчиво к большим числам (вычитаем максимум строки).
// scaledDotProductAttention(q, k, v, mask, scale, causal) — как scaled_dot_product_attention для одной
// головы: q (T_q, d_k), k (T_k, d_k), v (T_k, d_v) — массивы строк; mask (T_q, T_k) true = «можно смотреть»;
// scale по умолчанию 1/√d_k; causal при T_q < T_k — запросы на последних T_q позициях (как урок 08).
// entropy(row) — энтропия в битах, как course_lib.functional.entropy.
// Совпадение с numpy до 1e-6 проверяет tests/test_site_attention_js.py (node, случайные случаи).
(function (root) {
  "use strict";

  function softmax(row, temperature, mask) {
    var tau = temperature === undefined || temperature === null ? 1 : temperature;
    var n = row.length, x = new Array(n), peak = -Infinity, i;
    for (i = 0; i < n; i++) {
      x[i] = mask && !mask[i] ? -Infinity : row[i] / tau;          // как softmax(scores / τ) после masked_fill
      if (x[i] > peak) peak = x[i];
    }
    if (peak === -Infinity) peak = 0;                               // строка из одних −∞: вычитаем 0, не −∞
    var total = 0;
    for (i = 0; i < n; i++) { x[i] = Math.exp(x[i] - peak); total += x[i]; }
    if (total === 0) total = 1;                                     // ... и получаем нули вместо 0/0
    for (i = 0; i < n; i++) x[i] /= total;
    return x;
  }

  function causalMask(T_q, T_k) {
    // (T_q, T_k): ключ не правее запроса; при T_q < T_k запросы — последние T_q позиций
    var T = T_k === undefined ? T_q : T_k, mask = [];
    for (var i = 0; i < T_q; i++) {
      var row = [];
      for (var j = 0; j < T; j++) row.push(j <= i + T - T_q);
      mask.push(row);
    }
    return mask;
  }

  function scaledDotProductAttention(q, k, v, mask, scale, causal) {
    var T_q = q.length, T_k = k.length, d_k = q[0].length;
    var s = scale === undefined || scale === null ? 1 / Math.sqrt(d_k) : scale;
    var past = causal ? causalMask(T_q, T_k) : null;
    var weights = [], context = [];
    for (var i = 0; i < T_q; i++) {
      var scaled = q[i].map(function (x) { return x * s; });      // (q * scale) @ kᵀ, как в course_lib
      var scores = new Array(T_k), allowed = new Array(T_k);
      for (var j = 0; j < T_k; j++) {
        var dot = 0;
        for (var c = 0; c < d_k; c++) dot += scaled[c] * k[j][c];
        scores[j] = dot;
        allowed[j] = (!mask || mask[i][j]) && (!past || past[i][j]);
      }
      var row = softmax(scores, 1, allowed);
      weights.push(row);
      if (v) {
        var d_v = v[0].length, out = new Array(d_v).fill(0);
        for (var jj = 0; jj < T_k; jj++) for (var e = 0; e < d_v; e++) out[e] += row[jj] * v[jj][e];
        context.push(out);
      }
    }
    return {context: v ? context : null, weights: weights};
  }

  function entropy(row) {
    var total = 0;
    row.forEach(function (w) { if (w > 0) total += w * Math.log2(w); });
    return 0 - total;
  }

  var api = {softmax: softmax, causalMask: causalMask, scaledDotProductAttention: scaledDotProductAttention,
             entropy: entropy};
  if (typeof module !== "undefined" && module.exports) module.exports = api;
  else root.CourseAttention = api;
})(this);
