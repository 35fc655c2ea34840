"""The report site's page shell: inline CSS, the one inline script, the page frame.

Nothing is fetched: the style and the script are in every page, images are files of the site,
and a Content-Security-Policy allows only those (the script by its SHA-256), so a page renders
the same from ``file://``, a CI artifact viewer or ``scorecard view``. The script only filters
table rows already on the page; without it every row shows and the filter bar stays hidden.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
from typing import Any

from ._escape import html_text
from ._site_paths import PAGE_INDEX, PAGE_RUNS, link

__all__ = ["CSS", "SCRIPT", "json_script", "page"]

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
mark.hl:target { background: #ffd33d; outline: 3px solid #cf222e; }
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
  mark.hl:target { background: #5a4300; }
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
  var data = document.getElementById("run-index");
  var bar = document.getElementById("filters");
  var table = document.querySelector("table.runs");
  if (!data || !bar || !table) { return; }
  var PAGE = 100;
  var index = JSON.parse(data.textContent);
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
    if (state.sort === 5) { return item.o === undefined ? null : item.o; }
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

_SCRIPT_HASH = base64.b64encode(hashlib.sha256(SCRIPT.encode("utf-8")).digest()).decode("ascii")
_CSP = (
    "default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'; "
    f"script-src 'sha256-{_SCRIPT_HASH}'; base-uri 'none'; form-action 'self'"
)


def json_script(element_id: str, data: Any) -> str:
    """``data`` as a JSON data block no text inside can end (``<``, ``>``, ``&`` escaped)."""
    text = json.dumps(data, ensure_ascii=True, sort_keys=True, separators=(",", ":"))
    text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return f'<script type="application/json" id="{element_id}">{text}</script>'


def page(path: str, title: str, body: str, crumbs: list[tuple[str, str | None]]) -> bytes:
    """The page at site path ``path``: ``title`` (untrusted, escaped here), the breadcrumb
    ``crumbs`` (untrusted labels, site paths or None), ``body`` (HTML already escaped)."""
    trail = " &rsaquo; ".join(
        f'<a href="{html.escape(link(path, target), quote=True)}">{html_text(label)}</a>'
        if target is not None
        else html_text(label)
        for label, target in crumbs
    )
    text = (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{html_text(title)} - scorecard report</title><style>{CSS}</style></head>\n<body>"
        '<a class="skip" href="#main">Skip to the content</a>'
        f'<header class="top"><a href="{link(path, PAGE_INDEX)}">Scorecard report</a>'
        f'<a href="{link(path, PAGE_RUNS)}">All runs</a></header>\n<main id="main">'
        + (f'<nav class="crumbs">{trail}</nav>' if crumbs else "")
        + body
        + "</main>\n"
        # The script only where it has work (elements it shows, hides or fills): a run page
        # or a change page carries none of its bytes.
        + (f"<script>{SCRIPT}</script>\n" if "data-js" in body or "data-no-js" in body else "")
        + "</body></html>\n"
    )
    return text.encode("utf-8")
