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

  function unpack(text) {
    var bytes = atob(text), buffer = new Uint8Array(bytes.length);
    for (var i = 0; i < bytes.length; i++) buffer[i] = bytes.charCodeAt(i);
    return new Float64Array(buffer.buffer);
  }

  var unpacked = {};

  // Q и K (T, d_model) предложения для пары «d_model/зерно» -> веса каждой головы (h, T, T) при этих ползунках
  function headWeights(d, key, T, heads, causal, scaled) {
    if (!unpacked[key]) unpacked[key] = unpack(d.pairs[key]);
    var flat = unpacked[key], all = d.tokens.length, d_model = flat.length / (2 * all), d_head = d_model / heads;
    var mask = causal ? A.causalMask(T) : null, weights = [];
    for (var h = 0; h < heads; h++) {
      var part = function (offset) {
        var rows = [];
        for (var t = 0; t < T; t++) {
          var start = offset + t * d_model + h * d_head;
          rows.push(Array.prototype.slice.call(flat, start, start + d_head));
        }
        return rows;
      };
      // scale: None — 1/√d_head, как у слоя; без деления — 1 (attention_weights: копия слоя со scale = 1.0)
      weights.push(A.scaledDotProductAttention(part(0), part(all * d_model), null, mask, scaled ? null : 1, false).weights);
    }
    return {weights: weights, mask: mask};
  }

  // Уроки 03 и 06, главный исследователь: T, маска, √d_k, запрос и голова — при любых d_k, головах и зерне,
  // для которых Q и K положены в страницу
  kinds.attention = {
    covers: function (d, v) { return !!d.pairs[(v.heads * v.d_k) + "/" + v.seed]; },
    compute: function (d, v) {
      var T = Math.max(1, Math.min(v.T, d.tokens.length)), tokens = d.tokens.slice(0, T);
      var query = Math.max(0, Math.min(v.query, T - 1)), head = Math.max(1, Math.min(v.head, v.heads));
      var got = headWeights(d, (v.heads * v.d_k) + "/" + v.seed, T, v.heads, !!v.causal, !!v.scaled);
      var rows = got.weights.map(function (w) { return w[query]; });
      var entropy = rows.map(A.entropy), peak = rows.map(function (r) { return Math.max.apply(null, r); });
      var notes = [];
      if (T === 1) notes.push(d.notes.one);
      if (v.d_k === 1) notes.push(d.notes.d_k_1);
      var html = got.weights.map(function (w, i) {
        return matrix(w, tokens, tokens, "голова " + (i + 1), {mask: got.mask, query: query});
      }).join("") + bars(tokens, rows[head - 1], null, "куда смотрит «" + tokens[query] + "» (голова " + head + ")");
      var cells = entropy.map(function (H, i) {
        return "<td style='padding:0 10px'>голова " + (i + 1) + ": H = " + fixed(H, 2) + " бит, max = " + fixed(peak[i], 2) + "</td>";
      }).join("");
      var caption = "<b>запрос «" + escape(tokens[query]) + "»</b> (его строка выделена) — энтропия строки (0 — смотрит в одну точку, " +
        fixed(Math.log2(T), 2) + " — поровну на всех) и наибольший вес:<table><tr>" + cells + "</tr></table>";
      return {numbers: {weights: got.weights, entropy: entropy, peak: peak}, html: html, caption: caption,
              message: notes.filter(Boolean).join(" "), limits: {query: [0, T - 1], head: [1, v.heads]},
              description: ["веса " + v.heads + " голов, T = " + T + (v.causal ? ", с причинной маской" : "") +
                            (v.scaled ? "" : ", без деления на √d_k")].concat(entropy.map(function (H, i) {
                              return "голова " + (i + 1) + ", запрос «" + tokens[query] + "»: H = " + fixed(H, 2) + " бит, max = " + fixed(peak[i], 2);
                            }))};
    }
  };

  function cached(d, name) {
    d._unpacked = d._unpacked || {};
    if (!d._unpacked[name]) d._unpacked[name] = unpack(d[name]);
    return d._unpacked[name];
  }

  // строки x (T, d) @ W (d, d) + b, как Linear: y = x @ weight + bias
  function linear(rows, W, b, d) {
    return rows.map(function (x) {
      var y = new Array(d);
      for (var j = 0; j < d; j++) {
        var total = 0;
        for (var c = 0; c < d; c++) total += x[c] * W[c * d + j];
        y[j] = total + b[j];
      }
      return y;
    });
  }

  // Урок 04: веса исходного порядка и переставленного; позиции — сложение с P до слоя
  kinds.permutation = {
    covers: function (d, v) { return v.shuffle - d.first >= 0 && v.shuffle - d.first < d.orders.length; },
    compute: function (d, v) {
      var n = d.tokens.length, X = cached(d, "X"), P = cached(d, "P"), dim = d.d;
      var order = d.orders[v.shuffle - d.first];
      var input = function (perm) {
        return perm.map(function (t, i) {
          var row = [];
          for (var c = 0; c < dim; c++) row.push(X[t * dim + c] + (v.positional ? P[i * dim + c] : 0));
          return row;
        });
      };
      var attend = function (rows) {
        return A.scaledDotProductAttention(linear(rows, cached(d, "W_q"), cached(d, "b_q"), dim),
                                           linear(rows, cached(d, "W_k"), cached(d, "b_k"), dim), null, null, null, false).weights;
      };
      var identity = d.tokens.map(function (t, i) { return i; });
      var weights = attend(input(identity)), permuted = attend(input(order));
      var together = permuted.every(function (row, i) {        // np.allclose(permuted, weights[order][:, order])
        return row.every(function (w, j) { var b = weights[order[i]][order[j]]; return Math.abs(w - b) <= 1e-8 + 1e-5 * Math.abs(b); });
      });
      var top = Math.min(1, Math.ceil(Math.max.apply(null, weights.concat(permuted).map(function (r) { return Math.max.apply(null, r); })) * 10) / 10);
      var moved = order.map(function (t) { return d.tokens[t]; });
      var verdict = together ? "строки и столбцы переехали вместе: веса те же"
                             : "веса изменились не только перестановкой: позиции что-то значат";
      return {numbers: {weights: weights, permuted: permuted, order: order, moved_together: together ? 1 : 0},
              html: "<p><b>" + escape(verdict) + "</b></p>" + matrix(weights, d.tokens, d.tokens, "исходный порядок", {top: top}) +
                    matrix(permuted, moved, moved, "после перестановки", {top: top}),
              caption: "", message: "",
              description: [verdict, "порядок после перестановки: " + moved.join(" ")]};
    }
  };

  // Урок 05: одна голова, маска вкл/выкл, спрятанные клетки, строка выбранного запроса
  kinds.causal = {
    covers: function () { return true; },
    compute: function (d, v) {
      var T = Math.max(1, Math.min(v.T, d.tokens.length)), tokens = d.tokens.slice(0, T);
      var query = Math.max(0, Math.min(v.query, T - 1));
      var got = headWeights(d, "8/0", T, 1, !!v.causal, true);
      var weights = got.weights[0], mask = got.mask || tokens.map(function () { return tokens.map(function () { return true; }); });
      var hidden = 0;
      mask.forEach(function (row) { row.forEach(function (open) { if (!open) hidden += 1; }); });
      var title = "серые клетки спрятаны: " + hidden + " из " + T * T;
      return {numbers: {weights: weights, hidden: hidden, query: query}, caption: "",
              message: T === 1 ? d.notes.one : "", limits: {query: [0, T - 1]},
              html: matrix(weights, tokens, tokens, title, {mask: mask, query: query}) +
                    bars(tokens, weights[query], null, "куда смотрит «" + tokens[query] + "»"),
              description: [title, "«" + tokens[query] + "» смотрит: " + tokens.map(function (t, j) {
                return "«" + t + "» " + fixed(weights[query][j]); }).join(", ")]};
    }
  };

  // Урок 06: h голов той же ширины d_model — ближайший делитель d_model снизу, d_head = d_model / h
  kinds.heads = {
    covers: function (d, v) { return !!d.pairs[d.d_model + "/" + v.seed]; },
    compute: function (d, v) {
      var D = d.d_model, T = d.tokens.length, h = 1;
      for (var k = 1; k <= Math.max(1, v.heads); k++) if (D % k === 0) h = k;
      var d_head = D / h, got = headWeights(d, D + "/" + v.seed, T, h, false, true);
      var asked = h === v.heads ? "" : "  (h = " + v.heads + " не делит " + D + ")";
      var headline = "d_model = " + D + ", h = " + h + ", d_head = " + D + " / " + h + " = " + d_head + asked +
        "; параметров " + d.params + " = 4·" + D + "² + 4·" + D + " — при любом h";
      var html = "<p><b>" + escape(headline) + "</b></p>" + got.weights.map(function (w, i) {
        var first = i * d_head, last = (i + 1) * d_head - 1;
        return matrix(w, d.tokens, d.tokens, "голова " + (i + 1) + (last > first ? ": столбцы " + first + "–" + last : ": столбец " + first));
      }).join("");
      return {numbers: {weights: got.weights, heads: h, d_head: d_head, params: d.params}, html: html, caption: "",
              message: d.messages[String(v.heads)] || "", description: [headline]};
    }
  };

  root.CourseLive = {kinds: kinds, headWeights: headWeights, matrix: matrix, bars: bars, colour: colour, escape: escape, fixed: fixed};
})(this);
