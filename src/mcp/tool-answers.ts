// Short text summaries of what a tool did, one or a few lines an agent reads before the structured
// content: the ids it needs next and what to do about a failure.
import type { DeliveryDetailView, DeliveryView } from '../views/delivery.js';
import { deliveryLine } from '../client/delivery-wait.js';

/** "whd_... payment.authorized -> URL succeeded after 1 attempt (last answer 200)" and its attempts, refusals explained. */
export function deliveryDetailLines(d: DeliveryDetailView): string[] {
  const lines = [deliveryLine(d)];
  for (const a of d.attempt_log) {
    const answer = a.response_status !== null ? `answered ${a.response_status}` : `${a.error_kind ?? 'error'}: ${a.error ?? ''}`;
    lines.push(`  #${a.attempt} ${a.at} ${answer}${a.fault ? ` [fault ${a.fault}]` : ''}`);
    if (a.signature_check) lines.push(`     signature: ${a.signature_check.cause}: ${a.signature_check.message}`);
  }
  return lines;
}

/** One line per delivery of a list, or "no deliveries". */
export function deliveryListLines(deliveries: DeliveryView[]): string[] {
  return deliveries.length ? deliveries.map(deliveryLine) : ['no deliveries match'];
}
