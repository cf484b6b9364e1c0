// Every command with --json, once succeeding and once failing, through execute() as bin/ runs it:
// stdout carries only JSON, and a failure is exit 1 with one JSON object on stderr
// ({"error":{"code","message"}}, the API's own error object when the sandbox refused).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Command } from 'commander';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildProgram, execute } from '../../src/cli/program.js';
import type { CliIo } from '../../src/cli/io.js';
import { encryptText } from '../../src/crypto/s2s-cipher.js';
import { signatureHeader } from '../../src/signatures/signing.js';
import type { RunningServer } from '../../src/server/start-server.js';
import { carefulHandler, startFakeMerchant, takeWebhookViolations, type FakeMerchant } from '../helpers/fake-merchant.js';
import { CREDS, s2sBody, startTestServer } from '../helpers/test-sandbox.js';
import { waitFor } from '../helpers/wait-for.js';
import { api } from '../helpers/http.js';
import '../helpers/cli-harness.js';

let sandbox: RunningServer;
let merchant: FakeMerchant;
let handler: FakeMerchant;
let dir: string;
/** Nothing listens here: a closed port on loopback. */
const NOWHERE = 'http://127.0.0.1:9';

beforeAll(async () => {
  sandbox = await startTestServer({ retry: 'none' });
  merchant = await startFakeMerchant();
  handler = await startFakeMerchant({ answer: carefulHandler('plain', CREDS.secret).answer });
  dir = mkdtempSync(join(tmpdir(), 'paysandbox-json-'));
});
afterAll(async () => {
  await sandbox.close();
  await merchant.close();
  await handler.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Run {
  code: number;
  out: string[];
  err: string[];
}

/** Starts `sandbox <args>`; `run` resolves with what it printed and its exit code. */
function start(args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = { out: (t) => void out.push(t), err: (t) => void err.push(t) };
  const run = execute(['node', 'sandbox', ...args], io).then((code): Run => ({ code, out, err }));
  return { out, err, run };
}

const sandboxCli = (args: string[]) => start([...args, '--url', sandbox.url]).run;

/** POSTs `body` to the control API's `path` (under /_sandbox) and resolves with the answer's JSON. */
async function control(path: string, body: unknown) {
  return (await api(sandbox.url).post(`/_sandbox${path}`, body)).json;
}

async function trigger(type: string, extra: Record<string, unknown> = {}) {
  return control('/events/trigger', { type, ...extra });
}

/** A card saved as a token of the fixtures' merchant (POST /v1/tokens). */
async function savedToken(): Promise<string> {
  const card = { number: '4242424242424242', exp_month: 12, exp_year: 2035, cvc: '123' };
  return (await api(sandbox.url).post('/v1/tokens', { card }, { authorization: `Bearer ${CREDS.apiKey}` })).json.id;
}

/** How each --json command succeeds and how it fails; the keys are the commands' names. */
const CASES: Record<string, { pass: () => Promise<Run>; fail: () => Promise<Run> }> = {
  'webhooks list': {
    pass: () => sandboxCli(['webhooks', 'list', '--json']),
    fail: () => sandboxCli(['webhooks', 'list', '--status', 'bogus', '--json']),
  },
  'webhooks show': {
    pass: async () => sandboxCli(['webhooks', 'show', (await trigger('payment.authorized', { to: merchant.url })).delivery.id, '--json']),
    fail: () => sandboxCli(['webhooks', 'show', 'whd_nosuchdelivery', '--json']),
  },
  'webhooks replay': {
    pass: async () => sandboxCli(['webhooks', 'replay', (await trigger('payment.authorized')).event.id, '--to', merchant.url, '--json']),
    fail: () => sandboxCli(['webhooks', 'replay', 'whd_nosuchdelivery', '--json']),
  },
  'webhooks retry-failed': {
    pass: () => sandboxCli(['webhooks', 'retry-failed', '--json']),
    fail: () => sandboxCli(['webhooks', 'retry-failed', '--timeout', 'soon', '--json']),
  },
  'faults set': {
    pass: () => sandboxCli(['faults', 'set', 'delay=1s', '--json']),
    fail: () => sandboxCli(['faults', 'set', 'duplicate=many', '--json']),
  },
  'faults list': {
    pass: () => sandboxCli(['faults', 'list', '--json']),
    fail: () => start(['faults', 'list', '--json', '--url', NOWHERE]).run,
  },
  'faults clear': {
    pass: () => sandboxCli(['faults', 'clear', '--json']),
    fail: () => sandboxCli(['faults', 'clear', 'flt_nosuchrule', '--json']),
  },
  listen: {
    pass: async () => {
      const listening = start(['listen', '--count', '1', '--json', '--url', sandbox.url]);
      await waitFor(() => listening.err.some((line) => line.startsWith('listening to')), 'the subscription');
      await trigger('refund.created');
      return listening.run;
    },
    fail: () => sandboxCli(['listen', '--count', '0', '--json']),
  },
  receive: {
    pass: async () => {
      const receiving = start(['receive', '--port', '0', '--count', '1', '--json', '--url', sandbox.url]);
      const banner = await waitFor(() => receiving.err.find((line) => line.startsWith('receiving webhooks at')), 'the receiver');
      const body = 'transID=1&status=Test+Approved';
      await fetch(/at (\S+) /.exec(banner)![1]!, {
        method: 'POST',
        body,
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          'x-sandbox-event-id': 'evt_1',
          'x-sandbox-signature': signatureHeader(CREDS.secret, 'plain', body, 0),
        },
      });
      return receiving.run;
    },
    fail: () => start(['receive', '--status', '99', '--json']).run,
  },
  clock: { pass: () => sandboxCli(['clock', '--json']), fail: () => start(['clock', '--json', '--url', NOWHERE]).run },
  'clock advance': {
    pass: () => sandboxCli(['clock', 'advance', '1m', '--json']),
    fail: () => sandboxCli(['clock', 'advance', '-1h', '--json']),
  },
  wait: {
    pass: async () => {
      await trigger('payment.authorized', { to: merchant.url });
      return sandboxCli(['wait', '--event', 'payment.authorized', '--json']);
    },
    fail: () => sandboxCli(['wait', '--event', 'payment.authorised', '--json']),
  },
  export: { pass: () => sandboxCli(['export', '--json']), fail: () => start(['export', '--json', '--url', NOWHERE]).run },
  import: {
    pass: async () => {
      const exported = await start(['export', '--url', sandbox.url]).run;
      writeFileSync(join(dir, 'state.json'), exported.out.join('\n'));
      return sandboxCli(['import', join(dir, 'state.json'), '--json']);
    },
    fail: () => sandboxCli(['import', join(dir, 'missing.json'), '--json']),
  },
  reset: { pass: () => sandboxCli(['reset', '--json']), fail: () => sandboxCli(['reset', '--merchant', 'mer_nosuchmerchant', '--json']) },
  chargeback: {
    pass: async () => sandboxCli(['chargeback', (await trigger('payment.captured')).related.payment_id, '--json']),
    fail: () => sandboxCli(['chargeback', 'dp_already', '--json']),
  },
  chargebacks: {
    pass: () => sandboxCli(['chargebacks', '--json']),
    fail: () => sandboxCli(['chargebacks', '--status', 'bogus', '--json']),
  },
  settle: { pass: () => sandboxCli(['settle', '--json']), fail: () => sandboxCli(['settle', '--pay-after', 'later', '--json']) },
  settlements: {
    pass: () => sandboxCli(['settlements', '--json']),
    fail: () => sandboxCli(['settlements', 'set_nosuchsettlement', '--json']),
  },
  requests: { pass: () => sandboxCli(['requests', '--json']), fail: () => sandboxCli(['requests', '--status', '9xx', '--json']) },
  'requests expect': {
    pass: () => sandboxCli(['requests', 'expect', '--path', '/v1/nothing', '--count', '0', '--json']),
    fail: () => sandboxCli(['requests', 'expect', '--body', '{not json', '--json']),
  },
  trace: {
    pass: async () => sandboxCli(['trace', (await trigger('payment.captured')).related.payment_id, '--json']),
    fail: () => sandboxCli(['trace', 'pay_nosuchpayment', '--json']),
  },
  health: { pass: () => sandboxCli(['health', '--json']), fail: () => start(['health', '--json', '--url', NOWHERE]).run },
  'tokens script': {
    pass: async () => sandboxCli(['tokens', 'script', await savedToken(), 'approve', '--json']),
    fail: () => sandboxCli(['tokens', 'script', 'tok_nosuchtoken', 'approve', '--json']),
  },
  'tokens show': {
    pass: async () => sandboxCli(['tokens', 'show', await savedToken(), '--json']),
    fail: () => sandboxCli(['tokens', 'show', 'tok_nosuchtoken', '--json']),
  },
  'tokens clear': {
    pass: async () => sandboxCli(['tokens', 'clear', await savedToken(), '--json']),
    fail: () => sandboxCli(['tokens', 'clear', 'tok_nosuchtoken', '--json']),
  },
  trigger: {
    pass: () => sandboxCli(['trigger', 'payment.authorized', '--json']),
    fail: () => sandboxCli(['trigger', 'payment.authorised', '--json']),
  },
  authenticate: {
    pass: async () => {
      const res = await fetch(`${sandbox.url}/api/s2s`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(s2sBody()),
      });
      return sandboxCli(['authenticate', String(((await res.json()) as { transID: string }).transID), 'approve', '--json']);
    },
    fail: () => sandboxCli(['authenticate', '123', 'maybe', '--json']),
  },
  'merchants create': {
    pass: () => sandboxCli(['merchants', 'create', '--json']),
    fail: () => sandboxCli(['merchants', 'create', '--currency', 'euros', '--json']),
  },
  'merchants list': {
    pass: () => sandboxCli(['merchants', 'list', '--json']),
    fail: () => start(['merchants', 'list', '--json', '--url', NOWHERE]).run,
  },
  'merchants delete': {
    pass: async () => sandboxCli(['merchants', 'delete', (await control('/merchants', {})).id, '--json']),
    fail: () => sandboxCli(['merchants', 'delete', 'mer_sandbox', '--json']),
  },
  'audit-webhooks': {
    pass: () => start(['audit-webhooks', '--to', `${handler.url}/webhooks`, '--json']).run,
    fail: () => start(['audit-webhooks', '--to', 'not-a-url', '--json']).run,
  },
  verify: {
    pass: () => {
      const body = 'transID=1&status=Test+Approved';
      writeFileSync(join(dir, 'body'), body);
      const header = `X-Sandbox-Signature: ${signatureHeader(CREDS.secret, 'plain', body, 0)}`;
      return sandboxCli(['verify', '--body', join(dir, 'body'), '--header', header, '--secret', CREDS.secret, '--json']);
    },
    fail: () => sandboxCli(['verify', '--body', join(dir, 'body'), '--header', 'no colon', '--json']),
  },
  send: {
    pass: async () => {
      writeFileSync(join(dir, 'send.json'), '{"event":"payment.captured","id":"evt_1","data":{}}');
      const run = await sandboxCli([
        'send',
        '--to',
        `${merchant.url}/sent`,
        '--body',
        join(dir, 'send.json'),
        '--merchant',
        'mer_sandbox',
        '--json',
      ]);
      // A body of one's own is no webhook the document describes, on purpose.
      takeWebhookViolations();
      return run;
    },
    fail: () => sandboxCli(['send', '--to', `${merchant.url}/sent`, '--body', join(dir, 'send.json'), '--json']),
  },
  'mcp config': {
    pass: () => start(['mcp', 'config', '--client', 'claude', '--json']).run,
    fail: () => start(['mcp', 'config', '--client', 'emacs', '--json']).run,
  },
  encrypt: {
    pass: () => start(['encrypt', 'a=1', '--public-key', CREDS.publicKey, '--private-key', CREDS.privateKey, '--json']).run,
    fail: () => start(['encrypt', 'a=1', '--public-key', CREDS.publicKey, '--json']).run,
  },
  decrypt: {
    pass: () =>
      start(['decrypt', encryptText('a=1', CREDS), '--public-key', CREDS.publicKey, '--private-key', CREDS.privateKey, '--json']).run,
    fail: () =>
      start(['decrypt', 'bm90IGNpcGhlcnRleHQ=', '--public-key', CREDS.publicKey, '--private-key', CREDS.privateKey, '--json']).run,
  },
};

/** "webhooks list" for every command (and subcommand) that takes --json. */
function jsonCommands(command: Command, prefix: string[] = [], inherited = false): string[] {
  const own = command.options.some((o) => o.long === '--json');
  const names = own || inherited ? [prefix.join(' ')] : [];
  return [...names.filter(Boolean), ...command.commands.flatMap((sub) => jsonCommands(sub, [...prefix, sub.name()], own))];
}

it('the cases cover every command that takes --json', () => {
  expect(jsonCommands(buildProgram()).sort()).toEqual(Object.keys(CASES).sort());
});

it.each(Object.keys(CASES))('%s --json: stdout is JSON on success; a failure is exit 1 and a JSON error on stderr', async (name) => {
  const passed = await CASES[name]!.pass();
  expect(passed.out.length, `${name} printed nothing`).toBeGreaterThan(0);
  // Streams (listen, receive) print one object per line; the others one document.
  const documents = name === 'listen' || name === 'receive' ? passed.out : [passed.out.join('\n')];
  const parsed = documents.map((text) => JSON.parse(text));
  // audit-webhooks exits 1 when the handler failed a must-pass case: still JSON on stdout.
  expect(passed.code, `${name}: ${passed.err.join('\n')}`).toBe(name === 'audit-webhooks' && !parsed[0].passed ? 1 : 0);

  const failed = await CASES[name]!.fail();
  expect(failed.code).toBe(1);
  expect(failed.out).toEqual([]);
  expect(failed.err).toHaveLength(1);
  const { error } = JSON.parse(failed.err[0]!);
  expect(error).toMatchObject({ code: expect.any(String), message: expect.any(String) });
  // An error the sandbox answered keeps the API's shape.
  if (error.request_id !== undefined) expect(error).toMatchObject({ type: expect.any(String), request_id: expect.stringMatching(/^req_/) });
});

it('an error from the sandbox is its API error object; one the CLI finds has a CLI code', async () => {
  const api = await sandboxCli(['webhooks', 'show', 'whd_nosuchdelivery', '--json']);
  expect(JSON.parse(api.err[0]!).error).toMatchObject({
    type: 'not_found_error',
    code: 'resource_missing',
    param: 'id',
    request_id: expect.stringMatching(/^req_/),
  });
  const unreachable = await start(['clock', '--json', '--url', NOWHERE]).run;
  expect(JSON.parse(unreachable.err[0]!)).toEqual({
    error: { code: 'sandbox_unreachable', message: `no sandbox answers at ${NOWHERE}; start one with \`npx sandbox start\`` },
  });
  const usage = await start(['webhooks', 'list', '--bogus', '--json']).run;
  expect(JSON.parse(usage.err[0]!)).toEqual({ error: { code: 'usage', message: "unknown option '--bogus' (see sandbox --help)" } });
  // Without --json the same failure stays one line of text.
  const text = await start(['clock', '--url', NOWHERE]).run;
  expect(text.err).toEqual([`sandbox: no sandbox answers at ${NOWHERE}; start one with \`npx sandbox start\``]);
});
