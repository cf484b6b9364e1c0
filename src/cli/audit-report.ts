// What `sandbox audit-webhooks` prints and writes: the table of cases with a verdict line, and the
// JUnit XML a CI server shows per case. A failed must-pass case is a JUnit <failure> (it fails the
// build, like the exit code); an advice case not followed is <skipped> with the advice, so CI shows
// it without failing on it.
import kleur from 'kleur';
import type { AuditCase, AuditResult } from '../webhooks/audit/audit.js';
import { formatTable } from './table.js';

const RESULT_WORD = { pass: kleur.green('pass'), fail: kleur.red('FAIL'), skip: kleur.dim('skip') } as const;

/** The heading, one row per case (case, level, result, reason) and the verdict. */
export function formatAuditReport(result: AuditResult): string {
  const heading = `auditing ${result.url}: ${result.signatureMode} signatures in X-${result.headerPrefix}-* headers, ${result.timeoutMs} ms limit, ${result.source === 'synthetic' ? 'events made for the audit' : `events of ${result.source}`} (merchant ${result.merchantId})`;
  // The colour codes go in after padding, so the columns stay aligned.
  const table = formatTable(
    ['case', 'level', 'result', 'reason'],
    result.cases.map((c) => [c.name, c.level, c.result, c.reason]),
  )
    .split('\n')
    .map((line, i) => (i === 0 ? line : colourResult(line, result.cases[i - 1])))
    .join('\n');
  return [heading, '', table, '', verdict(result)].join('\n');
}

function colourResult(line: string, c: AuditCase): string {
  const at = line.indexOf(`  ${c.result}  `, c.name.length);
  return at < 0 ? line : `${line.slice(0, at + 2)}${RESULT_WORD[c.result]}${line.slice(at + 2 + c.result.length)}`;
}

function verdict(result: AuditResult): string {
  const must = result.cases.filter((c) => c.level === 'must-pass');
  const advice = result.cases.filter((c) => c.level === 'advice' && c.result !== 'skip');
  const adviceLine = `advice followed: ${advice.filter((c) => c.result === 'pass').length} of ${advice.length}`;
  if (result.passed) {
    return kleur.green(`PASSED: all ${must.filter((c) => c.result === 'pass').length} must-pass cases that apply passed; ${adviceLine}`);
  }
  const failed = must.filter((c) => c.result === 'fail').map((c) => c.name);
  return kleur.red(`FAILED: ${failed.length} must-pass case${failed.length === 1 ? '' : 's'} failed (${failed.join(', ')}); ${adviceLine}`);
}

/** Text for an XML attribute or element: the five special characters escaped, characters XML cannot hold dropped. */
function xml(text: string): string {
  return text
    .replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

const seconds = (ms: number | null) => ((ms ?? 0) / 1000).toFixed(3);

/** The audit as a JUnit XML document: one testsuite, one testcase per case. */
export function auditJunit(result: AuditResult): string {
  const failures = result.cases.filter((c) => c.level === 'must-pass' && c.result === 'fail').length;
  const skipped = result.cases.length - failures - result.cases.filter((c) => c.result === 'pass').length;
  const total = seconds(result.cases.reduce((sum, c) => sum + (c.latencyMs ?? 0), 0));
  const counts = `tests="${result.cases.length}" failures="${failures}" errors="0" skipped="${skipped}" time="${total}"`;
  const properties = {
    url: result.url,
    signature: result.signatureMode,
    header_prefix: result.headerPrefix,
    timeout_ms: String(result.timeoutMs),
    events: result.source,
    merchant: result.merchantId,
  };
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="sandbox audit-webhooks" ${counts}>`,
    `  <testsuite name="${xml(`webhook audit of ${result.url}`)}" ${counts}>`,
    '    <properties>',
    ...Object.entries(properties).map(([name, value]) => `      <property name="${name}" value="${xml(value)}"/>`),
    '    </properties>',
  ];
  for (const c of result.cases) {
    const open = `    <testcase classname="webhook-audit.${c.level}" name="${xml(c.name)}" time="${seconds(c.latencyMs)}"`;
    if (c.result === 'pass') lines.push(`${open}/>`);
    else if (c.result === 'fail' && c.level === 'must-pass')
      lines.push(`${open}>`, `      <failure type="must-pass" message="${xml(c.reason)}"/>`, '    </testcase>');
    else
      lines.push(
        `${open}>`,
        `      <skipped message="${xml(c.result === 'skip' ? c.reason : `advice not followed: ${c.reason}`)}"/>`,
        '    </testcase>',
      );
  }
  lines.push('  </testsuite>', '</testsuites>', '');
  return lines.join('\n');
}
