// Rules every page's commands keep, so a reader can paste them as printed: checked on the text of
// the pages (no sandbox needed), over every shell block (skipped ones too: a reader pastes those
// as well) and every `run:` of the GitHub Actions workflows they show.
import { readFileSync } from 'node:fs';
import { consoleSteps, docBlocks, shellSteps } from './doc-blocks.js';
import { ID_PREFIXES } from './sample-match.js';
import { documentedWorkflows, runScripts } from './workflows.js';

/** The fence languages of commands for a terminal. */
const SHELL = new Set(['sh', 'bash', 'shell', 'console']);

/** One command of a page, and where it is. */
export interface PageCommand {
  command: string;
  where: string;
}

/** Every command of a page's shell blocks and workflows, with its block's commands before it. */
export function pageCommands(file: string, shown: string): PageCommand[][] {
  const blocks = docBlocks(file)
    .filter((block) => SHELL.has(block.lang))
    .map((block) => {
      const steps = /^\$ /m.test(block.text) ? consoleSteps(block.text) : shellSteps(block.text);
      return steps.map((step) => ({ command: step.command, where: `${shown} line ${block.line} (${block.section})` }));
    });
  const workflows = documentedWorkflows(file, shown).flatMap((workflow) =>
    runScripts(workflow).map((script) =>
      shellSteps(script).map((step) => ({ command: step.command, where: `${workflow.where} (${workflow.path || 'a workflow'})` })),
    ),
  );
  return [...blocks, ...workflows];
}

/**
 * An id or token from the author's run, or a placeholder that stands for one: pasted, it names
 * nothing in the reader's sandbox. The first alternatives are the ones the repository's
 * before-stop hook looks for in shell blocks.
 */
const STALE = new RegExp(
  [
    '\\b(?:pay|cs|we|dp|evt|whd|re)_[A-Za-z0-9]{12,}\\b|\\b\\d{15}\\b',
    `\\b(?:${ID_PREFIXES})_[A-Za-z0-9]{12,}\\b`,
    // A placeholder: `whd_...`, `<transID|payment-id>`.
    '\\b[a-z]+_[A-Za-z0-9]*\\.\\.\\.|<[A-Za-z][\\w|-]*>',
    // The token of a page's URL (authentication page, authstatus, checkout page).
    '/(?:authenticate|status|pay)/[A-Za-z0-9_-]{20,}',
  ].join('|'),
);

/** The before-stop hook's check: an id of a past run in a line (not a `#` comment) of a sh, bash or shell block. */
const HOOK_STALE = /\b(?:pay|cs|we|dp|evt|whd|re)_[A-Za-z0-9]{12,}\b|\b\d{15}\b/;

/**
 * Lines of a page's ```sh, ```bash and ```shell blocks (samples in them included: a session with
 * its output goes in a ```console block) that name an id of a past run, as the hook finds them.
 */
export function staleIdLines(file: string, shown: string): string[] {
  return docBlocks(file)
    .filter((block) => ['sh', 'bash', 'shell'].includes(block.lang))
    .flatMap((block) =>
      block.text.split('\n').flatMap((line, index) => {
        const found = !/^\s*#/.test(line) && HOOK_STALE.exec(line);
        return found ? [`${shown} line ${block.line + 1 + index}: \`${found[0]}\` in a ${block.lang} block`] : [];
      }),
    );
}

/** Commands that use an id or token of a past run, or a placeholder for one. */
export function staleIds(commands: PageCommand[][]): string[] {
  return commands.flat().flatMap(({ command, where }) => {
    const found = STALE.exec(command.replace(/(^|\s)#.*$/gm, '$1'));
    return found
      ? [`${where}: \`${found[0]}\` in \`${command.split('\n')[0]}\`: take it from the command before (ID=$(... | jq -r .id))`]
      : [];
  });
}

/**
 * A recipe that starts the sandbox with `--ready-file F` and then waits for F must remove F
 * first: a file left by an earlier run (a crash, a killed job) would say "ready" at once, with the
 * old run's URL. So each command with `--ready-file F` comes after an `rm -f` of F in its block.
 */
export function staleReadyFiles(commands: PageCommand[][]): string[] {
  return commands.flatMap((block) =>
    block.flatMap(({ command, where }, index) => {
      const file = /--ready-file\s+(\S+)/.exec(command)?.[1];
      if (!file || !/\bsandbox start\b/.test(command)) return [];
      const removed = block
        .slice(0, index)
        .some((earlier) => /\brm -f\b/.test(earlier.command) && earlier.command.split(/\s+/).includes(file));
      return removed
        ? []
        : [`${where}: \`${command.split('\n')[0]}\` waits for ${file} without an \`rm -f ${file}\` before it in the same block`];
    }),
  );
}

/**
 * `npx sandbox` runs the sandbox only inside a project that has paysandbox installed; anywhere
 * else npx fetches the registry's unrelated `sandbox` package. So a page says where each works
 * when it first says `npx sandbox`: `npx paysandbox` comes first, and a paragraph (or list item)
 * up to and including that one names `npx paysandbox` and says "installed". Returns the problem,
 * or undefined.
 */
export function npxContext(file: string, shown: string): string | undefined {
  const text = readFileSync(file, 'utf8');
  const first = text.indexOf('npx sandbox');
  if (first === -1) return undefined;
  // The paragraphs up to the one that says `npx sandbox` first, that one whole.
  const end = text.indexOf('\n\n', first);
  const upTo = text.slice(0, end === -1 ? undefined : end).split(/\n\s*\n|\n(?=\s*[-*] )/);
  const said = text.indexOf('npx paysandbox');
  if (said !== -1 && said < first && upTo.some((paragraph) => paragraph.includes('npx paysandbox') && /\binstalled\b/.test(paragraph)))
    return undefined;
  const line = text.slice(0, first).split('\n').length;
  return `${shown} line ${line} says \`npx sandbox\` before saying where it works: first name \`npx paysandbox\` (anywhere) and that \`npx sandbox\` needs paysandbox installed in the project`;
}

/**
 * Until the first release is on npm, `npx paysandbox` (and `npm install paysandbox`) end in npm's
 * 404. So a page that says `npx paysandbox` also says how to install it before then: the README
 * has the section, every other page links it. Returns the problem, or undefined.
 */
export function releaseInstall(file: string, shown: string): string | undefined {
  const text = readFileSync(file, 'utf8');
  if (!text.includes('npx paysandbox')) return undefined;
  const says = shown === 'README.md' ? /^#+ Before the first release$/m.test(text) : text.includes('README.md#before-the-first-release');
  return says
    ? undefined
    : `${shown} says \`npx paysandbox\` without saying how to install paysandbox before its first release: link ../README.md#before-the-first-release`;
}

/**
 * `npx NAME` fetches the registry package NAME when the project does not have it, and a
 * command's name is not always its package's (`npx prism` is not Stoplight Prism). Every
 * `npx NAME` a page shows names this package (paysandbox, or its bin `sandbox`, under the
 * rule above), a package this repository depends on itself (so its bin is that package's), or one
 * of `known` (a package name checked by hand, with the reason).
 */
export function unknownNpxNames(file: string, shown: string, known: string[]): string[] {
  const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as Record<
    string,
    Record<string, string> | undefined
  >;
  const allowed = new Set([
    'paysandbox',
    'sandbox',
    ...Object.keys(manifest.dependencies ?? {}),
    ...Object.keys(manifest.devDependencies ?? {}),
    ...known,
  ]);
  return codeLines(file).flatMap(({ code, line }) =>
    [...code.matchAll(/\bnpx\s+((?:@[\w.-]+\/)?[\w.-]+)/g)]
      .filter(([, name]) => !allowed.has(name!) && !name!.startsWith('-'))
      .map(
        ([, name]) =>
          `${shown} line ${line}: \`npx ${name}\` runs the registry's package "${name}" where it is not installed; name the package (npx <package>) this repository depends on`,
      ),
  );
}

/** The code of a page: each line of its fenced blocks, and each inline code span of its prose. */
function codeLines(file: string): { code: string; line: number }[] {
  let fenced = false;
  return readFileSync(file, 'utf8')
    .split('\n')
    .flatMap((text, index) => {
      if (/^```/.test(text)) fenced = !fenced;
      else if (fenced) return [{ code: text, line: index + 1 }];
      else return [...text.matchAll(/`([^`]+)`/g)].map(([, code]) => ({ code: code!, line: index + 1 }));
      return [];
    });
}
