// memguard audit console: pan and zoom for the lineage graph, and a few keyboard shortcuts.
// No dependencies; the pages work without it (the graph is server-rendered SVG, every fact a link).
(function () {
  "use strict";

  function setupGraph(viewport) {
    var svg = viewport.querySelector("svg");
    if (!svg) { return; }
    var full = { x: 0, y: 0, w: Number(svg.dataset.width), h: Number(svg.dataset.height) };
    var view = { x: full.x, y: full.y, w: full.w, h: full.h };
    var drag = null;
    // a small graph is not blown up: the viewport is no taller than the drawing
    var natural = full.h * Math.min(1, viewport.clientWidth / full.w);
    if (natural + 8 < viewport.clientHeight) { viewport.style.height = Math.max(natural + 8, 160) + "px"; }

    function apply() {
      svg.setAttribute("viewBox", [view.x, view.y, view.w, view.h].join(" "));
    }
    function zoom(factor, cx, cy) {
      var w = Math.min(Math.max(view.w * factor, 80), full.w * 4);
      var h = w * (view.h / view.w);
      if (cx === undefined) { cx = view.x + view.w / 2; cy = view.y + view.h / 2; }
      view.x = cx - (cx - view.x) * (w / view.w);
      view.y = cy - (cy - view.y) * (h / view.h);
      view.w = w; view.h = h;
      apply();
    }
    function pan(dx, dy) {
      view.x += dx * view.w; view.y += dy * view.h;
      apply();
    }
    function reset() {
      view = { x: full.x, y: full.y, w: full.w, h: full.h };
      apply();
    }
    function point(event) {
      var box = svg.getBoundingClientRect();
      return {
        x: view.x + (event.clientX - box.left) / box.width * view.w,
        y: view.y + (event.clientY - box.top) / box.height * view.h
      };
    }

    viewport.addEventListener("wheel", function (event) {
      event.preventDefault();
      var p = point(event);
      zoom(event.deltaY < 0 ? 0.85 : 1 / 0.85, p.x, p.y);
    }, { passive: false });
    viewport.addEventListener("pointerdown", function (event) {
      if (event.button !== 0 || event.target.closest("a")) { return; }
      drag = { x: event.clientX, y: event.clientY };
      viewport.setPointerCapture(event.pointerId);
    });
    viewport.addEventListener("pointermove", function (event) {
      if (!drag) { return; }
      var box = svg.getBoundingClientRect();
      pan(-(event.clientX - drag.x) / box.width, -(event.clientY - drag.y) / box.height);
      drag = { x: event.clientX, y: event.clientY };
    });
    viewport.addEventListener("pointerup", function () { drag = null; });
    viewport.addEventListener("keydown", function (event) {
      var keys = {
        ArrowLeft: function () { pan(-0.1, 0); }, ArrowRight: function () { pan(0.1, 0); },
        ArrowUp: function () { pan(0, -0.1); }, ArrowDown: function () { pan(0, 0.1); },
        "+": function () { zoom(0.8); }, "=": function () { zoom(0.8); },
        "-": function () { zoom(1.25); }, "0": reset
      };
      var action = keys[event.key];
      if (action && !event.altKey && !event.ctrlKey && !event.metaKey) {
        event.preventDefault();
        action();
      }
    });
    document.querySelectorAll("[data-graph]").forEach(function (button) {
      button.addEventListener("click", function () {
        var what = button.getAttribute("data-graph");
        if (what === "in") { zoom(0.8); } else if (what === "out") { zoom(1.25); } else { reset(); }
      });
    });
    // keep a focused fact in view when Tab moves through the graph
    svg.addEventListener("focusin", function (event) {
      var node = event.target.closest("a");
      if (!node) { return; }
      var b = node.getBBox();
      if (b.x < view.x || b.y < view.y || b.x + b.width > view.x + view.w || b.y + b.height > view.y + view.h) {
        view.x = b.x + b.width / 2 - view.w / 2;
        view.y = b.y + b.height / 2 - view.h / 2;
        apply();
      }
    });
  }

  function typing(target) {
    return target && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName));
  }

  function shortcuts() {
    var base = (document.querySelector("a.brand") || {}).getAttribute ?
      document.querySelector("a.brand").getAttribute("href").replace(/\/facts$/, "") : "";
    var pending = null;
    document.addEventListener("keydown", function (event) {
      if (typing(event.target) || event.altKey || event.ctrlKey || event.metaKey) { return; }
      if (event.key === "/") {
        var filter = document.getElementById("f-source");
        if (filter) { event.preventDefault(); filter.focus(); }
        else { window.location.href = base + "/facts"; }
        return;
      }
      if (pending === "g") {
        pending = null;
        if (event.key === "f") { window.location.href = base + "/facts"; }
        if (event.key === "h") { window.location.href = base + "/health"; }
        return;
      }
      if (event.key === "g") { pending = "g"; }
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll(".graph-viewport").forEach(setupGraph);
    shortcuts();
  });
})();
