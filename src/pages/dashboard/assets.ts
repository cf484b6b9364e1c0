// The dashboard's stylesheet and its one script, served by the sandbox itself under
// /_sandbox/assets/ so the page loads nothing from the internet and its CSP can forbid inline code.
import { SEQUENCE_CSS } from './sequence-css.js';

/** CSS of the dashboard: dense tables for a developer's wide screen, readable on a laptop. */
export const DASHBOARD_CSS = `
:root { --accent: #3b5bdb; --ink: #1f2933; --muted: #616e7c; --line: #d9e2ec; --bg: #f4f6fa; --ok: #1e7b48; --bad: #c0392b; --warn: #8f5200;
  font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; font-size: 14px; }
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--ink); }
header { display: flex; flex-wrap: wrap; align-items: baseline; gap: 4px 16px; padding: 12px 24px; background: #fff; border-bottom: 1px solid var(--line); }
header h1 { font-size: 18px; margin: 0; }
header .meta { color: var(--muted); font-size: 13px; }
header .live { margin-left: auto; font-size: 13px; color: var(--muted); }
header .live[data-state=live] { color: var(--ok); }
main { padding: 16px 24px 48px; }
@media (max-width: 600px) { header { padding: 10px 12px; } main { padding: 12px 12px 32px; } form.filters input[type=search] { width: 100%; } form.filters label { flex: 1 1 100%; } }
nav.tabs { display: flex; gap: 4px; border-bottom: 1px solid var(--line); margin-bottom: 12px; flex-wrap: wrap; }
nav.tabs a { padding: 8px 14px; color: var(--muted); text-decoration: none; border: 1px solid transparent; border-bottom: none; border-radius: 8px 8px 0 0; }
nav.tabs a[aria-current=page] { background: #fff; color: var(--ink); border-color: var(--line); font-weight: 600; margin-bottom: -1px; }
form.filters { display: flex; gap: 8px; align-items: end; flex-wrap: wrap; margin-bottom: 12px; }
form.filters label { display: flex; flex-direction: column; gap: 2px; font-size: 12px; color: var(--muted); }
input, select, button { font: inherit; padding: 6px 8px; border: 1px solid #bcccdc; border-radius: 6px; background: #fff; color: var(--ink); }
button { cursor: pointer; }
button.primary { background: var(--accent); border-color: var(--accent); color: #fff; }
button.approve { color: var(--ok); border-color: #9fd3b5; }
button.decline { color: var(--bad); border-color: #f1b0a8; }
input:focus, select:focus, button:focus, a:focus { outline: 3px solid #91a7ff; outline-offset: 1px; }
table { width: 100%; border-collapse: collapse; background: #fff; border: 1px solid var(--line); }
th, td { text-align: left; padding: 6px 10px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { font-size: 12px; color: var(--muted); font-weight: 600; background: #f9fafc; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.id, code { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 12px; overflow-wrap: anywhere; }
/* An id is copied whole: never broken mid-token; a narrow screen scrolls the table instead (.table-scroll). */
td.id { white-space: nowrap; overflow-wrap: normal; }
.table-scroll { overflow-x: auto; max-width: 100%; }
td.empty { text-align: center; color: var(--muted); padding: 24px; }
.status { display: inline-block; padding: 1px 8px; border-radius: 10px; font-size: 12px; background: #eef2f7; white-space: nowrap; }
.status.ok { background: #e3f5eb; color: var(--ok); } .status.bad { background: #fdecea; color: var(--bad); } .status.wait { background: #fff4d6; color: var(--warn); }
form.inline { display: inline-flex; gap: 4px; margin: 0; }
.pager { display: flex; gap: 16px; margin-top: 10px; }
.detail { background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: 16px; margin-bottom: 16px; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 4px 16px; margin: 0; }
dl.facts dt { color: var(--muted); } dl.facts dd { margin: 0; overflow-wrap: anywhere; }
pre { background: #f9fafc; border: 1px solid var(--line); border-radius: 6px; padding: 8px; white-space: pre-wrap; overflow-wrap: anywhere; max-height: 320px; overflow: auto; font-size: 12px; margin: 4px 0 8px; }
.attempt { border-top: 1px solid var(--line); padding-top: 10px; margin-top: 10px; }
.attempt h3 { font-size: 14px; margin: 0 0 6px; }
.hint { color: var(--muted); font-size: 13px; }
.attention { background: #fdecea; border: 1px solid #f1b0a8; border-radius: 6px; padding: 8px 12px; margin: 0 0 12px; }
.refusal { margin: 4px 0 8px; } .refusal p { margin: 0 0 4px; }
/* On a phone the deliveries' URL wraps, so the columns after it (Status first) stay in view. */
@media (max-width: 600px) { table[data-tab=deliveries] td.url { white-space: normal; overflow-wrap: anywhere; min-width: 10em; } }
${SEQUENCE_CSS}`;

/**
 * The live-update script. It listens to the SSE stream and, a moment after anything happens,
 * fetches the visible table again as an HTML fragment (rendered and escaped by the server) and
 * swaps it in. Without it the page still works; it only stops updating by itself.
 */
export const DASHBOARD_JS = `'use strict';
(function () {
  var live = document.querySelector('[data-live-src]');
  var state = document.getElementById('live-state');
  if (!live || typeof EventSource !== 'function') return;
  var timer = null;
  var busy = false;
  var again = false;
  function show(text, name) { if (state) { state.textContent = text; state.setAttribute('data-state', name); } }
  function refresh() {
    if (busy) { again = true; return; }
    busy = true;
    fetch(live.getAttribute('data-live-src'), { credentials: 'same-origin', headers: { accept: 'text/html' } })
      .then(function (res) { return res.ok ? res.text() : null; })
      .then(function (html) {
        if (html !== null) {
          // Keep the request/response panels the reader opened open across the swap.
          var opened = Array.prototype.map.call(live.querySelectorAll('details'), function (d) { return d.open; });
          live.innerHTML = html;
          Array.prototype.forEach.call(live.querySelectorAll('details'), function (d, i) { if (opened[i]) d.open = true; });
          live.setAttribute('data-refreshed', String(Number(live.getAttribute('data-refreshed') || '0') + 1));
        }
      })
      .catch(function () {})
      .then(function () { busy = false; if (again) { again = false; schedule(); } });
  }
  function schedule() { clearTimeout(timer); timer = setTimeout(refresh, 120); }
  var stream = new EventSource('/_sandbox/stream');
  ['event.created', 'delivery.attempted', 'transaction.updated', 'payment.updated', 'session.updated', 'state.reset', 'fault.injected'].forEach(function (kind) {
    stream.addEventListener(kind, schedule);
  });
  // On (re)connect, refresh once: whatever happened while the stream was down is in the table now.
  stream.onopen = function () { show('Live', 'live'); schedule(); };
  stream.onerror = function () { show('Reconnecting…', 'down'); };
  window.addEventListener('pagehide', function () { stream.close(); });
})();
`;
