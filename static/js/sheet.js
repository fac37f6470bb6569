/* The record sheet form and the game correction form, in plain JavaScript (no library,
   nothing to build).

   On the entry form: Enter goes to the next row and adds one at the end (so a sheet is
   typed without the mouse), the komi follows the handicap until the volunteer types a
   komi, player fields suggest usernames from /players/lookup/, and the "new player"
   dialog adds a player without leaving the page. */
(function () {
  "use strict";

  var LOOKUP_DELAY_MS = 200;
  var EVEN_KOMI = "6.5";
  var HANDICAP_KOMI = "0.5";

  // The defaults as the page writes numbers (6,5 in French), from the komi field.
  function defaultKomi(handicapInput, komiInput) {
    var stones = parseInt(handicapInput.value, 10);
    if (stones >= 1) {
      return komiInput.dataset.handicapKomi || HANDICAP_KOMI;
    }
    return komiInput.dataset.evenKomi || EVEN_KOMI;
  }

  /* --- a row: komi follows the handicap ------------------------------------------ */

  function setUpRow(row) {
    var handicap = row.querySelector("[data-handicap-field]");
    var komi = row.querySelector("[data-komi-field]");
    // A komi that is not the default for the handicap was typed on purpose (or came
    // back from the server that way): leave it alone.
    if (komi.value !== "" && komi.value !== defaultKomi(handicap, komi)) {
      komi.dataset.typed = "yes";
    }
    komi.addEventListener("input", function () {
      komi.dataset.typed = "yes";
    });
    handicap.addEventListener("input", function () {
      if (!komi.dataset.typed) {
        komi.value = defaultKomi(handicap, komi);
      }
    });
  }

  /* --- the rows: add, remove, number, and the keyboard ------------------------------ */

  function setUpRows(form) {
    var rows = form.querySelector("#sheet-rows");
    var template = document.getElementById("empty-row");
    var total = form.querySelector("input[name$='-TOTAL_FORMS']");
    var maxForms = parseInt(form.querySelector("input[name$='-MAX_NUM_FORMS']").value, 10);

    function allRows() {
      return Array.prototype.slice.call(rows.querySelectorAll("[data-row]"));
    }

    function renumber() {
      allRows().forEach(function (row, index) {
        row.querySelector("[data-row-number]").textContent = String(index + 1);
      });
    }

    function addRow() {
      var index = parseInt(total.value, 10);
      if (index >= maxForms) {
        return null;
      }
      var holder = document.createElement("div");
      holder.innerHTML = template.innerHTML.replace(/__prefix__/g, String(index)).trim();
      var row = holder.firstElementChild;
      var previous = allRows().pop();
      if (previous) {
        // A sheet is usually one evening: the new row keeps the previous row's date.
        row.querySelector("input[name$='-date']").value =
          previous.querySelector("input[name$='-date']").value;
      }
      rows.appendChild(row);
      total.value = String(index + 1);
      setUpRow(row);
      renumber();
      return row;
    }

    function firstPlayerField(row) {
      return row.querySelector("[data-player-field]");
    }

    allRows().forEach(setUpRow);
    renumber();

    form.querySelector("[data-add-row]").addEventListener("click", function () {
      var row = addRow();
      if (row) {
        firstPlayerField(row).focus();
      }
    });

    // The formset's prefix ("form"): a row's fields are named <prefix>-<index>-<field>.
    var prefix = total.name.replace(/-TOTAL_FORMS$/, "");
    var rowIndex = new RegExp("(^|[^A-Za-z0-9])" + prefix + "-\\d+(?![0-9])", "g");

    /* Give the rows the indexes 0..n-1 in every attribute that carries one (name, id,
       label for, aria links, the "More" panel) and TOTAL_FORMS the count: the server
       reads forms 0..TOTAL_FORMS-1, so a gap would come back as a blank row to fill. */
    function reindex() {
      var all = allRows();
      all.forEach(function (row, index) {
        var elements = [row].concat(Array.prototype.slice.call(row.querySelectorAll("*")));
        elements.forEach(function (element) {
          Array.prototype.forEach.call(element.attributes, function (attribute) {
            rowIndex.lastIndex = 0;
            // Not "value": what was typed stays as typed.
            if (attribute.name !== "value" && rowIndex.test(attribute.value)) {
              element.setAttribute(
                attribute.name,
                attribute.value.replace(rowIndex, "$1" + prefix + "-" + index)
              );
            }
          });
        });
      });
      total.value = String(all.length);
    }

    rows.addEventListener("click", function (event) {
      var button = event.target.closest("[data-remove-row]");
      if (!button) {
        return;
      }
      button.closest("[data-row]").remove();
      reindex();
      if (allRows().length === 0) {
        addRow();
      }
      renumber();
    });

    form.addEventListener("keydown", function (event) {
      if (event.key !== "Enter") {
        return;
      }
      var target = event.target;
      if (target.tagName === "TEXTAREA" || target.tagName === "BUTTON") {
        return;
      }
      if (event.ctrlKey || event.metaKey) {
        event.preventDefault();
        form.requestSubmit();
        return;
      }
      var row = target.closest("[data-row]");
      if (!row) {
        return;
      }
      // Enter never submits from a row: a half-typed sheet would be sent.
      event.preventDefault();
      var next = row.nextElementSibling || addRow();
      if (next) {
        firstPlayerField(next).focus();
      }
    });

    var firstError = form.querySelector(".is-invalid");
    var start = firstError || firstPlayerField(allRows()[0]);
    if (start) {
      start.focus();
    }
  }

  /* --- player suggestions ------------------------------------------------------------ */

  function fillOptions(datalist, players) {
    var known = {};
    Array.prototype.forEach.call(datalist.options, function (option) {
      known[option.value] = true;
    });
    players.forEach(function (player) {
      if (known[player.username]) {
        return;
      }
      var option = document.createElement("option");
      option.value = player.username;
      option.label = player.full_name + " (" + player.rank + ")";
      datalist.appendChild(option);
    });
  }

  function setUpLookup(form) {
    var url = form.dataset.lookupUrl;
    var datalist = document.getElementById("player-options");
    var timer = null;
    var asked = {};

    function lookup(text) {
      asked[text] = true;
      fetch(url + "?q=" + encodeURIComponent(text), {
        headers: { Accept: "application/json" },
        credentials: "same-origin",
      })
        .then(function (response) {
          return response.ok ? response.json() : { players: [] };
        })
        .then(function (data) {
          fillOptions(datalist, data.players);
        })
        .catch(function () {
          delete asked[text]; // offline for a moment: ask again next time
        });
    }

    form.addEventListener("input", function (event) {
      if (!event.target.matches("[data-player-field]")) {
        return;
      }
      var text = event.target.value.trim();
      window.clearTimeout(timer);
      if (text && !asked[text]) {
        timer = window.setTimeout(lookup, LOOKUP_DELAY_MS, text);
      }
    });
  }

  /* --- the "new player" dialog --------------------------------------------------------- */

  function clearFieldError(input) {
    input.classList.remove("is-invalid");
    var container = input.closest("[id^='div_']") || input.parentElement;
    Array.prototype.forEach.call(
      container.querySelectorAll(".invalid-feedback"),
      function (feedback) {
        feedback.remove();
      }
    );
    var addButton = container.parentElement.querySelector(".sheet-add-player");
    if (addButton) {
      addButton.remove();
    }
  }

  function showFieldError(input, messages) {
    input.classList.add("is-invalid");
    var feedback = document.createElement("div");
    feedback.className = "invalid-feedback";
    feedback.textContent = messages.join(" ");
    input.insertAdjacentElement("afterend", feedback);
  }

  function setUpNewPlayer(form, datalist) {
    var dialog = document.getElementById("new-player");
    var playerForm = document.getElementById("new-player-form");
    var dialogError = playerForm.querySelector("[data-dialog-error]");
    var lastPlayerField = null;
    var target = null;

    form.addEventListener("focusin", function (event) {
      if (event.target.matches("[data-player-field]")) {
        lastPlayerField = event.target;
      }
    });

    // "This is someone else: add them anyway" shows only with the similar names.
    var someoneElse = playerForm.elements.someone_else;
    var someoneElseBox = someoneElse.closest("[id^='div_']") || someoneElse.parentElement;

    function clearErrors() {
      dialogError.classList.add("d-none");
      Array.prototype.forEach.call(playerForm.querySelectorAll(".is-invalid"), clearFieldError);
    }

    dialog.addEventListener("show.bs.modal", function (event) {
      var opener = event.relatedTarget;
      var forId = opener && opener.dataset.newPlayerFor;
      target = forId ? document.getElementById(forId) : lastPlayerField;
      playerForm.reset();
      clearErrors();
      someoneElseBox.classList.add("d-none");
      if (target && target.value.trim()) {
        playerForm.elements.username.value = target.value.trim();
      }
    });

    dialog.addEventListener("shown.bs.modal", function () {
      var username = playerForm.elements.username;
      (username.value ? playerForm.elements.full_name : username).focus();
    });

    dialog.addEventListener("hidden.bs.modal", function () {
      if (target) {
        target.focus();
      }
    });

    playerForm.addEventListener("submit", function (event) {
      event.preventDefault();
      clearErrors();
      fetch(playerForm.action, {
        method: "POST",
        body: new FormData(playerForm),
        headers: {
          Accept: "application/json",
          "X-CSRFToken": playerForm.elements.csrfmiddlewaretoken.value,
        },
        credentials: "same-origin",
      })
        .then(function (response) {
          return response
            .json()
            .catch(function () {
              return null;
            })
            .then(function (data) {
              return { status: response.status, data: data };
            });
        })
        .then(function (answer) {
          if (answer.status === 201 && answer.data) {
            fillOptions(datalist, [answer.data]);
            if (target) {
              target.value = answer.data.username;
              clearFieldError(target);
            }
            window.bootstrap.Modal.getOrCreateInstance(dialog).hide();
            return;
          }
          if (answer.data && answer.data.errors) {
            Object.keys(answer.data.errors).forEach(function (name) {
              var messages = answer.data.errors[name].map(function (error) {
                if (error.code === "similar") {
                  someoneElseBox.classList.remove("d-none");
                }
                return error.message;
              });
              var input = playerForm.elements[name];
              if (input && name !== "__all__") {
                showFieldError(input, messages);
              } else {
                dialogError.textContent = messages.join(" ");
                dialogError.classList.remove("d-none");
              }
            });
            var invalid = playerForm.querySelector(".is-invalid");
            if (invalid) {
              invalid.focus();
            }
            return;
          }
          // The page's words, in its language (data attributes of the dialog's form).
          dialogError.textContent = playerForm.dataset.refused.replace(
            "{status}",
            String(answer.status)
          );
          dialogError.classList.remove("d-none");
        })
        .catch(function () {
          dialogError.textContent = playerForm.dataset.unanswered;
          dialogError.classList.remove("d-none");
        });
    });
  }

  Array.prototype.forEach.call(document.querySelectorAll("form[data-lookup-url]"), setUpLookup);
  Array.prototype.forEach.call(document.querySelectorAll("[data-komi-follows]"), setUpRow);
  var sheetForm = document.getElementById("sheet-form");
  if (sheetForm) {
    setUpRows(sheetForm);
    setUpNewPlayer(sheetForm, document.getElementById("player-options"));
  }
})();
