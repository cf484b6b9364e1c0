// The 400 a request gets when a webhook URL it gives is the sandbox's own control API: the rule is
// domain/control-target.ts, the names of this machine runtime/machine-names.ts.
import { controlTargetProblem } from '../domain/control-target.js';
import { parseHttpUrl } from '../domain/http-url.js';
import { SandboxError } from '../errors.js';
import { isControlTarget, type Where } from '../runtime/machine-names.js';

/** Refuses a webhook URL the request gave in `field` when it is the control API: a 400 naming the field. */
export function refuseControlTarget(text: string | null | undefined, field: string, config: Where): void {
  if (!text) return;
  const url = parseHttpUrl(text);
  if (url && isControlTarget(url, config)) throw new SandboxError('parameter_invalid', `${field} ${controlTargetProblem(text)}`, field);
}
