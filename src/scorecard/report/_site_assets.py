"""The report site's page shell: the stylesheet, the inline scripts, data files, the page frame.

Nothing is fetched from elsewhere: the stylesheet (:data:`STYLESHEET`), the data files and the
images are files of the site, the scripts are inline, and a Content-Security-Policy allows only
those (an inline script by its SHA-256), so a page renders the same from ``file://``, a CI
artifact viewer or ``scorecard view``. :data:`SCRIPT` pages, sorts and filters the runs tables
from the runs' index; :data:`RUN_SCRIPT` renders a run from its shard. Without JavaScript the
summary pages read as they are, the runs tables show their first page and the filter bar stays
hidden.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
from collections.abc import Sequence
from typing import Any

from ._escape import html_text
from ._site_paths import PAGE_INDEX, PAGE_RUNS, link

__all__ = ["CSS", "RUN_SCRIPT", "SCRIPT", "STYLESHEET", "data_script", "json_script", "page"]

#: The site's one stylesheet (a file of the site: a page carries none of its bytes).
STYLESHEET = "style.css"

CSS = """
:root { color-scheme: light; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0;
  color: #1f2328; background: #ffffff; }
header.top { background: #24292f; color: #ffffff; padding: 8px 24px; }
header.top a { color: #ffffff; margin-right: 16px; text-decoration: none; font-weight: 600; }
main { padding: 12px 24px 40px; max-width: 1400px; }
nav.crumbs { color: #59636e; margin: 4px 0 8px; } nav.crumbs a { color: #0969da; } table a { white-space: nowrap; }
h1 { font-size: 22px; margin: 8px 0; overflow-wrap: anywhere; }
h2 { font-size: 18px; margin: 28px 0 8px; border-bottom: 1px solid #d0d7de; }
h3 { font-size: 15px; margin: 18px 0 6px; }
a { color: #0969da; } table a { white-space: nowrap; }
.verdict { padding: 12px 16px; border-radius: 6px; font-weight: 600; margin: 8px 0 16px;
  overflow-wrap: anywhere; }
.verdict.fail { background: #ffebe9; border: 1px solid #cf222e; }
.verdict.inconclusive { background: #fff8c5; border: 1px solid #9a6700; }
.verdict.pass { background: #dafbe1; border: 1px solid #1a7f37; }
table { border-collapse: collapse; margin: 6px 0 14px; }
th, td { border: 1px solid #d0d7de; padding: 3px 8px; text-align: left; vertical-align: top;
  overflow-wrap: break-word; }
th { background: #f6f8fa; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.fail, .status-fail { color: #cf222e; font-weight: 600; }
.status-inconclusive, .status-warn { color: #9a6700; font-weight: 600; }
.pass, .status-pass { color: #1a7f37; }
.note { color: #59636e; }
.reason { white-space: pre-wrap; overflow-wrap: anywhere; }
ul.reasons { margin: 4px 0; padding-left: 20px; }
code, .ptr { font: 12px/1.4 ui-monospace, SFMono-Regular, Menlo, monospace; }
pre.json { background: #f6f8fa; border: 1px solid #d0d7de; padding: 10px; overflow: auto;
  font: 12px/1.45 ui-monospace, SFMono-Regular, Menlo, monospace; white-space: pre-wrap;
  overflow-wrap: anywhere; }
pre.json .key { color: #0550ae; } pre.json .s { color: #0a3069; } pre.json .n { color: #953800; }
pre.json .k { color: #6639ba; }  /* >= 5.1:1 on every highlight */
mark.hl { background: #fff1a8; outline: 2px solid #d4a72c; border-radius: 2px; }
mark.hl.near { background: #ffe2cc; outline-color: #d18616; }
mark.hl:target, mark.hl.target { background: #ffd33d; outline: 3px solid #cf222e; }
.anchor { scroll-margin-top: 40px; } mark.hl { scroll-margin-top: 40px; }
.filters { background: #f6f8fa; border: 1px solid #d0d7de; border-radius: 6px; padding: 8px;
  margin: 8px 0; display: flex; flex-wrap: wrap; gap: 8px; align-items: center; }
.filters input[type=search] { min-width: 260px; padding: 4px; }
figure { margin: 12px 0; } figure img { max-width: 100%; height: auto; border: 1px solid #d0d7de; }
.facts { display: grid; grid-template-columns: max-content 1fr; gap: 2px 16px; margin: 8px 0; }
.facts dt { font-weight: 600; } .facts dd { margin: 0; overflow-wrap: anywhere; }
.evidence { display: grid; grid-template-columns: max-content 1fr; gap: 0 12px; margin: 2px 0 6px; }
.evidence dt { font-style: italic; } .evidence dd { margin: 0; overflow-wrap: anywhere; }
[hidden] { display: none !important; }
th button.sort { font: inherit; font-weight: 600; color: inherit; background: none; border: 0;
  padding: 0; cursor: pointer; text-align: left; }
th[aria-sort=ascending] button.sort::after { content: " \\25B2"; }
th[aria-sort=descending] button.sort::after { content: " \\25BC"; }
table.change th[scope=row] { background: #f6f8fa; white-space: nowrap; }
tr.changed th, tr.changed td { background: #fff8c5; } tr.changed th { border-left: 4px solid #cf222e; }
.changed-note { color: #a40e26; font-weight: 600; }
.pager { margin: 6px 0; display: flex; gap: 8px; align-items: center; }
a.skip { position: absolute; left: -10000px; top: 0; }
a.skip:focus { left: 8px; top: 8px; z-index: 10; background: #ffffff; color: #0969da;
  padding: 4px 8px; border: 2px solid #0969da; }
@media (prefers-color-scheme: dark) {
  :root { color-scheme: dark; }
  body { color: #e6edf3; background: #0d1117; }
  header.top { background: #010409; }
  nav.crumbs, .note { color: #9198a1; }
  a, nav.crumbs a { color: #4493f8; }
  h2 { border-bottom-color: #3d444d; }
  th, td, pre.json, .filters, figure img { border-color: #3d444d; }
  th, table.change th[scope=row], .filters, pre.json { background: #151b23; }
  .verdict.fail { background: #3c1618; border-color: #f85149; }
  .verdict.inconclusive { background: #3a2d00; border-color: #d29922; }
  .verdict.pass { background: #12301c; border-color: #3fb950; }
  .fail, .status-fail, .changed-note { color: #ff7b72; }
  .status-inconclusive, .status-warn { color: #d29922; }
  .pass, .status-pass { color: #3fb950; }
  pre.json .key { color: #79c0ff; } pre.json .s { color: #a5d6ff; }
  pre.json .n { color: #ffa657; } pre.json .k { color: #d2a8ff; }
  mark.hl { background: #3b2f00; color: #e6edf3; } mark.hl.near { background: #3d1d00; }
  mark.hl:target, mark.hl.target { background: #5a4300; }
  tr.changed th, tr.changed td { background: #2e2600; }
  a.skip:focus { background: #0d1117; color: #4493f8; border-color: #4493f8; }
}
"""

SCRIPT = """
(function () {
  var shown = document.querySelectorAll("[data-js]");
  for (var n = 0; n < shown.length; n++) { shown[n].hidden = false; }
  var notes = document.querySelectorAll("[data-no-js]");
  for (var o = 0; o < notes.length; o++) { notes[o].hidden = true; }
  var bar = document.getElementById("filters");
  var table = document.querySelector("table.runs");
  var all = window.scorecardIndex;
  if (!all || !bar || !table) { return; }
  var PAGE = 100;
  var OUTCOMES = ["passed", "not passed", "gate failed", "not scored"];
  var STYLES = ["pass", "status-warn", "fail", "note"];
  var root = bar.getAttribute("data-root") || "";
  var scope = bar.getAttribute("data-scope") || "";
  var index = [];
  for (var i0 = 0; i0 < all.runs.length; i0++) {
    var run = all.runs[i0];
    var bundle = all.bundles[run[0]], candidate = all.candidates[run[1]], kase = all.cases[run[2]];
    var outcome = OUTCOMES[run[6]];
    var failing = run[7].map(function (d) { return all.dimensions[d]; });
    var tags = ["bundle:" + bundle[0], "candidate:" + candidate[0], "case:" + kase[0],
      "class:" + all.classes[run[4]], "outcome:" + outcome];
    if (outcome !== "passed") { tags.push("outcome:any failure"); }
    if (scope && tags.indexOf(scope) < 0) { continue; }
    var words = [bundle[0], candidate[0], candidate[2], kase[0], "run " + run[3],
      all.classes[run[4]], outcome].concat(failing, run[8].map(function (w) { return all.strings[w]; }));
    index.push({
      tags: tags,
      text: words.join(" ").toLowerCase(),
      c: [bundle[0], [candidate[0], root + "candidates/" + candidate[1] + ".html"],
        [kase[0], root + "cases/" + kase[1] + ".html"],
        ["run " + run[3], root + "run.html?run=" + bundle[1] + "/" + candidate[1] + "/" + kase[1] + "/" + run[3]],
        all.classes[run[4]], run[5] === null ? "-" : run[5], [outcome, null, STYLES[run[6]]],
        failing.join(", ") || "-"],
      b: run[0],
      r: run[3],
      o: run[5]
    });
  }
  var body = table.tBodies[0];
  var heads = table.tHead.rows[0].cells;
  var search = document.getElementById("q");
  var selects = bar.querySelectorAll("select");
  var count = document.getElementById("shown");
  var pageText = document.getElementById("page");
  var previous = document.getElementById("previous");
  var next = document.getElementById("next");
  var params = new URLSearchParams(window.location.search);
  var state = { sort: -1, dir: 1, page: 1, pages: 1 };
  if (params.get("q")) { search.value = params.get("q"); }
  for (var s = 0; s < selects.length; s++) {
    var wanted = params.get(selects[s].name);
    if (wanted !== null) { selects[s].value = wanted; }
  }
  var column = parseInt(params.get("sort") || "", 10);
  if (column >= 0 && column < heads.length) { state.sort = column; }
  if (params.get("dir") === "desc") { state.dir = -1; }
  state.page = Math.max(1, parseInt(params.get("page") || "1", 10) || 1);
  function key(item) {
    if (state.sort === 0) { return item.b; }
    if (state.sort === 3) { return item.r; }
    if (state.sort === 5) { return item.o === null ? null : Number(item.o); }
    var cell = item.c[state.sort];
    return typeof cell === "string" ? cell : cell[0];
  }
  function compare(a, b) {
    var x = key(index[a]), y = key(index[b]);
    if (x === y) { return a - b; }
    if (x === null) { return 1; }
    if (y === null) { return -1; }
    return (x < y ? -1 : 1) * state.dir;
  }
  function remember() {
    var query = new URLSearchParams();
    if (search.value) { query.set("q", search.value); }
    for (var t = 0; t < selects.length; t++) {
      if (selects[t].value) { query.set(selects[t].name, selects[t].value); }
    }
    if (state.sort >= 0) { query.set("sort", String(state.sort)); }
    if (state.dir < 0) { query.set("dir", "desc"); }
    if (state.page > 1) { query.set("page", String(state.page)); }
    var text = query.toString();
    try {
      window.history.replaceState(null, "", (text ? "?" + text : window.location.pathname) + window.location.hash);
    } catch (error) { /* some file:// browsers refuse; the state still works */ }
  }
  function apply(keep) {
    var terms = search.value.toLowerCase().split(/\\s+/).filter(Boolean);
    var hiddenBy = { search: 0 };
    var matched = [];
    for (var i = 0; i < index.length; i++) {
      var item = index[i];
      var ok = true;
      if (!terms.every(function (term) { return item.text.indexOf(term) >= 0; })) {
        hiddenBy.search++;
        ok = false;
      }
      for (var t = 0; t < selects.length; t++) {
        if (selects[t].value && item.tags.indexOf(selects[t].value) < 0) {
          hiddenBy[selects[t].name] = (hiddenBy[selects[t].name] || 0) + 1;
          ok = false;
        }
      }
      if (ok) { matched.push(i); }
    }
    if (state.sort >= 0) { matched.sort(compare); }
    state.pages = Math.max(1, Math.ceil(matched.length / PAGE));
    state.page = Math.min(state.page, state.pages);
    var first = (state.page - 1) * PAGE;
    var fresh = document.createElement("tbody");
    var last = Math.min(first + PAGE, matched.length);
    for (var r = first; r < last; r++) {
      var row = fresh.insertRow();
      row.setAttribute("data-i", String(matched[r]));
      var cells = index[matched[r]].c;
      for (var c = 0; c < cells.length; c++) {
        var td = row.insertCell();
        var cell = cells[c];
        if (c === 5) { td.className = "num"; }
        if (typeof cell === "string") {
          td.textContent = cell;
        } else {
          var inner = document.createElement(cell[1] ? "a" : "span");
          if (cell[1]) { inner.setAttribute("href", cell[1]); } else { inner.className = cell[2]; }
          inner.textContent = cell[0];
          td.appendChild(inner);
        }
      }
    }
    table.replaceChild(fresh, body);
    body = fresh;
    for (var h = 0; h < heads.length; h++) {
      heads[h].setAttribute("aria-sort", h === state.sort ? (state.dir > 0 ? "ascending" : "descending") : "none");
    }
    var parts = [];
    if (hiddenBy.search) { parts.push(hiddenBy.search + " by the search"); }
    for (var u = 0; u < selects.length; u++) {
      var name = selects[u].name;
      if (hiddenBy[name]) { parts.push(hiddenBy[name] + " by " + name); }
    }
    count.textContent = matched.length + " of " + index.length + " runs match" +
      (parts.length ? " (hidden: " + parts.join(", ") + ")" : "");
    pageText.textContent = "page " + state.page + " of " + state.pages +
      (matched.length ? ", rows " + (first + 1) + "-" + last : "");
    previous.disabled = state.page <= 1;
    next.disabled = state.page >= state.pages;
    if (keep) { remember(); }
  }
  for (var h = 0; h < heads.length; h++) {
    var button = document.createElement("button");
    button.type = "button";
    button.className = "sort";
    button.textContent = heads[h].textContent;
    button.setAttribute("data-col", String(h));
    button.title = "sort by " + heads[h].textContent;
    heads[h].textContent = "";
    heads[h].appendChild(button);
    button.addEventListener("click", function (event) {
      var chosen = Number(event.currentTarget.getAttribute("data-col"));
      state.dir = state.sort === chosen ? -state.dir : 1;
      state.sort = chosen;
      state.page = 1;
      apply(true);
    });
  }
  var timer = null;
  search.addEventListener("input", function () {
    window.clearTimeout(timer);
    timer = window.setTimeout(function () { state.page = 1; apply(true); }, 150);
  });
  for (var e = 0; e < selects.length; e++) {
    selects[e].addEventListener("change", function () { state.page = 1; apply(true); });
  }
  previous.addEventListener("click", function () { state.page--; apply(true); });
  next.addEventListener("click", function () { state.page++; apply(true); });
  apply(false);
})();
"""

RUN_SCRIPT = """
(function () {
  var shown = document.querySelectorAll("[data-js]");
  for (var n = 0; n < shown.length; n++) { shown[n].hidden = false; }
  var notes = document.querySelectorAll("[data-no-js]");
  for (var o = 0; o < notes.length; o++) { notes[o].hidden = true; }
  var holder = document.getElementById("run");
  var title = document.getElementById("run-title");
  var missing = document.getElementById("run-missing");
  var DIMENSIONS = holder.getAttribute("data-dimensions").split(",");
  var GATE = holder.getAttribute("data-gate").split(",");
  var STATUS = [["fail", "failed"], ["status-warn", "not observed"], ["pass", "passed"]];
  var wanted = (new URLSearchParams(window.location.search).get("run") || "").split("/");
  function absent() { holder.hidden = true; missing.hidden = false; }
  if (wanted.length !== 4 || !wanted.every(function (part) { return /^[a-z0-9-]+$/.test(part); })) {
    absent();
    return;
  }
  var key = wanted.slice(0, 3).join("/");
  function element(name, text, className) {
    var made = document.createElement(name);
    if (text !== undefined && text !== null) { made.textContent = text; }
    if (className) { made.className = className; }
    return made;
  }
  function anchor(text, href, id) {
    var made = element("a", text);
    made.setAttribute("href", href);
    if (id) { made.id = id; }
    return made;
  }
  function heading(text, id) { var made = element("h2", text); made.id = id; return made; }
  function table(header, rows, className) {
    if (!rows.length) { return element("p", "None.", "note"); }
    var made = element("table", null, className);
    var head = made.createTHead().insertRow();
    header.forEach(function (text) { head.appendChild(element("th", text)); });
    var body = made.createTBody();
    rows.forEach(function (cells) {
      var row = body.insertRow();
      cells.forEach(function (cell) {
        var td = row.insertCell();
        if (cell instanceof Node) { td.appendChild(cell); } else { td.textContent = cell; }
      });
    });
    return made;
  }
  function flag(value, yes, no) {
    if (value < 0) { return element("span", "-", "note"); }
    return value ? element("span", yes, "pass") : element("span", no, "fail");
  }
  window.scorecardRuns = function (shard, data) {
    if (shard !== key) { return; }
    var found = null;
    data.runs.forEach(function (item) { if (String(item[0]) === wanted[3]) { found = item; } });
    if (!found) { absent(); return; }
    var text = function (position) { return data.strings[position]; };
    var run = found;
    var name = data["case"] + " | " + data.candidate + " | run " + run[0];
    document.title = name + " - scorecard report";
    title.textContent = name;
    var places = element("p");
    if (data.change) {
      places.appendChild(anchor("This case on the nights before, beside this night", data.change, "then-and-now"));
      places.appendChild(document.createTextNode(" | "));
    }
    if (data.pair) {
      places.appendChild(anchor("bundle " + data.bundle, data.pair));
      places.appendChild(document.createTextNode(" | "));
    }
    places.appendChild(anchor("candidate " + data.candidate, "candidates/" + data.slugs[1] + ".html"));
    places.appendChild(document.createTextNode(" | "));
    places.appendChild(anchor("case " + data["case"], "cases/" + data.slugs[2] + ".html"));
    holder.appendChild(places);
    var facts = element("dl", null, "facts");
    [["bundle", data.bundle], ["candidate", data.candidate], ["provider", data.provider],
     ["model", data.model], ["case", data["case"]], ["run", String(run[0])],
     ["classification", text(run[1])], ["overall", run[2]], ["outcome", text(run[3])],
     ["source", text(run[4][0]) + (run[4][1] === null ? "" : ":" + run[4][1])]].forEach(function (pair) {
      facts.appendChild(element("dt", pair[0]));
      facts.appendChild(element("dd", pair[1]));
    });
    holder.appendChild(facts);
    var failure = run[5];
    if (failure) {
      holder.appendChild(heading("Failure", "failure"));
      holder.appendChild(table(["code", "category", "retryable", "message"],
        [[element("code", text(failure[0])), text(failure[1]),
          ["no", "yes"][failure[2]] || "-", element("div", text(failure[3]), "reason")]], "failure"));
    }
    var fields = {};
    run[9].forEach(function (field, position) { fields[text(field[0])] = "at-" + position; });
    function pointers(list) {
      var span = element("span");
      list.forEach(function (pointer, position) {
        if (position) { span.appendChild(document.createTextNode(", ")); }
        var target = fields[pointer];
        span.appendChild(target ? anchor(pointer, "#" + target) : element("code", pointer));
        if (target) { span.lastChild.className = "ptr"; }
      });
      return span;
    }
    holder.appendChild(heading("Scorecard", "scorecard"));
    holder.appendChild(table(["dimension", "score", "passed", "gate", "reasons"],
      run[6].map(function (item, position) {
        if (!item) { return null; }
        return [DIMENSIONS[position], item[0], flag(item[1], "passed", "failed"),
          GATE.indexOf(DIMENSIONS[position]) >= 0 ? "gate" : "",
          (item[2] || []).map(text).join("; ") || "-"];
      }).filter(function (row) { return row !== null; }), "scorecard"));
    holder.appendChild(heading("Failing reasons", "reasons"));
    if (!run[7].length) {
      holder.appendChild(element("p", run[3] !== undefined && text(run[3]) === "not scored" ?
        "Not scored: the execution was not scoreable." : "No failing dimension.", "note"));
    }
    run[7].forEach(function (item) {
      var dimension = DIMENSIONS[item[0]];
      var h3 = element("h3", dimension + (GATE.indexOf(dimension) >= 0 ? " (gate)" : "") + ": " + item[1]);
      h3.id = "dim-" + dimension;
      holder.appendChild(h3);
      var list = element("ul", null, "reasons");
      item[2].forEach(function (reason) {
        var li = element("li");
        li.appendChild(element("span", text(reason[0]), "reason"));
        if (reason[1].length) {
          li.appendChild(document.createTextNode(" "));
          li.appendChild(element("span", "at", "note"));
          li.appendChild(document.createTextNode(" "));
          li.appendChild(pointers(reason[1].map(text)));
        }
        var evidence = element("dl", null, "evidence");
        ["expected", "observed", "case assertion", "schema"].forEach(function (label, position) {
          var value = reason[2][position];
          if (value === null || value === undefined) { return; }
          evidence.appendChild(element("dt", label));
          var dd = element("dd");
          dd.appendChild(element("code", text(value)));
          evidence.appendChild(dd);
        });
        if (evidence.childNodes.length) { li.appendChild(evidence); }
        list.appendChild(li);
      });
      if (!item[2].length) { list.appendChild(element("li", "no reason recorded")); }
      holder.appendChild(list);
    });
    var audit = run[8];
    holder.appendChild(heading("Audit findings", "audit"));
    holder.appendChild(element("p", audit[0] + " failed, " + audit[1] + " not observed, " +
      audit[2] + " passed (those passed are not listed). Pointers are into the observation " +
      "(schema " + data.schema + "), case assertions into the case."));
    holder.appendChild(table(["status", "finding", "pointer", "expected", "observed",
      "case assertion", "hint"],
      audit[3].map(function (item) {
        return [element("span", STATUS[item[0]][1], "status-" + (item[0] ? "warn" : "fail")),
          element("code", text(item[1])), pointers([text(item[2])]), text(item[3]),
          text(item[4]), element("code", text(item[6])), text(item[5])];
      }), "audit"));
    holder.appendChild(heading("Observation fields pointed at", "observation"));
    holder.appendChild(element("p", "The fields of the agent's observation (untrusted, redacted) " +
      "that the reasons and findings point at; a pointer to a field the observation lacks " +
      "shows the nearest field on its path. The whole observation is at the source line above " +
      "(scorecard view shows it).", "note"));
    holder.appendChild(table(["pointer", "field", "value"], run[9].map(function (field, position) {
      var pointer = text(field[0]), at = text(field[1]);
      var mark = element("mark", pointer, at === pointer ? "hl" : "hl near");
      mark.id = "at-" + position;
      mark.setAttribute("data-pointer", at);
      var value = element("pre", text(field[2]), "json");
      return [mark, at === pointer ? at : at + " (nearest existing)", value];
    }), "fields"));
    if (window.location.hash.length > 1) {
      var target = document.getElementById(window.location.hash.slice(1));
      if (target) { target.scrollIntoView(); target.classList.add("target"); }
    }
  };
  var script = document.createElement("script");
  script.src = "data/runs/" + key + ".js";
  script.onerror = absent;
  document.head.appendChild(script);
})();
"""


def _hash(script: str) -> str:
    return base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")


def _policy(script: str | None, sources: bool) -> str:
    """The page's Content-Security-Policy: its own images and the inline style; its inline
    script by hash; scripts of the site's own files (the data) only on pages that load them."""
    scripts = " ".join(
        ([f"'sha256-{_hash(script)}'"] if script else []) + (["'self'"] if sources else [])
    )
    return (
        "default-src 'none'; img-src 'self' data:; style-src 'self'; "
        f"script-src {scripts or chr(39) + 'none' + chr(39)}; base-uri 'none'; form-action 'self'"
    )


def _json_text(data: Any) -> str:
    text = json.dumps(data, ensure_ascii=True, sort_keys=True, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def data_script(function: str, key: str | None, data: Any) -> bytes:
    """A data file of the site: a script calling ``function(key, data)`` (or assigning
    ``window.function = data`` without a key). JSON is a JavaScript expression; ``<``, ``>``
    and ``&`` are escaped anyway, so the text can sit in a page too."""
    if key is None:
        return f"window.{function} = {_json_text(data)};\n".encode()
    return f"{function}({_json_text(key)}, {_json_text(data)});\n".encode()


def json_script(element_id: str, data: Any) -> str:
    """``data`` as a JSON data block no text inside can end (``<``, ``>``, ``&`` escaped)."""
    return f'<script type="application/json" id="{element_id}">{_json_text(data)}</script>'


def page(
    path: str,
    title: str,
    body: str,
    crumbs: list[tuple[str, str | None]],
    *,
    script: str | None = None,
    data: Sequence[str] = (),
) -> bytes:
    """The page at site path ``path``: ``title`` (untrusted, escaped here), the breadcrumb
    ``crumbs`` (untrusted labels, site paths or None), ``body`` (HTML already escaped), the
    inline ``script`` (default: the runs tables' where the body has work for it), and the
    site's ``data`` files (site paths) it loads before that."""
    if script is None and ("data-js" in body or "data-no-js" in body):
        script = SCRIPT
    loaded = "".join(
        f'<script src="{html.escape(link(path, name), quote=True)}"></script>\n' for name in data
    )
    trail = " &rsaquo; ".join(
        f'<a href="{html.escape(link(path, target), quote=True)}">{html_text(label)}</a>'
        if target is not None
        else html_text(label)
        for label, target in crumbs
    )
    text = (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{_policy(script, bool(data) or script == RUN_SCRIPT)}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{html_text(title)} - scorecard report</title>"
        f'<link rel="stylesheet" href="{link(path, STYLESHEET)}"></head>\n<body>'
        '<a class="skip" href="#main">Skip to the content</a>'
        f'<header class="top"><a href="{link(path, PAGE_INDEX)}">Scorecard report</a>'
        f'<a href="{link(path, PAGE_RUNS)}">All runs</a></header>\n<main id="main">'
        + (f'<nav class="crumbs">{trail}</nav>' if crumbs else "")
        + body
        + "</main>\n"
        # The script only where it has work (elements it shows, hides or fills): a change
        # page carries none of its bytes.
        + loaded
        + (f"<script>{script}</script>\n" if script else "")
        + "</body></html>\n"
    )
    return text.encode("utf-8")
