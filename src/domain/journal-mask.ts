// What the request journal may keep of a request or an answer: the one masking function every text
// goes through before it is stored (bodies, the query, header values). A card number keeps its
// first six and last four digits, a CVV, a key or a secret is replaced by "[redacted]", whatever
// the field's place or form: JSON at any depth, a form or query string, or plain text.
//
// Most texts hold nothing to mask (an answer with ids and amounts), and one regular expression says
// so without parsing them; only a text it flags is parsed (JSON) or scanned pair by pair (forms).
import { luhnValid } from './card.js';

/** What replaces a CVV, key or secret. */
export const REDACTED = '[redacted]';

/** Field names whose whole value is never kept (compared lower-case, without _ - and spaces). */
const SECRET_FIELDS = new Set([
  'cvc',
  'cvv',
  'cvv2',
  'cvc2',
  'ccvv',
  'csc',
  'cid',
  'securitycode',
  'cardcvc',
  'cardcvv',
  'privatekey',
  'apikey',
  'password',
  'passwd',
  'encrypteddata',
  'authorization',
  'csrf',
  'controltoken',
]);

/** A field that holds a whole card (a number with its expiry and CVV) unless it is an object of named fields. */
const CARD_FIELD = 'card';

/** Keys already read (the same few dozen field names come in every body): fieldKey() of each. */
const FIELD_KEYS = new Map<string, string>();
/** At most this many names of at most this length are kept: names come from request bodies, so a body of long, made-up names must not grow the map. */
const FIELD_KEYS_KEPT = 2048;
const FIELD_KEY_CHARS = 64;

function fieldKey(name: string): string {
  let key = FIELD_KEYS.get(name);
  if (key === undefined) {
    key = name.toLowerCase().replace(/[\s_-]/g, '');
    if (FIELD_KEYS.size < FIELD_KEYS_KEPT && name.length <= FIELD_KEY_CHARS) FIELD_KEYS.set(name, key);
  }
  return key;
}

/** A card given as one value ("4242...|12|30|123", or [number, cvc]): its CVV may be anywhere in it. */
const wholeCard = (field: string, value: unknown) => fieldKey(field) === CARD_FIELD && (typeof value !== 'object' || Array.isArray(value));

/** True for a field whose value is a secret: the names above, and every *secret (webhook_secret, client_secret). */
export function isSecretField(name: string): boolean {
  const key = fieldKey(name);
  return SECRET_FIELDS.has(key) || key.endsWith('secret');
}

// A run of 13 to 19 digits, spaces or dashes between them allowed, not inside a longer run of digits.
const DIGIT_RUN = /(?<!\d)\d(?:[ -]?\d){12,18}(?!\d)/g;
// The same with dots between the digits too ("4242.4242.4242.4242"), read after DIGIT_RUN has masked
// what it finds: read first, a card number followed by ".50" would run on into 18 digits that fail Luhn.
const DOTTED_RUN = /(?<!\d)\d(?:[ .-]?\d){12,18}(?!\d)/g;
const RUN_SEPARATORS = /[ .-]/g;
/** What a run needs for DOTTED_RUN to read it apart from DIGIT_RUN; a text without it is not read twice. */
const DIGIT_DOT_DIGIT = /\d\.\d/;
const API_KEY = /\b(sk|rk)_(test|live)_[A-Za-z0-9_]+/g;
const SIGNING_SECRET = /\bwhsec_[A-Za-z0-9+/=_-]+/g;
/** What any of the three above needs to match (13 digits in a run, a key's or a secret's marker): a value without it is kept unscanned. */
const VALUE_MAY_HOLD = /\d(?:[ .-]?\d){12}|_(?:test|live)_|whsec_/;
/** Bare JSON numbers above 2^53 and below this (19 digits at most, a card's longest) are redacted whole (maskJson). */
const UNREADABLE_UP_TO = 1e19;
/**
 * What a JSON text needs to hold such a number: 16 digits in a run, or a number with an exponent
 * where a value starts (not any digit-e-digit: one in nine of the ids' random parts has one).
 */
const MAY_HOLD_UNREADABLE = /\d{16}|(?:^|[:,[])\s*-?\d+(?:\.\d+)?[eE][+-]?\d/;
/** What a pair, JSON or an escape needs: a text without any of these, and without what VALUE_MAY_HOLD looks for, is kept unread. */
const MAY_HOLD_ANY = /[={[%+\\]/;

// Milliseconds of 2015-2050: a 13-digit time, and a 15-digit transID (that time x 100, spec-like ids).
const EARLIEST_MS = 1_420_070_400_000;
const LATEST_MS = 2_524_608_000_000;

/** True for 15 digits that are a millisecond of 2015-2050 times 100 plus a counter: the sandbox's transIDs (ids.ts newTransId). */
export function isTransIdShaped(digits: string): boolean {
  return digits.length === 15 && Number(digits) / 100 >= EARLIEST_MS && Number(digits) / 100 <= LATEST_MS;
}

/**
 * True for digits shaped like a time or a transID rather than a card: 13 digits that are a
 * millisecond of 2015-2050, or 15 that are one times 100 plus a counter (the sandbox's transIDs).
 * No card network the sandbox knows numbers its cards so (Visa's 13-digit cards start with 4).
 */
function isTimeOrTransId(digits: string): boolean {
  const value = Number(digits);
  return (digits.length === 13 && value >= EARLIEST_MS && value <= LATEST_MS) || isTransIdShaped(digits);
}

// What says a text may need masking, read without parsing it (most texts, an answer of ids and
// amounts, need none). It must flag every text the masking below would change: a secret field's or
// a whole card's name as fieldKey() reads it (so with spaces, _ - and, in a form, + taken out), a
// key or signing secret by its prefix, a JSON escape (which could spell either), and a run of digits
// that is a card number (Luhn, not a time or a transID) or a JSON number written with a fraction or
// an exponent (its value could be one), and a JSON number past what a double holds exactly (16
// digits or an exponent). A form is read decoded too (%34 is a 4, + a space).
// One pass: a secret field's name, or a whole card's (in JSON, a card that is not an object or
// null; in a form, card= or card[). An empty string is flagged too: the separators are taken out of
// the whole text, values included, so "card":"-" reads as "card":"" here.
const SECRET_OR_CARD_NAME = new RegExp(`${[...SECRET_FIELDS, 'secret'].join('|')}|"card":(?!\\{|null\\b)|card[=[\\]]`, 'i');
const KEY_PREFIX = /(?:sk|rk)_(?:test|live)_|whsec_/i;
const NAME_SEPARATORS = /[\s_+\x80-]+/g;
const PERCENT_BYTE = /%([0-9a-f]{2})/gi;

/** True when a digit run in `text` is masked by maskValueText, or (in JSON) is a number whose value could be. */
function hasCardDigits(text: string, json: boolean): boolean {
  for (const match of text.matchAll(DIGIT_RUN)) {
    if (cardDigits(match[0]) !== undefined) return true;
    if (json) {
      const end = (match.index ?? 0) + match[0].length;
      if (text.charAt((match.index ?? 0) - 1) === '.' || /[.eE]/.test(text.charAt(end))) return true;
    }
  }
  // When DIGIT_RUN masked nothing, DOTTED_RUN reads the text as it came.
  if (DIGIT_DOT_DIGIT.test(text)) for (const match of text.matchAll(DOTTED_RUN)) if (cardDigits(match[0]) !== undefined) return true;
  return false;
}

/** The digits of a run (separators taken out) when it is masked as a card number: Luhn-valid, and not shaped like a time or a transID. */
function cardDigits(run: string): string | undefined {
  const digits = run.replace(RUN_SEPARATORS, '');
  return luhnValid(digits) && !isTimeOrTransId(digits) ? digits : undefined;
}

/** A run's mask when it is a card number (cardDigits), else the run as it is. */
function maskRun(run: string): string {
  const digits = cardDigits(run);
  return digits === undefined ? run : maskDigits(digits);
}

/** A form's bytes as text: + a space, %XX its byte, a byte of a non-ASCII character \x80 (no name's letter, no digit, no separator). */
function formBytes(text: string): string {
  return text.replace(/\+/g, ' ').replace(PERCENT_BYTE, (_, hex: string) => {
    const byte = Number.parseInt(hex, 16);
    return byte < 0x80 ? String.fromCharCode(byte) : '\x80';
  });
}

/** True when masked() may change `text` (see above); false says for sure it would not. */
function mayNeedMasking(text: string, json: boolean): boolean {
  if (json && (text.includes('\\u') || MAY_HOLD_UNREADABLE.test(text) || hasSplitCard(text))) return true;
  // Read as a form too: text that looks like JSON and is not is masked as a form.
  const plain = /[%+]/.test(text) ? formBytes(text) : text;
  if (KEY_PREFIX.test(plain)) return true;
  if (SECRET_OR_CARD_NAME.test(plain.replace(NAME_SEPARATORS, ''))) return true;
  return hasCardDigits(text, json) || (plain !== text && hasCardDigits(plain, false)) || splitFormCards(text) !== undefined;
}

/** A card number's mask: first six and last four digits, the ones between as *. */
function maskDigits(digits: string): string {
  return digits.slice(0, 6) + '*'.repeat(digits.length - 10) + digits.slice(-4);
}

// A card number split across a JSON array's items (["4242","4242","4242","4242"], [4242, 4242, ...])
// or a form field's pairs (ccno=4242&ccno=4242&...): no part is a card, their digits in turn are.
// Parts are digits with the separators a run allows, or whole numbers; what an array's text needs
// for the look before parsing to flag it is PARTS_MAY_HOLD, two or more such items as JSON may write
// them (hasSplitCard counts their digits).
const PART = /^[\d .-]*$/;
/** More digits than a card number has: parts past it spell none, so a long list (a hostile body's thousands of numbers) is not read on. */
const PAST_A_CARD = 19;
const PART_TEXT = String.raw`(?:"[\d .-]*"|-?[\d.eE+-]+)`;
/** How such an array's text starts (a quote and a digit, separator or the quote closing an empty item; or a number): most texts have none, and are not scanned further. */
const PARTS_START = /\[\s*(?:"[\d .\-"]|[-\d])/;
const PARTS_MAY_HOLD = new RegExp(String.raw`\[\s*${PART_TEXT}(?:\s*,\s*${PART_TEXT})+\s*\]`, 'g');

/**
 * True when `text` holds an array that splitCardMasked() may mask (it may flag one it would not):
 * 13 to 19 digits in its text, or more beside a dot (4242.0 is the part 4242, so a number's text may
 * hold digits its value does not; an exponent is flagged by MAY_HOLD_UNREADABLE, an escape by \u).
 */
function hasSplitCard(text: string): boolean {
  if (!PARTS_START.test(text)) return false;
  for (const [array] of text.matchAll(PARTS_MAY_HOLD)) {
    const digits = digitCount(array);
    if (digits >= 13 && (digits <= PAST_A_CARD || array.includes('.'))) return true;
  }
  return false;
}

/** The mask of the card number two or more parts spell, digits in turn (cardDigits, 13-19 of them: `digitsInAll`, which each caller counted as it read the parts); undefined when they spell none. */
function partsMask(parts: string[], digitsInAll: number): string | undefined {
  if (parts.length < 2 || digitsInAll < 13 || digitsInAll > PAST_A_CARD) return undefined;
  const digits = cardDigits(parts.join(''));
  return digits === undefined ? undefined : maskDigits(digits);
}

/** How many of a text's characters are digits. */
function digitCount(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 48 && code <= 57) count++;
  }
  return count;
}

/**
 * The items of an array that together spell a card number (cardDigits of their digits in turn),
 * each digit put back in its place masked, every item as a string; undefined when they do not.
 */
function splitCardMasked(items: unknown[]): string[] | undefined {
  const parts: string[] = [];
  let digits = 0;
  for (const item of items) {
    let part: string;
    if (typeof item === 'string' && PART.test(item)) part = item;
    else if (typeof item === 'number' && Number.isSafeInteger(item) && item >= 0) part = String(item);
    else return undefined;
    digits += digitCount(part);
    if (digits > PAST_A_CARD) return undefined;
    parts.push(part);
  }
  const mask = partsMask(parts, digits);
  if (mask === undefined) return undefined;
  let at = 0;
  return parts.map((part) => part.replace(/\d/g, () => mask.charAt(at++)));
}

/** Card numbers, API keys and signing secrets inside one value or a plain text. */
function maskValueText(text: string, look: boolean): string {
  if (look && !VALUE_MAY_HOLD.test(text)) return text;
  const undotted = text.replace(DIGIT_RUN, maskRun);
  return (DIGIT_DOT_DIGIT.test(text) ? undotted.replace(DOTTED_RUN, maskRun) : undotted)
    .replace(API_KEY, (_key, kind: string, mode: string) => `${kind}_${mode}_${REDACTED}`)
    .replace(SIGNING_SECRET, `whsec_${REDACTED}`);
}

/** How deep a JSON value is walked; what lies deeper is replaced whole (and JSON.stringify stays shallow). */
const MAX_DEPTH = 32;

/** A JSON value with every secret field redacted and every card number masked; `changed` says whether anything was. */
function maskJson(root: unknown, look: boolean): { value: unknown; changed: boolean } {
  let changed = false;
  const visit = (value: unknown, field: string | undefined, depth: number): unknown => {
    if (field !== undefined && value !== null && value !== '' && (isSecretField(field) || wholeCard(field, value))) {
      changed = true;
      return REDACTED;
    }
    if (typeof value === 'string') {
      const out = maskValueText(value, look);
      if (out !== value) changed = true;
      return out;
    }
    if (typeof value === 'number') {
      // A bare number past 2^53 was parsed to the nearest double: its digits here are not the ones
      // the text holds (a 19-digit card sent unquoted), so neither are a mask of them. Not kept.
      if (value > Number.MAX_SAFE_INTEGER && value < UNREADABLE_UP_TO) {
        changed = true;
        return REDACTED;
      }
      const digits = Number.isInteger(value) && value > 0 ? String(value) : '';
      if (digits.length >= 13 && digits.length <= 19 && luhnValid(digits) && !isTimeOrTransId(digits)) {
        changed = true;
        return maskDigits(digits);
      }
      return value;
    }
    if (value === null || typeof value !== 'object') return value;
    if (depth >= MAX_DEPTH) {
      changed = true;
      return '[nested too deep]';
    }
    if (Array.isArray(value)) {
      const parts = splitCardMasked(value);
      if (parts !== undefined) {
        changed = true;
        return parts;
      }
      return value.map((item) => visit(item, undefined, depth + 1));
    }
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      const masked = visit(item, key, depth + 1);
      // A card number used as a key is masked too.
      const name = maskValueText(key, look);
      if (name !== key) changed = true;
      // defineProperty: a key named __proto__ stays a key (an assignment would set the prototype).
      if (name === '__proto__') Object.defineProperty(out, name, { value: masked, enumerable: true, writable: true, configurable: true });
      else out[name] = masked;
    }
    return out;
  };
  const value = visit(root, undefined, 0);
  return { value, changed };
}

/** Form text decoded (+ is a space); as written when an escape is malformed. */
function decodedFormText(text: string): string {
  if (!text.includes('%') && !text.includes('+')) return text;
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}

/** The last name of a form field: cvc of card[cvc] (or card%5Bcvc%5D), the field itself otherwise. */
function formFieldName(rawKey: string): string {
  const key = decodedFormText(rawKey);
  const inner = /\[([^\]]*)\]$/.exec(key);
  return inner?.[1] ? inner[1] : key.replace(/\[\]$/, '');
}

/** A pair of a form or query string: its separator before, its key and its value, both as sent. */
const FORM_PAIR = /(^|[&?;])([^=&?;\s]+)=([^&;\s]*)/g;

/** The field a form pair's key gives a part of: ccno of ccno, ccno[] and ccno[2] alike. */
const formGroup = (key: string) => decodedFormText(key).replace(/\[\d*\]$/, '');

/**
 * The fields of a form given in parts (ccno=4242&ccno=4242&... or ccno[]=4242&...) whose values,
 * digits in turn, spell a card number (as an array's items do in JSON), each with its mask.
 */
function splitFormCards(text: string): Map<string, string> | undefined {
  if (!text.includes('=')) return undefined;
  // Each field's parts with their digits counted; a field past a card's digits is kept as null.
  const parts = new Map<string, { list: string[]; digits: number } | null>();
  for (const [, , key = '', value = ''] of text.matchAll(FORM_PAIR)) {
    const plain = decodedFormText(value);
    if (plain === '' || !PART.test(plain)) continue;
    const group = formGroup(key);
    const field = parts.get(group);
    if (field === null) continue;
    const digits = (field?.digits ?? 0) + digitCount(plain);
    if (digits > PAST_A_CARD) parts.set(group, null);
    else if (field) {
      field.list.push(plain);
      field.digits = digits;
    } else parts.set(group, { list: [plain], digits });
  }
  const cards = new Map<string, string>();
  for (const [group, field] of parts) {
    const mask = field ? partsMask(field.list, field.digits) : undefined;
    if (mask !== undefined) cards.set(group, mask);
  }
  return cards.size > 0 ? cards : undefined;
}

/** A form or query string (or any text): secret fields' values redacted pair by pair, then card numbers and keys masked. */
function maskPlainText(text: string, look: boolean): string {
  const cards = splitFormCards(text);
  const used = new Map<string, number>();
  const pairs = text.replace(FORM_PAIR, (whole, sep: string, key: string, value: string) => {
    const name = formFieldName(key);
    if (value === '') return whole;
    if (isSecretField(name) || fieldKey(name) === CARD_FIELD) return `${sep}${key}=${encodeURIComponent(REDACTED)}`;
    // The value as the form means it (4242+4242 is "4242 4242"), masked, and encoded again only when changed.
    const plain = decodedFormText(value);
    const group = cards && PART.test(plain) ? formGroup(key) : undefined;
    const mask = group === undefined ? undefined : cards?.get(group);
    if (group !== undefined && mask !== undefined) {
      // A part of a card split across the field's pairs: its digits masked in their places.
      let at = used.get(group) ?? 0;
      const out = plain.replace(/\d/g, () => mask.charAt(at++));
      used.set(group, at);
      return `${sep}${key}=${encodeURIComponent(out)}`;
    }
    const out = maskValueText(plain, look);
    return out === plain ? whole : `${sep}${key}=${encodeURIComponent(out)}`;
  });
  return maskValueText(pairs, look);
}

/**
 * A text as the journal may keep it (the one masking function): card numbers to their first six
 * and last four digits; CVVs, private and API keys, signing secrets, passwords, encrypted data and
 * CSRF tokens to "[redacted]". JSON is masked field by field (and written again only when something
 * was masked); anything else (forms, query strings, text) pair by pair and by pattern.
 */
export function masked(text: string): string {
  return maskText(text, true);
}

/**
 * masked() without its quick looks (the tests ahead of each rule that say a text holds nothing to
 * mask): what the property test (test/unit/journal-mask-looks.test.ts) holds masked() to.
 */
export function maskedWithoutLooks(text: string): string {
  return maskText(text, false);
}

function maskText(text: string, look: boolean): string {
  // Most header values and paths: without a pair (=), JSON ({ [), an escape (% + \), 13 digits in
  // a run or a key's or secret's marker, no rule below can change the text.
  if (look && !MAY_HOLD_ANY.test(text) && !VALUE_MAY_HOLD.test(text)) return text;
  const first = text.trimStart().charAt(0);
  const json = first === '{' || first === '[';
  if (look && !mayNeedMasking(text, json)) return text;
  if (json) {
    let parsed: { value: unknown } | undefined;
    try {
      parsed = { value: JSON.parse(text) };
    } catch {
      parsed = undefined;
    }
    if (parsed) {
      const { value, changed } = maskJson(parsed.value, look);
      return changed ? JSON.stringify(value) : text;
    }
  }
  return maskPlainText(text, look);
}

/** Request headers as the journal keeps them: credentials and cookies redacted (the scheme of Authorization kept), every value masked. */
export function maskedHeaders(headers: Iterable<[string, string]>): Record<string, string> {
  const out: Record<string, string> = Object.create(null);
  for (const [name, value] of headers) {
    const lower = name.toLowerCase();
    if (lower === 'authorization' || lower === 'proxy-authorization') {
      const scheme = /^\s*(\S+)\s/.exec(value)?.[1];
      out[lower] = scheme ? `${scheme} ${REDACTED}` : REDACTED;
    } else if (lower === 'cookie' || isSecretField(lower.replace(/^x-/, ''))) out[lower] = REDACTED;
    else out[lower] = masked(value);
  }
  return out;
}
