// The MCP server over Streamable HTTP at /_sandbox/mcp of a running sandbox, driven by the SDK's
// own client: every tool with valid and with invalid arguments, the whole rehearsal through tools
// alone, and the control plane's guards (a web page's Origin, a rebinding Host, the control token).
import http from 'node:http';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/server/start-server.js';
import { startFakeMerchant, type FakeMerchant } from '../helpers/fake-merchant.js';
import { callError, callOk, httpMcpClient, rehearse, resourceText, textOf } from '../helpers/mcp-client.js';
import { startTestServer } from '../helpers/test-sandbox.js';
import { waitFor } from '../helpers/wait-for.js';
import type { Json } from '../helpers/json.js';

let sandbox: RunningServer;
let merchant: FakeMerchant;
let client: Client;

beforeAll(async () => {
  sandbox = await startTestServer();
  merchant = await startFakeMerchant();
  client = await httpMcpClient(sandbox.url);
});

afterAll(async () => {
  await client?.close();
  await merchant?.close();
  await sandbox?.close();
});

/** A raw tools/list to /_sandbox/mcp with the headers a browser or a rebinding page would send (node:http, which lets Host be set). */
function post(headers: Record<string, string>): Promise<{ status: number; json: Json }> {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${sandbox.url}/_sandbox/mcp`,
      { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers } },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => {
          text += chunk.toString();
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(text) }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('the MCP server at /_sandbox/mcp', () => {
  it('runs the rehearsal through tools alone: merchant, 3-D Secure payment, authentication, webhook, diagnosis, reset', async () => {
    const { merchant: made, delivery } = await rehearse(client, `${merchant.url}/hooks/agent`);
    expect(merchant.at('/hooks/agent').map((r) => r.headers['x-sandbox-delivery-id'])).toContain(delivery.id);
    // The reset and the deletion took the merchant's state with them.
    expect(await callError(client, 'show_delivery', { id: delivery.id })).toMatch(/no delivery|resource_missing/);
    expect(await callError(client, 'reset', { merchant: made.id })).toContain('merchant');
  });

  it('lists the tools with their hints, the resources and the prompts', async () => {
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    expect(byName.get('list_deliveries')?.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false, idempotentHint: true });
    expect(byName.get('reset')?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    expect(byName.get('create_payment')?.annotations).toMatchObject({ readOnlyHint: false, idempotentHint: false });
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri)).toEqual([
      'paysandbox://test-cards',
      'paysandbox://test-ibans',
      'paysandbox://docs/decisions.md',
      'paysandbox://openapi.json',
      'paysandbox://events/latest',
    ]);
    const cards = await client.readResource({ uri: 'paysandbox://test-cards' });
    expect(cards.contents[0]).toMatchObject({ mimeType: 'text/markdown' });
    expect(resourceText(cards)).toContain('| 4000000000003220 | tok_threeds_required |');
    const openapi = JSON.parse(resourceText(await client.readResource({ uri: 'paysandbox://openapi.json' })));
    expect(openapi.paths['/_sandbox/mcp'].post).toBeDefined();
    expect(resourceText(await client.readResource({ uri: 'paysandbox://docs/decisions.md' }))).toMatch(/^# /);
    expect(resourceText(await client.readResource({ uri: 'paysandbox://test-ibans' }))).toContain('AT611904300234573201');
    const triggered = await callOk<{ event: { id: string } }>(client, 'trigger_event', { type: 'payment.captured' });
    const latest = JSON.parse(resourceText(await client.readResource({ uri: 'paysandbox://events/latest' }))) as { id: string }[];
    expect(latest.map((e) => e.id)).toContain(triggered.event.id);
    await expect(client.readResource({ uri: 'paysandbox://nothing' })).rejects.toThrow(/no resource paysandbox:\/\/nothing/);
    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual([
      'rehearse_failed_renewal',
      'why_was_my_webhook_rejected',
      'prove_my_handler_is_idempotent',
    ]);
    const prompt = await client.getPrompt({ name: 'prove_my_handler_is_idempotent', arguments: { webhook_url: `${merchant.url}/h` } });
    expect(JSON.stringify(prompt.messages)).toContain('set_faults');
    await expect(client.getPrompt({ name: 'prove_my_handler_is_idempotent', arguments: {} })).rejects.toThrow(/webhook_url is required/);
    const renewal = await client.getPrompt({ name: 'rehearse_failed_renewal', arguments: {} });
    expect(JSON.stringify(renewal.messages)).toContain('advance_clock');
    expect(JSON.stringify(renewal.messages)).toContain('script_token');
    const rejected = await client.getPrompt({ name: 'why_was_my_webhook_rejected', arguments: { delivery_id: 'whd_x' } });
    expect(JSON.stringify(rejected.messages)).toMatch(/show_delivery.*whd_x|whd_x.*show_delivery/);
  });

  it('answers every tool with structured content and a summary, and a bad argument with a tool error naming the field', async () => {
    const hook = `${merchant.url}/hooks/tools`;
    const m = await callOk<{ id: string; webhook_secret: string }>(client, 'create_merchant', { name: 'tools', currency: 'USD' });
    expect(await callError(client, 'create_merchant', { currency: 'EURO' })).toMatch(/currency/);
    expect(await callError(client, 'create_merchant', { nmae: 'typo' })).toMatch(/nmae is not a field/);

    const s2s = await callOk<{ id: string; api: string; status: string }>(client, 'create_payment', {
      api: 's2s',
      merchant: m.id,
      webhook_url: hook,
      outcome: 'decline:insufficient_funds',
    });
    expect(s2s).toMatchObject({ api: 's2s' });
    expect(await callError(client, 'create_payment', { api: 's2s', merchant: m.id })).toMatch(/webhook_url is required/);
    expect(await callError(client, 'create_payment', { amount: -5 })).toMatch(/amount is invalid: expected .*minor units/);
    expect(await callError(client, 'create_payment', { outcome: 'maybe' })).toMatch(/outcome must be one of/);
    expect(await callError(client, 'create_payment', { merchant: 'mer_nobody' })).toMatch(/mer_nobody/);

    const v1 = await callOk<{ id: string; status: string }>(client, 'create_payment', {
      merchant: m.id,
      card: '4000000000003220',
      webhook_url: hook,
    });
    expect(await callError(client, 'authenticate', { id: v1.id, outcome: 'maybe' })).toMatch(/outcome/);
    expect(await callError(client, 'authenticate', { outcome: 'approve' })).toMatch(/id is required/);
    await callOk(client, 'authenticate', { id: v1.id, outcome: 'decline' });
    expect(await callError(client, 'authenticate', { id: v1.id, outcome: 'approve' })).toMatch(/409|invalid_state|no open/i);

    const triggered = await callOk<{ event: { id: string } }>(client, 'trigger_event', {
      type: 'payment.captured',
      merchant: m.id,
      set: { amount: 1500 },
    });
    expect(triggered.event.id).toMatch(/^evt_/);
    expect(await callError(client, 'trigger_event', { type: 'payment.capturd' })).toMatch(/did you mean payment.captured/);

    const advanced = await callOk<{ now: string; jobs_run: number }>(client, 'advance_clock', { duration: '1m' });
    expect(advanced.jobs_run).toBeGreaterThanOrEqual(0);
    expect(await callError(client, 'advance_clock', { duration: '-1h' })).toMatch(/duration|forward/);

    const m2 = await callOk<{ id: string; api_key: string }>(client, 'create_merchant', { name: 'renewals' });
    const saved = await fetch(`${sandbox.url}/v1/tokens`, {
      method: 'POST',
      headers: { authorization: `Bearer ${m2.api_key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ card: { number: '4242424242424242', exp_month: 12, exp_year: 2030, cvc: '123' } }),
    });
    const token = ((await saved.json()) as { id: string }).id;
    const scripted = await callOk<{ token: string; outcomes: string[] }>(client, 'script_token', {
      token,
      merchant: m2.id,
      outcomes: ['approve', 'insufficient_funds'],
    });
    expect(scripted).toMatchObject({ token, outcomes: ['approve', 'insufficient_funds'] });
    const renewal = await fetch(`${sandbox.url}/v1/payments`, {
      method: 'POST',
      headers: { authorization: `Bearer ${m2.api_key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ amount: 500, currency: 'EUR', token }),
    });
    expect(((await renewal.json()) as { status: string }).status).not.toBe('failed');
    expect(await callError(client, 'script_token', { token, merchant: m2.id, outcomes: ['maybe'] })).toMatch(
      /outcome must be one of approve/,
    );
    expect(await callError(client, 'script_token', { token, outcomes: ['approve'] })).toMatch(new RegExp(token));
    expect(await callError(client, 'script_token', { outcomes: ['approve'] })).toMatch(/token is required/);

    const faults = await callOk<{ added: Array<{ id: string }> }>(client, 'set_faults', { spec: `url=${hook}:fail-first=1` });
    expect(await callError(client, 'set_faults', { spec: 'explode=1' })).toMatch(/spec|explode/);
    expect(await callOk(client, 'clear_faults', { id: faults.added[0]!.id })).toEqual({ deleted: 1 });
    expect(await callError(client, 'clear_faults', { id: 42 })).toMatch(/id is invalid/);
    await callOk(client, 'clear_faults');

    const listed = await callOk<{ data: Array<{ id: string }> }>(client, 'list_deliveries', { merchant: m.id, limit: 5 });
    expect(listed.data.length).toBeGreaterThan(0);
    expect(await callError(client, 'list_deliveries', { status: 'done' })).toMatch(/status is invalid/);
    const waited = await callOk<{ delivery: { id: string } }>(client, 'wait_for_delivery', { payment: v1.id, url: hook, timeout: '30s' });
    expect(await callError(client, 'wait_for_delivery', { event: 'payment.nope' })).toMatch(/event "payment.nope" is not an event name/);
    expect(await callError(client, 'wait_for_delivery', { timeout: '2h' })).toMatch(/timeout must be a duration above 0 and at most 5m/);
    expect(
      await callError(client, 'wait_for_delivery', { event: 'refund.failed', merchant: m.id, status: 'any', timeout: '300ms' }),
    ).toMatch(/no delivery of refund.failed within 300ms; the newest deliveries are/);
    const shown = await callOk<{ id: string; request: { headers: Record<string, string>; body: string } }>(client, 'show_delivery', {
      id: waited.delivery.id,
    });
    expect(shown.id).toBe(waited.delivery.id);
    expect(await callError(client, 'show_delivery', { id: 'whd_nothing' })).toMatch(/whd_nothing/);
    const replayed = await callOk<{ id: string; manual: boolean }>(client, 'replay_delivery', { id: waited.delivery.id });
    expect(replayed.manual).toBe(true);
    expect(await callError(client, 'replay_delivery', { id: waited.delivery.id, to: 'ftp://nowhere' })).toMatch(
      /to must be an absolute http\(s\) URL/,
    );

    expect(
      await callOk(client, 'diagnose_signature', { headers: shown.request.headers, body: shown.request.body, secret: m.webhook_secret }),
    ).toMatchObject({
      valid: true,
    });
    expect(await callError(client, 'diagnose_signature', { body: '{}' })).toMatch(/headers is required/);

    const audit = await callOk<{ passed: boolean; cases: unknown[]; merchantId: string }>(client, 'audit_webhooks', {
      url: `${merchant.url}/hooks/audit`,
      merchant: m.id,
      timeout: '2s',
    });
    expect(audit.merchantId).toBe(m.id);
    expect(audit.cases.length).toBeGreaterThan(5);
    expect(await callError(client, 'audit_webhooks', { url: `${merchant.url}/hooks/audit`, header_prefix: 'X-Bad' })).toMatch(
      /header_prefix must be letters/,
    );
    expect(await callError(client, 'audit_webhooks', { url: `${merchant.url}/h`, timeout: '5m' })).toMatch(
      /timeout must be a duration above 0 and at most 60s/,
    );

    expect(await callError(client, 'reset', {})).toMatch(/merchant is required/);
    await callOk(client, 'reset', { merchant: m.id });
    expect(await callError(client, 'delete_merchant', { id: 'mer_sandbox' })).toMatch(/seeded|merchant_seeded/);
    await callOk(client, 'delete_merchant', { id: m.id });
    expect(await callError(client, 'delete_merchant', {})).toMatch(/id is required/);
  });

  it('calls an unknown tool a protocol error that lists the tools', async () => {
    await expect(client.callTool({ name: 'refund_everything', arguments: {} })).rejects.toThrow(
      /no tool refund_everything; the tools are create_merchant/,
    );
  });
});

describe('the guards of /_sandbox/mcp', () => {
  it("refuses a web page's Origin and a rebinding Host, and takes the sandbox's own", async () => {
    const page = await post({ origin: 'https://evil.example' });
    expect(page).toMatchObject({ status: 403, json: { error: { code: 'cross_site_refused' } } });
    const crossSite = await post({ 'sec-fetch-site': 'cross-site' });
    expect(crossSite).toMatchObject({ status: 403, json: { error: { code: 'cross_site_refused' } } });
    const rebound = await post({ host: 'attacker.example:4010' });
    expect(rebound).toMatchObject({ status: 403, json: { error: { code: 'host_not_allowed' } } });
    const own = await post({ origin: sandbox.url });
    expect(own.status).toBe(200);
    expect(own.json.result.tools.length).toBeGreaterThan(10);
  });

  it('refuses a body that is not JSON, and a GET, as the rest of the control API does', async () => {
    const form = await fetch(`${sandbox.url}/_sandbox/mcp`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'x' });
    expect(form.status).toBe(400);
    expect(((await form.json()) as { error: { code: string } }).error.code).toBe('unsupported_content_type');
    const get = await fetch(`${sandbox.url}/_sandbox/mcp`);
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
  });

  it('asks for the control token when the sandbox has one, and its tools work with it', async () => {
    const guarded = await startTestServer({ controlToken: 'ctl_mcp_secret' });
    try {
      const refused = await fetch(`${guarded.url}/_sandbox/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      expect(refused.status).toBe(401);
      await expect(httpMcpClient(guarded.url, { authorization: 'Bearer ctl_wrong' })).rejects.toThrow();
      const allowed = await httpMcpClient(guarded.url, { authorization: 'Bearer ctl_mcp_secret' });
      try {
        // The tools' own control requests pass the guard with the sandbox's token.
        const made = await callOk<{ id: string }>(allowed, 'create_merchant', { name: 'guarded' });
        await callOk(allowed, 'delete_merchant', { id: made.id });
      } finally {
        await allowed.close();
      }
    } finally {
      await guarded.close();
    }
  });
});

describe('the MCP route and the delivery detail', () => {
  it('shows the signature diagnosis of an attempt the handler refused', async () => {
    const refusing = await startFakeMerchant({ answer: () => 401 });
    try {
      const m = await callOk<{ id: string }>(client, 'create_merchant', { name: 'refused' });
      const payment = await callOk<{ id: string }>(client, 'create_payment', { merchant: m.id, webhook_url: `${refusing.url}/hook` });
      const waited = await callOk<{ delivery: { id: string } }>(client, 'wait_for_delivery', {
        payment: payment.id,
        status: 'any',
        timeout: '10s',
      });
      await waitFor(
        async () => (await callOk<{ attempts: number }>(client, 'show_delivery', { id: waited.delivery.id })).attempts > 0,
        'the first attempt',
      );
      const shown = await client.callTool({ name: 'show_delivery', arguments: { id: waited.delivery.id } });
      const detail = shown.structuredContent as {
        attempt_log: Array<{ response_status: number; signature_check: { cause: string } | null }>;
      };
      expect(detail.attempt_log[0]).toMatchObject({ response_status: 401, signature_check: { cause: 'valid' } });
      expect(textOf(shown as never)).toContain('signature: valid');
      await callOk(client, 'delete_merchant', { id: m.id });
    } finally {
      await refusing.close();
    }
  });
});
