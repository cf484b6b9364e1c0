// How a webhook body a handler verified differs from the bytes that were signed. A signature covers
// bytes, not values: a framework that parses the body and serialises it again (express.json() then
// JSON.stringify, a form parsed into an object and encoded again) hands the handler the same value
// in other bytes, which no longer verify. Said precisely, so the merchant knows what to change.

/** What kind of change: the same JSON value, the same form fields, or other bytes. */
export type BodyChange = 'json_reserialized' | 'form_reencoded' | 'body_changed';

/** A change and how it was made, in words (a clause to follow "the body ..."). */
export interface BodyDifference {
  change: BodyChange;
  how: string;
}

/** How `received` differs from `sent`; undefined when they are the same text. */
export function bodyDifference(sent: string, received: string): BodyDifference | undefined {
  if (sent === received) return undefined;
  // Whitespace added at the end (echo, an editor) or taken off it (a shell's $(...), .trim()) says
  // more than "the same JSON in other bytes".
  const trailing =
    (received.startsWith(sent) && /^\s+$/.test(received.slice(sent.length))) ||
    (sent.startsWith(received) && /^\s+$/.test(sent.slice(received.length)));
  return (
    (trailing ? undefined : (jsonDifference(sent, received) ?? formDifference(sent, received))) ?? {
      change: 'body_changed',
      how: textDifference(sent, received),
    }
  );
}

function parsedJson(text: string): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(text) };
  } catch {
    return undefined;
  }
}

/** Equal JSON values: objects whatever their key order, arrays in order. */
function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null || Array.isArray(a) !== Array.isArray(b)) return false;
  const left = Object.entries(a);
  const right = b as Record<string, unknown>;
  return (
    left.length === Object.keys(right).length && left.every(([key, value]) => Object.hasOwn(right, key) && sameValue(value, right[key]))
  );
}

/** JSON text without the whitespace between its tokens (strings kept as they are). */
function withoutWhitespace(text: string): string {
  let out = '';
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const char = text.charAt(i);
    if (inString) {
      out += char;
      if (char === '\\') out += text[++i] ?? '';
      else if (char === '"') inString = false;
    } else if (char === '"') {
      inString = true;
      out += char;
    } else if (!/\s/.test(char)) out += char;
  }
  return out;
}

function jsonDifference(sent: string, received: string): BodyDifference | undefined {
  const [a, b] = [parsedJson(sent), parsedJson(received)];
  if (!a || !b || !sameValue(a.value, b.value)) return undefined;
  const ways: string[] = [];
  if (withoutWhitespace(sent) !== sent || withoutWhitespace(received) !== received)
    ways.push('other whitespace (indentation, spaces after , and :)');
  if (JSON.stringify(a.value) !== JSON.stringify(b.value)) ways.push('keys in another order');
  // Text that is not the plain serialisation of its own value: \u00e9 for é, 1.0 for 1, \/ for /.
  if (withoutWhitespace(sent) !== JSON.stringify(a.value) || withoutWhitespace(received) !== JSON.stringify(b.value))
    ways.push('other escapes or number forms');
  return {
    change: 'json_reserialized',
    how: `is the same JSON value in other bytes, as when something parses it and serialises it again: ${ways.join(', ')}`,
  };
}

/** Field pairs of a form body, or undefined when the text is not name=value pairs joined by &. */
function formPairs(text: string): string[][] | undefined {
  if (!/^[^=&]+=[^&]*(?:&[^=&]+=[^&]*)*$/.test(text)) return undefined;
  return [...new URLSearchParams(text)];
}

function formDifference(sent: string, received: string): BodyDifference | undefined {
  const [a, b] = [formPairs(sent), formPairs(received)];
  if (!a || !b || a.length !== b.length) return undefined;
  const key = (value: unknown) => JSON.stringify(value);
  const sorted = (pairs: string[][]) => key([...pairs].sort((x, y) => key(x).localeCompare(key(y))));
  if (sorted(a) !== sorted(b)) return undefined;
  const ways: string[] = [];
  if (key(a) !== key(b)) ways.push('the fields are in another order');
  if (/%20/.test(received) && /\+/.test(sent)) ways.push('spaces are %20 instead of +');
  const escaped = (text: string) => text.replace(/%20/g, '+').split('&').sort().join('&');
  if (escaped(received) !== escaped(sent)) ways.push('other characters are escaped otherwise');
  return {
    change: 'form_reencoded',
    how: `holds the same form fields in other bytes, as when something parses it and encodes it again: ${ways.join(', ')}`,
  };
}

/** A short, quoted piece of `text` around `at`. */
function excerpt(text: string, at: number): string {
  const start = Math.max(0, at - 12);
  const piece = text.slice(start, at + 20);
  return `${start > 0 ? '…' : ''}${JSON.stringify(piece)}${at + 20 < text.length ? '…' : ''}`;
}

function textDifference(sent: string, received: string): string {
  if (received === '')
    return 'is empty: something read the request stream before your handler (a body parser), or the handler did not wait for its end';
  if (received === '[object Object]') return 'is "[object Object]": an object was turned into text; verify the raw body instead';
  if (received.startsWith('\ufeff') && received.slice(1) === sent) return 'starts with a byte order mark (U+FEFF) the sandbox did not send';
  if (received.startsWith(sent)) {
    const added = received.slice(sent.length);
    return /^\s+$/.test(added)
      ? `ends with ${JSON.stringify(added)} the sandbox did not send (a file written by echo or an editor, or a logger, adds a newline)`
      : `has ${added.length} characters more at its end than the sandbox sent: ${excerpt(received, sent.length)}`;
  }
  if (sent.startsWith(received)) {
    const lacked = sent.slice(received.length);
    return /^\s+$/.test(lacked)
      ? `lacks the ${JSON.stringify(lacked)} at its end the sandbox sent: something trimmed it (a shell's $(...), .trim(), strip()) or wrote it again`
      : `is cut short: ${received.length} of the ${sent.length} characters sent (a size limit, or only the first chunk read)`;
  }
  if (Buffer.from(sent, 'utf8').toString('latin1') === received)
    return 'was decoded as Latin-1 instead of UTF-8 (é became Ã©): read it as UTF-8, or better as raw bytes';
  let at = 0;
  while (sent[at] === received[at]) at++;
  return `differs from character ${at + 1} on (${received.length} characters, ${sent.length} sent): the sandbox sent ${excerpt(sent, at)}, your handler has ${excerpt(received, at)}`;
}
