// Живой счёт проигрывателя (tools/site_live.py): положения ползунков без нарисованного кадра страница
// считает сама — формулами из attention.js (копия course_lib, сверена с numpy до 1e-6) — и показывает
// таблицей: числа весов и цвет клетки (как у тепловых карт курса: светлее — больше вес).
// Каждый вид: covers(данные, положения) — может ли страница посчитать эти положения; compute(…) ->
// {numbers: числа для проверки, html: таблица, caption, description: строки описания, message}.
(function (root) {
  "use strict";
  var A = root.CourseAttention;

  // viridis в девяти точках (как WEIGHTS_CMAP курса): светлота растёт с весом
  var VIRIDIS = [[68, 1, 84], [71, 44, 122], [59, 81, 139], [44, 113, 142], [33, 144, 141],
                 [39, 173, 129], [92, 200, 99], [170, 220, 50], [253, 231, 37]];

  function colour(w, top) {
    var t = Math.max(0, Math.min(1, w / (top || 1))) * (VIRIDIS.length - 1);
    var i = Math.min(Math.floor(t), VIRIDIS.length - 2), f = t - i;
    var c = VIRIDIS[i].map(function (a, k) { return Math.round(a + (VIRIDIS[i + 1][k] - a) * f); });
    return "rgb(" + c.join(",") + ")";
  }

  function escape(text) {
    return String(text).replace(/[&<>"]/g, function (c) { return {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;"}[c]; });
  }

  function fixed(x, digits) { return Number(x).toFixed(digits === undefined ? 3 : digits); }

  // Матрица весов (T_q, T_k) таблицей: строки — запросы, столбцы — ключи; закрытые маской — «—».
  function matrix(weights, rows, cols, title, options) {
    options = options || {};
    var top = options.top || 1, mask = options.mask, query = options.query;
    var head = "<tr><th scope='col'>запрос \\ ключ</th>" + cols.map(function (c) { return "<th scope='col'>" + escape(c) + "</th>"; }).join("") + "</tr>";
    var body = weights.map(function (row, i) {
      var cells = row.map(function (w, j) {
        if (mask && !mask[i][j]) return "<td class='hidden-cell'>—</td>";
        var dark = w / top < 0.55;
        return "<td style='background:" + colour(w, top) + ";color:" + (dark ? "#fff" : "#000") + "'>" + fixed(w) + "</td>";
      }).join("");
      return "<tr" + (i === query ? " class='chosen'" : "") + "><th scope='row'>" + escape(rows[i]) + "</th>" + cells + "</tr>";
    }).join("");
    return "<table class='live-matrix'><caption>" + escape(title) + "</caption><thead>" + head + "</thead><tbody>" + body + "</tbody></table>";
  }

  // Столбики одной строки весов — таблицей: подпись, (оценка), вес числом и полосой.
  function bars(labels, weights, scores, title) {
    var body = labels.map(function (label, i) {
      return "<tr><th scope='row'>" + escape(label) + "</th>" + (scores ? "<td>" + fixed(scores[i], 2) + "</td>" : "") +
        "<td>" + fixed(weights[i]) + "</td><td class='bar'><span style='width:" + (100 * weights[i]).toFixed(1) +
        "%'></span></td></tr>";
    }).join("");
    return "<table class='live-bars'><caption>" + escape(title) + "</caption><thead><tr><th scope='col'></th>" +
      (scores ? "<th scope='col'>оценка</th>" : "") + "<th scope='col'>вес</th><th scope='col'>полоса</th></tr></thead><tbody>" +
      body + "</tbody></table>";
  }

  function sum(row) { return row.reduce(function (a, b) { return a + b; }, 0); }

  function argmax(row) {
    var best = 0;
    row.forEach(function (x, i) { if (x > row[best]) best = i; });
    return best;
  }

  var kinds = {};

  // Урок 02: столбики softmax(оценки / τ)
  kinds.softmax = {
    covers: function () { return true; },
    compute: function (d, v) {
      var tau = Math.pow(10, v.temperature), w = A.softmax(d.scores, tau), H = A.entropy(w);
      var title = "softmax(оценки / τ), τ = " + fixed(tau, 2) + "; энтропия " + fixed(H, 2) + " бит, сумма = " + fixed(sum(w), 3);
      return {numbers: {weights: w, entropy: H, temperature: tau}, html: bars(d.labels, w, d.scores, title),
              caption: "", message: "",
              description: [title].concat(d.labels.map(function (l, i) { return "«" + l + "»: оценка " + fixed(d.scores[i], 2) + ", вес " + fixed(w[i]); }))};
    }
  };

  // Урок 02: мягкий поиск — q·k для каждой книги, веса softmax(q·k / τ), смесь значений Σ wᵢ vᵢ
  kinds.soft_search = {
    covers: function () { return true; },
    compute: function (d, v) {
      var tau = Math.pow(10, v.temperature), q = [v.qx, v.qy];
      var scores = d.keys.map(function (key) { return key[0] * q[0] + key[1] * q[1]; });
      var w = A.softmax(scores, tau), H = A.entropy(w);
      var output = [0, 1, 2].map(function (c) { return sum(w.map(function (wi, i) { return wi * d.values[i][c]; })); });
      var best = argmax(scores);
      var clip = function (x) { return Math.round(255 * Math.max(0, Math.min(1, x))); };
      var rgb = function (c) { return "rgb(" + c.map(clip).join(",") + ")"; };
      var title = "веса = softmax(q·k / τ), τ = " + fixed(tau, 2) + "; энтропия " + fixed(H, 2) + " бит, сумма = " + fixed(sum(w), 3);
      var mix = "<p class='live-mix'><span class='swatch' style='background:" + rgb(output) + "'></span> мягкий поиск: смесь Σ wᵢ vᵢ = (" +
        output.map(function (c) { return fixed(c, 2); }).join(", ") + ") · <span class='swatch' style='background:" + rgb(d.values[best]) +
        "'></span> жёсткий поиск: «" + escape(d.labels[best]) + "»</p>";
      var message = q[0] === 0 && q[1] === 0 ? "нулевой запрос одинаково похож на все ключи: все оценки 0, веса поровну" : "";
      return {numbers: {scores: scores, weights: w, output: output, best: best, entropy: H}, message: message,
              html: "<p>запрос q = (" + fixed(q[0], 1) + ", " + fixed(q[1], 1) + ")</p>" + bars(d.labels, w, scores, title) + mix,
              caption: "",
              description: [title, "смесь (" + output.map(function (c) { return fixed(c, 2); }).join(", ") + "), лучшая книга «" + d.labels[best] + "»"]
                .concat(d.labels.map(function (l, i) { return "«" + l + "»: q·k " + fixed(scores[i], 2) + ", вес " + fixed(w[i]); }))};
    }
  };

  root.CourseLive = {kinds: kinds, matrix: matrix, bars: bars, colour: colour, escape: escape, fixed: fixed};
})(this);
