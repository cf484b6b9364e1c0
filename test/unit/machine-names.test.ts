// The delivery-time half of the control-target rule: a URL under /_sandbox whose name is not one
// the machine is known by is looked up, and refused when DNS points it at this machine (a
// hosts-file alias, "127.0.0.1.nip.io"). DNS is stubbed: the test needs no network.
import { describe, expect, it, vi } from 'vitest';

const answers: Record<string, Array<{ address: string; family: number }>> = {
  'rebind.example': [
    { address: '203.0.113.7', family: 4 },
    { address: '127.0.0.1', family: 4 },
  ],
  'mapped.example': [{ address: '::ffff:127.0.0.1', family: 6 }],
  'elsewhere.example': [{ address: '203.0.113.7', family: 4 }],
};
const lookups: string[] = [];
vi.mock('node:dns/promises', () => ({
  lookup: async (name: string) => {
    lookups.push(name);
    const found = answers[name];
    if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
    return found;
  },
}));
const { controlTargetRefusal } = await import('../../src/runtime/machine-names.js');

const where = { host: '127.0.0.1', publicUrl: undefined };
const refusal = (url: string) => controlTargetRefusal(new URL(url), where);

describe('controlTargetRefusal', () => {
  it('refuses /_sandbox on a name that DNS points at this machine, and says why', async () => {
    expect(await refusal('http://rebind.example:4010/_sandbox/reset')).toMatch(
      /^not sent: the URL points at the sandbox's own control API \(\/_sandbox on rebind\.example:4010\)/,
    );
    expect(await refusal('http://Mapped.Example./%5Fsandbox')).toBeDefined();
    expect(lookups).toEqual(['rebind.example', 'mapped.example']);
  });

  it('sends to /_sandbox elsewhere and to a name DNS does not know, and asks DNS nothing for other paths or known names', async () => {
    lookups.length = 0;
    expect(await refusal('http://elsewhere.example/_sandbox/reset')).toBeUndefined();
    expect(await refusal('http://unknown.example/_sandbox/reset')).toBeUndefined();
    expect(await refusal('http://rebind.example/webhooks')).toBeUndefined();
    expect(await refusal('http://localhost:4010/_sandbox/reset')).toBeDefined();
    expect(lookups).toEqual(['elsewhere.example', 'unknown.example']);
  });
});
