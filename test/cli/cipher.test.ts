// `sandbox encrypt` / `sandbox decrypt` through buildProgram with captured output: round trips,
// stdin, the encrypted_data form, the warnings on stderr, and errors a user can act on.
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/program.js';
import type { CliIo } from '../../src/cli/io.js';
import { decryptText, encryptText } from '../../src/crypto/s2s-cipher.js';

const KEYS = ['--public-key', 'pk_test_1001', '--private-key', 'pv_test_1001'];
const PLAIN = 'public_key=pk_test_1001&terNO=1001&product_name=Blue+mug&bill_amt=10.50';

/** Runs `sandbox <args>` in-process; `stdin` is what standard input holds. */
async function run(args: string[], stdin?: string) {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = {
    out: (text) => out.push(text),
    err: (text) => err.push(text),
    readStdin: async () => {
      if (stdin === undefined) throw new Error('the test gave no stdin');
      return stdin;
    },
  };
  await buildProgram(io).parseAsync(['node', 'sandbox', ...args]);
  return { out: out.join(''), err: err.join('') };
}

describe('sandbox encrypt', () => {
  it('prints the canonical ciphertext (the same bytes the sandbox sends in webhook data)', async () => {
    const { out } = await run(['encrypt', PLAIN, ...KEYS]);
    expect(out).toBe(encryptText(PLAIN, { publicKey: 'pk_test_1001', privateKey: 'pv_test_1001' }));
    expect(out).toMatch(/^[A-Za-z0-9/]+=*$/);
  });

  it('known answer: the vector the openssl CLI produced', async () => {
    const { out } = await run(['encrypt', 'a=1&b=two+words', ...KEYS]);
    expect(out).toBe('enh0OU41akEzMUlZV0NKUVZjbnZ3UT09');
  });

  it('--encrypted-data appends the public_key', async () => {
    const { out } = await run(['encrypt', PLAIN, ...KEYS, '--encrypted-data']);
    expect(out.endsWith('pk_test_1001')).toBe(true);
    expect(out.slice(0, -'pk_test_1001'.length)).toBe((await run(['encrypt', PLAIN, ...KEYS])).out);
  });

  it('reads stdin without its trailing newline', async () => {
    const fromStdin = await run(['encrypt', ...KEYS], `${PLAIN}\n`);
    const fromArg = await run(['encrypt', PLAIN, ...KEYS]);
    expect(fromStdin.out).toBe(fromArg.out);
  });

  it('--json gives both forms', async () => {
    const { out } = await run(['encrypt', PLAIN, ...KEYS, '--json']);
    const parsed = JSON.parse(out);
    expect(parsed.encrypted_data).toBe(`${parsed.ciphertext}pk_test_1001`);
  });

  it('a missing key is a usage error naming the option', async () => {
    const err: string[] = [];
    const program = buildProgram({ out: () => {}, err: (t) => err.push(t) });
    await expect(program.parseAsync(['node', 'sandbox', 'encrypt', PLAIN, '--public-key', 'pk_test_1001'])).rejects.toThrow();
    expect(err.join('')).toContain('--private-key');
  });
});

describe('sandbox decrypt', () => {
  it('round-trips what encrypt printed', async () => {
    const encrypted = await run(['encrypt', PLAIN, ...KEYS]);
    const decrypted = await run(['decrypt', encrypted.out, ...KEYS]);
    expect(decrypted.out).toBe(PLAIN);
    expect(decrypted.err).toBe('');
  });

  it('round-trips through stdin, with a full encrypted_data value', async () => {
    const encrypted = await run(['encrypt', ...KEYS, '--encrypted-data'], PLAIN);
    const decrypted = await run(['decrypt', ...KEYS], `${encrypted.out}\n`);
    expect(decrypted.out).toBe(PLAIN);
  });

  it('takes a webhook body data=<URL-encoded cipher> as it arrived', async () => {
    const cipher = (await run(['encrypt', PLAIN, ...KEYS])).out;
    const body = new URLSearchParams({ data: cipher }).toString();
    expect((await run(['decrypt', body, ...KEYS])).out).toBe(PLAIN);
  });

  it('prints the near-miss warnings on stderr and the plaintext on stdout', async () => {
    const canonical = (await run(['encrypt', PLAIN, ...KEYS])).out;
    const single = Buffer.from(canonical, 'base64').toString('ascii').replace(/=+$/, '');
    const { out, err } = await run(['decrypt', single, ...KEYS]);
    expect(out).toBe(PLAIN);
    expect(err).toContain('warning: encrypted_data was base64-encoded once');
    expect(err).toContain("warning: base64 '=' padding was missing");
  });

  it('--json lists the fields and warnings', async () => {
    const canonical = (await run(['encrypt', PLAIN, ...KEYS])).out;
    const parsed = JSON.parse((await run(['decrypt', canonical, ...KEYS, '--json'])).out);
    expect(parsed).toEqual({
      plaintext: PLAIN,
      fields: { public_key: 'pk_test_1001', terNO: '1001', product_name: 'Blue mug', bill_amt: '10.50' },
      warnings: [],
    });
  });

  it('a wrong private key fails with the reason, not a stack trace', async () => {
    const canonical = (await run(['encrypt', PLAIN, ...KEYS])).out;
    await expect(run(['decrypt', canonical, '--public-key', 'pk_test_1001', '--private-key', 'pv_wrong'])).rejects.toThrow(
      /padding is wrong.*private_key/,
    );
    expect(() => decryptText(canonical, { publicKey: 'pk_test_1001', privateKey: 'pv_wrong' })).toThrow();
  });
});
