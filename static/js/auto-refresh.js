// Reload a page that says something is still running (data-auto-refresh="<seconds>"),
// so that a page waiting for a recompute shows it advance and finish without a reload.
// A visitor typing in one of the page's forms (a filter, the head-to-head box) is not
// interrupted: after typing, the reload waits while the focus stays in a field, or
// until a whole period has passed without typing.
(function () {
  "use strict";
  var element = document.querySelector("[data-auto-refresh]");
  if (!element) {
    return;
  }
  var seconds = parseInt(element.getAttribute("data-auto-refresh"), 10) || 5;
  var typedAt = 0;
  document.addEventListener("input", function () {
    typedAt = Date.now();
  });

  function typing() {
    var active = document.activeElement;
    var inField = active && active.matches("input:not([type=hidden]), textarea, select");
    return typedAt > 0 && (inField || Date.now() - typedAt < seconds * 1000);
  }

  function reloadSoon() {
    window.setTimeout(function () {
      if (typing()) {
        reloadSoon();
      } else {
        window.location.reload();
      }
    }, seconds * 1000);
  }

  reloadSoon();
})();
