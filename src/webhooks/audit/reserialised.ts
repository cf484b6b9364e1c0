// The raw-body case of the webhook audit: the body it signs, which no JSON library writes back the
// same after parsing it, and the bodies a handler that re-serialises would have verified instead.
// The commonest webhook bug is an HMAC over JSON the handler parsed and serialised again
// (`JSON.stringify(req.body)`, `json_encode($data)`, `json.dumps(request.json)`): it verifies every
// body that happens to be in that library's form and no other. A correct handler takes the case's
// body; one that refuses it and takes the same event re-serialised by one of these libraries is
// named, with how that library writes JSON, so the merchant knows which line to change.

/** One way a handler may change the body before verifying it, and the bytes it would have verified. */
export interface Reserialisation {
  /** The body that way, in words ("in JSON.stringify's form"). */
  form: string;
  /** What the handler does, in words. */
  does: string;
  /** The body that way, from the body sent. */
  body: (sent: string) => string;
}

/** \uXXXX escapes of every non-ASCII character (UTF-16 units, as PHP and Python write them). */
function asciiOnly(json: string): string {
  return json.replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Python's json.dumps(value): ", " and ": " between items, non-ASCII as \u escapes. */
function pythonDumps(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(pythonDumps).join(', ')}]`;
  if (value !== null && typeof value === 'object')
    return `{${Object.entries(value)
      .map(([key, item]) => `${asciiOnly(JSON.stringify(key))}: ${pythonDumps(item)}`)
      .join(', ')}}`;
  return asciiOnly(JSON.stringify(value));
}

/**
 * The changes the audit tries, most telling first: the final newline trimmed (a handler that trims,
 * or reads the body as text a framework trimmed), then the serialisers of Node, PHP and Python.
 */
export const RESERIALISATIONS: readonly Reserialisation[] = [
  {
    form: 'without its final newline',
    does: 'trims the body before verifying it (or reads it through something that trims)',
    body: (sent) => sent.trimEnd(),
  },
  {
    form: "in the form Node's JSON.stringify writes",
    does: 'verifies JSON it parsed and serialised again with JSON.stringify, such as JSON.stringify(req.body) after express.json()',
    body: (sent) => JSON.stringify(JSON.parse(sent)),
  },
  {
    form: "in the form PHP's json_encode writes",
    does: 'verifies JSON it parsed and serialised again with json_encode, such as json_encode(json_decode($raw))',
    body: (sent) => asciiOnly(JSON.stringify(JSON.parse(sent))).replace(/\//g, '\\/'),
  },
  {
    form: "in the form Python's json.dumps writes",
    does: 'verifies JSON it parsed and serialised again with json.dumps, such as json.dumps(request.json)',
    body: (sent) => pythonDumps(JSON.parse(sent)),
  },
];

/** Metadata notes the raw-body case adds to its event: non-ASCII text and a slash, which serialisers write differently. */
export const RAW_BODY_NOTES = { audit_note: 'Café/Zürich, 東京', audit_note_escaped: 'Café/Zürich, 東京' } as const;

/**
 * The raw-body case's body: the envelope as the sandbox writes it (indented, a final newline), with
 * the second note written with escapes (\u00e9, \/) and the first one without, so the same text
 * appears in two spellings that no serialiser writes both of.
 */
export function rawBodyText(envelope: string): string {
  const plain = `"audit_note_escaped": ${JSON.stringify(RAW_BODY_NOTES.audit_note_escaped)}`;
  const escaped = `"audit_note_escaped": ${asciiOnly(JSON.stringify(RAW_BODY_NOTES.audit_note_escaped)).replace(/\//g, '\\/')}`;
  return envelope.replace(plain, escaped);
}

/** How to read the raw body in the frameworks handlers are written in: the fix the raw-body case gives. */
export const RAW_BODY_RECIPES =
  "verify the HMAC over the bytes received, before any parsing: Express app.post('/webhooks', express.raw({ type: 'application/json' }), ...) then req.body is the Buffer; Node http Buffer.concat() of the request's 'data' chunks; PHP file_get_contents('php://input'); Python request.get_data() (Flask) or request.body (Django)";
