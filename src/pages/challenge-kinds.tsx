// The actions of a non-card challenge page (bank, wallet, UPI, QR): the customer approves,
// declines or cancels, as a test-mode bank page lets them.
import type { Challenge } from '../store/challenges-repo.js';

/** Approve / Decline / Cancel buttons for the challenge's form. */
export function ChallengeActions(props: { challenge: Challenge }) {
  const { challenge } = props;
  return (
    <form method="post" action={`/authenticate/${challenge.token}`}>
      <input type="hidden" name="csrf" value={challenge.details.csrf} />
      <div class="actions">
        <button type="submit" name="action" value="approve">
          Approve
        </button>
        <button type="submit" name="action" value="decline" class="danger">
          Decline
        </button>
        <button type="submit" name="action" value="cancel" class="secondary">
          Cancel
        </button>
      </div>
    </form>
  );
}
