// The docs' hand copies of the sandbox's vocabularies, held to their one source in src/domain: the
// test-card tables, the event-name lists, and every other list a page writes out (statuses,
// reasons, signature modes, OTPs and VPAs...). A card, event or word added, removed or renamed in
// the code fails here until each page says the same. Quick: it only reads files.
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { EVENT_TYPE_NAMES, EVENT_TYPES } from '../../src/domain/event-types.js';
import { formatIban, IDEAL_OUTCOME_TEXT, IDEAL_OUTCOMES, SEPA_TEST_IBANS } from '../../src/domain/local-methods.js';
import {
  DECLINE_MESSAGES,
  declineMessage,
  OTP_FAIL,
  OTP_PASS,
  OTP_TRIES,
  TEST_CARDS,
  VPA_APPROVE,
  VPA_DECLINE,
  type DeclineCode,
} from '../../src/domain/outcomes.js';
import {
  AUTHENTICATION_OUTCOMES,
  CHARGEBACK_REASONS,
  CHARGEBACK_STATUSES,
  CHECKOUT_METHODS,
  DASHBOARD_TABS,
  DELIVERY_STATUSES,
  DELIVERY_WAIT_STATUSES,
  orList,
  REFUND_REASONS,
  SETTLEMENT_STATUSES,
  SIGNATURE_MODES,
  type DashboardTab,
} from '../../src/domain/vocabularies.js';
import { DEFAULT_CHARGEBACK_REASON } from '../../src/services/chargebacks.js';
import { TAB_STATUSES } from '../../src/services/dashboard/queries.js';

const ROOT = new URL('../../', import.meta.url);
const PAGES = ['README.md', ...readdirSync(new URL('docs/', ROOT)).flatMap((name) => (name.endsWith('.md') ? [`docs/${name}`] : []))];
const read = (page: string) => readFileSync(new URL(page, ROOT), 'utf8');
/** Text with every run of white space as one space, so a line break in a page does not matter. */
const flat = (text: string) => text.replace(/\s+/g, ' ');
const code = (word: string) => `\`${word}\``;
const quoted = (word: string) => JSON.stringify(word);
/** What the backticks of a text hold, in order. */
const backticked = (text: string) => [...text.matchAll(/`([^`]+)`/g)].map((match) => match[1]!);
const CARD_NUMBER = /\b\d{13,19}\b/g;
const EVENT_NAME = /^[a-z]+(\.[a-z_]+)+$/;

/** The lines under the heading starting with `heading`, up to the next heading of its level or above (fenced code skipped). */
function section(page: string, heading: string): string {
  const lines = read(page).split('\n');
  let fenced = false;
  const levels = lines.map((line) => {
    if (line.startsWith('```')) fenced = !fenced;
    return !fenced && /^#+ /.test(line) ? line.indexOf(' ') : 0;
  });
  const start = lines.findIndex((line, i) => levels[i]! > 0 && line.slice(levels[i]! + 1).startsWith(heading));
  if (start < 0) throw new Error(`${page} has no heading "${heading}"`);
  const end = levels.findIndex((level, i) => i > start && level > 0 && level <= levels[start]!);
  return lines.slice(start + 1, end < 0 ? undefined : end).join('\n');
}

/** The body rows of the tables in `text` (header and separator rows left out), each as its trimmed cells. */
function tableRows(text: string): string[][] {
  const lines = text.split('\n');
  return lines.flatMap((line, i) => {
    const inTable = (j: number) => lines[j]?.startsWith('|') ?? false;
    // A body row is a table line two or more lines below its table's first line.
    if (!inTable(i) || !inTable(i - 1) || !inTable(i - 2)) return [];
    return [
      line
        .split(/(?<!\\)\|/)
        .slice(1, -1)
        .map((cell) => cell.trim()),
    ];
  });
}

/** The block (a paragraph or a table: lines between blank lines) of `text` that holds `anchor`. */
function block(text: string, anchor: string): string {
  const found = text.split(/\n\s*\n/).find((lines) => flat(lines).includes(anchor));
  if (!found) throw new Error(`no paragraph holds "${anchor}"`);
  return found;
}

describe('test cards (TEST_CARDS of src/domain/outcomes.ts)', () => {
  const numbers = TEST_CARDS.map((card) => card.number);

  it('docs/decisions.md lists every test card with its token', () => {
    const rows = tableRows(section('docs/decisions.md', 'Test inputs that script outcomes')).filter((row) => /^\d+$/.test(row[0]!));
    expect(rows.map((row) => [row[0], row[1]])).toEqual(TEST_CARDS.map((card) => [card.number, code(card.token)]));
  });

  it('docs/payment-api.md lists every predefined token with its card', () => {
    const rows = tableRows(section('docs/payment-api.md', 'Test cards and tokens')).filter((row) => /^\d+$/.test(row[1]!));
    expect(rows.map((row) => [row[1], row[0]])).toEqual(TEST_CARDS.map((card) => [card.number, code(card.token)]));
  });

  it('docs/s2s.md lists every test card, in the order of the table', () => {
    const rows = tableRows(section('docs/s2s.md', 'What each test card does'));
    expect(rows.flatMap((row) => row[0]!.match(CARD_NUMBER) ?? [])).toEqual(numbers);
  });

  it.each(PAGES)('%s names no card number that is not a test card', (page) => {
    const named = (read(page).match(/\b4\d{3}(?: ?\d{4}){3}\b/g) ?? []).map((text) => text.replaceAll(' ', ''));
    expect(named.filter((number) => !numbers.includes(number))).toEqual([]);
  });
});

describe('OTPs and VPAs (src/domain/outcomes.ts)', () => {
  it.each(PAGES)('%s: the OTP that passes is OTP_PASS and the one that fails OTP_FAIL', (page) => {
    for (const [, otp, verdict] of read(page).matchAll(/`(\d{4,8})`\**\s*\(?(passes|fails)\b/g))
      expect(`${otp} ${verdict}`).toBe(verdict === 'passes' ? `${OTP_PASS} passes` : `${OTP_FAIL} fails`);
  });

  it.each(PAGES)('%s: every VPA handle it names is VPA_APPROVE or VPA_DECLINE', (page) => {
    const handles = [...read(page).matchAll(/`([a-z]+)@(?:\.\.\.|…|upi)`/g)].map((match) => match[1]);
    expect(handles.filter((handle) => handle !== VPA_APPROVE && handle !== VPA_DECLINE)).toEqual([]);
  });

  it.each([
    ['docs/decisions.md', `${code(OTP_PASS)} passes, ${code(OTP_FAIL)} fails`],
    ['docs/decisions.md', `with ${OTP_TRIES} tries (\`OTP_TRIES\`)`],
    ['docs/decisions.md', `${code(`${VPA_APPROVE}@...`)} approves at once, ${code(`${VPA_DECLINE}@...`)} declines at once`],
  ])('%s says: %s', (page, text) => {
    expect(flat(read(page)).includes(text), `${page} should say: ${text}`).toBe(true);
  });
});

describe('event names (EVENT_TYPES of src/domain/event-types.ts)', () => {
  const eventNames = (text: string) => backticked(text).filter((word) => EVENT_NAME.test(word));

  it('docs/decisions.md lists every event name, in order', () => {
    const lists = section('docs/decisions.md', 'Event names')
      .split(/\n\s*\n/)
      .map(flat)
      .filter((block) => /^(`[a-z_.]+`[,.] ?)+$/.test(block));
    expect(lists.map(eventNames)).toEqual([EVENT_TYPE_NAMES]);
  });

  it('docs/webhook-endpoints.md has a row for every event name with when it fires', () => {
    const rows = tableRows(section('docs/webhook-endpoints.md', 'Event names'));
    expect(rows.map(([name, when]) => [name, when!.replaceAll('`', '')])).toEqual(
      Object.entries(EVENT_TYPES).map(([name, when]) => [code(name), when]),
    );
  });
});

describe('the other vocabularies of src/domain', () => {
  const signatureCli = `[--signature ${SIGNATURE_MODES.join('\\|')}]`;
  it.each([
    // Authentication outcomes (AUTHENTICATION_OUTCOMES).
    ['README.md', `# ${AUTHENTICATION_OUTCOMES.join(' | ')}`],
    ['docs/payment-api.md', `# ${AUTHENTICATION_OUTCOMES.join(' | ')}`],
    ['docs/decisions.md', `{"outcome":${AUTHENTICATION_OUTCOMES.map(quoted).join('|')}}`],
    ['docs/payment-modes.md', `{"outcome":${AUTHENTICATION_OUTCOMES.map(quoted).join('|')}}`],
    // Delivery statuses.
    ['docs/webhooks.md', `filters \`status\` (${DELIVERY_STATUSES.join(', ')})`],
    ['docs/ci.md', `[--status ${DELIVERY_WAIT_STATUSES.join('|')}]`],
    // Chargeback statuses and reasons, settlement statuses.
    [
      'docs/disputes-and-settlements.md',
      `A chargeback is ${code(CHARGEBACK_STATUSES[0])}, then ${orList(CHARGEBACK_STATUSES.slice(1).map(code))}`,
    ],
    ['docs/disputes-and-settlements.md', `?status=${CHARGEBACK_STATUSES.join('\\|')}&payment=`],
    [
      'docs/disputes-and-settlements.md',
      `one of ${CHARGEBACK_REASONS.map((r) => (r === DEFAULT_CHARGEBACK_REASON ? `${code(r)} (the default, and what the test card opens with)` : code(r))).join(', ')}.`,
    ],
    ['docs/disputes-and-settlements.md', `?status=${SETTLEMENT_STATUSES.join('\\|')}&merchant=`],
    ['docs/disputes-and-settlements.md', `[--status ${SETTLEMENT_STATUSES.join('|')}]`],
    // Refund reasons and checkout methods.
    ['docs/payment-api.md', `| \`reason\` | string | no | ${orList(REFUND_REASONS.map(code))} |`],
    ['docs/checkout.md', `non-empty list of distinct ${CHECKOUT_METHODS.map(code).join(', ')};`],
    // Signature modes.
    ['docs/cli.md', `\`--signature\` (${orList(SIGNATURE_MODES.map(code))})`],
    ['docs/decisions.md', `"signature": ${SIGNATURE_MODES.map(quoted).join(' | ')}`],
    ['docs/webhook-endpoints.md', `how its deliveries are signed: ${orList(SIGNATURE_MODES.map((mode) => code(quoted(mode))))}`],
    ['docs/webhook-audit.md', `--signature ${SIGNATURE_MODES.join('\\|')}`],
    ['docs/webhooks.md', `[--reject-invalid] ${signatureCli}`],
    ['docs/webhooks.md', `sandbox audit-webhooks --to URL [--secret S] ${signatureCli}`],
  ])('%s says: %s', (page, text) => {
    expect(flat(read(page)).includes(text), `${page} should say: ${text}`).toBe(true);
  });

  it('docs/webhooks.md has a row for every signature mode', () => {
    const rows = tableRows(section('docs/webhooks.md', 'Which signature mode to choose'));
    expect(rows.map((row) => backticked(row[0]!)[0])).toEqual(SIGNATURE_MODES);
  });

  it('docs/checkout.md has a row for every iDEAL test outcome and every test IBAN', () => {
    expect(tableRows(section('docs/checkout.md', 'iDEAL')).map((row) => row[0])).toEqual(
      IDEAL_OUTCOMES.map((outcome) => IDEAL_OUTCOME_TEXT[outcome].label),
    );
    const ibans = tableRows(section('docs/checkout.md', 'SEPA Direct Debit')).flatMap((row) => backticked(row[0]!));
    expect(ibans).toEqual(SEPA_TEST_IBANS.map((entry) => formatIban(entry.iban)));
  });

  it('docs/decisions.md lists every decline code, with its sentence where it gives one', () => {
    const text = flat(block(read('docs/decisions.md'), '`response` of a Test Declined'));
    const said = backticked(text.slice(text.indexOf('a sentence:'))).filter((word) => /^[a-z_]+(:|$)/.test(word));
    expect(said.map((word) => word.split(':')[0])).toEqual(Object.keys(DECLINE_MESSAGES));
    for (const word of said.filter((w) => w.includes(': ') && !w.endsWith('...')))
      expect(word).toBe(declineMessage(word.split(':')[0] as DeclineCode));
  });

  it("docs/dashboard.md has a row for every dashboard tab, with each tab's status filter", () => {
    const rows = tableRows(block(read('docs/dashboard.md'), '| tab | rows |'));
    expect(rows).toHaveLength(DASHBOARD_TABS.length);
    // The tabs whose statuses the page spells out (the others are described: order_status codes, payment states, none).
    const spelled: DashboardTab[] = ['sessions', 'chargebacks', 'settlements', 'deliveries'];
    for (const tab of spelled) expect(backticked(rows[DASHBOARD_TABS.indexOf(tab)]![3]!)).toEqual(TAB_STATUSES[tab]);
  });
});
