// A token's scripted future (issue 33): POST/GET/DELETE /_sandbox/tokens/{id}/outcomes and the
// scenario document's `tokens`, one outcome per charge, scoped to the token's merchant, then the
// card's own outcome again; bad input a 4xx naming the field.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestSandbox, type TestSandbox } from '../helpers/test-sandbox.js';
import { AUTH, OTHER } from '../helpers/payments-api.js';

let sb: TestSandbox;
beforeEach(() => {
  sb = createTestSandbox();
});
afterEach(() => sb.close());

const card = { number: '4242424242424242', exp_month: 12, exp_year: 2030, cvc: '123' };
const saveToken = async (headers = AUTH) => (await sb.request('POST', '/v1/tokens', { card }, headers)).json.id as string;
const charge = async (token: string, headers = AUTH) =>
  (await sb.request('POST', '/v1/payments', { amount: 500, currency: 'EUR', token }, headers)).json;
const outcomes = (token: string, query = '') => sb.request('GET', `/_sandbox/tokens/${token}/outcomes${query}`);

describe('POST /_sandbox/tokens/{id}/outcomes', () => {
  it('queues one outcome per charge, in order; GET shows what is left; then the card approves again', async () => {
    const token = await saveToken();
    const set = await sb.request('POST', `/_sandbox/tokens/${token}/outcomes`, {
      outcomes: ['approve', 'insufficient_funds', 'approve', 'expired_card'],
    });
    expect(set.status, set.text).toBe(200);
    expect(set.json).toEqual({
      object: 'token_outcomes',
      token,
      merchant: 'mer_sandbox',
      outcomes: ['approve', 'insufficient_funds', 'approve', 'expired_card'],
    });
    const seen: string[] = [];
    for (let i = 0; i < 5; i++) {
      const p = await charge(token);
      seen.push(p.status === 'declined' ? `${p.decline_code}/${p.advice_code}` : p.status);
      if (i === 1) expect((await outcomes(token)).json.outcomes).toEqual(['approve', 'expired_card']);
    }
    expect(seen).toEqual(['authorized', 'insufficient_funds/try_again_later', 'authorized', 'expired_card/update_card', 'authorized']);
    expect((await outcomes(token)).json.outcomes).toEqual([]);
  });

  it('appends to what waits, and DELETE drops it', async () => {
    const token = await saveToken();
    await sb.request('POST', `/_sandbox/tokens/${token}/outcomes`, { outcomes: ['stolen_card'] });
    const more = await sb.request('POST', `/_sandbox/tokens/${token}/outcomes`, { outcomes: ['approve'] });
    expect(more.json.outcomes).toEqual(['stolen_card', 'approve']);
    const cleared = await sb.request('DELETE', `/_sandbox/tokens/${token}/outcomes`);
    expect(cleared.json).toMatchObject({ outcomes: [], removed: 2 });
    expect((await charge(token)).status).toBe('authorized');
  });

  it("is scoped to the token's merchant: another merchant's token is a 404, also through ?merchant", async () => {
    const theirs = await saveToken(OTHER);
    const mine = await sb.request('POST', `/_sandbox/tokens/${theirs}/outcomes`, { outcomes: ['approve'] });
    expect(mine.status).toBe(404);
    expect(mine.json.error).toMatchObject({ code: 'resource_missing', param: 'id' });
    const named = await sb.request('POST', `/_sandbox/tokens/${theirs}/outcomes`, { outcomes: ['card_declined'], merchant: 'mer_other' });
    expect(named.status, named.text).toBe(200);
    expect((await outcomes(theirs, '?merchant=mer_other')).json.outcomes).toEqual(['card_declined']);
    expect((await outcomes(theirs)).status).toBe(404);
    expect((await charge(theirs, OTHER)).decline_code).toBe('card_declined');
  });

  it.each([
    [{ outcomes: ['approve', 'insufficent_funds'] }, 'outcomes.1', 'insufficent_funds'],
    [{ outcomes: ['decline:insufficient_funds'] }, 'outcomes.0', 'decline:insufficient_funds'],
    [{ outcomes: [] }, 'outcomes', ''],
    [{ outcomes: 'approve' }, 'outcomes', ''],
    [{ outcomes: ['approve'], merchant: 'mer_nobody' }, 'merchant', 'mer_nobody'],
    [{ outcomes: ['approve'], extra: 1 }, 'extra', ''],
  ])('%j is a 4xx naming %s', async (body, param, echoed) => {
    const token = await saveToken();
    const res = await sb.request('POST', `/_sandbox/tokens/${token}/outcomes`, body);
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(res.json.error.param).toBe(param);
    expect(res.json.error.message).toContain(echoed);
    expect((await outcomes(token)).json.outcomes).toEqual([]);
  });

  it('at most 1000 outcomes wait on a token: a script that would go past it is a 400 naming outcomes, and nothing is added', async () => {
    const token = await saveToken();
    const full = Array.from({ length: 1000 }, (_, i) => (i % 2 ? 'approve' : 'insufficient_funds'));
    expect((await sb.request('POST', `/_sandbox/tokens/${token}/outcomes`, { outcomes: full })).status).toBe(200);
    const more = await sb.request('POST', `/_sandbox/tokens/${token}/outcomes`, { outcomes: ['approve'] });
    expect(more.status).toBe(400);
    expect(more.json.error.param).toBe('outcomes');
    expect(more.json.error.message).toContain('at most 1000');
    expect((await outcomes(token)).json.outcomes).toHaveLength(1000);
  });

  it('GET and DELETE name a bad query field, and an unknown merchant, and change nothing', async () => {
    const token = await saveToken();
    await sb.request('POST', `/_sandbox/tokens/${token}/outcomes`, { outcomes: ['stolen_card'] });
    for (const method of ['GET', 'DELETE']) {
      const unknown = await sb.request(method, `/_sandbox/tokens/${token}/outcomes?merchnt=mer_sandbox`);
      expect(unknown.status, unknown.text).toBe(400);
      expect(unknown.json.error.param).toBe('merchnt');
      const nobody = await sb.request(method, `/_sandbox/tokens/${token}/outcomes?merchant=mer_nobody`);
      expect(nobody.status, nobody.text).toBe(404);
      expect(nobody.json.error.param).toBe('merchant');
    }
    expect((await outcomes(token)).json.outcomes).toEqual(['stolen_card']);
  });

  it('a predefined token is a 400 saying to save the card; an unknown one a 404', async () => {
    const predefined = await sb.request('POST', '/_sandbox/tokens/tok_visa/outcomes', { outcomes: ['approve'] });
    expect(predefined.status).toBe(400);
    expect(predefined.json.error.message).toContain('save the card with POST /v1/tokens');
    expect((await sb.request('POST', '/_sandbox/tokens/tok_nothing/outcomes', { outcomes: ['approve'] })).status).toBe(404);
  });
});

describe('scenario documents', () => {
  it('script saved tokens with `tokens`, for the named merchant', async () => {
    const token = await saveToken();
    const res = await sb.request('POST', '/_sandbox/scenarios', {
      name: 'renewals',
      entries: [],
      tokens: [{ token, outcomes: ['insufficient_funds', 'approve'] }],
    });
    expect(res.status, res.text).toBeLessThan(300);
    expect((await outcomes(token)).json.outcomes).toEqual(['insufficient_funds', 'approve']);
    expect((await charge(token)).decline_code).toBe('insufficient_funds');
  });

  it("refuses another merchant's token and an unknown outcome, naming the entry", async () => {
    const theirs = await saveToken(OTHER);
    const other = await sb.request('POST', '/_sandbox/scenarios', { entries: [], tokens: [{ token: theirs, outcomes: ['approve'] }] });
    expect(other.status).toBe(404);
    expect(other.json.error.param).toBe('tokens.0.token');
    const mine = await saveToken();
    const bad = await sb.request('POST', '/_sandbox/scenarios', { entries: [], tokens: [{ token: mine, outcomes: ['maybe'] }] });
    expect(bad.status).toBe(400);
    expect(bad.json.error.param).toBe('tokens.0.outcomes.0');
    expect((await outcomes(mine)).json.outcomes).toEqual([]);
  });
});
