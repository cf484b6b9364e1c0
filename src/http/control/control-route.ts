// The OpenAPI entry of a /_sandbox route: the control tag, the control credential and the mount
// prefix, so each control module lists only what differs.
import type { OpenApiRoute } from '../openapi/route.js';

/** An OpenApiRoute for `/_sandbox${path}`. */
export function controlRoute(
  method: OpenApiRoute['method'],
  path: string,
  summary: string,
  response: string,
  extra: Partial<OpenApiRoute> = {},
): OpenApiRoute {
  return { method, path: `/_sandbox${path}`, summary, response, tag: 'Sandbox control', auth: 'control', ...extra };
}
