// What a request's JSON looks like, found without recursion: how deep it nests, whether it holds a
// secret field, and a short description of a value for an error message. A body nested thousands
// of levels deep (10 KB is enough) overflowed the stack of every recursive walk, JSON.stringify
// included, and answered 500; every walk here keeps its own stack.

/** How deep objects and arrays may nest in a request body (the body itself is level 1). */
export const MAX_JSON_DEPTH = 32;

/** Fields whose values are never echoed back in an error message, at any depth. */
export const SECRET_FIELDS: ReadonlySet<string> = new Set([
  'card',
  'number',
  'cvc',
  'cvv',
  'ccno',
  'ccvv',
  'public_key',
  'private_key',
  'encrypted_data',
]);

/** What one walk found: the deepest level reached (up to `limit` + 1) and the path that went past `limit`. */
interface Walk {
  depth: number;
  tooDeep: Array<string | number> | undefined;
  secret: boolean;
}

interface Frame {
  value: unknown;
  depth: number;
  key: string | number;
  parent: Frame | undefined;
}

const isContainer = (value: unknown): value is object => value !== null && typeof value === 'object';

function pathOf(frame: Frame): Array<string | number> {
  const path: Array<string | number> = [];
  for (let f: Frame | undefined = frame; f?.parent; f = f.parent) path.push(f.key);
  return path.reverse();
}

/** Walks `value` with an explicit stack; stops at the first container deeper than `limit`. */
function walk(value: unknown, limit: number): Walk {
  const result: Walk = { depth: isContainer(value) ? 1 : 0, tooDeep: undefined, secret: false };
  if (!isContainer(value)) return result;
  const stack: Frame[] = [{ value, depth: 1, key: '', parent: undefined }];
  for (let frame = stack.pop(); frame; frame = stack.pop()) {
    const entries: Array<[string | number, unknown]> = Array.isArray(frame.value)
      ? frame.value.map((v, i) => [i, v])
      : Object.entries(frame.value as object);
    for (const [key, child] of entries) {
      if (typeof key === 'string' && SECRET_FIELDS.has(key)) result.secret = true;
      if (!isContainer(child)) continue;
      const next: Frame = { value: child, depth: frame.depth + 1, key, parent: frame };
      result.depth = Math.max(result.depth, next.depth);
      if (next.depth > limit) {
        result.tooDeep = pathOf(next);
        return result;
      }
      stack.push(next);
    }
  }
  return result;
}

/** The path to the first object or array nested deeper than MAX_JSON_DEPTH, or undefined when none is. */
export function tooDeepPath(body: unknown): Array<string | number> | undefined {
  return walk(body, MAX_JSON_DEPTH).tooDeep;
}

// In a u-mode expression a well-formed pair is one code point; only a surrogate alone is \p{Cs}.
const LONE_SURROGATE = /\p{Cs}/u;

/**
 * The path to the first key or string value holding a lone UTF-16 surrogate (JSON's "\ud800"
 * escaped without its pair), or undefined when there is none. Such text is no character: SQLite
 * stores it as U+FFFD, so it is refused as bytes that are not UTF-8 are. The offending key's
 * surrogates are shown escaped, so the error never echoes one.
 */
export function loneSurrogatePath(value: unknown): Array<string | number> | undefined {
  const show = (key: string | number) =>
    typeof key === 'string' ? key.replace(/\p{Cs}/gu, (unit) => `\\u${unit.charCodeAt(0).toString(16)}`) : key;
  if (typeof value === 'string') return LONE_SURROGATE.test(value) ? [] : undefined;
  const stack: Array<{ value: unknown; path: Array<string | number> }> = [{ value, path: [] }];
  for (let frame = stack.pop(); frame; frame = stack.pop()) {
    if (!isContainer(frame.value)) continue;
    const entries: Array<[string | number, unknown]> = Array.isArray(frame.value)
      ? frame.value.map((v, i) => [i, v])
      : Object.entries(frame.value);
    for (const [key, child] of entries) {
      const path = [...frame.path, show(key)];
      if ((typeof key === 'string' && LONE_SURROGATE.test(key)) || (typeof child === 'string' && LONE_SURROGATE.test(child))) return path;
      if (isContainer(child)) stack.push({ value: child, path });
    }
  }
  return undefined;
}

/** `a.b.c` for a path, cut to `max` characters with "..." in the middle so both ends show. */
export function shortPath(path: ReadonlyArray<string | number>, max = 80): string {
  const text = path.map(String).join('.');
  if (text.length <= max) return text;
  const half = Math.floor((max - 3) / 2);
  return `${text.slice(0, half)}...${text.slice(-half)}`;
}

/** "an object with 2 fields", "a string of 19 characters": a value described without its content. */
export function shapeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return `an array of ${value.length} item${value.length === 1 ? '' : 's'}`;
  if (typeof value === 'object') {
    const n = Object.keys(value).length;
    return `an object with ${n} field${n === 1 ? '' : 's'}`;
  }
  if (typeof value === 'string') return `a string of ${value.length} character${value.length === 1 ? '' : 's'}`;
  return `a ${typeof value}`;
}

// Deep enough to show a small object whole, shallow enough that JSON.stringify cannot overflow.
const PREVIEW_DEPTH = 8;

/**
 * How an error message shows the value it refuses: its shape when the value sits inside a secret
 * field (any segment of `path`) or holds one (any depth), or is too deep to print; otherwise the
 * value itself, cut to 40 characters.
 */
export function describeValue(path: ReadonlyArray<PropertyKey>, value: unknown): string {
  const inSecret = path.some((key) => typeof key === 'string' && SECRET_FIELDS.has(key));
  const found = walk(value, PREVIEW_DEPTH);
  if (inSecret || found.secret || found.tooDeep) return shapeOf(value);
  const text = typeof value === 'string' ? value : String(JSON.stringify(value));
  if (text.length > 40) return JSON.stringify(`${text.slice(0, 37)}...`);
  return typeof value === 'string' ? JSON.stringify(value) : text;
}
