// The resources of the MCP server: what an agent reads before it writes a test. The test-card and
// test-IBAN tables come from the tables the sandbox runs on (domain/), the decisions page from the
// package's docs/, the OpenAPI document and the latest events from the sandbox itself.
import { readFileSync } from 'node:fs';
import { CODE_DIR } from '../code-dir.js';
import type { ControlClient } from '../client/control-client.js';
import { SEPA_TEST_IBANS } from '../domain/local-methods.js';
import { OUTCOME_WORDS } from '../domain/outcome-spec.js';
import { OTP_FAIL, OTP_PASS, TEST_CARDS, VPA_APPROVE, VPA_DECLINE } from '../domain/outcomes.js';
import type { ControlEventView } from '../views/event.js';
import type { ListView } from '../views/list.js';

/** One resource: where it is, what it holds, and how to read it. */
export interface McpResource {
  uri: string;
  name: string;
  title: string;
  description: string;
  mimeType: string;
  read(client: ControlClient): Promise<string>;
}

/** The test cards, the outcome words and the OTPs, as a Markdown table. */
export function testCardsMarkdown(): string {
  return [
    '# Test cards',
    '',
    'Any expiry in the future and any 3-digit CVV. On /v1/ the token names (tok_...) stand for the cards.',
    '',
    '| card number | token | what happens |',
    '| --- | --- | --- |',
    ...TEST_CARDS.map((card) => `| ${card.number} | ${card.token} | ${card.description} |`),
    '',
    'Any other card number that passes the Luhn check asks for 3-D Secure, then is approved.',
    `On the 3-D Secure page the OTP ${OTP_PASS} passes and ${OTP_FAIL} fails; the authenticate tool decides without a page.`,
    `UPI: a VPA ${VPA_APPROVE}@... approves, ${VPA_DECLINE}@... declines.`,
    '',
    '## Forced outcomes (create_payment outcome, the X-Sandbox-Outcome header)',
    '',
    '| outcome | what happens |',
    '| --- | --- |',
    ...OUTCOME_WORDS.map((w) => `| ${w.word} | ${w.means} |`),
    '',
  ].join('\n');
}

/** The SEPA test IBANs, as a Markdown table. */
function testIbansMarkdown(): string {
  return [
    '# Test IBANs (SEPA Direct Debit on the hosted checkout page)',
    '',
    '| IBAN | what happens |',
    '| --- | --- |',
    ...SEPA_TEST_IBANS.map((entry) => `| ${entry.iban} | ${entry.description} |`),
    '',
    'Any other valid IBAN succeeds shortly after processing.',
    '',
  ].join('\n');
}

/** Every resource the server offers. */
export const MCP_RESOURCES: readonly McpResource[] = [
  {
    uri: 'paysandbox://test-cards',
    name: 'test-cards',
    title: 'Test cards',
    description:
      'Which card number (or forced outcome) leads where: approved, 3-D Secure, each decline code, refunds that fail, chargebacks',
    mimeType: 'text/markdown',
    read: async () => testCardsMarkdown(),
  },
  {
    uri: 'paysandbox://test-ibans',
    name: 'test-ibans',
    title: 'Test IBANs',
    description: 'The SEPA test IBANs and what each does',
    mimeType: 'text/markdown',
    read: async () => testIbansMarkdown(),
  },
  {
    uri: 'paysandbox://docs/decisions.md',
    name: 'decisions',
    title: 'How the sandbox fills the gaps of the specification',
    description: 'docs/decisions.md: every choice the gateway specification leaves open (states, events, retries, signatures, test inputs)',
    mimeType: 'text/markdown',
    read: async () => readFileSync(new URL('../docs/decisions.md', CODE_DIR), 'utf8'),
  },
  {
    uri: 'paysandbox://openapi.json',
    name: 'openapi',
    title: 'OpenAPI document',
    description: 'The OpenAPI 3.1 document of every endpoint of this sandbox: the payment APIs, webhooks and the control API',
    mimeType: 'application/json',
    read: async (client) => JSON.stringify(await client.document('/openapi.json')),
  },
  {
    uri: 'paysandbox://events/latest',
    name: 'latest-events',
    title: 'Latest events',
    description: 'The 20 newest events of every merchant, newest first, with their data',
    mimeType: 'application/json',
    read: async (client) => JSON.stringify((await client.get<ListView<ControlEventView>>('/events', { limit: 20 })).data, null, 2),
  },
];
