// The workbench's control API over app.request(): deliveries, events, replays, faults, the
// --control-token guard and the SSE stream. The worker is not running, so deliveries stay pending.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { verifySignature } from '../../src/signatures/signing.js';
import { controlStreamRoutes } from '../../src/http/control/stream.js';
import { createTestSandbox, s2sBody, CREDS, type TestSandbox } from '../helpers/test-sandbox.js';
import { waitFor } from '../helpers/wait-for.js';
import { checkedResponse } from '../helpers/conformance.js';
import type { Json } from '../helpers/json.js';

let sb: TestSandbox;
beforeEach(() => {
  sb = createTestSandbox();
});
afterEach(() => sb.close());

async function pay(webhookUrl = 'http://127.0.0.1:9/hook') {
  const res = await sb.request('POST', '/api/s2s', s2sBody({ ccno: '4242424242424242', webhook_url: webhookUrl }));
  expect(res.status).toBe(200);
  return res.json.transID as string;
}

describe('GET /_sandbox/deliveries', () => {
  it('lists deliveries newest first with their event, status and next attempt', async () => {
    await pay('http://127.0.0.1:9/a');
    sb.clock.advance(1000);
    await pay('http://127.0.0.1:9/b');
    const res = await sb.request('GET', '/_sandbox/deliveries');
    expect(res.status).toBe(200);
    expect(res.json.has_more).toBe(false);
    expect(res.json.data.map((d: Json) => d.url)).toEqual(['http://127.0.0.1:9/b', 'http://127.0.0.1:9/a']);
    expect(res.json.data[0]).toMatchObject({
      event: 'payment.authorized',
      status: 'pending',
      attempts: 0,
      last_response_status: null,
      manual: false,
      merchant_id: 'mer_sandbox',
    });
    expect(res.json.data[0].next_attempt_at).toBe(new Date(sb.clock.now()).toISOString());
  });

  it('filters by url, event, status and since, and pages with starting_after', async () => {
    await pay('http://127.0.0.1:9/a');
    sb.clock.advance(20 * 60_000);
    await pay('http://127.0.0.1:9/b');
    expect((await sb.request('GET', '/_sandbox/deliveries?since=10m')).json.data).toHaveLength(1);
    expect((await sb.request('GET', '/_sandbox/deliveries?since=2026-01-01T00:00:00Z')).json.data).toHaveLength(2);
    expect((await sb.request('GET', '/_sandbox/deliveries?url=http://127.0.0.1:9/a')).json.data).toHaveLength(1);
    expect((await sb.request('GET', '/_sandbox/deliveries?event=payment.declined')).json.data).toHaveLength(0);
    expect((await sb.request('GET', '/_sandbox/deliveries?status=succeeded')).json.data).toHaveLength(0);
    const first = (await sb.request('GET', '/_sandbox/deliveries?limit=1')).json;
    expect(first.has_more).toBe(true);
    const second = (await sb.request('GET', `/_sandbox/deliveries?limit=1&starting_after=${first.data[0].id}`)).json;
    expect(second.data[0].url).toBe('http://127.0.0.1:9/a');
    expect(second.has_more).toBe(false);
  });

  it.each([
    ['since=yesterday', 'since', 'parameter_invalid'],
    ['limit=0', 'limit', 'parameter_invalid'],
    ['status=done', 'status', 'parameter_invalid'],
    ['colour=red', 'colour', 'parameter_unknown'],
  ])('?%s is a 400 naming %s', async (query, param, code) => {
    const res = await sb.request('GET', `/_sandbox/deliveries?${query}`);
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ code, param });
    expect(res.json.error.message).toContain(param);
  });
});

it('an unknown starting_after is a 404 naming it', async () => {
  const res = await sb.request('GET', '/_sandbox/deliveries?starting_after=whd_nope');
  expect(res.status).toBe(404);
  expect(res.json.error).toMatchObject({ code: 'resource_missing', param: 'starting_after' });
});

describe('GET /_sandbox/deliveries/{id}', () => {
  it('shows the request the next attempt would send, signed with the merchant secret', async () => {
    await pay();
    const [d] = (await sb.request('GET', '/_sandbox/deliveries')).json.data;
    const res = await sb.request('GET', `/_sandbox/deliveries/${d.id}`);
    expect(res.status).toBe(200);
    expect(res.json.request.sent).toBe(false);
    expect(res.json.request.headers).toMatchObject({
      'x-sandbox-event-id': d.event_id,
      'x-sandbox-delivery-id': d.id,
      'x-sandbox-attempt': '1',
      'content-type': 'application/x-www-form-urlencoded',
    });
    expect(verifySignature(res.json.request.headers['x-sandbox-signature'], CREDS.secret, res.json.request.body)).toBe(true);
    expect(res.json.attempt_log).toEqual([]);
  });

  it('is a 404 for an unknown id', async () => {
    const res = await sb.request('GET', '/_sandbox/deliveries/whd_missing');
    expect(res.status).toBe(404);
    expect(res.json.error.code).toBe('resource_missing');
  });
});

describe('replays', () => {
  it('POST /deliveries/{id}/replay queues a new manual delivery of the same event', async () => {
    await pay();
    const [d] = (await sb.request('GET', '/_sandbox/deliveries')).json.data;
    const res = await sb.request('POST', `/_sandbox/deliveries/${d.id}/replay`);
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({ event_id: d.event_id, url: d.url, manual: true, status: 'pending', attempts: 0 });
    expect(res.json.id).not.toBe(d.id);
  });

  it('POST /events/{id}/replay {to} sends the event to another URL', async () => {
    await pay();
    const [d] = (await sb.request('GET', '/_sandbox/deliveries')).json.data;
    const res = await sb.request('POST', `/_sandbox/events/${d.event_id}/replay`, { to: 'http://127.0.0.1:9/other' });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({ event_id: d.event_id, url: 'http://127.0.0.1:9/other', manual: true });
  });

  it('a bad "to" is a 400 naming it; an unknown delivery is a 404', async () => {
    await pay();
    const [d] = (await sb.request('GET', '/_sandbox/deliveries')).json.data;
    const bad = await sb.request('POST', `/_sandbox/deliveries/${d.id}/replay`, { to: 'ftp://nowhere' });
    expect(bad.status).toBe(400);
    expect(bad.json.error).toMatchObject({ code: 'parameter_invalid', param: 'to' });
    expect(bad.json.error.message).toContain('http(s) URL');
    expect((await sb.request('POST', '/_sandbox/deliveries/whd_missing/replay')).status).toBe(404);
    expect((await sb.request('POST', '/_sandbox/events/evt_missing/replay')).status).toBe(404);
  });
});

describe('events and retry-failed', () => {
  it('GET /events lists and shows events with their deliveries and payload', async () => {
    const transID = await pay();
    const list = (await sb.request('GET', `/_sandbox/events?resource=${transID}`)).json;
    expect(list.data).toHaveLength(1);
    expect(list.data[0]).toMatchObject({ object: 'event', event: 'payment.authorized', resource_id: transID });
    const event = (await sb.request('GET', `/_sandbox/events/${list.data[0].id}`)).json;
    expect(event.deliveries).toHaveLength(1);
    expect(event.payload.content_type).toBe('application/x-www-form-urlencoded');
    expect(new URLSearchParams(event.payload.body).get('transID')).toBe(transID);
    expect((await sb.request('GET', '/_sandbox/events?type=refund.succeeded')).json.data).toEqual([]);
  });

  it('POST /deliveries/retry-failed answers the count; a bad since is a 400', async () => {
    const res = await sb.request('POST', '/_sandbox/deliveries/retry-failed');
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ count: 0, ids: [] });
    const bad = await sb.request('POST', '/_sandbox/deliveries/retry-failed', { since: 'last week' });
    expect(bad.status).toBe(400);
    expect(bad.json.error).toMatchObject({ code: 'parameter_invalid', param: 'since' });
  });
});

describe('/_sandbox/faults', () => {
  it('sets, lists and deletes rules; setting a rule again replaces its value', async () => {
    const set = await sb.request('POST', '/_sandbox/faults', { spec: 'duplicate=2,delay=2s', seed: 9 });
    expect(set.status).toBe(201);
    expect(set.json.seed).toBe(9);
    expect(set.json.data.map((r: Json) => r.spec)).toEqual(['duplicate=2', 'delay=2s']);
    const again = await sb.request('POST', '/_sandbox/faults', { spec: 'duplicate=3' });
    expect(again.json.data.map((r: Json) => r.spec)).toEqual(['duplicate=3', 'delay=2s']);
    const del = await sb.request('DELETE', `/_sandbox/faults/${again.json.data[1].id}`);
    expect(del.json).toEqual({ deleted: 1 });
    expect((await sb.request('DELETE', '/_sandbox/faults')).json).toEqual({ deleted: 1 });
    expect((await sb.request('GET', '/_sandbox/faults')).json.data).toEqual([]);
  });

  it.each([
    [{ spec: 'explode' }, 'parameter_invalid', /unknown fault "explode"; use one of duplicate, reorder/],
    [{ spec: 'delay=soon' }, 'parameter_invalid', /write delay=DURATION such as delay=2s/],
    [{ spec: 'url=http://127.0.0.1:3000/hook' }, 'parameter_invalid', /has a target but no faults after it/],
    [{}, 'parameter_missing', /spec is required/],
  ])('%j is a 400', async (body, code, message) => {
    const res = await sb.request('POST', '/_sandbox/faults', body);
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ code, param: 'spec' });
    expect(res.json.error.message).toMatch(message);
  });

  it('deleting an unknown rule is a 404', async () => {
    expect((await sb.request('DELETE', '/_sandbox/faults/flt_missing')).status).toBe(404);
  });

  it('--faults rules are listed as set by the flag', async () => {
    const flagged = createTestSandbox({ faults: 'url=http://127.0.0.1:3000/hook:fail-first=2;reorder' });
    const listed = (await flagged.request('GET', '/_sandbox/faults')).json as { data: Array<{ spec: string; source: string }> };
    expect(listed.data.map((r) => [r.spec, r.source])).toEqual([
      ['url=http://127.0.0.1:3000/hook:fail-first=2', 'flag'],
      ['reorder', 'flag'],
    ]);
    flagged.close();
  });
});

describe('the control guard on the workbench routes', () => {
  it('with --control-token, a request without the bearer is a 401 and with it passes', async () => {
    const guarded = createTestSandbox({ controlToken: 'ctl_secret_1' });
    for (const path of ['/_sandbox/deliveries', '/_sandbox/events', '/_sandbox/faults']) {
      const none = await guarded.request('GET', path);
      expect(none.status).toBe(401);
      expect(none.json.error.code).toBe('control_forbidden');
      expect((await guarded.request('GET', path, undefined, { authorization: 'Bearer wrong' })).status).toBe(401);
      expect((await guarded.request('GET', path, undefined, { authorization: 'Bearer ctl_secret_1' })).status).toBe(200);
    }
    guarded.close();
  });

  it('without a token, a non-loopback caller is refused and a loopback one passes', async () => {
    const from = (address: string) => ({ incoming: { socket: { remoteAddress: address, remotePort: 5000, remoteFamily: 'IPv4' } } });
    const remote = await checkedResponse(
      'GET',
      '/_sandbox/deliveries',
      await sb.app.request('/_sandbox/deliveries', {}, from('203.0.113.7')),
    );
    expect(remote.status).toBe(401);
    expect(((await remote.json()) as Json).error.message).toContain('loopback callers only');
    expect(
      (await checkedResponse('GET', '/_sandbox/deliveries', await sb.app.request('/_sandbox/deliveries', {}, from('127.0.0.1')))).status,
    ).toBe(200);
  });
});

describe('GET /_sandbox/stream', () => {
  it('sends activity as Server-Sent Events with heartbeats, and unsubscribes when the client leaves', async () => {
    const app = controlStreamRoutes(sb.appDeps, { heartbeatMs: 20 });
    const activity = sb.services.activity;
    const listeners = () => activity.subscribers;
    const before = listeners();
    const res = await app.request('/stream');
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    const read = async (what: string, until: (t: string) => boolean) =>
      waitFor(
        async () => {
          const { value } = await reader.read();
          text += decoder.decode(value);
          return until(text);
        },
        what,
        5000,
        0,
      );
    await read('the connected comment', (t) => t.includes(': connected'));
    activity.publish({ kind: 'event.created', at: sb.clock.now(), data: { id: 'evt_1', event: 'payment.authorized', resource_id: 't1' } });
    await read('the event', (t) => t.includes('event: event.created'));
    expect(text).toMatch(
      /event: event\.created\ndata: \{"kind":"event\.created","at":"2026-01-15T12:00:00\.000Z","id":"evt_1","event":"payment\.authorized","resource_id":"t1"\}\nid: 1\n\n/,
    );
    await read('a heartbeat', (t) => t.includes(': heartbeat'));
    expect(listeners()).toBe(before + 1);
    await reader.cancel();
    await waitFor(() => listeners() === before, 'the unsubscribe');
  });
});
