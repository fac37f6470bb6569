// Reload a page that says something is still running (data-auto-refresh="<seconds>"),
// so that a page waiting for a recompute shows it advance and finish without a reload.
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
