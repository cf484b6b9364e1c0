// The fenced code blocks of a Markdown page, in order, each with the section it sits in, so a
// test can run a page's examples exactly as a reader copies them.
import { readFileSync } from 'node:fs';

/** One fenced block: its language tag, its text and where it is. */
export interface DocBlock {
  lang: string;
  text: string;
  /** The nearest heading above the block. */
  section: string;
  /** 1-based line of the opening fence. */
  line: number;
  /** 1-based line of the closing fence. */
  end: number;
  /** Why the docs test does not run it: `<!-- docs-test: skip (reason) -->` on the line above. */
  skip?: string;
}

/** One `$ ` command of a console block and the sample output the page shows under it. */
export interface ConsoleStep {
  command: string;
  output: string;
}

/** Every fenced block of `file`. */
export function docBlocks(file: string): DocBlock[] {
  const lines = readFileSync(file, 'utf8').split('\n');
  const blocks: DocBlock[] = [];
  let section = '';
  for (let i = 0; i < lines.length; i++) {
    const heading = /^#{1,6}\s+(.*)$/.exec(lines[i]!);
    if (heading) section = heading[1]!.trim();
    const fence = /^```(\S*)\s*$/.exec(lines[i]!);
    if (!fence) continue;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !/^```\s*$/.test(lines[i]!); i++) body.push(lines[i]!);
    const skip = /^<!--\s*docs-test:\s*skip\s*\((.+)\)\s*-->\s*$/.exec(lines[start - 1] ?? '')?.[1];
    blocks.push({ lang: fence[1] ?? '', text: body.join('\n'), section, line: start + 1, end: i + 1, ...(skip ? { skip } : {}) });
  }
  return blocks;
}

/** The blocks of the sections whose heading starts with one of `sections`. */
export function blocksIn(file: string, sections: string[]): DocBlock[] {
  return docBlocks(file).filter((block) => sections.some((name) => block.section.startsWith(name)));
}

/**
 * Splits a shell block into commands: a line ending in a backslash, or inside an open quote, goes
 * on with the next line; `#` comment lines are dropped.
 */
export function shellCommands(text: string): string[] {
  return shellSteps(text).map((step) => step.command);
}

/**
 * Splits a shell block into commands, each with the sample answer a comment under it shows
 * (`# {"id":"cs_...",...}`, `# 404 {"error":...}`: the text from its first brace).
 */
export function shellSteps(text: string): ConsoleStep[] {
  const steps: ConsoleStep[] = [];
  let current = '';
  for (const line of text.split('\n')) {
    if (current === '' && (/^\s*#/.test(line) || line.trim() === '')) {
      const step = steps.at(-1);
      if (step && !step.output && /^\s*#.*\{/.test(line)) step.output = line.slice(line.indexOf('{'));
      continue;
    }
    current += (current ? '\n' : '') + line;
    if (continues(current)) continue;
    steps.push({ command: current, output: '' });
    current = '';
  }
  if (current) steps.push({ command: current, output: '' });
  return steps;
}

/**
 * Splits a console block into its `$ ` commands (with their continuation lines) and the output
 * shown under each, up to the next `$ `.
 */
export function consoleSteps(text: string): ConsoleStep[] {
  const steps: ConsoleStep[] = [];
  let open = false;
  for (const line of text.split('\n')) {
    const step = steps.at(-1);
    if (line.startsWith('$ ')) {
      steps.push({ command: line.slice(2), output: '' });
      open = continues(line.slice(2));
    } else if (step && open) {
      step.command += `\n${line}`;
      open = continues(step.command);
    } else if (step) step.output += (step.output ? '\n' : '') + line;
  }
  for (const step of steps) step.output = step.output.trim();
  return steps;
}

/** True when a command goes on with the next line: a trailing backslash or an open quote. */
function continues(command: string): boolean {
  return /\\$/.test(command) || openQuote(command);
}

/** True while a single- or double-quoted string is still open in `text`. */
function openQuote(text: string): boolean {
  let quote: string | undefined;
  let previous = ' ';
  for (const char of text) {
    if (quote) {
      if (char === quote) quote = undefined;
    } else if (char === "'" || char === '"') quote = char;
    else if (char === '#' && /\s/.test(previous)) break;
    previous = char;
  }
  return quote !== undefined;
}
