// Merchant URLs (return_url, webhook_url, logo_url, ...): one rule for what counts as an http(s)
// URL, used when a request gives one and when a stored one is turned into a redirect. A pattern
// alone let through text the WHATWG parser refuses (port 99999, "%zz" as a host, "[::1" without
// its bracket); such a row then made every page that built a redirect from it fail.

// The shape merchants write: scheme, "//", a host without spaces or userinfo. The WHATWG parser is
// more lenient ("http:shop.example", backslashes, stripped tabs), so both must accept a URL.
const SHAPE = /^https?:\/\/[^\s/?#@]+(:\d+)?([/?#][^\s]*)?$/i;

/** The parsed URL when `text` is an absolute http(s) URL the WHATWG parser accepts; undefined otherwise. */
export function parseHttpUrl(text: string): URL | undefined {
  if (!SHAPE.test(text)) return undefined;
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url : undefined;
  } catch {
    return undefined;
  }
}

/**
 * `base` with the `query` parameters set, or `fallback` when `base` is not an http(s) URL (a row
 * written by an older version or imported from a snapshot): a redirect built after a payment was
 * committed must not fail, so the customer lands on the sandbox's own result page instead.
 */
export function urlWithQuery(base: string | null | undefined, query: Record<string, string>, fallback: string): string {
  const url = base ? parseHttpUrl(base) : undefined;
  if (!url) return fallback;
  for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
  return url.toString();
}
