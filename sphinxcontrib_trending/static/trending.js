/* sphinxcontrib-trending: table filters, and every trend graph drawn with Plotly.
 * Figures are drawn when they scroll into view, so a page with hundreds of
 * graphs opens fast; the figure JSON sits in a <script type="application/json">
 * next to each graph and is parsed, never evaluated. */
(function () {
  "use strict";

  function draw(plot) {
    if (plot.dataset.drawn) { return; }
    plot.dataset.drawn = "1";
    var source = document.getElementById(plot.dataset.figure);
    if (!source || typeof Plotly === "undefined") { return; }
    var figure = JSON.parse(source.textContent);
    Plotly.newPlot(plot, figure.data, figure.layout, figure.config);
  }

  /* A filter box above each trending table: narrows rows by test name and,
   * on tables whose rows carry change classes (class "trending-changes"),
   * optionally to rows with a regression or progression, without a rebuild. */
  function addFilter(table) {
    var box = document.createElement("div");
    box.className = "trending-filter";
    var input = document.createElement("input");
    input.type = "search";
    input.placeholder = "Filter tests…";
    input.setAttribute("aria-label", "Filter tests");
    box.appendChild(input);
    var changed = null;
    if (table.classList.contains("trending-changes")) {
      var label = document.createElement("label");
      changed = document.createElement("input");
      changed.type = "checkbox";
      label.appendChild(changed);
      label.appendChild(document.createTextNode(" changes only"));
      box.appendChild(label);
      changed.addEventListener("change", apply);
    }
    table.parentNode.insertBefore(box, table);
    var rows = table.querySelectorAll("tbody tr");
    function apply() {
      var needle = input.value.trim().toLowerCase();
      var changesOnly = changed !== null && changed.checked;
      rows.forEach(function (row) {
        var name = row.cells[0] ? row.cells[0].textContent.toLowerCase() : "";
        var flagged = /trending-(regression|progression|maybe)/.test(row.className);
        row.hidden = (needle && name.indexOf(needle) < 0) || (changesOnly && !flagged);
      });
    }
    input.addEventListener("input", apply);
  }

  function start() {
    document.querySelectorAll("table.trending-table").forEach(addFilter);
    var plots = document.querySelectorAll(".trending-graph-plot");
    if (!("IntersectionObserver" in window)) {
      plots.forEach(draw);
      return;
    }
    var observer = new IntersectionObserver(function (entries) {
      entries.forEach(function (entry) {
        if (entry.isIntersecting) {
          observer.unobserve(entry.target);
          draw(entry.target);
        }
      });
    }, { rootMargin: "400px" });
    plots.forEach(function (plot) { observer.observe(plot); });
    /* A link to a test's anchor must land on a drawn graph. */
    if (window.location.hash) {
      var target = document.getElementById(window.location.hash.slice(1));
      var box = target && (target.closest(".trending-graph") ||
        (target.nextElementSibling && target.nextElementSibling.closest(".trending-graph")));
      var graph = box && box.querySelector(".trending-graph-plot");
      if (graph) { draw(graph); }
    }
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
