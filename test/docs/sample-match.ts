// Holds the sample output a page shows against what the command really printed, word for word
// except for what differs from run to run: ids, transIDs, tokens and secrets, times, latencies,
// ports the system picked, and elisions (`...`) or placeholders (`<unguessable token>`) the page
// writes in their place. Everything else (messages, statuses, amounts, counts) must be the same.

/** The prefixes of the sandbox's ids (`pay_...`, `whd_...`); `req_` and `whsec_` vary too. */
export const ID_PREFIXES = 'pay|re|rfd|cs|evt|whd|we|tok|cb|dp|st|stl|flt|mer|req|whsec';

/** Each kind of varying text: how to find it in a sample, and what it may be in the real output. */
const VARYING: { find: string; real: (found: string) => string }[] = [
  // An elision, with the start of the word it cuts short (`MTVas-Q...`; an id's `cs_` stays).
  { find: '[A-Za-z0-9+=-]*(?:\\.\\.\\.|…)', real: () => '[\\s\\S]*?' },
  { find: '<[a-z][a-z |-]*>', real: () => '[\\s\\S]*?' },
  {
    find: '\\d{4}-\\d\\d-\\d\\d(?:[T ]\\d\\d:\\d\\d(?::\\d\\d(?:\\.\\d+)?)?Z?)?',
    real: () => '\\d{4}-\\d\\d-\\d\\d(?:[T ]\\d\\d:\\d\\d(?::\\d\\d(?:\\.\\d+)?)?Z?)?',
  },
  { find: '\\b\\d\\d:\\d\\d(?::\\d\\d(?:\\.\\d+)?)?\\b', real: () => '\\d\\d:\\d\\d(?::\\d\\d(?:\\.\\d+)?)?' },
  { find: '\\b\\d+(?:\\.\\d+)?ms\\b', real: () => '\\d+(?:\\.\\d+)?ms' },
  // A token, secret, signature or base64 text: 20 or more such characters with a digit among them.
  { find: '(?=[A-Za-z0-9_+=-]*\\d)[A-Za-z0-9_+=-]{20,}', real: () => '[A-Za-z0-9_+/=-]+' },
  // A webhook secret is base64 (`whsec_/ChgP...` begins with a slash one time in 32): ids are letters and digits.
  {
    find: `\\b(?:${ID_PREFIXES})_(?!sandbox\\b|other\\b)[A-Za-z0-9]{6,}\\b`,
    real: (id) => (id.startsWith('whsec_') ? 'whsec_[A-Za-z0-9+/=]+' : `${id.slice(0, id.indexOf('_'))}_[A-Za-z0-9]+`),
  },
  // A transID; unix times in seconds and in milliseconds.
  { find: '\\b\\d{15}\\b|\\b1[6-9]\\d{8}(?:\\d{3})?\\b', real: () => '\\d+' },
  // A port the system picked (`--port 0`): five digits, the ephemeral range; 4010 and 3000 are fixed.
  { find: ':\\d{5}\\b', real: () => ':\\d+' },
];
const FIND = new RegExp(VARYING.map((kind) => `(${kind.find})`).join('|'), 'g');

/** True when `text` (a line of sample output) holds something that differs per run. */
export function varies(text: string): boolean {
  FIND.lastIndex = 0;
  return FIND.test(text);
}

/**
 * A regular expression source matching what `sample` stands for: its fixed text as it is (any run
 * of whitespace as any run, since table columns are as wide as their values), each varying piece
 * as what it may be.
 */
export function samplePattern(sample: string): string {
  let pattern = '';
  let at = 0;
  for (const match of sample.matchAll(FIND)) {
    pattern += fixed(sample.slice(at, match.index));
    const kind = match.slice(1).findIndex((group) => group !== undefined);
    pattern += VARYING[kind]!.real(match[0]);
    at = match.index + match[0].length;
  }
  return pattern + fixed(sample.slice(at));
}

function fixed(text: string): string {
  return text
    .split(/\s+/)
    .map((word) => word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('\\s+');
}

/** True when the real string is what the sample string stands for, as a whole. */
export function sameText(sample: string, real: string): boolean {
  return new RegExp(`^${samplePattern(sample)}$`).test(real);
}

/**
 * The first line of a text sample that the real output does not show, in order (each line after
 * the one before it), or undefined when every line is there.
 */
export function missingLine(sample: string, real: string): string | undefined {
  const text = squash(real);
  let from = 0;
  for (const line of sample.split('\n')) {
    if (!line.trim()) continue;
    const found = new RegExp(samplePattern(squash(line)), 'g');
    found.lastIndex = from;
    const match = found.exec(text);
    if (!match) return line.trim();
    from = match.index + match[0].length;
  }
  return undefined;
}

/**
 * Where a real JSON answer differs from a complete JSON sample: the same keys at every level,
 * arrays of the same length, and every value the same (strings modulo what varies). Empty when
 * they agree.
 */
export function jsonDifferences(sample: unknown, real: unknown, path = '$'): string[] {
  if (Array.isArray(sample)) {
    if (!Array.isArray(real)) return [`${path}: the page shows an array, the answer has ${JSON.stringify(real)}`];
    if (sample.length !== real.length) return [`${path}: the page shows ${sample.length} items, the answer has ${real.length}`];
    return sample.flatMap((item, i) => jsonDifferences(item, real[i], `${path}[${i}]`));
  }
  if (sample && typeof sample === 'object') {
    if (!real || typeof real !== 'object' || Array.isArray(real))
      return [`${path}: the page shows an object, the answer has ${JSON.stringify(real)}`];
    const shown = Object.keys(sample).sort();
    const got = Object.keys(real).sort();
    if (shown.join() !== got.join()) return [`${path}: the page shows the keys ${shown.join(', ')}; the answer has ${got.join(', ')}`];
    return shown.flatMap((key) =>
      jsonDifferences((sample as Record<string, unknown>)[key], (real as Record<string, unknown>)[key], `${path}.${key}`),
    );
  }
  return sameValue(sample, real) ? [] : [`${path}: the page shows ${JSON.stringify(sample)}, the answer has ${JSON.stringify(real)}`];
}

/**
 * Where a real JSON answer differs from an abridged sample (`{"id":"cs_...","status":"open",...}`,
 * not JSON itself): every `"key": value` the sample shows with a plain value must be somewhere in
 * the answer, at any depth, with that value.
 */
export function abridgedDifferences(sample: string, real: unknown): string[] {
  const pairs = sample.matchAll(/"([\w.$[\]-]+)"\s*:\s*("(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?|true|false|null)/g);
  return [...pairs].flatMap(([, key, value]) => {
    const shown = JSON.parse(value!) as unknown;
    return valuesOf(real, key!).some((got) => sameValue(shown, got))
      ? []
      : [`the page shows "${key}": ${value}; the answer has ${JSON.stringify(valuesOf(real, key!)) || 'no such key'}`];
  });
}

/** Every value `key` has anywhere in `value`. */
function valuesOf(value: unknown, key: string): unknown[] {
  if (Array.isArray(value)) return value.flatMap((item) => valuesOf(item, key));
  if (!value || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([name, inner]) => [...(name === key ? [inner] : []), ...valuesOf(inner, key)]);
}

function sameValue(sample: unknown, real: unknown): boolean {
  if (typeof sample === 'string' && typeof real === 'string') return sameText(sample, real);
  if (typeof sample === 'number' && typeof real === 'number' && varies(String(sample))) return varies(String(real));
  return sample === real;
}

/** Whitespace runs as one space: table columns are as wide as the run's values make them. */
export function squash(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
