// `sandbox start --https` against real clients: curl, Node's fetch, PHP, Python and Chromium each
// reach the sandbox trusting only the local CA it made under .sandbox/tls/, every URL it returns is
// https://, webhooks reach an https:// receiver whose certificate that CA signed, and bad
// certificate files stop the start with one line naming the flag.
import { execFile, execFileSync } from 'node:child_process';
import { createHash, X509Certificate } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../helpers/browser.js';
import { makeCertificate } from '../helpers/certificates.js';
import { runBuiltCli, startCliSandbox, type CliSandbox } from '../helpers/cli-sandbox.js';
import { waitFor } from '../helpers/wait-for.js';
import { localCa } from '../../src/tls/local-ca.js';
import { startSandbox } from '../../src/library/start-sandbox.js';

/** Runs a program to completion: its exit code and output. */
function run(file: string, args: string[], env: NodeJS.ProcessEnv = {}) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(file, args, { timeout: 20_000, env: { ...process.env, ...env } }, (err, stdout, stderr) =>
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** A JSON request over node:https trusting `ca` only. */
function httpsJson(url: string, ca: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = request(url, {
      method: payload === undefined ? 'GET' : 'POST',
      ca,
      // A connection of its own: Node 20's global agent keeps sockets alive, and one reused just as the
      // server's keep-alive timeout closes it ends in "socket hang up" (seen at CI load between two polls).
      agent: false,
      headers: { authorization: 'Bearer sk_test_sandbox', ...(payload ? { 'content-type': 'application/json' } : {}) },
    });
    req.on('error', reject);
    req.on('response', (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(text) }));
    });
    req.end(payload);
  });
}

/** An https:// webhook receiver serving `cert`/`key` on 127.0.0.1; keeps every body it got. */
async function httpsReceiver(cert: string, key: string): Promise<{ url: string; received: string[]; close(): void }> {
  const received: string[] = [];
  const server: Server = createServer({ cert, key }, (req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      received.push(body);
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `https://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, received, close: () => server.close() };
}

const CARD = { number: '4242424242424242', exp_month: 12, exp_year: 2030, cvc: '123' };

/** Creates an approved card payment whose webhooks go to `hook`; returns its id. */
async function paymentTo(base: string, ca: string, hook: string): Promise<string> {
  const created = await httpsJson(`${base}/v1/payments`, ca, {
    ...{ amount: 1050, currency: 'EUR', method: 'card', routing: 'smart', customer: { country: 'NL' } },
    ...{ return_url: 'https://shop.example/return', webhook_url: hook, card: CARD },
  });
  expect(created.status).toBe(200);
  return String(created.json.id);
}

describe('sandbox start --https', () => {
  let dir: string;
  let sandbox: CliSandbox;
  let caFile: string;
  let ca: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'paysandbox-https-'));
    sandbox = await startCliSandbox(['--https', '--db', ':memory:', '--retry', 'none'], { cwd: dir, env: { NO_COLOR: '1' } });
    caFile = join(dir, '.sandbox', 'tls', 'ca.pem');
    ca = readFileSync(caFile, 'utf8');
  });
  afterAll(async () => {
    await sandbox?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers on an https:// URL and prints both files, that the CA is new, and how to trust it', () => {
    expect(sandbox.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(sandbox.stdout).toContain(`Listening on ${sandbox.url}`);
    expect(sandbox.stdout).toContain(join(dir, '.sandbox', 'tls', 'localhost.pem'));
    expect(sandbox.stdout).toContain(`New CA     made a new local CA (there was none in ${join(dir, '.sandbox', 'tls')})`);
    expect(sandbox.stdout).toContain(`(for localhost, 127.0.0.0/8 and ::1 only)`);
    for (const how of [
      `NODE_EXTRA_CA_CERTS=${caFile}`,
      `curl --cacert ${caFile}`,
      'CURLOPT_CAINFO',
      `cafile='${caFile}'`,
      `SSL_CERT_FILE=${caFile}`,
    ])
      expect(sandbox.stdout).toContain(how);
  });

  it('answers curl --cacert, and curl without it refuses the certificate', async () => {
    const trusted = await run('curl', ['-sS', '--cacert', caFile, `${sandbox.url}/_sandbox/health`]);
    expect(trusted.code, trusted.stderr).toBe(0);
    expect(JSON.parse(trusted.stdout)).toMatchObject({ status: 'ok' });
    const untrusted = await run('curl', ['-sS', `${sandbox.url}/_sandbox/health`]);
    expect(untrusted.code).toBe(60); // CURLE_PEER_FAILED_VERIFICATION
  });

  it("answers Node's fetch with NODE_EXTRA_CA_CERTS, and hands out https:// page URLs", async () => {
    const script = `const res = await fetch(process.argv[1] + '/v1/payments', { method: 'POST', headers: { authorization: 'Bearer sk_test_sandbox', 'content-type': 'application/json' }, body: JSON.stringify({ amount: 1050, currency: 'EUR', method: 'card', routing: 'smart', customer: { country: 'NL' }, return_url: 'https://shop.example/return', card: { number: '4000000000003220', exp_month: 12, exp_year: 2030, cvc: '123' } }) }); console.log(res.status, await res.text());`;
    const out = await run(process.execPath, ['--input-type=module', '-e', script, sandbox.url], { NODE_EXTRA_CA_CERTS: caFile });
    expect(out.stderr).toBe('');
    expect(out.stdout).toMatch(/^200 /);
    // The 3-D Secure card's page, on the sandbox's own https:// address.
    const payment = JSON.parse(out.stdout.slice(4));
    expect(payment.next_action.url.startsWith(`${sandbox.url}/`), payment.next_action.url).toBe(true);
  });

  it("lets the CLI's own commands in with NODE_EXTRA_CA_CERTS, and says so when it is missing", async () => {
    const trusted = await runBuiltCli(['merchants', 'list', '--url', sandbox.url], { env: { NODE_EXTRA_CA_CERTS: caFile } });
    expect(trusted.code, trusted.stderr).toBe(0);
    expect(trusted.stdout).toContain('mer_sandbox');
    const untrusted = await runBuiltCli(['merchants', 'list', '--url', sandbox.url], { env: { NODE_EXTRA_CA_CERTS: '' } });
    expect(untrusted.code).toBe(1);
    expect(untrusted.stderr).toContain('answered with a certificate this command does not trust; run the command with NODE_EXTRA_CA_CERTS');
  });

  it("answers PHP with a stream context's cafile", async () => {
    const php = `$c = stream_context_create(['ssl' => ['cafile' => $argv[2]]]); echo file_get_contents($argv[1] . '/_sandbox/health', false, $c);`;
    const out = await run('php', ['-r', php, '--', sandbox.url, caFile]);
    expect(out.code, out.stderr + out.stdout).toBe(0);
    expect(JSON.parse(out.stdout)).toMatchObject({ status: 'ok' });
  });

  it('answers Python with ssl.create_default_context(cafile=...)', async () => {
    const py = `import ssl, sys, urllib.request\nctx = ssl.create_default_context(cafile=sys.argv[2])\nprint(urllib.request.urlopen(sys.argv[1] + '/_sandbox/health', context=ctx).read().decode())`;
    const out = await run('python3', ['-c', py, sandbox.url, caFile]);
    expect(out.code, out.stderr).toBe(0);
    expect(JSON.parse(out.stdout)).toMatchObject({ status: 'ok' });
  });

  it('serves the dashboard to Chromium that trusts the certificate, and Chromium refuses it otherwise', async () => {
    // Headless Chromium reads no PEM CA file: --ignore-certificate-errors-spki-list trusts the
    // served certificate's key (base64 SHA-256 of its SubjectPublicKeyInfo), no other certificate.
    const served = new X509Certificate(readFileSync(join(dir, '.sandbox', 'tls', 'localhost.pem')));
    const spki = createHash('sha256')
      .update(served.publicKey.export({ type: 'spki', format: 'der' }))
      .digest('base64');
    const trusting = await launchChromium([`--ignore-certificate-errors-spki-list=${spki}`]);
    try {
      const page = await trusting.newPage();
      const res = await page.goto(`${sandbox.url}/_sandbox/`);
      expect(res?.status()).toBe(200);
      expect(await page.title()).toMatch(/sandbox/i);
    } finally {
      await trusting.close();
    }
    const plain = await launchChromium();
    try {
      const page = await plain.newPage();
      await expect(page.goto(`${sandbox.url}/_sandbox/`)).rejects.toThrow(/ERR_CERT_AUTHORITY_INVALID/);
    } finally {
      await plain.close();
    }
  });

  it('delivers webhooks to an https:// receiver whose certificate the local CA signed', async () => {
    const tls = join(dir, '.sandbox', 'tls');
    const receiver = await httpsReceiver(
      readFileSync(join(tls, 'localhost.pem'), 'utf8'),
      readFileSync(join(tls, 'localhost-key.pem'), 'utf8'),
    );
    try {
      const id = await paymentTo(sandbox.url, ca, receiver.url);
      const body = await waitFor(() => receiver.received.find((text) => text.includes(id)), 'a webhook at the https receiver', 15_000);
      expect(JSON.parse(body).event).toMatch(/^payment\./);
    } finally {
      receiver.close();
    }
  });

  it('fails a delivery to a receiver of an untrusted CA with error kind tls', async () => {
    const other = localCa(join(dir, 'other-ca'));
    const receiver = await httpsReceiver(other.cert, other.key);
    try {
      const id = await paymentTo(sandbox.url, ca, receiver.url);
      const failed = await waitFor(
        async () => {
          const list = await httpsJson(`${sandbox.url}/_sandbox/deliveries?limit=1000`, ca);
          const rows = (list.json.data ?? list.json) as { id: string; url: string; status: string }[];
          return rows.find((row) => row.url === receiver.url && row.status === 'failed');
        },
        'a failed delivery to the untrusted receiver',
        15_000,
        100,
      );
      const detail = await httpsJson(`${sandbox.url}/_sandbox/deliveries/${failed.id}`, ca);
      expect(JSON.stringify(detail.json)).toContain('"error_kind":"tls"');
      expect(receiver.received.filter((text) => text.includes(id))).toEqual([]);
    } finally {
      receiver.close();
    }
  });
});

describe('sandbox start --https in a folder with the CA of an older sandbox', () => {
  it('makes a new CA, says it must be trusted again, and the next start says nothing of it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'paysandbox-https-old-ca-'));
    const tls = join(dir, '.sandbox', 'tls');
    mkdirSync(tls, { recursive: true });
    // What sandboxes made before name constraints: a CA for ten years that could vouch for any site.
    const old = makeCertificate({ ca: true, notAfter: new Date(Date.now() + 3650 * 24 * 60 * 60 * 1000) });
    writeFileSync(join(tls, 'ca.pem'), old.cert);
    writeFileSync(join(tls, 'ca-key.pem'), old.key);
    try {
      const first = await startCliSandbox(['--https', '--db', ':memory:'], { cwd: dir, env: { NO_COLOR: '1' } });
      await first.stop();
      expect(first.stdout).toContain(
        `New CA     made a new local CA (the one in ${tls} was not kept: it could vouch for any site: it has no critical name constraints limiting it to localhost, 127.0.0.0/8 and ::1)`,
      );
      expect(first.stdout).toContain(
        `trust ${join(tls, 'ca.pem')} as below, in every client and browser that trusted a CA of this folder before`,
      );
      expect(readFileSync(join(tls, 'ca.pem'), 'utf8')).not.toBe(old.cert);
      const second = await startCliSandbox(['--https', '--db', ':memory:'], { cwd: dir, env: { NO_COLOR: '1' } });
      await second.stop();
      expect(second.stdout).toContain(`signed by the local CA ${join(tls, 'ca.pem')}`);
      expect(second.stdout).not.toContain('New CA');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    // Two starts that each may wait out READY_WAIT_MS under load: the limit only bounds a hang.
  }, 120_000);
});

describe('startSandbox({ https: true })', () => {
  it('serves TLS with the local CA made under the working directory, and returns https:// URLs', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'paysandbox-https-lib-'));
    const before = process.cwd();
    process.chdir(dir);
    try {
      const sandbox = await startSandbox({ https: true });
      try {
        expect(sandbox.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
        expect(sandbox.server.tls?.caFile).toBe(join(dir, '.sandbox', 'tls', 'ca.pem'));
        const health = await httpsJson(`${sandbox.url}/_sandbox/health`, sandbox.server.tls?.ca ?? '');
        expect(health.json).toMatchObject({ status: 'ok' });
      } finally {
        await sandbox.close();
      }
    } finally {
      process.chdir(before);
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('after ca.pem and ca-key.pem are replaced by another CA, serves a certificate that CA issued', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'paysandbox-https-swap-'));
    const before = process.cwd();
    process.chdir(dir);
    try {
      const first = await startSandbox({ https: true });
      const oldCa = first.server.tls?.ca ?? '';
      await first.close();
      const other = localCa(join(dir, 'other'));
      writeFileSync(join(dir, '.sandbox', 'tls', 'ca.pem'), other.ca);
      writeFileSync(join(dir, '.sandbox', 'tls', 'ca-key.pem'), readFileSync(join(dir, 'other', 'ca-key.pem')));
      const second = await startSandbox({ https: true });
      try {
        const health = await httpsJson(`${second.url}/_sandbox/health`, other.ca);
        expect(health.json).toMatchObject({ status: 'ok' });
        await expect(httpsJson(`${second.url}/_sandbox/health`, oldCa)).rejects.toThrow(/unable to verify|self.signed|certificate/i);
      } finally {
        await second.close();
      }
    } finally {
      process.chdir(before);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('sandbox start --cert --key --webhook-ca', () => {
  it("serves the merchant's own certificate (here one a local CA made, as mkcert would) and trusts --webhook-ca for deliveries", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'paysandbox-https-own-'));
    const made = localCa(join(dir, 'certs'));
    const sandbox = await startCliSandbox(['--cert', made.certFile, '--key', made.keyFile, '--db', ':memory:'], {
      cwd: dir,
      env: { NO_COLOR: '1' },
    });
    try {
      expect(sandbox.url).toMatch(/^https:/);
      expect(sandbox.stdout).toContain(`certificate ${made.certFile} (--cert)`);
      const out = await run('curl', ['-sS', '--cacert', made.caFile, `${sandbox.url}/_sandbox/health`]);
      expect(out.code, out.stderr).toBe(0);
    } finally {
      await sandbox.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('sandbox start --cert/--key/--webhook-ca refusals', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'paysandbox-https-bad-'));
    writeFileSync(join(dir, 'not-pem.txt'), 'hello\n');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const DAY_MS = 24 * 60 * 60 * 1000;
  /** A certificate and its key written to `dir` as name.pem and name-key.pem; the two paths. */
  function written(d: string, name: string, pair: { cert: string; key: string }): [string, string] {
    writeFileSync(join(d, `${name}.pem`), pair.cert);
    writeFileSync(join(d, `${name}-key.pem`), pair.key);
    return [join(d, `${name}.pem`), join(d, `${name}-key.pem`)];
  }
  /** --cert FILE --key FILE of a certificate valid from `notBefore` to `notAfter`. */
  const certValid = (d: string, name: string, notBefore: Date, notAfter: Date) => {
    const [cert, key] = written(d, name, makeCertificate({ notBefore, notAfter }));
    return ['--cert', cert, '--key', key];
  };
  /** A FIFO no one writes to: reading it waited forever. */
  const fifo = (d: string) => {
    const path = join(d, 'cert.fifo');
    if (!existsSync(path)) execFileSync('mkfifo', [path]);
    return path;
  };
  const validKey = (d: string) => written(d, 'valid', makeCertificate())[1];

  const cases: [string, (dir: string) => string[], RegExp][] = [
    [
      'an expired --cert',
      (d) => certValid(d, 'expired', new Date(Date.now() - 60 * DAY_MS), new Date(Date.now() - DAY_MS)),
      /--cert ".*expired\.pem" expired \(valid until .*\); make a new one/,
    ],
    [
      'a --cert valid only from 2040',
      (d) => certValid(d, 'future', new Date('2040-01-01T00:00:00Z'), new Date('2041-01-01T00:00:00Z')),
      /--cert ".*future\.pem" is not valid yet \(valid from Jan {1,2}1 00:00:00 2040 GMT; clients refuse it until then\)/,
    ],
    [
      'a --cert that is a FIFO (it hung the start)',
      (d) => ['--cert', fifo(d), '--key', validKey(d)],
      /--cert cannot read ".*cert\.fifo": it is not a regular file \(a FIFO, a device or a socket\)/,
    ],
    [
      'a --key that is /dev/zero (it read until memory ran out)',
      (d) => ['--cert', written(d, 'valid', makeCertificate())[0], '--key', '/dev/zero'],
      /--key cannot read "\/dev\/zero": it is not a regular file/,
    ],
    [
      'a --webhook-ca that is a FIFO',
      (d) => ['--webhook-ca', fifo(d)],
      /--webhook-ca cannot read ".*cert\.fifo": it is not a regular file/,
    ],
    [
      'a --webhook-ca of 2 MiB',
      (d) => {
        writeFileSync(join(d, 'huge.pem'), Buffer.alloc(2 * 1024 * 1024, 'A'));
        return ['--webhook-ca', join(d, 'huge.pem')];
      },
      /--webhook-ca cannot read ".*huge\.pem": it is larger than 1048576 bytes \(1 MiB\)/,
    ],
    [
      'an expired --webhook-ca',
      (d) => ['--webhook-ca', written(d, 'old-ca', makeCertificate({ ca: true, notAfter: new Date(Date.now() - DAY_MS) }))[0]],
      /--webhook-ca ".*old-ca\.pem" expired/,
    ],
    [
      'a missing --cert file',
      (d) => ['--cert', join(d, 'nope.pem'), '--key', join(d, 'not-pem.txt')],
      /--cert cannot read ".*nope\.pem": no such file/,
    ],
    [
      'a --cert that is no PEM',
      (d) => ['--cert', join(d, 'not-pem.txt'), '--key', join(d, 'not-pem.txt')],
      /--cert ".*not-pem\.txt" is not a PEM certificate/,
    ],
    ['--cert without --key', (d) => ['--cert', join(d, 'not-pem.txt')], /--cert needs --key FILE too/],
    [
      'a --webhook-ca that is no PEM',
      (d) => ['--webhook-ca', join(d, 'not-pem.txt')],
      /--webhook-ca ".*not-pem\.txt" is not a PEM certificate/,
    ],
  ];
  for (const [name, args, message] of cases) {
    it(`refuses ${name} in one line naming the flag`, async () => {
      const out = await runBuiltCli(['start', '--port', '0', '--db', ':memory:', ...args(dir)], { cwd: dir });
      expect(out.code).not.toBe(0);
      expect(out.stderr).toMatch(message);
      expect(out.stderr.trim().split('\n')).toHaveLength(1);
    });
  }

  it("refuses a --key that is not the certificate's own", async () => {
    // The local CA's files: its server certificate given with the CA's key.
    const tls = join(dir, '.sandbox', 'tls');
    localCa(tls);
    const out = await runBuiltCli(
      ['start', '--port', '0', '--db', ':memory:', '--cert', join(tls, 'localhost.pem'), '--key', join(tls, 'ca-key.pem')],
      {
        cwd: dir,
      },
    );
    expect(out.code).not.toBe(0);
    expect(out.stderr).toMatch(/--key ".*ca-key\.pem" is not the private key of the certificate in ".*localhost\.pem"/);
  });
});
