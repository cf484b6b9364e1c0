// The pieces of the hosted checkout page: the merchant header, the method tabs, and the card,
// iDEAL and SEPA forms. Plain HTML forms (no script), each with the session's CSRF token; labels on
// every field so the page works with the keyboard and a screen reader. hono/jsx escapes all text
// and attributes, including the merchant's name, reference and logo URL.
import type { Child } from 'hono/jsx';
import { formatMoney } from '../../domain/money.js';
import { TEST_CARDS, OTP_PASS } from '../../domain/outcomes.js';
import { IDEAL_BANKS, SEPA_TEST_IBANS, formatIban } from '../../domain/local-methods.js';
import type { CheckoutSession } from '../../store/checkout-sessions-repo.js';
import type { CheckoutMethod } from '../../domain/vocabularies.js';

/** The page's names of the methods. */
export const METHOD_LABELS: Record<CheckoutMethod, string> = { card: 'Card', ideal: 'iDEAL', sepa: 'SEPA Direct Debit' };

/** Problems with the fields of a submitted form, by field name, plus what was typed (never the CVC). */
export interface FormState {
  errors: Record<string, string>;
  values: Record<string, string>;
}

const EMPTY: FormState = { errors: {}, values: {} };

/**
 * The merchant's logo and name, and the amount due. A logo that fails to load shows the merchant's
 * initial instead (drawn by the stylesheet over the broken image, so no script is needed); its alt
 * is empty because the name stands next to it.
 */
export function MerchantHeader(props: { session: CheckoutSession; merchantName: string }) {
  const { session, merchantName } = props;
  const initial = merchantName.slice(0, 1).toUpperCase();
  return (
    <header class="checkout-head">
      <div class="brand">
        {session.logoUrl ? (
          <img class="logo" src={session.logoUrl} alt="" data-initial={initial} referrerpolicy="no-referrer" />
        ) : (
          <span class="monogram" aria-hidden="true">
            {initial}
          </span>
        )}
        <span class="name">{merchantName}</span>
      </div>
      <p class="due">Amount due</p>
      <p class="amount" id="amount">
        {formatMoney(session.amount, session.currency)}
      </p>
    </header>
  );
}

/**
 * Short names for the tabs, so three fit one row on a phone. They are the links' accessible names
 * too: a label that does not contain the visible text ("SEPA Direct Debit" on "SEPA Debit") fails
 * WCAG 2.5.3, and a speech user says what they see.
 */
const TAB_LABELS: Record<CheckoutMethod, string> = { card: 'Card', ideal: 'iDEAL', sepa: 'SEPA Debit' };

/** Links to each offered method; works without JavaScript (?method=...). */
export function MethodTabs(props: { session: CheckoutSession; current: CheckoutMethod }) {
  const { session, current } = props;
  if (session.methods.length < 2) return null;
  return (
    <nav class="tabs" aria-label="Payment method">
      {session.methods.map((method) => (
        <a href={`/pay/${session.token}?method=${method}`} aria-current={method === current ? 'page' : undefined}>
          {TAB_LABELS[method]}
        </a>
      ))}
    </nav>
  );
}

/** A labelled text input with its error, wired with aria-describedby. */
function Field(props: {
  id: string;
  name: string;
  label: string;
  state: FormState;
  autocomplete: string;
  inputmode?: 'numeric' | 'text';
  placeholder?: string;
  maxlength?: number;
  keepValue?: boolean;
  autofocus?: boolean;
}) {
  const error = props.state.errors[props.name];
  return (
    <div class="field">
      <label for={props.id}>{props.label}</label>
      <input
        id={props.id}
        name={props.name}
        type="text"
        autocomplete={props.autocomplete}
        inputmode={props.inputmode}
        placeholder={props.placeholder}
        maxlength={props.maxlength}
        spellcheck={false}
        required
        autofocus={props.autofocus}
        value={props.keepValue === false ? undefined : props.state.values[props.name]}
        aria-invalid={error ? 'true' : undefined}
        aria-describedby={error ? `${props.id}-error` : undefined}
      />
      {error ? (
        <p class="field-error" id={`${props.id}-error`}>
          {error}
        </p>
      ) : null}
    </div>
  );
}

function Csrf(props: { session: CheckoutSession }) {
  return <input type="hidden" name="csrf" value={props.session.csrf} />;
}

/** A collapsed list of test inputs; a merchant's tester reads them, a real page would not have them. */
function TestData(props: { title: string; children: Child }) {
  return (
    <details class="test-data">
      <summary>{props.title}</summary>
      {props.children}
    </details>
  );
}

const SHOWN_CARDS = ['4242424242424242', '4000000000003220', '4000000000000002', '4000000000009995', '4000008400001629'];

/** Card number, expiry, CVC and name. */
export function CardForm(props: { session: CheckoutSession; state?: FormState }) {
  const { session } = props;
  const state = props.state ?? EMPTY;
  return (
    <>
      <form method="post" action={`/pay/${session.token}/card`} class="pay-form" novalidate>
        <Csrf session={session} />
        <Field
          id="card-number"
          name="number"
          label="Card number"
          state={state}
          autocomplete="cc-number"
          inputmode="numeric"
          placeholder="1234 1234 1234 1234"
          maxlength={23}
        />
        <div class="row">
          <Field
            id="card-expiry"
            name="expiry"
            label="Expiry (MM / YY)"
            state={state}
            autocomplete="cc-exp"
            inputmode="numeric"
            placeholder="MM / YY"
            maxlength={7}
          />
          <Field
            id="card-cvc"
            name="cvc"
            label="CVC"
            state={state}
            autocomplete="cc-csc"
            inputmode="numeric"
            placeholder="123"
            maxlength={4}
            keepValue={false}
          />
        </div>
        <Field
          id="card-name"
          name="name"
          label="Name on card"
          state={state}
          autocomplete="cc-name"
          placeholder="Jane Doe"
          maxlength={100}
        />
        <button type="submit">Pay {formatMoney(session.amount, session.currency)}</button>
      </form>
      <TestCards />
    </>
  );
}

/** The test cards a tester can copy, under the card form. */
function TestCards() {
  return (
    <TestData title="Test cards">
      <ul>
        {TEST_CARDS.filter((card) => SHOWN_CARDS.includes(card.number)).map((card) => (
          <li>
            <code>{card.number.replace(/(\d{4})(?=\d)/g, '$1 ')}</code> {card.description}
          </li>
        ))}
      </ul>
      <p>
        Any future expiry and any CVC. On the 3-D Secure page the code <code>{OTP_PASS}</code> passes. Every test card is listed in the
        sandbox's documentation of hosted checkout.
      </p>
    </TestData>
  );
}

/** The bank list; the next page is the bank's (test-mode) outcome picker. */
export function IdealForm(props: { session: CheckoutSession; state?: FormState }) {
  const { session } = props;
  const state = props.state ?? EMPTY;
  const error = state.errors.bank;
  return (
    <form method="post" action={`/pay/${session.token}/ideal`} class="pay-form">
      <Csrf session={session} />
      <label for="ideal-bank">Choose your bank</label>
      <select
        id="ideal-bank"
        name="bank"
        required
        aria-invalid={error ? 'true' : undefined}
        aria-describedby={error ? 'ideal-bank-error' : undefined}
      >
        <option value="">Select your bank…</option>
        {IDEAL_BANKS.map((bank) => (
          <option value={bank.bic} selected={state.values.bank === bank.bic}>
            {bank.name}
          </option>
        ))}
      </select>
      {error ? (
        <p class="field-error" id="ideal-bank-error">
          {error}
        </p>
      ) : null}
      <p class="hint">You will approve the payment at your bank.</p>
      <button type="submit">Continue to your bank</button>
    </form>
  );
}

/** IBAN and account holder, with the mandate text a SEPA debit needs. */
export function SepaForm(props: { session: CheckoutSession; merchantName: string; state?: FormState }) {
  const { session } = props;
  const state = props.state ?? EMPTY;
  return (
    <>
      <form method="post" action={`/pay/${session.token}/sepa`} class="pay-form" novalidate>
        <Csrf session={session} />
        <Field
          id="sepa-iban"
          name="iban"
          label="IBAN"
          state={state}
          autocomplete="off"
          placeholder="AT61 1904 3002 3457 3201"
          maxlength={42}
        />
        <Field
          id="sepa-holder"
          name="holder"
          label="Account holder"
          state={state}
          autocomplete="name"
          placeholder="Jane Doe"
          maxlength={100}
        />
        <p class="hint mandate">
          By confirming, you authorise {props.merchantName} to debit {formatMoney(session.amount, session.currency)} from this account by
          SEPA Direct Debit. The payment is processing until your bank confirms it.
        </p>
        <button type="submit">Pay {formatMoney(session.amount, session.currency)} by direct debit</button>
      </form>
      <TestData title="Test IBANs">
        <ul>
          {SEPA_TEST_IBANS.map((entry) => (
            <li>
              <code>{formatIban(entry.iban)}</code> {entry.description}
            </li>
          ))}
        </ul>
        <p>Any other valid IBAN succeeds shortly after processing.</p>
      </TestData>
    </>
  );
}
