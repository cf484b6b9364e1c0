// Helpers shared by the /v1/ payments, refunds and tokens route tests.
import { expect } from 'vitest';
import { CREDS, type TestSandbox } from './test-sandbox.js';

/** Headers of the seeded merchant's key and of the other merchant's key. */
export const AUTH = { authorization: `Bearer ${CREDS.apiKey}` };
export const OTHER = { authorization: `Bearer ${CREDS.other.apiKey}` };

/** A valid POST /v1/payments body (the spec §4.5 example); override fields per test. */
export function paymentBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    amount: 1050,
    currency: 'EUR',
    method: 'card',
    routing: 'smart',
    customer: { country: 'NL' },
    return_url: 'https://shop.example/return',
    webhook_url: 'https://shop.example/webhooks',
    ...overrides,
  };
}

/** Creates a payment and returns its JSON answer (fails the test on a non-200). */
export async function createPayment(sb: TestSandbox, overrides: Record<string, unknown> = {}, headers: Record<string, string> = AUTH) {
  const res = await sb.request('POST', '/v1/payments', paymentBody(overrides), headers);
  expect(res.status, res.text).toBe(200);
  return res.json;
}

/** The event types about one object in the order they were published (the order their webhooks are queued). */
export function eventTypes(sb: TestSandbox, resourceId: string): string[] {
  // The fixed test clock gives events of one request the same created_at, so order by insertion.
  return sb.db.prepare('SELECT type FROM events WHERE resource_id = ? ORDER BY rowid').pluck().all(resourceId) as string[];
}

/** The data of the latest event of a type about one object. */
export function lastEventData(sb: TestSandbox, resourceId: string, type: string): Record<string, unknown> {
  const data = sb.db
    .prepare('SELECT data FROM events WHERE resource_id = ? AND type = ? ORDER BY rowid DESC LIMIT 1')
    .pluck()
    .get(resourceId, type) as string | undefined;
  expect(data, `no ${type} event for ${resourceId}`).toBeDefined();
  return JSON.parse(data!);
}

/** The URLs an event's deliveries are queued for. */
export function deliveryUrls(sb: TestSandbox, resourceId: string, type: string): string[] {
  return sb.db
    .prepare('SELECT d.url FROM deliveries d JOIN events e ON e.id = d.event_id WHERE e.resource_id = ? AND e.type = ? ORDER BY d.rowid')
    .pluck()
    .all(resourceId, type) as string[];
}

/** Submits a code on the authentication page behind `url`, as a browser would; returns the answer. */
export async function submitOtp(sb: TestSandbox, url: string, otp: string, action = 'submit') {
  const path = new URL(url).pathname;
  const page = await sb.request('GET', path);
  expect(page.status).toBe(200);
  const csrf = /name="csrf" value="([^"]+)"/.exec(page.text)?.[1];
  expect(csrf).toBeDefined();
  const form = new URLSearchParams({ csrf: csrf!, otp, action }).toString();
  return sb.request('POST', path, form, { 'content-type': 'application/x-www-form-urlencoded' });
}

/** Runs the jobs due after moving the sandbox clock forward by `ms`. */
export function advance(sb: TestSandbox, ms: number): void {
  sb.clock.advance(ms);
  sb.services.jobs.runDue();
}
