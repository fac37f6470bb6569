// Marks each .scroll-hint wrapper with data-more="start", "end" or "both" while its
// first child (a strip that scrolls sideways, e.g. the algorithm tabs) hides content on
// that side; site.css draws a fade and an arrow there. The active tab is scrolled into view.
(function () {
  "use strict";
  function update(wrapper, strip) {
    var hiddenStart = strip.scrollLeft > 1;
    var hiddenEnd = strip.scrollLeft + strip.clientWidth < strip.scrollWidth - 1;
    var more = hiddenStart && hiddenEnd ? "both" : hiddenStart ? "start" : hiddenEnd ? "end" : "";
    if (more) {
      wrapper.setAttribute("data-more", more);
    } else {
      wrapper.removeAttribute("data-more");
    }
  }
  document.querySelectorAll(".scroll-hint").forEach(function (wrapper) {
    var strip = wrapper.firstElementChild;
    if (!strip) {
      return;
    }
    var active = strip.querySelector(".active");
    if (active && active.offsetLeft + active.offsetWidth > strip.clientWidth) {
      strip.scrollLeft = active.offsetLeft - strip.clientWidth / 2 + active.offsetWidth / 2;
    }
    strip.addEventListener("scroll", function () { update(wrapper, strip); }, { passive: true });
    window.addEventListener("resize", function () { update(wrapper, strip); });
    update(wrapper, strip);
  });
})();
