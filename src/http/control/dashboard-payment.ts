// A payment's page in the dashboard: its timeline (services/journal/timeline.ts) drawn as a
// sequence diagram, and the diagram alone for the live script. An id that names no payment gets a
// page saying so (404) rather than the JSON error a script would read.
import type { Hono } from 'hono';
import { SandboxError } from '../../errors.js';
import { PaymentFragment, PaymentMissingPage, PaymentPage } from '../../pages/dashboard/payment.js';
import type { Services } from '../../services/services.js';
import { toTimelineView } from '../../views/timeline.js';
import type { AppEnv } from '../app-env.js';

/** GET /_sandbox/dashboard/payments/:id and its /fragment. */
export function paymentPageRoutes(app: Hono<AppEnv>, services: Services) {
  const timelineOf = (id: string) => toTimelineView(services.timelines.of(id));

  app.get('/_sandbox/dashboard/payments/:id', (c) => {
    const id = c.req.param('id');
    const now = services.clock.now();
    try {
      return c.html(PaymentPage({ timeline: timelineOf(id), now }));
    } catch (err) {
      if (!(err instanceof SandboxError && err.code === 'resource_missing')) throw err;
      return c.html(PaymentMissingPage({ id, message: err.message, now }), 404);
    }
  });

  app.get('/_sandbox/dashboard/payments/:id/fragment', (c) => c.html(String(PaymentFragment({ timeline: timelineOf(c.req.param('id')) }))));
}
