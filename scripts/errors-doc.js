// Writes docs/errors.md from the error catalogue in src/errors.ts (via the build), so the docs
// list exactly the codes the sandbox can return. test/unit/errors-doc.test.ts checks the committed
// file is what errorsDoc() makes of the catalogue, whole.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * The text of docs/errors.md for the API's error catalogue and the CLI's own codes.
 * @param {Record<string, { status: number; type: string; when: string }>} catalogue ERROR_CATALOGUE
 * @param {Record<string, string>} cliCodes CLI_ERROR_CODES
 * @returns {string}
 */
export function errorsDoc(catalogue, cliCodes) {
  const rows = Object.entries(catalogue)
    .map(([code, e]) => `| \`${code}\` | ${e.status} | \`${e.type}\` | ${e.when} |`)
    .join('\n');
  const cliRows = Object.entries(cliCodes)
    .map(([code, when]) => `| \`${code}\` | ${when} |`)
    .join('\n');
  return `# Errors

Every endpoint answers failures with one body shape (docs/decisions.md):

\`\`\`json
{"error":{"type":"invalid_request_error","code":"parameter_invalid","message":"bill_amt is invalid: expected a decimal amount greater than 0 with at most 2 decimals and at most 99999999.99, e.g. \\"10.00\\", got \\"10.505\\"","param":"bill_amt","request_id":"req_pEyvgT7Fp8NGk84j"}}
\`\`\`

- \`message\` names the field and says how to fix it; \`param\` is the field (dotted for nested
  fields, e.g. \`card.number\`); \`request_id\` is also sent as the \`X-Request-Id\` header and
  appears in the sandbox log.
- Bad input is always a 4xx. A 500 (\`internal_error\`) is a bug in the sandbox, never your input.
- Card numbers, CVVs and keys are never echoed back in messages.
- Pages (the authentication page at \`authurl\` and the hosted checkout page under \`/pay/\`) answer
  every error as an HTML page instead, with the same status code: a form sent with the wrong
  Content-Type (400), a form that is not UTF-8 (400), a form over 1 MiB (413), a method the page
  does not take (405, with \`Allow\`), a path under them that names no page (404), and the 5xx codes.
  The page says what went wrong and what to do, and shows the code and the request id.

| code | HTTP | type | when |
|---|---|---|---|
${rows}

This table is generated from [\`src/errors.ts\`](../src/errors.ts) by \`npm run docs:errors\`.

## The \`sandbox\` CLI with \`--json\`

A command run with \`--json\` prints only JSON on stdout; when it fails it exits 1 and prints one
JSON object on stderr: the error object above, as the sandbox answered it, or, for a failure the
CLI finds itself, \`{"error":{"code","message"}}\` with one of these codes:

| code | when |
|---|---|
${cliRows}

A warning that does not stop the command (a mistyped \`SANDBOX_*\` variable) is a line of its own
before it: \`{"warning":{"code":"unknown_variable","message"}}\`.

This table is generated from [\`src/cli/cli-error.ts\`](../src/cli/cli-error.ts) by the same script.
`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { ERROR_CATALOGUE } = await import('../dist/errors.js');
  const { CLI_ERROR_CODES } = await import('../dist/cli/cli-error.js');
  writeFileSync('docs/errors.md', errorsDoc(ERROR_CATALOGUE, CLI_ERROR_CODES));
}
