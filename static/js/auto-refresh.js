// Reload a page that says something is still running (data-auto-refresh="<seconds>"),
// so the committee sees a recompute advance and finish without pressing reload.
(function () {
  "use strict";
  var element = document.querySelector("[data-auto-refresh]");
  if (!element) {
    return;
  }
  var seconds = parseInt(element.getAttribute("data-auto-refresh"), 10) || 5;
  window.setTimeout(function () {
    window.location.reload();
  }, seconds * 1000);
})();
