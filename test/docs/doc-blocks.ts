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
    blocks.push({ lang: fence[1] ?? '', text: body.join('\n'), section, line: start + 1 });
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
  const commands: string[] = [];
  let current = '';
  for (const line of text.split('\n')) {
    if (current === '' && (/^\s*#/.test(line) || line.trim() === '')) continue;
    current += (current ? '\n' : '') + line;
    if (/\\$/.test(line) || openQuote(current)) continue;
    commands.push(current);
    current = '';
  }
  if (current) commands.push(current);
  return commands;
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
