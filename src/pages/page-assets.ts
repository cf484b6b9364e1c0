// The small files every page shares besides its stylesheet: the script that shows times in the
// customer's own zone and the sandbox's icon (answered at /favicon.ico, where browsers ask for it).

/**
 * Rewrites each <time data-local-time> (rendered as UTC, zone named) into the reader's local time
 * with its zone's short name. Without JavaScript the UTC text stays, which is still correct.
 */
export const LOCAL_TIME_JS = `'use strict';
(function () {
  if (typeof Intl !== 'object') return;
  Array.prototype.forEach.call(document.querySelectorAll('time[data-local-time]'), function (el) {
    var at = new Date(el.getAttribute('datetime'));
    if (isNaN(at.getTime())) return;
    var options = { hour: '2-digit', minute: '2-digit', timeZoneName: 'short' };
    if (el.getAttribute('data-local-time') === 'seconds') options.second = '2-digit';
    el.textContent = new Intl.DateTimeFormat(undefined, options).format(at);
  });
})();
`;

/** The sandbox's icon: a card on the accent colour, as SVG (every current browser takes it). */
export const FAVICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#3b5bdb"/><rect x="6" y="9" width="20" height="14" rx="2.5" fill="#fff"/><rect x="6" y="12" width="20" height="3" fill="#3b5bdb"/></svg>`;
