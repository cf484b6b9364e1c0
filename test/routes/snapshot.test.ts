// State snapshots (GET /_sandbox/export, POST /_sandbox/import) and POST /_sandbox/reset.
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { fuzzOptions, nastyValue } from '../fuzz/fuzz-kit.js';
import { createTestSandbox, s2sBody, type TestSandbox } from '../helpers/test-sandbox.js';
import { AUTH, createPayment } from '../helpers/payments-api.js';
import type { Json } from '../helpers/json.js';

const sandboxes: TestSandbox[] = [];
afterEach(() => {
  while (sandboxes.length) sandboxes.pop()!.close();
});
function open(flags = {}) {
  const sandbox = createTestSandbox(flags);
  sandboxes.push(sandbox);
  return sandbox;
}

/** Every table in the database, as the schema lists it. */
function tableNames(sandbox: TestSandbox): string[] {
  return sandbox.db
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
    .pluck()
    .all() as string[];
}

async function someState(sandbox: TestSandbox) {
  const approved = await sandbox.request('POST', '/api/s2s', s2sBody({ ccno: '4242424242424242', reference: 'snap-1' }));
  const pending = await sandbox.request('POST', '/api/s2s', s2sBody({ reference: 'snap-2' }));
  await sandbox.request('POST', '/_sandbox/scenarios', { entries: [{ outcome: 'approve', times: 3 }] });
  return { approved: approved.json.transID as string, pending: pending.json.transID as string };
}

describe('GET /_sandbox/export', () => {
  it('exports every table but schema_migrations, with the format, version and schema version', async () => {
    const sandbox = open();
    await someState(sandbox);
    const res = await sandbox.request('GET', '/_sandbox/export');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="sandbox-.*\.json"$/);
    expect(res.json).toMatchObject({ format: 'paysandbox.snapshot', version: 1, exported_at: '2026-01-15T12:00:00.000Z' });
    expect(res.json.schema_version).toBeGreaterThanOrEqual(6);
    // Discovered from the schema: whatever tables the migrations made are all there.
    expect(Object.keys(res.json.tables).sort()).toEqual(tableNames(sandbox).filter((t) => t !== 'schema_migrations'));
    const tx = res.json.tables.transactions;
    const refIndex = tx.columns.indexOf('reference');
    expect(tx.rows.map((row: unknown[]) => row[refIndex])).toEqual(['snap-1', 'snap-2']);
    expect(res.json.tables.merchants.rows).toHaveLength(2);
  });
});

describe('POST /_sandbox/import', () => {
  it('a snapshot imported into a fresh sandbox brings back the same state', async () => {
    const source = open();
    const ids = await someState(source);
    const snapshot = (await source.request('GET', '/_sandbox/export')).json;

    const target = open();
    await target.request('POST', '/api/s2s', s2sBody({ reference: 'only-in-target' }));
    const res = await target.request('POST', '/_sandbox/import', snapshot);
    expect(res.status).toBe(200);
    expect(res.json.imported).toBe(true);
    expect(res.json.tables).toMatchObject({ transactions: 2, scenario_entries: 1, merchants: 2 });

    expect((await target.request('GET', `/_sandbox/transactions/${ids.approved}`)).json.order_status).toBe('25');
    expect((await target.request('GET', `/_sandbox/transactions/${ids.pending}`)).json.authentication.state).toBe('open');
    // What was there before the import is gone.
    const again = (await target.request('GET', '/_sandbox/export')).json;
    expect(again.tables).toEqual(snapshot.tables);
    // And the imported state works: the open challenge can still be completed.
    const done = await target.request('POST', `/_sandbox/transactions/${ids.pending}/authenticate`, { outcome: 'approve' });
    expect(done.json.order_status).toBe('25');
  });

  it('keeps the current credentials when the snapshot leaves them out, and empties tables it leaves out', async () => {
    const sandbox = open();
    await someState(sandbox);
    const snapshot = (await sandbox.request('GET', '/_sandbox/export')).json;
    const { merchants, terminals, api_keys, ...rest } = snapshot.tables;
    const withoutCredentials = { ...snapshot, tables: { transactions: rest.transactions } };
    expect(merchants.rows.length + terminals.rows.length + api_keys.rows.length).toBeGreaterThan(0);

    const res = await sandbox.request('POST', '/_sandbox/import', withoutCredentials);
    expect(res.status).toBe(200);
    expect(res.json.tables).toMatchObject({ merchants: 2, terminals: 2, transactions: 2, challenges: 0, scenario_entries: 0, events: 0 });
  });

  it('credentials from the snapshot take effect at once: its keys work, keys it does not hold stop working', async () => {
    const sandbox = open();
    await someState(sandbox);
    // Used before the import, so any remembered credentials are warm.
    expect((await sandbox.request('GET', '/v1/payments', undefined, AUTH)).status).toBe(200);
    expect((await sandbox.request('POST', '/api/s2s', s2sBody({ reference: 'before-import' }))).status).toBe(200);
    const snapshot = (await sandbox.request('GET', '/_sandbox/export')).json;
    const keys = snapshot.tables.api_keys;
    const keyAt = keys.columns.indexOf('key');
    const terminals = snapshot.tables.terminals;
    const publicKeyAt = terminals.columns.indexOf('public_key');
    const renamed = {
      ...snapshot,
      tables: {
        ...snapshot.tables,
        api_keys: { ...keys, rows: keys.rows.map((row: unknown[]) => row.map((v, i) => (i === keyAt ? `${v}_renamed` : v))) },
        terminals: {
          ...terminals,
          rows: terminals.rows.map((row: unknown[]) => row.map((v, i) => (i === publicKeyAt ? `${v}_renamed` : v))),
        },
      },
    };
    expect((await sandbox.request('POST', '/_sandbox/import', renamed)).status).toBe(200);

    expect((await sandbox.request('GET', '/v1/payments', undefined, AUTH)).status).toBe(401);
    const renamedAuth = { authorization: `${AUTH.authorization}_renamed` };
    expect((await sandbox.request('GET', '/v1/payments', undefined, renamedAuth)).status).toBe(200);
    expect((await sandbox.request('POST', '/api/s2s', s2sBody({ reference: 'old-key' }))).status).toBe(401);
    const body = s2sBody({ reference: 'new-key' });
    expect((await sandbox.request('POST', '/api/s2s', { ...body, public_key: `${body.public_key}_renamed` })).status).toBe(200);

    // And a reset brings the fixtures' credentials back.
    expect((await sandbox.request('POST', '/_sandbox/reset')).status).toBe(200);
    expect((await sandbox.request('GET', '/v1/payments', undefined, AUTH)).status).toBe(200);
  });

  it.each([
    ['a wrong format', (s: Json) => ({ ...s, format: 'something.else' }), 'format', /"paysandbox\.snapshot"/],
    ['a wrong version', (s: Json) => ({ ...s, version: 9 }), 'version', /1, the snapshot layout/],
    ['a newer schema', (s: Json) => ({ ...s, schema_version: 999 }), 'schema_version', /newer sandbox/],
    [
      'an unknown table',
      (s: Json) => ({ ...s, tables: { ...s.tables, ledgers: { columns: ['id'], rows: [] } } }),
      'tables.ledgers',
      /table "ledgers"/,
    ],
    [
      'an unknown column',
      (s: Json) => ({ ...s, tables: { ...s.tables, merchants: { ...s.tables.merchants, columns: ['id', 'name', 'colour'] } } }),
      'tables.merchants.columns',
      /no column "colour"/,
    ],
    [
      'a short row',
      (s: Json) => ({ ...s, tables: { ...s.tables, merchants: { ...s.tables.merchants, rows: [['mer_x']] } } }),
      'tables.merchants.rows.0',
      /1 values for 5 columns/,
    ],
    [
      'an object in a cell',
      (s: Json) => ({
        ...s,
        tables: { ...s.tables, merchants: { ...s.tables.merchants, rows: [['mer_x', { a: 1 }, 'whsec_12345678', 'api', 'EUR']] } },
      }),
      'tables.merchants.rows.0',
      /column name \(TEXT\): must be a string, not \{"a":1\}/,
    ],
    [
      'a broken reference',
      (s: Json) => ({ ...s, tables: { ...s.tables, merchants: { ...s.tables.merchants, rows: [] } } }),
      'tables',
      /does not fit the database/,
    ],
    [
      'a duplicate key',
      (s: Json) => ({
        ...s,
        tables: { ...s.tables, merchants: { ...s.tables.merchants, rows: [...s.tables.merchants.rows, s.tables.merchants.rows[0]] } },
      }),
      'tables',
      /UNIQUE/,
    ],
    [
      'no tables',
      (s: Json) => ({ format: s.format, version: s.version, schema_version: s.schema_version }),
      'tables',
      /tables is required/,
    ],
  ])('refuses %s with a 400 naming the field, and changes nothing', async (_what, spoil, param, message) => {
    const sandbox = open();
    const ids = await someState(sandbox);
    const snapshot = (await sandbox.request('GET', '/_sandbox/export')).json;
    const res = await sandbox.request('POST', '/_sandbox/import', spoil(snapshot));
    expect(res.status).toBe(400);
    expect(res.json.error.param).toBe(param);
    expect(res.json.error.message).toMatch(message);
    expect((await sandbox.request('GET', `/_sandbox/transactions/${ids.approved}`)).status).toBe(200);
    expect((await sandbox.request('GET', '/_sandbox/export')).json.tables).toEqual(snapshot.tables);
  });

  // Rows the schema takes but the repositories cannot read would make every later read a 500.
  it.each([
    ['payments', 'customer', '{not json', /column customer.*JSON/],
    ['payments', 'status', 'weird', /column status.*one of/],
    ['payments', 'amount', 'abc', /column amount.*integer/],
    ['payments', 'metadata', '"a string"', /column metadata.*JSON object/],
  ])(
    'refuses a %s row whose %s is %j with a 400 naming table, row and column, and changes nothing',
    async (table, column, value, message) => {
      const sandbox = open();
      const payment = await createPayment(sandbox, { capture: false });
      const snapshot = (await sandbox.request('GET', '/_sandbox/export')).json;
      const dump = snapshot.tables[table];
      const spoilt = {
        ...snapshot,
        tables: {
          ...snapshot.tables,
          [table]: { ...dump, rows: dump.rows.map((row: unknown[]) => row.map((cell, i) => (dump.columns[i] === column ? value : cell))) },
        },
      };
      const res = await sandbox.request('POST', '/_sandbox/import', spoilt);
      expect(res.status, res.text).toBe(400);
      expect(res.json.error.code).toBe('parameter_invalid');
      expect(res.json.error.param).toBe(`tables.${table}.rows.0`);
      expect(res.json.error.message).toMatch(new RegExp(`table ${table}`));
      expect(res.json.error.message).toMatch(message);
      // Rolled back: the payment still reads, lists and captures.
      expect((await sandbox.request('GET', '/_sandbox/export')).json.tables).toEqual(snapshot.tables);
      expect((await sandbox.request('GET', `/v1/payments/${payment.id}`, undefined, AUTH)).status).toBe(200);
      expect((await sandbox.request('GET', '/v1/payments', undefined, AUTH)).status).toBe(200);
      expect((await sandbox.request('POST', `/v1/payments/${payment.id}/capture`, {}, AUTH)).status).toBe(200);
    },
  );

  // SQLite takes most wrong types silently and fails on others (an INTEGER PRIMARY KEY): each is a
  // 400 before anything is written, naming the table, row and column.
  it.each([
    ['a string in an integer column', 'payments', 'amount', 'abc', /column amount \(INTEGER\): must be an integer/],
    ['a string in an INTEGER PRIMARY KEY', 'jobs', 'id', 'x1', /column id \(INTEGER\): must be an integer/],
    [
      'an object in a text column',
      'payments',
      'currency',
      { code: 'eur' },
      /column currency \(TEXT\): must be a string, not \{"code":"eur"\}/,
    ],
    ['binary data in a text column', 'payments', 'id', { $base64: 'AAAA' }, /column id \(TEXT\): must be a string, not binary data/],
    ['an array', 'payments', 'metadata', ['a'], /column metadata \(TEXT\): must be a string, not \["a"\]/],
    ['a boolean', 'payments', 'capture', true, /column capture \(INTEGER\): must be an integer.*not true/],
    [
      'a huge number',
      'terminals',
      'ter_no',
      1e20,
      /column ter_no \(INTEGER\): must be an integer between -9007199254740991 and 9007199254740991, not 100000000000000000000/,
    ],
    ['null in a NOT NULL column', 'payments', 'currency', null, /column currency \(TEXT\): must have a value, not null/],
  ])('refuses %s with a 400 naming table and column, and imports nothing', async (_what, table, column, value, message) => {
    const sandbox = open();
    const payment = await createPayment(sandbox, { capture: false });
    await sandbox.request('POST', '/api/s2s', s2sBody({ reference: 'with-a-job' }));
    const snapshot = (await sandbox.request('GET', '/_sandbox/export')).json;
    const dump = snapshot.tables[table];
    expect(dump.columns).toContain(column);
    const last = dump.rows.length - 1;
    const spoilt = {
      ...snapshot,
      tables: {
        ...snapshot.tables,
        [table]: {
          ...dump,
          rows: dump.rows.map((row: unknown[], r: number) =>
            row.map((cell, i) => (r === last && dump.columns[i] === column ? value : cell)),
          ),
        },
      },
    };
    const res = await sandbox.request('POST', '/_sandbox/import', spoilt);
    expect(res.status, res.text).toBe(400);
    expect(res.json.error).toMatchObject({ code: 'parameter_invalid', param: `tables.${table}.rows.${last}` });
    expect(res.json.error.message).toMatch(new RegExp(`^table ${table}, row ${last}, `));
    expect(res.json.error.message).toMatch(message);
    expect((await sandbox.request('GET', '/_sandbox/export')).json.tables).toEqual(snapshot.tables);
    expect((await sandbox.request('GET', `/v1/payments/${payment.id}`, undefined, AUTH)).status).toBe(200);
  });

  it('refuses a snapshot that leaves out a column every row needs, naming table and column', async () => {
    const sandbox = open();
    await createPayment(sandbox, { capture: false });
    const snapshot = (await sandbox.request('GET', '/_sandbox/export')).json;
    const dump = snapshot.tables.payments;
    const at = dump.columns.indexOf('currency');
    const without = {
      columns: dump.columns.filter((_: string, i: number) => i !== at),
      rows: dump.rows.map((row: unknown[]) => row.filter((_, i) => i !== at)),
    };
    const res = await sandbox.request('POST', '/_sandbox/import', { ...snapshot, tables: { ...snapshot.tables, payments: without } });
    expect(res.status, res.text).toBe(400);
    expect(res.json.error).toMatchObject({ code: 'parameter_invalid', param: 'tables.payments.columns' });
    expect(res.json.error.message).toMatch(/^table payments, column currency: every row needs a value/);
    expect((await sandbox.request('GET', '/_sandbox/export')).json.tables).toEqual(snapshot.tables);
  });

  it('answers every hostile import with a 4xx, never a 5xx, and a refused one changes nothing', async () => {
    const sandbox = open();
    await someState(sandbox);
    await createPayment(sandbox, { capture: false });
    const snapshot = (await sandbox.request('GET', '/_sandbox/export')).json;
    const tables = Object.keys(snapshot.tables).filter((table) => snapshot.tables[table].rows.length > 0);
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...tables),
        fc.nat(),
        fc.nat(),
        fc.oneof(nastyValue, fc.constantFrom(1e20, -1e20, 2 ** 63, 1.5, { $base64: 'AAAA' }, [1], true)),
        async (table, r, c, value) => {
          const dump = snapshot.tables[table];
          const row = r % dump.rows.length;
          const column = c % dump.columns.length;
          const spoilt = {
            ...snapshot,
            tables: {
              ...snapshot.tables,
              [table]: {
                ...dump,
                rows: dump.rows.map((cells: unknown[], i: number) =>
                  i !== row ? cells : cells.map((cell, j) => (j === column ? value : cell)),
                ),
              },
            },
          };
          const res = await sandbox.request('POST', '/_sandbox/import', spoilt);
          expect(
            res.status,
            `${table}.${dump.columns[column]} = ${JSON.stringify(value)?.slice(0, 60)}: ${res.text.slice(0, 300)}`,
          ).toBeLessThan(500);
          if (res.status !== 200) expect((await sandbox.request('GET', '/_sandbox/export')).json.tables).toEqual(snapshot.tables);
          else expect((await sandbox.request('POST', '/_sandbox/import', snapshot)).status).toBe(200);
        },
      ),
      fuzzOptions(150),
    );
  }, 120_000);

  it('refuses bad integers, JSON and states in the other tables too', async () => {
    const sandbox = open();
    await someState(sandbox);
    const snapshot = (await sandbox.request('GET', '/_sandbox/export')).json;
    const spoil = (table: string, column: string, value: unknown) => {
      const dump = snapshot.tables[table];
      const last = dump.rows.length - 1;
      return {
        ...snapshot,
        tables: {
          ...snapshot.tables,
          [table]: {
            ...dump,
            rows: dump.rows.map((row: unknown[], r: number) =>
              row.map((cell, i) => (r === last && dump.columns[i] === column ? value : cell)),
            ),
          },
        },
      };
    };
    for (const [table, column, value] of [
      ['transactions', 'outcome', 'nope'],
      ['transactions', 'order_status', 99],
      ['transactions', 'created_at', 'yesterday'],
      ['challenges', 'state', 'weird'],
      ['events', 'data', '[1,'],
    ] as const) {
      const res = await sandbox.request('POST', '/_sandbox/import', spoil(table, column, value));
      const last = snapshot.tables[table].rows.length - 1;
      expect(last).toBeGreaterThanOrEqual(0);
      expect([table, column, res.status, res.json.error?.param]).toEqual([table, column, 400, `tables.${table}.rows.${last}`]);
      expect(res.json.error.message).toContain(column);
    }
  });

  it('refuses a body that is not JSON', async () => {
    const sandbox = open();
    const res = await sandbox.request('POST', '/_sandbox/import', 'not json at all', { 'content-type': 'application/json' });
    expect(res.status).toBe(400);
    expect(res.json.error.code).toBe('invalid_json');
  });

  it('takes a snapshot larger than the 1 MiB limit of other endpoints', async () => {
    const sandbox = open();
    const snapshot = (await sandbox.request('GET', '/_sandbox/export')).json;
    const padding = 'x'.repeat(1024 * 1024);
    const big = { ...snapshot, exported_at: padding };
    const res = await sandbox.request('POST', '/_sandbox/import', big);
    expect(res.status).toBe(200);
    // Other endpoints still refuse such a body.
    const s2s = await sandbox.request('POST', '/api/s2s', { ...s2sBody(), product_name: padding });
    expect(s2s.status).toBe(413);
  });
});

describe('the control guard', () => {
  it('export, import and reset answer only callers with the control token when one is set (a snapshot holds every secret)', async () => {
    const sandbox = open({ controlToken: 'ctl_secret_1' });
    for (const [method, path] of [
      ['GET', '/_sandbox/export'],
      ['POST', '/_sandbox/import'],
      ['POST', '/_sandbox/reset'],
    ] as const) {
      const res = await sandbox.request(method, path, method === 'POST' ? {} : undefined);
      expect([path, res.status, res.json.error.code]).toEqual([path, 401, 'control_forbidden']);
    }
    const allowed = await sandbox.request('GET', '/_sandbox/export', undefined, { authorization: 'Bearer ctl_secret_1' });
    expect(allowed.status).toBe(200);
  });
});

describe('POST /_sandbox/reset', () => {
  it('empties every table but the credentials, reseeds them and reloads --scenario', async () => {
    const sandbox = open({ scenario: new URL('../../fixtures/scenarios/3ds-fails-then-approves.json', import.meta.url).pathname });
    const ids = await someState(sandbox);
    // Spoil a credential: reset puts the fixture value back.
    sandbox.db.prepare("UPDATE merchants SET webhook_secret = 'whsec_changed_1' WHERE id = 'mer_sandbox'").run();

    const res = await sandbox.request('POST', '/_sandbox/reset');
    expect(res.status).toBe(200);
    expect(res.json.reset).toBe(true);
    expect(res.json.tables).toMatchObject({
      merchants: 2,
      terminals: 2,
      api_keys: 2,
      transactions: 0,
      challenges: 0,
      events: 0,
      deliveries: 0,
      jobs: 0,
      scenario_entries: 2,
    });
    for (const [table, count] of Object.entries(res.json.tables)) {
      if (!['merchants', 'terminals', 'api_keys', 'scenario_entries'].includes(table)) expect([table, count]).toEqual([table, 0]);
    }
    expect(sandbox.store.credentials.merchant('mer_sandbox')!.webhookSecret).toBe('whsec_test_sandbox');
    expect((await sandbox.request('GET', `/_sandbox/transactions/${ids.approved}`)).status).toBe(404);
    const scenarios = (await sandbox.request('GET', '/_sandbox/scenarios')).json.data;
    expect(scenarios.map((e: { remaining: number }) => e.remaining)).toEqual([1, 1]);
    // A reference used before the reset is free again.
    expect((await sandbox.request('POST', '/api/s2s', s2sBody({ reference: 'snap-1' }))).status).toBe(200);
  });
});

describe('webhook fault rules after reset and import', () => {
  /** What the fault injector would do to the first attempt of a delivery to http://merchant.test/hook. */
  function shapeLabel(sandbox: TestSandbox): string | null {
    const delivery = { id: 'dlv_probe', endpointId: null, url: 'http://merchant.test/hook', createdAt: 0 } as never;
    return sandbox.services.faults.webhooks.shape(delivery, 1, {} as never, () => ({}) as never).fault;
  }
  const specs = async (sandbox: TestSandbox) =>
    ((await sandbox.request('GET', '/_sandbox/faults')).json.data as Array<{ spec: string; source: string }>).map(
      (r) => `${r.source}:${r.spec}`,
    );

  it('reset drops the rules set through the API and re-applies the --faults ones, in the list and in effect', async () => {
    const sandbox = open({ faults: 'fail-first=1' });
    expect((await sandbox.request('POST', '/_sandbox/faults', { spec: 'bad-signature' })).status).toBe(201);
    expect(await specs(sandbox)).toEqual(expect.arrayContaining(['flag:fail-first=1', 'api:bad-signature']));
    expect(shapeLabel(sandbox)).toMatch(/fail-first=1/);
    await sandbox.request('DELETE', '/_sandbox/faults');
    expect(shapeLabel(sandbox)).toBeNull();
    await sandbox.request('POST', '/_sandbox/faults', { spec: 'stale-timestamp' });

    expect((await sandbox.request('POST', '/_sandbox/reset')).status).toBe(200);
    expect(await specs(sandbox)).toEqual(['flag:fail-first=1']);
    expect(shapeLabel(sandbox)).toBe('fail-first=1');
  });

  it("import replaces the rules with the snapshot's, in the list and in effect", async () => {
    const sandbox = open();
    await sandbox.request('POST', '/_sandbox/faults', { spec: 'fail-first=2' });
    const withRule = (await sandbox.request('GET', '/_sandbox/export')).json;
    await sandbox.request('DELETE', '/_sandbox/faults');
    const withoutRules = (await sandbox.request('GET', '/_sandbox/export')).json;

    await sandbox.request('POST', '/_sandbox/faults', { spec: 'bad-signature' });
    expect((await sandbox.request('POST', '/_sandbox/import', withoutRules)).status).toBe(200);
    expect(await specs(sandbox)).toEqual([]);
    expect(shapeLabel(sandbox)).toBeNull();

    expect((await sandbox.request('POST', '/_sandbox/import', withRule)).status).toBe(200);
    expect(await specs(sandbox)).toEqual(['api:fail-first=2']);
    expect(shapeLabel(sandbox)).toBe('fail-first=2');
  });
});
