// The docs test's reading of a page's sample output: what varies per run matches any such value,
// and nothing else does.
import { expect, it } from 'vitest';
import { sameText } from '../docs/sample-match.js';

it('an elided webhook secret matches any base64 secret, a slash or plus first included', () => {
  for (const secret of ['whsec_/ChgPa295azBmG29r+4gkvrCDy53Ur7M7b7hfb/BdtQ=', 'whsec_+abc/def=', 'whsec_Jq3n0y1m9Yw1Zk'])
    expect(sameText('whsec_Jq3n0y1m9Yw1...', secret), secret).toBe(true);
  expect(sameText('whsec_Jq3n0y1m9Yw1...', 'sk_test_/abc')).toBe(false);
});

it('an id matches ids of its own prefix only, in letters and digits', () => {
  expect(sameText('pay_4kTMd9Qx81', 'pay_0VcNfRQsPEy5gJoJ')).toBe(true);
  expect(sameText('pay_4kTMd9Qx81', 'rfd_0VcNfRQsPEy5gJoJ')).toBe(false);
  expect(sameText('pay_4kTMd9Qx81', 'pay_/VcNfRQsPEy5gJoJ')).toBe(false);
});
