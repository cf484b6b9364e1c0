// POST /_sandbox/signatures/diagnose: why a webhook handler's signature check fails, answered from
// what the handler received and what the sandbox sent and signed with (services/signatures.ts);
// POST /_sandbox/signatures/sign: the headers the worker would send with a body of the caller's.
import { Hono } from 'hono';
import { diagnoseSignatureSchema } from '../../contracts/signature-diagnosis-schema.js';
import { signWebhookSchema } from '../../contracts/sign-webhook-schema.js';
import {
  signatureDiagnosisView,
  signedHeadersView,
  toSignatureDiagnosisView,
  type SignedHeadersView,
} from '../../views/signature-diagnosis.js';
import type { AppDeps, AppEnv } from '../app-env.js';
import { controlRoute } from './control-route.js';
import type { OpenApiRoute } from '../openapi/route.js';
import { validJson } from '../validation.js';

/** POST /signatures/diagnose under /_sandbox. */
export function controlSignatureRoutes(deps: AppDeps) {
  const app = new Hono<AppEnv>();
  app.post('/signatures/diagnose', async (c) => {
    const received = await validJson(c, diagnoseSignatureSchema);
    return c.json(toSignatureDiagnosisView(deps.services.signatures.diagnose(received)));
  });
  app.post('/signatures/sign', async (c) => {
    const input = await validJson(c, signWebhookSchema);
    return c.json({ headers: deps.services.signatures.sign(input) } satisfies SignedHeadersView);
  });
  return app;
}

/** The routes of this module, for /openapi.json. */
export const signaturesOpenApi: OpenApiRoute[] = [
  controlRoute(
    'post',
    '/signatures/diagnose',
    'Why a webhook signature check fails: send the headers, raw body and secret your handler had; the sandbox compares them with what it sent and signed with',
    '{valid, cause, message}: whether the signature verifies, the cause when it does not, and one line saying what to change',
    { body: diagnoseSignatureSchema, responseSchema: signatureDiagnosisView },
  ),
  controlRoute(
    'post',
    '/signatures/sign',
    'Sign a body of your own as the delivery worker signs a webhook of a merchant or a registered endpoint, with its secret and mode (sandbox send); the secret stays in the sandbox',
    '{headers}: every header the worker sends with that body now (signature, event id and type, delivery id, attempt, timestamp, content type)',
    { body: signWebhookSchema, responseSchema: signedHeadersView, errors: ['resource_missing'] },
  ),
];
