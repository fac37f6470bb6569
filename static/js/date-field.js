/* Date fields typed by keyboard (players.fields.TypedDateInput): the server reads
   2026-11-02, 2/11, 2 Nov, 02112026 and "t"; this adds a "Today" button after each
   field and makes "t" fill in today's date (the club's, from data-today) at once.
   Without this script the field still takes every form, "t" included. */
(function () {
  "use strict";

  function setUp(input) {
    if (input.dataset.dateReady) {
      return;
    }
    input.dataset.dateReady = "1";
    var today = input.dataset.today;
    var button = document.createElement("button");
    button.type = "button";
    button.className = "btn btn-outline-secondary btn-sm date-today";
    // The words come from the field (players.fields.TypedDateInput), in the page's language.
    button.textContent = input.dataset.todayLabel || "Today";
    button.setAttribute("aria-label", input.dataset.todayDescription || "Today (" + today + ")");
    // Not a tab stop: Tab goes from the date to the next field (on the sheet, White);
    // from the keyboard, "t" in the field is today.
    button.tabIndex = -1;
    button.addEventListener("click", function () {
      input.value = today;
      input.dispatchEvent(new Event("change", { bubbles: true }));
      input.focus();
    });
    input.insertAdjacentElement("afterend", button);
    input.addEventListener("keydown", function (event) {
      var whole = input.selectionStart === 0 && input.selectionEnd === input.value.length;
      if ((event.key === "t" || event.key === "T") && !event.ctrlKey && !event.metaKey && whole) {
        event.preventDefault();
        input.value = today;
        input.dispatchEvent(new Event("change", { bubbles: true }));
      }
    });
  }

  function setUpAll(root) {
    Array.prototype.forEach.call(root.querySelectorAll("input[data-date-field]"), setUp);
  }

  document.addEventListener("DOMContentLoaded", function () {
    setUpAll(document);
    // Rows the record sheet adds later get their button too.
    new MutationObserver(function (changes) {
      changes.forEach(function (change) {
        Array.prototype.forEach.call(change.addedNodes, function (node) {
          if (node.nodeType === 1) {
            setUpAll(node);
          }
        });
      });
    }).observe(document.body, { childList: true, subtree: true });
  });
})();
