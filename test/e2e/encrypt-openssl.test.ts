// Interop with an independent implementation of the cipher: the openssl command line. An
// encrypted_data made only with `openssl dgst`, `openssl enc` and `openssl base64` is accepted by
// a real sandbox, and the `data` of the sandbox's aes256 webhook decrypts with `openssl enc -d`.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { verifySignature } from '../../src/signatures/signing.js';
import { useSandboxWithMerchant } from '../helpers/sandbox-with-merchant.js';
import { CREDS, s2sBody } from '../helpers/test-sandbox.js';
import { waitFor } from '../helpers/wait-for.js';

const OPENSSL = '/usr/bin/openssl';

function openssl(args: string[], input: string): string {
  return execFileSync(OPENSSL, args, { input }).toString('utf8');
}

/** docs/decisions.md key material, derived with openssl: the first N hex characters of sha256(text), as hex of their ASCII bytes. */
function material(text: string, chars: number): string {
  const digest = openssl(['dgst', '-sha256', '-r'], text).slice(0, chars);
  return Buffer.from(digest, 'ascii').toString('hex');
}

const KEY = material(CREDS.privateKey, 32);
const IV = material(CREDS.publicKey, 16);

/** base64(base64(AES-256-CBC)) made by openssl alone. */
function opensslEncrypt(plaintext: string): string {
  const once = openssl(['enc', '-aes-256-cbc', '-K', KEY, '-iv', IV, '-base64', '-A'], plaintext);
  return openssl(['base64', '-A'], once).trim();
}

function opensslDecrypt(data: string): string {
  const once = openssl(['base64', '-d', '-A'], data);
  return openssl(['enc', '-d', '-aes-256-cbc', '-K', KEY, '-iv', IV, '-base64', '-A'], once);
}

describe.skipIf(!existsSync(OPENSSL))('encrypted S2S against the openssl command', () => {
  const env = useSandboxWithMerchant({ flags: { retry: 'none' } });

  async function postEncrypted(encryptedData: string) {
    const res = await env.http.postForm('/api/s2s/encrypt', { encrypted_data: encryptedData });
    return { status: res.status, warning: res.headers.get('x-sandbox-warning'), json: res.json };
  }

  it('encrypted_data built with openssl is accepted, and the aes256 webhook data decrypts with openssl enc -d', async () => {
    const fields = {
      ...s2sBody({
        ccno: '4242424242424242',
        reference: 'openssl_1',
        product_name: 'Mug & saucer',
        webhook_url: `${env.merchant.url}/hook`,
      }),
      encryption_method: 'aes256',
    };
    const query = new URLSearchParams(Object.entries(fields).map(([k, v]): [string, string] => [k, String(v)])).toString();
    const res = await postEncrypted(opensslEncrypt(query) + CREDS.publicKey);
    expect(res.status).toBe(200);
    expect(res.warning).toBeNull();
    expect(res.json).toMatchObject({ reference: 'openssl_1', status: 'Test Approved', order_status: '25' });

    const hook = await waitFor(() => env.merchant.at('/hook')[0], 'the webhook');
    expect(verifySignature(hook.headers['x-sandbox-signature'] as string, CREDS.secret, hook.body)).toBe(true);
    const data = new URLSearchParams(hook.body).get('data');
    expect(data).toMatch(/^[A-Za-z0-9/]+=*$/);
    const plain = Object.fromEntries(new URLSearchParams(opensslDecrypt(data!)));
    expect(plain).toMatchObject({
      transID: res.json.transID,
      reference: 'openssl_1',
      order_status: '25',
      status: 'Test Approved',
      bill_amt: '10.50',
      bill_currency: 'EUR',
      mop: 'VISA',
      ccno: '424242XXXXXX4242',
    });
  });

  it('a wrong private_key on the openssl side is reported as such', async () => {
    const wrongKey = material('pv_not_this_terminal', 32);
    const once = openssl(['enc', '-aes-256-cbc', '-K', wrongKey, '-iv', IV, '-base64', '-A'], 'terNO=1001');
    const res = await postEncrypted(openssl(['base64', '-A'], once).trim() + CREDS.publicKey);
    expect(res.status).toBe(400);
    expect(res.json.error.message).toContain("is not this terminal's private_key");
  });
});
