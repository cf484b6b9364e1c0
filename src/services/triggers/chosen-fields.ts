// `sandbox trigger --set field=value`: checks the chosen fields against the event's row of
// domain/trigger-fields.ts (400 naming a field the event does not take, or one that cannot change
// on the payment given), and turns the dotted paths into the nested body the API's request takes.
// The values themselves are judged by the API's own schema where the object is made; its 400 then
// names the field as the trigger's request has it (set.amount).
import { closestNames } from '../../domain/closest-names.js';
import type { EventType } from '../../domain/event-types.js';
import { fieldListed, SETTABLE_FIELDS, TRIGGER_FIELDS } from '../../domain/trigger-fields.js';
import { SandboxError } from '../../errors.js';

/** Chosen fields as the request body nests them, e.g. {metadata: {order_id: "42"}}. */
export type SetFields = Record<string, unknown>;

/** Checks `set` (dotted path → value) for `type`, new object or `onExisting`; returns it nested. */
export function chosenFields(type: EventType, set: Record<string, unknown>, onExisting: string | undefined): SetFields {
  const rule = TRIGGER_FIELDS[type];
  const nested: SetFields = {};
  for (const [path, value] of Object.entries(set)) {
    const param = `set.${path}`;
    if (!rule.object) throw new SandboxError('parameter_unknown', `${type} takes no fields; remove ${path} from set`, param);
    const fields = SETTABLE_FIELDS[rule.object];
    if (!fieldListed(fields, path)) {
      throw new SandboxError(
        'parameter_unknown',
        `${path} is not a field trigger sets for ${type};${meant(fields, path)} the ${rule.object} takes ${fields.join(', ')} (see sandbox trigger --help)`,
        param,
      );
    }
    if (onExisting !== undefined && !fieldListed(rule.onPayment, path)) {
      throw new SandboxError(
        'parameter_invalid',
        `${path} cannot change on ${onExisting}, which exists already; ${type} with payment_id takes ${rule.onPayment.length ? rule.onPayment.join(', ') : 'no fields'}. Leave out payment_id to make a new ${rule.object} with it`,
        param,
      );
    }
    put(nested, path.split('.'), value);
  }
  return nested;
}

/**
 * " did you mean amount?" for a mistyped field (`amout`), or "" when none is close. The first
 * segment is held against the fields' names (`metdata.order_id` means `metadata.order_id`).
 */
function meant(fields: readonly string[], path: string): string {
  const [head = '', ...rest] = path.split('.');
  const names = fields.map((field) => (field.endsWith('.*') ? field.slice(0, -2) : field));
  const closest = closestNames(head, names, 2).map((name) => {
    const nested = fields.includes(`${name}.*`);
    return nested && rest.length ? [name, ...rest].join('.') : nested ? `${name}.<key>` : name;
  });
  return closest.length ? ` did you mean ${closest.join(' or ')}?` : '';
}

/**
 * `err` naming its field as the trigger's request names it: the API's own 400 on `amount` (or
 * `metadata.order_id`) is about `set.amount` (`set.metadata.order_id`), the field the caller sent.
 * Errors about anything else (payment_id, the state of a payment) are returned as they are.
 */
export function namedUnderSet(err: unknown, set: Record<string, unknown>): unknown {
  if (!(err instanceof SandboxError) || err.param === undefined || err.param.startsWith('set.')) return err;
  const param = err.param;
  const fromSet = Object.keys(set).some((path) => path === param || path.startsWith(`${param}.`) || param.startsWith(`${path}.`));
  return fromSet ? new SandboxError(err.code, err.message, `set.${param}`, err.headers) : err;
}

/** `base` with `fields` laid over it; objects in both (metadata, customer) are merged key by key. */
export function withFields(base: Record<string, unknown>, fields: SetFields): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(fields)) {
    const under = out[key];
    define(out, key, isPlainObject(under) && isPlainObject(value) ? withFields(under, value) : value);
  }
  return out;
}

function put(target: Record<string, unknown>, keys: string[], value: unknown): void {
  const [key, ...rest] = keys as [string, ...string[]];
  if (rest.length === 0) {
    define(target, key, value);
    return;
  }
  const under = target[key];
  const next = isPlainObject(under) && Object.hasOwn(target, key) ? under : {};
  define(target, key, next);
  put(next, rest, value);
}

// Defined, not assigned, so a path such as metadata.__proto__ is a plain key the API then judges.
function define(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
