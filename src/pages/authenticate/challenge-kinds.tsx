// What a non-card challenge page shows, per payment mode: netbanking (choose a bank), wallet
// (choose a wallet), UPI collect (waiting for approval in the customer's UPI app, with the time
// left) and UPI QR (a scannable upi://pay intent). Each simulates the customer's side with
// plain form buttons, so the pages work without JavaScript.
import { raw } from 'hono/html';
import { formatDecimalAmount } from '../../domain/money.js';
import type { Challenge } from '../../store/challenges-repo.js';
import type { ChallengeKind } from '../../domain/vocabularies.js';
import { LocalTime } from '../layout.js';

/** One choice on the bank or wallet page. */
export interface PaymentChoice {
  code: string;
  name: string;
}

/** The simulated banks of the netbanking (NB) page; `bank` in the request preselects one by code. */
export const TEST_BANKS: readonly PaymentChoice[] = [
  { code: 'HDFC', name: 'HDFC Bank (simulated)' },
  { code: 'ICICI', name: 'ICICI Bank (simulated)' },
  { code: 'SBI', name: 'State Bank of India (simulated)' },
  { code: 'AXIS', name: 'Axis Bank (simulated)' },
  { code: 'TESTBANK', name: 'Sandbox Test Bank' },
];

/** The simulated wallets of the WALLET page; `bank` in the request preselects one by code. */
export const TEST_WALLETS: readonly PaymentChoice[] = [
  { code: 'PAYTM', name: 'Paytm Wallet (simulated)' },
  { code: 'PHONEPE', name: 'PhonePe Wallet (simulated)' },
  { code: 'AMAZONPAY', name: 'Amazon Pay (simulated)' },
  { code: 'MOBIKWIK', name: 'MobiKwik (simulated)' },
  { code: 'TESTWALLET', name: 'Sandbox Test Wallet' },
];

const CHOICES: Partial<Record<ChallengeKind, { list: readonly PaymentChoice[]; noun: string }>> = {
  bank: { list: TEST_BANKS, noun: 'bank' },
  wallet: { list: TEST_WALLETS, noun: 'wallet' },
};

/** Page title and lead text of each non-card kind. */
export const KIND_TEXT: Record<Exclude<ChallengeKind, 'otp'>, { title: string; hint: string }> = {
  bank: { title: 'Pay with netbanking', hint: 'Choose your bank, then approve the payment as your bank would ask you to.' },
  wallet: { title: 'Pay with your wallet', hint: 'Choose your wallet, then approve the payment.' },
  upi: {
    title: 'Waiting for approval in your UPI app',
    hint: 'A payment request was sent to your UPI app. Open the app and approve it before the time runs out.',
  },
  qr: { title: 'Scan to pay with UPI', hint: 'Scan the code with any UPI app to pay.' },
};

/** The merchant's UPI address in QR intents: its id with '_' as '.', at the sandbox handle (mer_sandbox -> mer.sandbox@sandbox). */
export function merchantVpa(merchantId: string): string {
  return `${merchantId.replace(/_/g, '.').replace(/[^A-Za-z0-9.-]/g, '')}@sandbox`;
}

/** upi://pay?pa=&pn=&am=&cu=&tr= for a QR challenge; every value percent-encoded (spaces as %20, as UPI apps expect). */
export function upiIntent(challenge: Challenge): string {
  const d = challenge.details;
  const params = new URLSearchParams({
    pa: merchantVpa(challenge.merchantId),
    pn: d.merchant ?? '',
    am: formatDecimalAmount(Number(d.amount ?? 0), d.currency ?? 'INR'),
    cu: d.currency ?? 'INR',
    tr: challenge.subjectId,
  });
  // URLSearchParams writes a space as '+' (a literal '+' is %2B), but UPI apps read '+' literally;
  // '@' is legal in a query and UPI apps expect the VPA's '@' as it is.
  return `upi://pay?${params.toString().replace(/\+/g, '%20').replace(/%40/g, '@')}`;
}

/**
 * The SVG of a QR code; the options are fixed so tests can regenerate the same image from a text.
 * The QR library (with its PNG encoder, 130 KB) loads on the first QR page, not at start-up.
 */
export async function qrSvg(text: string): Promise<string> {
  const { default: QRCode } = await import('qrcode');
  return QRCode.toString(text, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
}

/** Why an Approve/Decline form cannot be accepted as sent (no bank or wallet chosen), or undefined. */
export function kindProblem(challenge: Challenge, action: string, form: Record<string, unknown>): string | undefined {
  const choices = CHOICES[challenge.kind];
  if (!choices || (action !== 'approve' && action !== 'decline')) return undefined;
  const chosen = String(form[choices.noun] ?? '');
  return choices.list.some((c) => c.code === chosen) ? undefined : `Choose your ${choices.noun} first.`;
}

function timeLeft(ms: number): string {
  const seconds = Math.max(0, Math.ceil(ms / 1000));
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
}

function Buttons(props: { approve: string; decline: string }) {
  return (
    <div class="actions">
      <button type="submit" name="action" value="approve">
        {props.approve}
      </button>
      <button type="submit" name="action" value="decline" class="danger">
        {props.decline}
      </button>
      <button type="submit" name="action" value="cancel" class="secondary" formnovalidate>
        Cancel
      </button>
    </div>
  );
}

function ChoiceForm(props: { challenge: Challenge; list: readonly PaymentChoice[]; noun: string }) {
  const { challenge, list, noun } = props;
  const preset = challenge.details.bank?.toUpperCase();
  return (
    <form method="post" action={`/authenticate/${challenge.token}`}>
      <input type="hidden" name="csrf" value={challenge.details.csrf} />
      <label for="choice">Your {noun}</label>
      <select id="choice" name={noun} required>
        <option value="">Choose your {noun}</option>
        {list.map((c) => (
          <option value={c.code} selected={c.code === preset}>
            {c.name}
          </option>
        ))}
      </select>
      <p class="hint">Test mode: every {noun} here is simulated; Approve pays, Decline refuses, Cancel returns to the shop.</p>
      <Buttons approve="Approve" decline="Decline" />
    </form>
  );
}

function UpiCollect(props: { challenge: Challenge; now: number }) {
  const { challenge, now } = props;
  return (
    <form method="post" action={`/authenticate/${challenge.token}`}>
      <input type="hidden" name="csrf" value={challenge.details.csrf} />
      <div class="notice info" role="status">
        Request sent to <strong>{challenge.details.vpa ?? 'your UPI address'}</strong>. Time left:{' '}
        <strong>{timeLeft(challenge.expiresAt - now)}</strong> (until <LocalTime ms={challenge.expiresAt} seconds />
        ).
      </div>
      <a class="button secondary" href={`/authenticate/${challenge.token}`}>
        Check again
      </a>
      <p class="hint">Test mode: these buttons act as the customer's UPI app.</p>
      <Buttons approve="Approve in UPI app" decline="Decline in UPI app" />
    </form>
  );
}

async function UpiQr(props: { challenge: Challenge }) {
  const { challenge } = props;
  const intent = upiIntent(challenge);
  // The SVG is produced by the QR library from an encoded intent, never from raw user text,
  // which is why it is the one place a page inserts markup unescaped.
  const svg = await qrSvg(intent);
  return (
    <form method="post" action={`/authenticate/${challenge.token}`}>
      <input type="hidden" name="csrf" value={challenge.details.csrf} />
      <div class="qr" role="img" aria-label="QR code of the UPI payment request">
        {raw(svg)}
      </div>
      <p class="hint">
        Payment request: <code>{intent}</code>
      </p>
      <Buttons approve="Simulate: paid" decline="Simulate: failed" />
    </form>
  );
}

/** The form of a non-card challenge page, by kind. */
export function ChallengeActions(props: { challenge: Challenge; now: number }) {
  const { challenge } = props;
  const choices = CHOICES[challenge.kind];
  if (choices) return <ChoiceForm challenge={challenge} list={choices.list} noun={choices.noun} />;
  if (challenge.kind === 'upi') return <UpiCollect challenge={challenge} now={props.now} />;
  if (challenge.kind === 'qr') return <UpiQr challenge={challenge} />;
  return (
    <form method="post" action={`/authenticate/${challenge.token}`}>
      <input type="hidden" name="csrf" value={challenge.details.csrf} />
      <Buttons approve="Approve" decline="Decline" />
    </form>
  );
}
