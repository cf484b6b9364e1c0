// Every command warns about a SANDBOX_* variable that looks like a typo of one the sandbox reads.
import { CLIENT_ENV, START_ENV } from '../config.js';
import { closestNames } from '../domain/closest-names.js';

/**
 * One warning per SANDBOX_* variable that nothing reads but that is a near miss of one that is
 * (SANDBOX_PROT for SANDBOX_PORT): without it the typo is ignored and the default used silently.
 * Other SANDBOX_* names (a script's own SANDBOX_CLI) are left alone: the allowed distance grows
 * with the name, so a short name must be almost right to count as a typo.
 */
export function unknownVariableWarnings(env: NodeJS.ProcessEnv = process.env): string[] {
  const known = [...new Set([...Object.values(START_ENV), ...Object.values(CLIENT_ENV)])];
  const suffixes = known.map((name) => name.slice('SANDBOX_'.length));
  const warnings: string[] = [];
  for (const name of Object.keys(env).sort()) {
    if (!name.startsWith('SANDBOX_') || known.includes(name)) continue;
    const suffix = name.slice('SANDBOX_'.length);
    const closest = closestNames(suffix, suffixes, Math.min(3, Math.ceil(suffix.length / 2)));
    if (closest.length)
      warnings.push(`${name} is set, but no sandbox option reads it; did you mean ${closest.map((s) => `SANDBOX_${s}`).join(' or ')}?`);
  }
  return warnings;
}
