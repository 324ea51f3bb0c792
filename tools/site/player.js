// Статический проигрыватель виджета курса (tools/build_site.py): ползунки выбирают заранее нарисованный кадр.
// Данные — в <script type="application/json" class="player-data">: ползунки, кадры (положения всех
// ползунков, их пределы, файл, подпись, сообщение, описание). Сдвиг ползунка ищет кадр с этим значением,
// ближайший к остальным положениям, и ставит все ползунки так, как в нём.
// Живой счёт (data.live, live.js): если кадра с этими положениями нет, а страница умеет их посчитать
// (уроки 02–06), ползунки остаются, где их поставили, а вместо кадра — посчитанная в странице таблица весов.
(function () {
  "use strict";

  function format(spec, position) {
    if (spec.kind === "log") {
      var value = Math.pow(10, position);
      return Number(value.toPrecision(3)).toString();
    }
    var match = /\.(\d+)f/.exec(spec.format || "");
    return match ? Number(position).toFixed(+match[1]) : String(Math.round(position));
  }

  function setup(section) {
    var data = JSON.parse(section.querySelector(".player-data").textContent);
    var specs = {};
    data.controls.forEach(function (spec) { specs[spec.name] = spec; });
    var inputs = {};
    data.names.forEach(function (name) { inputs[name] = section.querySelector('[data-name="' + name + '"]'); });
    var image = section.querySelector("img.frame");
    var caption = section.querySelector(".caption");
    var message = section.querySelector(".message");
    var description = section.querySelector(".description");
    var kind = data.live && window.CourseLive ? window.CourseLive.kinds[data.live.kind] : null;
    var panel = section.querySelector(".live");
    // Нарисованные значения каждого ползунка: дальше них ползунок не пускает (кадра там нет, и ползунок
    // стоял бы на месте). Так бывает, когда нарисованы не все сочетания: при T = 7 «запрос №» 6 не нарисован.
    var drawn = {};
    data.names.forEach(function (name, i) {
      var values = data.frames.map(function (frame) { return frame.v[i]; });
      drawn[name] = kind ? [-Infinity, Infinity] : [Math.min.apply(null, values), Math.max.apply(null, values)];
    });

    function read(name) {
      var input = inputs[name], kind = specs[name].kind;
      if (kind === "check") return input.checked ? 1 : 0;
      return Number(input.value);
    }

    function show(index) {
      var frame = data.frames[index];
      data.names.forEach(function (name, i) {
        var input = inputs[name], spec = specs[name], value = frame.v[i];
        if (spec.kind === "range" || spec.kind === "log") {
          var limits = frame.r[name] || [spec.min, spec.max];
          input.min = Math.max(limits[0], drawn[name][0]);
          input.max = Math.min(limits[1], drawn[name][1]);
          input.value = value;
          var output = input.parentNode.querySelector("output");
          if (output) output.textContent = format(spec, value);
          input.setAttribute("aria-valuetext", format(spec, value));
        } else if (spec.kind === "check") {
          input.checked = !!value;
        } else {
          input.value = String(value);
        }
      });
      image.hidden = false;
      if (panel) { panel.hidden = true; panel.innerHTML = ""; }
      section.removeAttribute("data-live");
      if (image.getAttribute("src") !== frame.f) image.setAttribute("src", frame.f);
      image.width = frame.w;
      image.height = frame.h;
      image.alt = "кадр виджета: " + (frame.d[0] || "");
      caption.innerHTML = frame.c;
      message.textContent = frame.m ? "⚠ " + frame.m : "";
      description.textContent = "";
      frame.d.forEach(function (line) {
        var item = document.createElement("li");
        item.textContent = line;
        description.appendChild(item);
      });
      section.setAttribute("data-frame", String(index));
      shown = frame;
    }

    var shown = null;

    // Положения без кадра — посчитанные в странице: ползунки там, где их поставили (пределы — из live.js).
    function showLive(values) {
      var result = kind.compute(data.live, values);
      data.names.forEach(function (name) {
        var input = inputs[name], spec = specs[name];
        if (spec.kind === "range" || spec.kind === "log") {
          var limits = (result.limits && result.limits[name]) || [spec.min, spec.max];
          input.min = limits[0];
          input.max = limits[1];
          var output = input.parentNode.querySelector("output");
          if (output) output.textContent = format(spec, values[name]);
          input.setAttribute("aria-valuetext", format(spec, values[name]));
        }
      });
      image.hidden = true;
      panel.hidden = false;
      panel.innerHTML = "<p class='live-note'>Кадра для этих положений нет — посчитано в странице (JavaScript, " +
        "те же формулы, что в course_lib).</p>" + result.html;
      panel.setAttribute("data-numbers", JSON.stringify(result.numbers));
      caption.innerHTML = result.caption || "";
      message.textContent = result.message ? "⚠ " + result.message : "";
      description.textContent = "";
      result.description.forEach(function (line) {
        var item = document.createElement("li");
        item.textContent = line;
        description.appendChild(item);
      });
      section.setAttribute("data-frame", "-1");
      section.setAttribute("data-live", JSON.stringify(values));
      shown = {v: data.names.map(function (name) { return values[name]; })};
    }

    // Кадр с этим значением ползунка, ближайший к остальным положениям. Если у длинного ползунка на
    // этом шаге кадра нет — ближайший нарисованный в ту сторону, куда двигали (стрелки не застревают).
    function moved(name) {
      var at = data.names.indexOf(name), wanted = data.names.map(read);
      if (kind) {
        var exact = -1;
        data.frames.forEach(function (frame, k) {
          if (frame.v.every(function (v, j) { return Math.abs(v - wanted[j]) < 1e-6; })) exact = k;
        });
        var values = {};                               // и ползунки, которые не двигаются (одно положение), — их начало
        data.controls.forEach(function (spec) { if (spec.start !== undefined) values[spec.name] = spec.start; });
        data.names.forEach(function (n, j) { values[n] = wanted[j]; });
        if (exact >= 0) { show(exact); return; }
        if (kind.covers(data.live, values)) { showLive(values); return; }
      }
      var values = data.frames.map(function (frame) { return frame.v[at]; });
      var target = wanted[at];
      if (!values.some(function (v) { return Math.abs(v - target) < 1e-6; })) {
        var direction = shown && wanted[at] < shown.v[at] ? -1 : 1;
        var ahead = values.filter(function (v) { return (v - wanted[at]) * direction > 0; });
        var pool = ahead.length ? ahead : values;
        target = pool.reduce(function (b, v) { return Math.abs(v - wanted[at]) < Math.abs(b - wanted[at]) ? v : b; });
      }
      var best = -1, bestScore = Infinity;
      data.frames.forEach(function (frame, k) {
        if (Math.abs(frame.v[at] - target) > 1e-6) return;
        var differ = 0, distance = 0;
        frame.v.forEach(function (value, j) {
          if (j === at) return;
          var gap = Math.abs(value - wanted[j]);
          if (gap > 1e-6) { differ += 1; distance += gap; }
        });
        var score = differ * 1e6 + distance;
        if (score < bestScore) { best = k; bestScore = score; }
      });
      if (best >= 0) show(best);
    }

    data.names.forEach(function (name) {
      var input = inputs[name];
      input.addEventListener(specs[name].kind === "range" || specs[name].kind === "log" ? "input" : "change",
                             function () { moved(name); });
    });
    var start = 0;
    data.frames.forEach(function (frame, k) {
      if (frame.v.every(function (v, j) { return Math.abs(v - data.start[j]) < 1e-6; })) start = k;
    });
    show(start);
  }

  function init() {
    Array.prototype.forEach.call(document.querySelectorAll("section.player"), setup);
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
