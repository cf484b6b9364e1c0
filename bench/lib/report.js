// Collects the bench's figures and checks them against the targets of issues 2 and 8; renders
// one table for the terminal and the same figures as Markdown for docs/benchmarks.md.

const num = (n) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US').replace(/,/g, ' ') : '-');
const ms = (n) => (Number.isFinite(n) ? n.toFixed(2) : '-');
const verdict = (pass) => (pass ? 'PASS' : 'MISS');

/** The figures of one bench run. */
export class Report {
  rows = [];
  measures = [];
  targets = [];
  missing = [];
  problems = [];
  base = undefined;

  /** The bare Hono run every throughput is divided by. */
  baseline(name, result) {
    this.base = result;
    this.rows.push({ name, result, ratio: 1, note: 'baseline' });
  }

  /** A throughput row shown for reference only: its ratio, but no target. */
  info(name, result, { id } = {}) {
    this.rows.push({ name, id, result, ratio: this.base ? result.rps / this.base.rps : NaN, note: 'reference, not a target' });
  }

  /**
   * A throughput row, held to p99 < 20 ms. Creates were held to >= 0.2 of the baseline too, a
   * target retired once measured out of reach on this machine (docs/benchmarks.md); their ratio
   * column stays, for comparison between runs. With
   * `base` (bare Hono measured again around this row: {rps, before, after}) the ratio is to that.
   * With `ratioTo` (another row's id) the note gives the ratio to that row: `ratioMeasured` when
   * given (measured in alternating runs of the two), else the two rows' req/s; with `ratioTarget`
   * that ratio is a target too.
   */
  throughput(name, result, { id, ratioTo, ratioMeasured, ratioTarget, base } = {}) {
    const against = base ?? this.base;
    const ratio = against ? result.rps / against.rps : NaN;
    const notes = [];
    if (base) notes.push(`bare Hono before / after: ${num(base.before)} / ${num(base.after)} req/s`);
    const other = ratioTo ? this.rows.find((row) => row.id === ratioTo) : undefined;
    const toOther = other && (ratioMeasured ?? result.rps / other.result.rps);
    if (other) notes.push(`${toOther.toFixed(2)} of ${other.name}${ratioMeasured === undefined ? '' : ' (runs of the two in turn)'}`);
    const failed = result.non2xx + result.errors;
    if (failed > 0) notes.push(`${failed} non-2xx/errors of ${result.total}: ${JSON.stringify(result.statuses)}`);
    if (result.ok === 0)
      this.problem(
        `${name}: no request answered 2xx in ${result.seconds} s (${JSON.stringify(result.statuses)}, ${result.errors} errors/timeouts)`,
      );
    else if (failed > 0.01 * result.total)
      this.problem(`${name}: ${failed} of ${result.total} requests failed (${JSON.stringify(result.statuses)})`);
    this.rows.push({ name, id, result, ratio, base, note: notes.join('; ') });
    if (other && ratioTarget !== undefined)
      this.target(`>= ${ratioTarget} of ${other.name}`, name, toOther.toFixed(2), toOther >= ratioTarget);
    this.target('p99 < 20 ms at 10 connections', name, `${ms(result.p99)} ms`, result.p99 < 20);
  }

  /** Any other figure; with `target` and `pass` it also counts as a target. */
  measure({ group, name, figure, target, pass }) {
    this.measures.push({ group, name, figure, target, pass });
    if (target !== undefined) this.target(target, name, figure, pass);
  }

  /** A target checked against one figure. */
  target(target, subject, figure, pass) {
    this.targets.push({ target, subject, figure, pass });
  }

  /** An endpoint that does not exist yet in this build. */
  unavailable(name) {
    this.missing.push(name);
    console.log(`  not available: ${name} (route not in this build)`);
  }

  /** Something broke (a crash, a probe that did not answer 2xx): the run exits non-zero. */
  problem(text) {
    this.problems.push(text);
    console.log(`  PROBLEM: ${text}`);
  }

  /** Targets that were missed. */
  get misses() {
    return this.targets.filter((t) => !t.pass);
  }

  /** The plain-text tables printed at the end of a run. */
  text() {
    const lines = [];
    const table = (header, body) => {
      const widths = header.map((h, i) => Math.max(h.length, ...body.map((r) => String(r[i]).length)));
      // Text columns (the first and the last) align left, figures right.
      const line = (cells) =>
        cells
          .map((c, i) => (i === 0 || i === cells.length - 1 ? String(c).padEnd(widths[i]) : String(c).padStart(widths[i])))
          .join('  ')
          .trimEnd();
      lines.push(line(header), widths.map((w) => '-'.repeat(w)).join('  '));
      for (const r of body) lines.push(line(r));
      lines.push('');
    };
    table(['throughput (10 connections)', 'req/s', 'p50 ms', 'p99 ms', 'x bare', 'CPU us/req', 'note'], this.rows.map(throughputCells));
    table(
      ['measurement', 'figure'],
      this.measures.map((m) => [m.name, m.figure]),
    );
    for (const t of this.targets) lines.push(`${verdict(t.pass)}  ${t.target}: ${t.subject} -> ${t.figure}`);
    lines.push('');
    for (const name of this.missing) lines.push(`not available: ${name}`);
    for (const text of this.problems) lines.push(`PROBLEM: ${text}`);
    return lines.join('\n');
  }

  /** The Markdown of the same figures. */
  markdown() {
    // Columns of figures align right, text columns left.
    const numeric = (body, i) => body.every((r) => /^[-\d .,]*$/.test(String(r[i])));
    const md = (header, body) =>
      [
        `| ${header.join(' | ')} |`,
        `|${header.map((_, i) => (numeric(body, i) ? '---:' : '---')).join('|')}|`,
        ...body.map((r) => `| ${r.map((c) => String(c).replace(/\|/g, '\\|')).join(' | ')} |`),
      ].join('\n');
    const parts = [
      '### Throughput at 10 connections',
      '',
      md(['endpoint', 'req/s', 'p50 ms', 'p99 ms', 'x bare Hono', 'server CPU µs/req', 'note'], this.rows.map(throughputCells)),
      '',
      '### Other measurements',
      '',
      md(
        ['group', 'measurement', 'figure'],
        this.measures.map((m) => [m.group, m.name, m.figure]),
      ),
      '',
      '### Targets',
      '',
      md(
        ['target', 'subject', 'figure', 'verdict'],
        this.targets.map((t) => [t.target, t.subject, t.figure, `**${verdict(t.pass)}**`]),
      ),
    ];
    if (this.missing.length) parts.push('', `Not available in this build (skipped): ${this.missing.join(', ')}.`);
    if (this.problems.length) parts.push('', 'Problems in this run:', '', ...this.problems.map((p) => `- ${p}`));
    return parts.join('\n');
  }
}

function throughputCells(row) {
  return [
    row.name,
    num(row.result.rps),
    ms(row.result.p50),
    ms(row.result.p99),
    Number.isFinite(row.ratio) ? row.ratio.toFixed(2) : '-',
    num(row.result.cpuUsPerRequest),
    row.note ?? '',
  ];
}
