// The OpenAPI 3.1 document of GET /openapi.json, assembled from the route lists each route module
// exports (OpenApiRoute[], next to the routes it defines; http/openapi-routes.ts collects them).
// Request schemas are the same zod schemas that validate the requests, converted with
// z.toJSONSchema, so the document and the validation cannot drift.
import { VERSION } from '../../version.js';
import { Components, ERROR_SCHEMA } from './components.js';
import { loadExamples } from './examples.js';
import { operation } from './operation.js';
import { type OpenApiRoute, openApiPath } from './route.js';
import { OPENAPI_TAGS } from './tags.js';
import { webhookOperations } from './webhooks.js';

/** Assembles the OpenAPI 3.1 document from route lists. */
export function buildOpenApiDocument(routes: readonly OpenApiRoute[], serverUrl: string): Record<string, unknown> {
  const components = new Components();
  const examples = loadExamples(serverUrl);
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const path = openApiPath(route.path);
    paths[path] ??= {};
    paths[path][route.method] = operation(route, components, examples);
  }
  const webhooks = webhookOperations(components, examples.webhooks);
  components.schemas.Error = { ...ERROR_SCHEMA, examples: [examples.error] };
  return {
    openapi: '3.1.0',
    info: {
      title: 'paysandbox',
      version: VERSION,
      description:
        'A local, stateful sandbox of the payment gateway. Errors use one body shape (components.schemas.Error); webhooks lists what the sandbox POSTs to your endpoints.',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: serverUrl }],
    tags: OPENAPI_TAGS,
    paths,
    webhooks,
    components: {
      schemas: components.schemas,
      securitySchemes: {
        apiKey: { type: 'http', scheme: 'bearer', description: 'an sk_test_ API key, e.g. sk_test_sandbox' },
        controlToken: {
          type: 'http',
          scheme: 'bearer',
          description: 'the --control-token value; not needed from loopback when none is set',
        },
      },
    },
  };
}
