// kcontract site script: theme toggle, language switch keeping the anchor, clause filters, search.
// Plain ES5-ish code, no dependencies, works from file:// (the index is a <script>, not a fetch).
(function () {
  "use strict";
  var root = document.documentElement;

  // Forms here only filter or search in place; never submit (no inline handlers in the HTML).
  var forms = document.querySelectorAll("form.search, form.filters");
  for (var f = 0; f < forms.length; f++) forms[f].addEventListener("submit", function (ev) { ev.preventDefault(); });

  // Theme: follows the system until the reader picks one; the choice is remembered.
  var themeBtn = document.getElementById("theme");
  function isDark() {
    var t = root.dataset.theme;
    if (t) return t === "dark";
    return window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches;
  }
  function syncTheme() { if (themeBtn) themeBtn.setAttribute("aria-pressed", isDark() ? "true" : "false"); }
  if (themeBtn) {
    themeBtn.addEventListener("click", function () {
      root.dataset.theme = isDark() ? "light" : "dark";
      try { localStorage.setItem("kc-theme", root.dataset.theme); } catch (e) {}
      syncTheme();
    });
    syncTheme();
  }

  // Language switch lands on the same clause: carry the current fragment over.
  var switches = document.querySelectorAll("nav.tools a[hreflang]");
  var update = function () {
    for (var i = 0; i < switches.length; i++) {
      switches[i].href = switches[i].getAttribute("href").split("#")[0] + location.hash;
    }
  };
  update();
  window.addEventListener("hashchange", update);

  // Clause index filters.
  var selects = document.querySelectorAll("select[data-filter]");
  function applyFilters() {
    var rows = document.querySelectorAll("table.index tbody tr"), shown = 0;
    for (var i = 0; i < rows.length; i++) {
      var ok = true;
      for (var j = 0; j < selects.length; j++) {
        var v = selects[j].value, key = selects[j].getAttribute("data-filter");
        if (v && rows[i].getAttribute("data-" + key) !== v) ok = false;
      }
      rows[i].hidden = !ok;
      if (ok) shown++;
    }
    var out = document.getElementById("shown");
    if (out) out.textContent = String(shown);
  }
  for (var s = 0; s < selects.length; s++) selects[s].addEventListener("change", applyFilters);
  if (selects.length) applyFilters();

  // Search: ASCII words (prefix match) and CJK bigrams; every query token must match.
  function isCJK(c) { return /[\u3400-\u9fff\uf900-\ufaff\u3040-\u30ff\uac00-\ud7af]/.test(c); }
  function tokens(text) {
    var out = [], word = "", cjk = "";
    text = text.toLowerCase();
    function flushWord() { if (word) out.push(word); word = ""; }
    function flushCJK() {
      if (cjk.length === 1) out.push(cjk);
      for (var k = 0; k + 1 < cjk.length; k++) out.push(cjk.substr(k, 2));
      cjk = "";
    }
    for (var i = 0; i < text.length; i++) {
      var c = text.charAt(i);
      if (/[a-z0-9_]/.test(c)) { flushCJK(); word += c; }
      else if (isCJK(c)) { flushWord(); cjk += c; }
      else { flushWord(); flushCJK(); }
    }
    flushWord(); flushCJK();
    return out;
  }
  var index = (window.KC_SEARCH || []).map(function (e) {
    return { e: e, toks: tokens(e.id + " " + e.text + " " + (e.section || "")) };
  });
  function matches(doc, q) {
    for (var i = 0; i < doc.toks.length; i++) if (doc.toks[i].indexOf(q) === 0) return true;
    return false;
  }
  function search(query) {
    var q = tokens(query);
    if (!q.length) return [];
    return index.filter(function (d) {
      for (var i = 0; i < q.length; i++) if (!matches(d, q[i])) return false;
      return true;
    }).slice(0, 30);
  }
  var input = document.getElementById("q"), list = document.getElementById("results");
  if (input && list) {
    input.addEventListener("input", function () {
      var hits = search(input.value);
      list.innerHTML = "";
      if (!hits.length && input.value.trim()) {
        var li0 = document.createElement("li"); li0.textContent = list.getAttribute("data-empty"); list.appendChild(li0); return;
      }
      hits.forEach(function (d) {
        var li = document.createElement("li"), a = document.createElement("a"), sm = document.createElement("small");
        a.href = d.e.url;
        a.textContent = d.e.text.length > 140 ? d.e.text.slice(0, 139) + "…" : d.e.text;
        sm.textContent = d.e.id + " · " + d.e.level;
        a.appendChild(sm); li.appendChild(a); list.appendChild(li);
      });
    });
    input.addEventListener("keydown", function (ev) {
      if (ev.key === "Enter") { var first = list.querySelector("a"); if (first) first.click(); }
      if (ev.key === "Escape") { input.value = ""; list.innerHTML = ""; }
    });
  }
})();
