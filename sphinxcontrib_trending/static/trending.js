/* sphinxcontrib-trending: table filters and sorting, and every trend graph drawn with Plotly.
 * A graph's figure sits in a data file beside the page and is loaded with a
 * <script src> only when the graph scrolls into view: a page of thousands of
 * graphs opens fast, and <script src> works from file://, where fetch() does not.
 * What the figures of a page share (its runs' texts, its layout) sits in one
 * more file, the page's table, loaded with its first graph (see expandFigure).
 * Filter and sort state lives in the page URL (?f1=...&c1=1&s1=-3), so a
 * filtered view can be shared as a link. */
(function () {
  "use strict";

  var figures = {};
  var tables = {};
  var waiting = {};
  var requested = {};

  /* A figure as Plotly takes it: what it names of its page's table put back
   * (render/page_runs.py says how, and expand_figure there does the same).  A
   * runs trace's trending_texts names the table's entry of its runs, rows of
   * [place, hover texts..., address if the entry has links], and carries the
   * series' own deviations and percentiles; a layout given as a number is the
   * table's layout of that number, copied (Plotly writes into a layout). */
  function expandFigure(figure, table) {
    if (typeof figure.layout === "number") {
      figure.layout = JSON.parse(JSON.stringify(table.layouts[figure.layout]));
    }
    figure.data.forEach(function (trace) {
      var runs = trace.trending_texts;
      if (!runs) { return; }
      delete trace.trending_texts;
      var shown = table.shown[runs.shown];
      var rows = [];
      for (var span = 0; span < shown.rows.length; span += 2) {
        for (var row = shown.rows[span]; row < shown.rows[span] + shown.rows[span + 1]; row++) {
          rows.push(table.rows[row]);
        }
      }
      var end = shown.links ? -1 : undefined;
      trace.x = rows.map(function (texts) { return texts[0]; });
      trace.customdata = rows.map(function (texts, point) {
        var data = [runs.stdev[point]].concat(texts.slice(1, end));
        if (runs.percentiles) { data.push(runs.percentiles[point]); }
        return data;
      });
      if (shown.links) {
        trace.trending_links = rows.map(function (texts) { return texts[texts.length - 1]; });
      }
      if (shown.meta) { trace.meta = shown.meta.slice(); }
    });
    return figure;
  }

  /* A point whose trace lists addresses in trending_links (a run's CI build, an
   * anomaly's commit range; see render/figure.py) opens its own on a click. */
  function openLink(event) {
    var point = event && event.points && event.points[0];
    var links = point && point.data && point.data.trending_links;
    var address = links && links[point.pointIndex];
    if (typeof address === "string" && /^https?:\/\//.test(address)) {
      window.open(address, "_blank", "noopener");
    }
  }

  function plotFigure(plot, figure) {
    if (typeof Plotly !== "undefined") {
      Plotly.newPlot(plot, figure.data, figure.layout, figure.config).then(function (drawn) {
        var percentiles = figure.percentiles &&
          addPercentiles(drawn, figure.percentiles, figure.config);
        drawn.on("plotly_click", function (event) {
          if (!(percentiles && percentiles(event))) { openLink(event); }
        });
      });
    }
  }

  /* A latency graph's runs open their percentile graph on a click: the curves
   * were drawn at build time (figure.percentiles, see render/latency_curves.py);
   * points[i] = [trace, point, set] says which set a point opens.  Returns the
   * click handler. */
  function addPercentiles(plot, views, config) {
    var opens = {};
    views.points.forEach(function (point) { opens[point[0] + ":" + point[1]] = point[2]; });
    var note = document.createElement("p");
    note.className = "trending-percentiles-note";
    note.textContent = "Click one of the newest runs to see its latency percentiles.";
    var panel = document.createElement("div");
    panel.className = "trending-percentiles";
    panel.hidden = true;
    plot.parentNode.insertBefore(note, plot.nextSibling);
    plot.parentNode.insertBefore(panel, note.nextSibling);
    /* Whether the click was on a run with a percentile graph (then drawn); a
     * click elsewhere hides the panel and is left to the run's link. */
    return function (event) {
      var point = event && event.points && event.points[0];
      if (!point) { return false; }
      var set = views.sets[opens[point.curveNumber + ":" + point.pointNumber]];
      if (!set) {
        note.textContent = "This run has no percentile graph: only the newest runs " +
          "with latency histograms have one.";
        panel.hidden = true;
        return false;
      }
      note.textContent = "Latency percentiles of the run clicked:";
      var layout = JSON.parse(JSON.stringify(views.layout));
      layout.title = { text: set.title };
      panel.hidden = false;
      Plotly.react(panel, set.data, layout, config);
      return true;
    };
  }

  /* Draw the plots waiting for figure ``id`` once it and its page's table are here. */
  function ready(id) {
    var loaded = figures[id];
    var plots = waiting[id];
    if (!loaded || !plots) { return; }
    if (loaded.table !== undefined) {
      var table = tables[loaded.table];
      if (!table) { return; }
      loaded.figure = expandFigure(loaded.figure, table);
      delete loaded.table;
    }
    delete waiting[id];
    plots.forEach(function (plot) { plotFigure(plot, loaded.figure); });
  }

  /* Called by each graph data file once loaded; ``table`` names the page's
   * table the figure shares, if any (the page's table file calls trendingRuns). */
  window.trendingFigure = function (id, figure, table) {
    figures[id] = { figure: figure, table: table };
    ready(id);
  };

  window.trendingRuns = function (name, table) {
    tables[name] = table;
    Object.keys(waiting).forEach(ready);
  };

  function load(source) {
    if (requested[source]) { return; }
    requested[source] = true;
    var script = document.createElement("script");
    script.src = source;
    document.head.appendChild(script);
  }

  function draw(plot) {
    if (plot.dataset.drawn) { return; }
    plot.dataset.drawn = "1";
    var id = plot.dataset.figure;
    (waiting[id] = waiting[id] || []).push(plot);
    if (plot.dataset.runs) { load(plot.dataset.runs); }
    if (figures[id]) { ready(id); } else { load(plot.dataset.src); }
  }

  /* The page URL's query holds each table's state, keyed by its number on the page. */
  var params = new URLSearchParams(window.location.search);

  function saveState(key, value) {
    if (value) { params.set(key, value); } else { params.delete(key); }
    var query = params.toString();
    var url = window.location.pathname + (query ? "?" + query : "") + window.location.hash;
    try {
      window.history.replaceState(null, "", url);
    } catch (error) {
      /* Some browsers refuse to rewrite file:// URLs: the view still works. */
    }
  }

  /* Numbers compare as numbers ("10.5" after "9"); blanks, and cells that say
     why they hold no value (an <abbr>), sort last either way. */
  function sortValue(cell) {
    var text = cell ? cell.textContent.trim() : "";
    if (text === "" || cell.querySelector("abbr")) { return null; }
    var number = Number(text);
    return isNaN(number) ? text.toLowerCase() : number;
  }

  function compare(a, b) {
    if (typeof a === typeof b) { return a < b ? -1 : a > b ? 1 : 0; }
    return typeof a === "number" ? -1 : 1;
  }

  function addSorting(table, number) {
    var body = table.tBodies[0];
    var headers = table.querySelectorAll("thead th");
    if (!body || !headers.length) { return; }
    var original = Array.prototype.slice.call(body.rows);
    function sortBy(column, descending) {
      var rows = original.slice();
      if (column >= 0) {
        rows.sort(function (x, y) {
          var a = sortValue(x.cells[column]);
          var b = sortValue(y.cells[column]);
          if (a === null || b === null) { return (a === null) - (b === null); }
          return descending ? compare(b, a) : compare(a, b);
        });
      }
      rows.forEach(function (row) { body.appendChild(row); });
      headers.forEach(function (th, index) {
        var state = index !== column ? "none" : descending ? "descending" : "ascending";
        th.setAttribute("aria-sort", state);
      });
    }
    headers.forEach(function (th, index) {
      th.tabIndex = 0;
      th.title = "Sort by this column";
      function toggle() {
        var descending = th.getAttribute("aria-sort") === "ascending";
        sortBy(index, descending);
        saveState("s" + number, (descending ? "-" : "") + (index + 1));
      }
      th.addEventListener("click", toggle);
      th.addEventListener("keydown", function (event) {
        if (event.key === "Enter" || event.key === " ") { event.preventDefault(); toggle(); }
      });
    });
    var saved = /^(-?)(\d+)$/.exec(params.get("s" + number) || "");
    if (saved && Number(saved[2]) <= headers.length) {
      sortBy(Number(saved[2]) - 1, saved[1] === "-");
    }
  }

  /* A filter box above each trending table: narrows rows by test name and,
   * on tables whose rows carry change classes (class "trending-changes"),
   * optionally to rows with a regression or progression, without a rebuild. */
  function addFilter(table, number) {
    var box = document.createElement("div");
    box.className = "trending-filter";
    var input = document.createElement("input");
    input.type = "search";
    input.placeholder = "Filter tests…";
    input.setAttribute("aria-label", "Filter tests");
    input.value = params.get("f" + number) || "";
    box.appendChild(input);
    var changed = null;
    if (table.classList.contains("trending-changes")) {
      var label = document.createElement("label");
      changed = document.createElement("input");
      changed.type = "checkbox";
      changed.checked = params.get("c" + number) === "1";
      label.appendChild(changed);
      label.appendChild(document.createTextNode(" changes only"));
      box.appendChild(label);
      changed.addEventListener("change", function () {
        apply();
        saveState("c" + number, changed.checked ? "1" : "");
      });
    }
    table.parentNode.insertBefore(box, table);
    var rows = table.querySelectorAll("tbody tr");
    function apply() {
      var needle = input.value.trim().toLowerCase();
      var changesOnly = changed !== null && changed.checked;
      rows.forEach(function (row) {
        var name = row.cells[0] ? row.cells[0].textContent.toLowerCase() : "";
        var flagged = /trending-(regression|progression|maybe)/.test(row.className);
        row.hidden = Boolean((needle && name.indexOf(needle) < 0) || (changesOnly && !flagged));
      });
    }
    input.addEventListener("input", function () {
      apply();
      saveState("f" + number, input.value.trim());
    });
    apply();
  }

  /* The site's search boxes (trending-search): the index file calls
   * trendingSearchIndex with [title, detail, metric, source, href from the
   * root] entries; every word typed must occur in an entry's title, detail
   * (testbed and dimensions), metric or source.  Results are DOM text, never markup.  ?q= fills the box. */
  var searchBoxes = [];
  var MAX_RESULTS = 50;

  function showResults(box, entries) {
    var words = box.input.value.trim().toLowerCase().split(/\s+/).filter(Boolean);
    var list = box.element.querySelector(".trending-search-results");
    var count = box.element.querySelector(".trending-search-count");
    list.textContent = "";
    if (!words.length) { count.textContent = ""; return; }
    var found = entries.filter(function (entry) {
      var text = entry.slice(0, 4).join(" ").toLowerCase();
      return words.every(function (word) { return text.indexOf(word) >= 0; });
    });
    found.slice(0, MAX_RESULTS).forEach(function (entry) {
      var item = document.createElement("li");
      var link = document.createElement("a");
      link.href = box.root + entry[4];
      link.textContent = entry[0];
      var what = document.createElement("span");
      what.className = "trending-search-metric";
      what.textContent = " " + [entry[1], entry[2], entry[3]].filter(Boolean).join(" · ");
      item.appendChild(link);
      item.appendChild(what);
      list.appendChild(item);
    });
    count.textContent = found.length > MAX_RESULTS
      ? found.length + " tests, the first " + MAX_RESULTS + " shown"
      : found.length + (found.length === 1 ? " test" : " tests");
  }

  window.trendingSearchIndex = function (entries) {
    searchBoxes.forEach(function (box) {
      box.input.addEventListener("input", function () {
        showResults(box, entries);
        saveState("q", box.input.value.trim());
      });
      box.input.addEventListener("keydown", function (event) {
        var first = box.element.querySelector(".trending-search-results a");
        if (event.key === "Enter" && first) { window.location.href = first.href; }
      });
      showResults(box, entries);
    });
  };

  function addSearch(element) {
    var input = element.querySelector("input.trending-search-input");
    input.value = params.get("q") || "";
    searchBoxes.push({ element: element, input: input, root: element.dataset.root });
  }

  function start() {
    var searches = document.querySelectorAll("div.trending-search");
    searches.forEach(addSearch);
    if (searches.length) {
      var index = document.createElement("script");
      index.src = searches[0].dataset.index;
      document.head.appendChild(index);
    }
    document.querySelectorAll("table.trending-table").forEach(function (table, index) {
      addFilter(table, index + 1);
      addSorting(table, index + 1);
    });
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
