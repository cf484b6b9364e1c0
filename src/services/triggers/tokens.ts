// How `sandbox trigger` produces the token.* events: a token it saves with the renewing test card
// 4000000000000176, whose aging jobs it runs at once (token.expiring, then the renewal's token.updated).
import type { Merchant } from '../../store/credentials-repo.js';
import type { Driven, TriggerKit } from './types.js';

/** A new token of the renewing test card, 30 days from expiry (token.expiring) and, for token.updated, renewed. */
export function tokenEvent(kit: TriggerKit, type: 'token.expiring' | 'token.updated', merchant: Merchant): Driven {
  const year = new Date(kit.deps.clock.now()).getUTCFullYear() + 1;
  const token = kit.s.tokens.create(merchant.id, { number: '4000000000000176', exp_month: 12, exp_year: year, cvc: '123' });
  kit.s.jobs.runNow('token.expiring', token.id);
  if (type === 'token.updated') kit.s.jobs.runNow('token.renew', token.id);
  return { resourceId: token.id, related: { token_id: token.id } };
}
