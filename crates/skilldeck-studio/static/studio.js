// skilldeck studio: validation as you type. The pages work without this
// file; it only refreshes the editor's checks (POST /validate, debounced),
// marks their lines in a line-number gutter, and saves on Ctrl+S / Cmd+S.
// The editor wraps long lines; each gutter number is as tall as its line
// wraps to, measured on a hidden copy of the text laid out the same way.
"use strict";
(function () {
  var editor = document.getElementById("editor");
  var content = document.getElementById("content");
  var list = document.getElementById("diagnostics");
  var gutter = document.getElementById("gutter");
  if (!editor || !content || !list) return;
  var csrf = editor.querySelector("input[name=csrf]");
  var nameInput = document.getElementById("name");
  var bad = {};
  var timer = null;
  var sent = 0;
  var mirror = null;

  // The height each line takes in the editor, wrapped as the editor wraps it.
  function lineHeights(lines) {
    if (!mirror) {
      mirror = document.createElement("div");
      mirror.className = "mirror";
      mirror.setAttribute("aria-hidden", "true");
      content.parentNode.appendChild(mirror);
    }
    var style = getComputedStyle(content);
    mirror.style.width = (content.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight)) + "px";
    var rows = lines.map(function (line) {
      var row = document.createElement("div");
      row.textContent = line === "" ? "\u200b" : line;
      return row;
    });
    mirror.replaceChildren.apply(mirror, rows);
    return rows.map(function (row) { return row.getBoundingClientRect().height; });
  }

  function drawGutter() {
    if (!gutter) return;
    var lines = content.value.split("\n");
    var heights = lineHeights(lines);
    var out = [];
    for (var i = 1; i <= lines.length; i++) {
      var span = document.createElement("span");
      span.textContent = String(i);
      span.setAttribute("data-line", String(i));
      span.style.height = heights[i - 1] + "px";
      if (bad[i]) span.className = bad[i];
      out.push(span);
    }
    gutter.replaceChildren.apply(gutter, out);
    gutter.scrollTop = content.scrollTop;
  }

  // What a gutter line shows when several checks fall on it: the worst.
  var RANK = { info: 1, low: 2, warning: 3, medium: 3, error: 4, high: 4, critical: 5 };

  function show(diagnostics) {
    bad = {};
    var items = diagnostics.map(function (d) {
      var li = document.createElement("li");
      li.setAttribute("data-line", String(d.line));
      li.setAttribute("data-column", String(d.column));
      li.className = d.severity;
      li.textContent = "line " + d.line + ": " + d.severity + ": " + d.message + " ";
      var check = document.createElement("span");
      check.className = "check";
      check.textContent = "(" + d.check + ")";
      li.appendChild(check);
      if (d.line > 0 && (RANK[d.severity] || 0) > (RANK[bad[d.line]] || 0)) bad[d.line] = d.severity;
      return li;
    });
    list.replaceChildren.apply(list, items);
    var none = document.getElementById("diagnostics-none");
    if (none) none.hidden = items.length > 0;
    drawGutter();
  }

  function check() {
    var mine = ++sent;
    fetch("/validate", {
      method: "POST",
      credentials: "same-origin",
      headers: { "content-type": "application/json", "x-csrf-token": csrf ? csrf.value : "" },
      body: JSON.stringify({ content: content.value, name: nameInput ? nameInput.value : "" })
    })
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (diagnostics) { if (diagnostics && mine === sent) show(diagnostics); })
      .catch(function () { /* the server-rendered checks stay */ });
  }

  function later() {
    drawGutter();
    clearTimeout(timer);
    timer = setTimeout(check, 300);
  }

  // The server-rendered checks mark the gutter on load.
  Array.prototype.forEach.call(list.querySelectorAll("li[data-line]"), function (li) {
    var line = Number(li.getAttribute("data-line"));
    if (line > 0 && bad[line] !== "error") bad[line] = li.className;
  });
  drawGutter();
  content.addEventListener("input", later);
  if (nameInput) nameInput.addEventListener("input", later);
  content.addEventListener("scroll", function () { if (gutter) gutter.scrollTop = content.scrollTop; });
  // A narrower or wider editor wraps differently.
  if (window.ResizeObserver) new ResizeObserver(function () { drawGutter(); }).observe(content);
  // A diagnostic leads to its line.
  list.addEventListener("click", function (event) {
    var li = event.target.closest("li[data-line]");
    if (!li) return;
    var line = Number(li.getAttribute("data-line"));
    if (line < 1) return;
    var offset = 0;
    var lines = content.value.split("\n");
    for (var i = 0; i < line - 1 && i < lines.length; i++) offset += lines[i].length + 1;
    content.focus();
    content.setSelectionRange(offset, offset);
  });
  document.addEventListener("keydown", function (event) {
    if ((event.ctrlKey || event.metaKey) && event.key === "s") {
      event.preventDefault();
      editor.requestSubmit ? editor.requestSubmit() : editor.submit();
    }
  });
})();
