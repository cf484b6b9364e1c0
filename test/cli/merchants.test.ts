// `sandbox merchants create|list|delete` and `sandbox reset --merchant` in-process against a real sandbox.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/server/start-server.js';
import { s2sBody, startTestServer } from '../helpers/test-sandbox.js';
import { runCli } from '../helpers/cli-harness.js';
import { api } from '../helpers/http.js';
import type { Json } from '../helpers/json.js';

let sandbox: RunningServer;
beforeEach(async () => {
  sandbox = await startTestServer({ retry: 'none' });
});
afterEach(async () => {
  await sandbox.close();
});

const cli = (...args: string[]) => runCli([...args, '--url', sandbox.url]);
const pay = (m: { terNO: number; public_key: string }) =>
  api(sandbox.url).post('/api/s2s', s2sBody({ terNO: m.terNO, public_key: m.public_key, ccno: '4242424242424242' }));

describe('sandbox merchants', () => {
  it("create --json prints the control API's answer, whose credentials pay at once", async () => {
    const run = await cli('merchants', 'create', '--name', 'Worker 1', '--currency', 'usd', '--json');
    expect(run.error).toBeUndefined();
    const m = JSON.parse(run.out);
    expect(m).toMatchObject({ name: 'Worker 1', currency: 'USD', terNO: 9001, public_key: 'pk_test_9001', seeded: false });
    expect(Object.keys(m)).toEqual(
      expect.arrayContaining(['id', 'name', 'terNO', 'public_key', 'private_key', 'api_key', 'webhook_secret']),
    );
    expect((await pay(m)).json.order_status).toBe('25');
  });

  it('create prints the credentials as a table; list shows seeded and created merchants', async () => {
    const run = await cli('merchants', 'create');
    const lines = run.out.split('\n');
    expect(lines[0]).toMatch(/^FIELD\s+VALUE$/);
    expect(lines).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^terNO\s+9001$/),
        expect.stringMatching(/^api_key\s+sk_test_\w{32}$/),
        expect.stringMatching(/^webhook_secret\s+whsec_\S+$/),
      ]),
    );
    const id = /^id\s+(mer_\w+)$/m.exec(run.out)![1]!;
    const list = (await cli('merchants', 'list')).out.split('\n');
    expect(list[0]).toMatch(/^ID\s+NAME\s+TERNO\s+PUBLIC KEY\s+API KEY\s+FROM$/);
    expect(list[1]).toMatch(/^mer_sandbox\s+Sandbox Merchant\s+1001\s+pk_test_1001\s+sk_test_sandbox\s+seeded$/);
    expect(list[3]).toMatch(new RegExp(`^${id}\\s+Merchant 9001\\s+9001\\s+pk_test_9001\\s+sk_test_\\w+\\s+created$`));
    expect(JSON.parse((await cli('merchants', 'list', '--json')).out).map((m: Json) => m.id)).toEqual(['mer_sandbox', 'mer_other', id]);
  });

  it('list follows the pages of the control API to the last merchant', async () => {
    const made = Array.from({ length: 1001 }, () => sandbox.services.merchants.create().id);
    const listed = JSON.parse((await cli('merchants', 'list', '--json')).out).map((m: Json) => m.id);
    expect(listed).toEqual(['mer_sandbox', 'mer_other', ...made]);
  });

  it('delete removes a created merchant and says what went; a seeded one is refused in one line', async () => {
    const m = JSON.parse((await cli('merchants', 'create', '--json')).out);
    await pay(m);
    const run = await cli('merchants', 'delete', m.id);
    expect(run.error).toBeUndefined();
    expect(run.out).toMatch(new RegExp(`^deleted ${m.id}: .*1 transactions.*1 merchants`));
    expect((await pay(m)).status).toBe(401);
    const refused = await cli('merchants', 'delete', 'mer_sandbox');
    expect(refused.error).toMatch(/mer_sandbox is seeded from the fixtures.*\(409 merchant_seeded\)$/);
  });

  it('create with a bad currency fails with the field named', async () => {
    expect((await cli('merchants', 'create', '--currency', 'EURO')).error).toMatch(
      /currency must be an ISO 4217 code.*\(400 parameter_invalid\)/,
    );
  });
});

describe('sandbox reset --merchant', () => {
  it("empties one merchant's state and leaves the others", async () => {
    const m = JSON.parse((await cli('merchants', 'create', '--json')).out);
    const mine = (await pay(m)).json;
    const theirs = (await pay({ terNO: 1001, public_key: 'pk_test_1001' })).json;
    const run = await cli('reset', '--merchant', m.id);
    expect(run.error).toBeUndefined();
    expect(run.out).toMatch(new RegExp(`^reset ${m.id}: removed .*1 transactions`));
    const control = api(sandbox.url);
    expect((await control.get(`/_sandbox/transactions/${mine.transID}`)).status).toBe(404);
    expect((await control.get(`/_sandbox/transactions/${theirs.transID}`)).status).toBe(200);
    expect((await pay(m)).status).toBe(200);
  });
});
