// The image is the package as npm installs it: every entry of package.json "files" is copied into
// the Containerfile's final stage. docs/ was missing once, and the MCP server's docs resources
// (src/mcp/resources.ts reads docs/decisions.md) failed only inside the container.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');

/** The paths the final stage (after the last FROM) copies into /app, by their first segment. */
function finalStageCopies(containerfile: string): Set<string> {
  const stages = containerfile.split(/^FROM\s/m);
  const last = stages[stages.length - 1] ?? '';
  const copied = new Set<string>();
  for (const line of last.split('\n')) {
    const copy = /^COPY\s+(?:--from=\S+\s+)?(.+)\s+\S+$/.exec(line.trim());
    if (!copy) continue;
    for (const source of (copy[1] ?? '').split(/\s+/)) {
      copied.add(
        source
          .replace(/^\/src\//, '')
          .replace(/^\.\//, '')
          .split('/')[0] ?? source,
      );
    }
  }
  return copied;
}

describe('the Containerfile', () => {
  it('copies every entry of the package\'s "files" into the image', () => {
    const files = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { files: string[] }).files;
    const copied = finalStageCopies(readFileSync(join(ROOT, 'Containerfile'), 'utf8'));
    expect(files.filter((entry) => !copied.has(entry.split('/')[0] ?? entry))).toEqual([]);
  });
});
