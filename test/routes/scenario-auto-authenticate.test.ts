// --auto-authenticate: every new challenge completes by itself after a delay of sandbox time.
import { afterEach, describe, expect, it } from 'vitest';
import { createTestSandbox, s2sBody, type TestSandbox } from '../helpers/test-sandbox.js';

let sandbox: TestSandbox;
afterEach(() => sandbox?.close());

const status = async (transID: string) => (await sandbox.request('GET', `/_sandbox/transactions/${transID}`)).json;

describe('--auto-authenticate', () => {
  it('approve completes the challenge as soon as the job runner runs, and the webhook is queued', async () => {
    sandbox = createTestSandbox({ autoAuthenticate: 'approve' });
    const res = await sandbox.request('POST', '/api/s2s', s2sBody());
    expect(res.json.order_status).toBe('0');
    expect(res.json.authurl).not.toBe('');
    expect(sandbox.services.jobs.runDue()).toBeGreaterThan(0);
    const after = await status(res.json.transID);
    expect(after).toMatchObject({ order_status: '25', authentication: expect.objectContaining({ state: 'passed' }) });
    const deliveries = sandbox.store.deliveries.list({ limit: 10 });
    expect(deliveries.map((d) => d.eventType)).toEqual(['payment.authorized']);
  });

  it('decline:30s waits 30 s of sandbox time, then fails the challenge', async () => {
    sandbox = createTestSandbox({ autoAuthenticate: 'decline:30s' });
    const res = await sandbox.request('POST', '/api/s2s', s2sBody());
    sandbox.services.jobs.runDue();
    expect((await status(res.json.transID)).order_status).toBe('0');
    await sandbox.request('POST', '/_sandbox/clock/advance', { duration: '29s' });
    expect((await status(res.json.transID)).order_status).toBe('0');
    await sandbox.request('POST', '/_sandbox/clock/advance', { duration: '1s' });
    const after = await status(res.json.transID);
    expect(after.order_status).toBe('24');
    expect(after.response).toMatch(/^authentication_failed/);
  });

  it('leaves a challenge alone when the customer completed it first', async () => {
    sandbox = createTestSandbox({ autoAuthenticate: 'decline:1m' });
    const res = await sandbox.request('POST', '/api/s2s', s2sBody());
    await sandbox.request('POST', `/_sandbox/transactions/${res.json.transID}/authenticate`, { outcome: 'approve' });
    await sandbox.request('POST', '/_sandbox/clock/advance', { duration: '2m' });
    expect((await status(res.json.transID)).order_status).toBe('25');
  });

  it('without the flag a challenge stays open', async () => {
    sandbox = createTestSandbox();
    const res = await sandbox.request('POST', '/api/s2s', s2sBody());
    sandbox.services.jobs.runDue();
    expect((await status(res.json.transID)).authentication.state).toBe('open');
  });

  it.each([['maybe'], ['approve:soon'], ['approve:'], ['cancel']])('refuses --auto-authenticate %j naming the flag', (value) => {
    expect(() => createTestSandbox({ autoAuthenticate: value })).toThrow(/--auto-authenticate must be approve or decline/);
  });
});
