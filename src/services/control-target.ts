// The 400 a request gets when a webhook URL it gives is the sandbox's own control API: the rule is
// domain/control-target.ts, the names of this machine runtime/machine-names.ts.
import { controlTargetProblem, isControlPath } from '../domain/control-target.js';
import { parseHttpUrl } from '../domain/http-url.js';
import { SandboxError } from '../errors.js';
import { isControlTarget, type Where } from '../runtime/machine-names.js';

/**
 * URLs whose path is no control path, per sandbox: never the control API, whatever this machine's
 * names become. A merchant's creates name the same few, and each check was a URL parse per create.
 */
const allowed = new WeakMap<Where, Set<string>>();
/** URLs remembered per sandbox at most (per-order URLs are all different); past it the set starts over. */
const ALLOWED_MAX = 1024;

/** Refuses a webhook URL the request gave in `field` when it is the control API: a 400 naming the field. */
export function refuseControlTarget(text: string | null | undefined, field: string, config: Where): void {
  if (!text) return;
  let known = allowed.get(config);
  if (known?.has(text)) return;
  const url = parseHttpUrl(text);
  if (url && isControlTarget(url, config)) throw new SandboxError('parameter_invalid', `${field} ${controlTargetProblem(text)}`, field);
  if (!url || isControlPath(url.pathname)) return;
  if (!known) {
    known = new Set();
    allowed.set(config, known);
  } else if (known.size >= ALLOWED_MAX) known.clear();
  known.add(text);
}
