// The log page's rank chart (players/charts.py). A point's <title> tooltip shows on
// a mouse hover only; a tap, or the pointer moving over the chart, names the nearest
// game under the chart, so a phone shows it too. Without this script the chart is
// the same, with its tooltips.
(function () {
  "use strict";
  var figure = document.getElementById("rating-chart");
  if (!figure) {
    return;
  }
  var svg = figure.querySelector("svg");
  var points = Array.prototype.slice.call(svg.querySelectorAll(".points circle"));
  var readout = figure.querySelector(".chart-readout");
  if (!points.length || !readout) {
    return;
  }
  var marked = null;

  function nearest(clientX) {
    var box = svg.getBoundingClientRect();
    var x = ((clientX - box.left) * svg.viewBox.baseVal.width) / box.width;
    var best = points[0];
    var distance = Infinity;
    points.forEach(function (point) {
      var gap = Math.abs(point.cx.baseVal.value - x);
      if (gap < distance) {
        best = point;
        distance = gap;
      }
    });
    return best;
  }

  function show(event) {
    var point = nearest(event.clientX);
    if (marked) {
      marked.classList.remove("marked");
    }
    point.classList.add("marked");
    marked = point;
    readout.textContent = point.querySelector("title").textContent;
  }

  svg.addEventListener("pointermove", show);
  svg.addEventListener("pointerdown", show);
})();
