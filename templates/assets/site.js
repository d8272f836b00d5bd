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
        var have = rows[i].getAttribute("data-" + key) || "";
        // data-filter-any: the row's attribute is a space-separated list (the platforms page's
        // statuses and routes); any of its words may match.
        if (selects[j].hasAttribute("data-filter-any")) {
          if (v && (" " + have + " ").indexOf(" " + v + " ") < 0) ok = false;
        } else if (v && have !== v) ok = false;
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
  // The index (assets/search-<lang>.js, which sets window.KC_SEARCH) is loaded when the search
  // box is first used, not with every page: on a large contract it is megabytes that every page
  // load would otherwise parse first. A script element works from file://, where fetch does not.
  var index = null, waiting = [], loads = 0;
  // Under `kcontract serve`, the pages' reload script says when this language's index changed
  // without the page reloading (an edit shown in place): the next search loads it again, under a
  // new address so that the browser does not answer from its cache.
  document.addEventListener("kcontract:search-stale", function () { index = null; window.KC_SEARCH = null; });
  function buildIndex() {
    index = (window.KC_SEARCH || []).map(function (e, n) {
      var idToks = e.id ? tokens(e.id) : [];
      var textToks = tokens(e.text);
      return { e: e, n: n, idToks: idToks, textToks: textToks,
        toks: idToks.concat(textToks, e.section ? tokens(e.section) : [], e.kind === "deviation" ? tokens(e.page) : []) };
    });
  }
  function withIndex(then) {
    if (index) { then(); return; }
    waiting.push(then);
    if (waiting.length > 1) return;
    var script = document.createElement("script");
    script.src = input.getAttribute("data-index") + (loads++ ? "?" + loads : "");
    script.onload = script.onerror = function () {
      buildIndex();
      var ready = waiting; waiting = [];
      ready.forEach(function (f) { f(); });
    };
    document.head.appendChild(script);
  }
  function hasPrefix(toks, q) {
    for (var i = 0; i < toks.length; i++) if (toks[i].indexOf(q) === 0) return true;
    return false;
  }
  function hasAll(toks, q) {
    for (var i = 0; i < q.length; i++) if (toks.indexOf(q[i]) < 0) return false;
    return true;
  }
  // Rank: 0 the id is the query or ends in it, or a heading is the query; 1 every query term is a
  // word of the id; 2 a heading holds the query; 3 every term is a whole word of a clause's text;
  // 4 other headings; 5 other clauses and deviations; 6 prose; 7, after everything in force,
  // what is not: an entry of a kind not listed here (`earlier`: an earlier version's clause on the
  // Changes page, which the index gives no level), however well it matches, so that a withdrawn
  // requirement never reads as current.
  var KIND_TIER = { clause: 5, deviation: 5, heading: 4, text: 6 };
  var NOT_IN_FORCE = 7;
  function inForce(e) { return KIND_TIER.hasOwnProperty(e.kind); }
  function tier(d, q, raw) {
    if (!inForce(d.e)) return NOT_IN_FORCE;
    var id = (d.e.id || "").toLowerCase(), want = raw.toLowerCase().replace(/\s+/g, "-");
    var phrase = raw.toLowerCase().replace(/\s+/g, " "), text = d.e.text.toLowerCase();
    if (id && (id === want || id.slice(-want.length - 1) === "." + want)) return 0;
    if (d.e.kind === "heading" && text === phrase) return 0;
    if (d.idToks.length && hasAll(d.idToks, q)) return 1;
    if (d.e.kind === "heading" && text.indexOf(phrase) >= 0) return 2;
    if (d.e.kind === "clause" && hasAll(d.textToks, q)) return 3;
    return KIND_TIER[d.e.kind] || 6;
  }
  var LIMIT = 20;
  function search(query) {
    var q = tokens(query);
    if (!q.length) return [];
    var hits = index.filter(function (d) {
      for (var i = 0; i < q.length; i++) if (!hasPrefix(d.toks, q[i])) return false;
      return true;
    }).map(function (d) { return { d: d, t: tier(d, q, query.trim()) }; });
    hits.sort(function (a, b) { return a.t - b.t || a.d.n - b.d.n; });
    // One result per place: a section's paragraphs all lead to its heading.
    var seen = {};
    return hits.map(function (h) { return h.d; }).filter(function (d) {
      if (seen[d.e.url]) return false;
      seen[d.e.url] = true;
      return true;
    });
  }
  // The text around the first match, with the matched words marked (built as DOM nodes, not HTML).
  function snippet(el, text, query) {
    var words = query.trim().split(/\s+/).filter(Boolean), lower = text.toLowerCase(), at = -1, len = 0;
    for (var i = 0; i < words.length; i++) {
      var k = lower.indexOf(words[i].toLowerCase());
      if (k >= 0 && (at < 0 || k < at)) { at = k; len = words[i].length; }
    }
    var start = at > 60 ? at - 50 : 0, end = Math.min(text.length, start + 160);
    if (start > 0) el.appendChild(document.createTextNode("…"));
    if (at >= 0) {
      el.appendChild(document.createTextNode(text.slice(start, at)));
      var m = document.createElement("mark"); m.textContent = text.slice(at, at + len); el.appendChild(m);
      el.appendChild(document.createTextNode(text.slice(at + len, end)));
    } else {
      el.appendChild(document.createTextNode(text.slice(start, end)));
    }
    if (end < text.length) el.appendChild(document.createTextNode("…"));
  }
  var input = document.getElementById("q"), list = document.getElementById("results");
  var form = input && input.form;
  function close() { if (list) list.innerHTML = ""; }
  function links() { return list ? list.querySelectorAll("a") : []; }
  if (input && list) {
    input.addEventListener("focus", function () { withIndex(function () {}); });
    input.addEventListener("input", function () { withIndex(showResults); });
    function showResults() {
      var hits = search(input.value);
      list.innerHTML = "";
      if (!hits.length && input.value.trim()) {
        var li0 = document.createElement("li"); li0.className = "more"; li0.textContent = list.getAttribute("data-empty"); list.appendChild(li0); return;
      }
      hits.slice(0, LIMIT).forEach(function (d) {
        var li = document.createElement("li"), a = document.createElement("a"), sm = document.createElement("small");
        a.href = d.e.url;
        // Not in force: said first, before its words, and without a level.
        if (!inForce(d.e)) {
          li.className = "not-in-force";
          var tag = document.createElement("span");
          tag.className = "badge not-in-force";
          tag.textContent = list.getAttribute("data-not-in-force");
          a.appendChild(tag);
          a.appendChild(document.createTextNode(" "));
        }
        snippet(a, d.e.text, input.value);
        var where = [d.e.id, inForce(d.e) ? d.e.level : null, d.e.page, d.e.section].filter(Boolean);
        sm.textContent = where.join(" · ");
        a.appendChild(sm); li.appendChild(a); list.appendChild(li);
      });
      if (hits.length > LIMIT) {
        var more = document.createElement("li"); more.className = "more";
        more.textContent = (hits.length - LIMIT) + " " + list.getAttribute("data-more");
        list.appendChild(more);
      }
    }
    function move(ev, step) {
      var as = links(), i = Array.prototype.indexOf.call(as, document.activeElement);
      if (!as.length) return;
      ev.preventDefault();
      var j = i + step;
      if (j < 0) { input.focus(); return; }
      as[Math.min(j, as.length - 1)].focus();
    }
    form.addEventListener("keydown", function (ev) {
      if (ev.key === "ArrowDown") move(ev, 1);
      else if (ev.key === "ArrowUp") move(ev, -1);
      else if (ev.key === "Escape") { close(); input.focus(); }
      // Enter follows the first result, once the index is there: typed fast after the box got the
      // focus, the query can be complete before the index has loaded.
      else if (ev.key === "Enter" && ev.target === input) withIndex(function () { showResults(); var first = list.querySelector("a"); if (first) first.click(); });
    });
    document.addEventListener("click", function (ev) { if (!form.contains(ev.target)) close(); });
    list.addEventListener("click", function (ev) { if (ev.target.closest && ev.target.closest("a")) close(); });
  }

  // The sidebar on narrow screens: hidden behind the menu button.
  var menu = document.getElementById("menu"), toc = document.getElementById("toc");
  if (menu && toc) {
    menu.addEventListener("click", function () {
      var open = toc.classList.toggle("open");
      menu.setAttribute("aria-expanded", open ? "true" : "false");
    });
  }

  // Printing shows every collapsed detail (traces, originals), and closes again afterwards.
  var reopened = [];
  window.addEventListener("beforeprint", function () {
    var ds = document.querySelectorAll("details:not([open])");
    for (var i = 0; i < ds.length; i++) { ds[i].open = true; reopened.push(ds[i]); }
  });
  window.addEventListener("afterprint", function () {
    while (reopened.length) reopened.pop().open = false;
  });
})();
