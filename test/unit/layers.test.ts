// One facade: routes, pages, the control API, the CLI and startSandbox() reach state only through
// service methods. A `.deps` or `.store` in those folders is a way around the services (straight to
// the repositories, the clock or the outbox), so it fails here with the lines that do it (that
// createServices() hands out no dependencies is tested on a built app: test/routes/services.test.ts).
// Layers that point one way: domain <- store <- services <- http/pages, with contracts (request
// schemas, validate) and runtime (clock, activity bus, logger) below the services, and views (the JSON
// answers: one serializer and schema per resource) between the store and everything that answers. The import
// statements of every file under src/ are read and each rule fails with the imports that break it.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const LAYERS = ['src/http', 'src/pages', 'src/client', 'src/mcp', 'src/library', 'src/cli'];
/** Reaching into the services' dependencies (services.deps.clock) or the store (server.store.deliveries). */
const AROUND_THE_FACADE = /\.(deps|store)\b/;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

it('no route, page, library or CLI module reaches past the services to their dependencies or the store', () => {
  const files = LAYERS.flatMap((layer) => sourceFiles(join(ROOT, layer)));
  expect(files.length).toBeGreaterThan(40);
  const offending = files.flatMap((file) =>
    readFileSync(file, 'utf8')
      .split('\n')
      .flatMap((line, i) => (AROUND_THE_FACADE.test(line) ? [`${relative(ROOT, file)}:${i + 1}: ${line.trim()}`] : [])),
  );
  expect(offending).toEqual([]);
});

/** One relative import: the importing file and the imported path, both relative to src/. */
interface SourceImport {
  from: string;
  to: string;
}

// Static imports and re-exports (`import x from`, `import type`, `export * from`, side-effect
// `import './x.js'`) and dynamic `import('./x.js')`; package imports are not layers and are skipped.
const IMPORT = /(?:^|[\s;])(?:import|export)\s+(?:type\s+)?(?:[^'"`;]*?\sfrom\s*)?['"](\.[^'"]+)['"]|\bimport\(\s*['"](\.[^'"]+)['"]\s*\)/g;
const SRC = join(ROOT, 'src');

function sourceImports(): SourceImport[] {
  return sourceFiles(SRC).flatMap((file) =>
    [...readFileSync(file, 'utf8').matchAll(IMPORT)].map((match) => ({
      from: relative(SRC, file).split(sep).join('/'),
      to: relative(SRC, resolve(dirname(file), match[1] ?? match[2]!))
        .split(sep)
        .join('/'),
    })),
  );
}

/** The folder under src/ a path is in, or undefined for the top-level files (config.ts, errors.ts). */
function folderOf(path: string): string | undefined {
  const parts = path.split('/');
  return parts.length > 1 ? parts[0] : undefined;
}

/** The imports from a file in one of `layers` to a path that `forbidden` refuses, as "from -> to". */
function breaking(layers: string[], forbidden: (to: string) => boolean): string[] {
  return sourceImports()
    .filter((i) => layers.includes(folderOf(i.from) ?? '') && forbidden(i.to))
    .map((i) => `${i.from} -> ${i.to}`);
}

it('reads the import statements of every layer under src/', () => {
  const imports = sourceImports();
  expect(imports.length).toBeGreaterThan(500);
  const folders = new Set(imports.map((i) => folderOf(i.from)));
  for (const layer of [
    'domain',
    'contracts',
    'runtime',
    'store',
    'views',
    'services',
    'webhooks',
    'faults',
    'signatures',
    'tls',
    'http',
    'pages',
  ])
    expect(folders).toContain(layer);
});

it('domain imports nothing but domain and src/errors.ts', () => {
  expect(breaking(['domain'], (to) => folderOf(to) !== 'domain' && to !== 'errors.js')).toEqual([]);
});

// The layers of src/, lowest first: a folder imports only folders of a lower rank (the top-level
// files, errors.ts and config.ts among them, have rules of their own below). Files in nested
// feature folders (http/control/, webhooks/delivery/) belong to their layer's rank.
const LAYER_ORDER: readonly (readonly string[])[] = [
  ['domain'],
  ['crypto', 'signatures', 'contracts', 'store'],
  ['tls', 'runtime'],
  ['views'],
  ['webhooks'],
  ['faults'],
  ['client'],
  ['services'],
  ['pages'],
  ['mcp'],
  ['http'],
  ['server'],
  ['library'],
  ['cli'],
];
const RANK = new Map(LAYER_ORDER.flatMap((folders, rank) => folders.map((folder) => [folder, rank] as const)));

/** The imports that climb: from a layer to a folder of the same or a higher rank (or one LAYER_ORDER does not list). */
function climbing(imports: readonly SourceImport[]): string[] {
  return imports
    .filter((i) => {
      const [from, to] = [folderOf(i.from), folderOf(i.to)];
      if (from === undefined || to === undefined || from === to) return false;
      return (RANK.get(to) ?? Number.POSITIVE_INFINITY) >= (RANK.get(from) ?? Number.NEGATIVE_INFINITY);
    })
    .map((i) => `${i.from} -> ${i.to}`);
}

it('every folder under src/ is a layer of LAYER_ORDER, and each imports only layers below it, nested folders included', () => {
  const imports = sourceImports();
  const folders = new Set(imports.flatMap((i) => [folderOf(i.from), folderOf(i.to)]).filter((f) => f !== undefined));
  expect([...folders].filter((folder) => !RANK.has(folder))).toEqual([]);
  // The rule reads nested folders: a planted climb from webhooks/delivery/ to services/ is reported.
  expect(climbing([{ from: 'webhooks/delivery/worker.ts', to: 'services/services.js' }])).toEqual([
    'webhooks/delivery/worker.ts -> services/services.js',
  ]);
  expect(climbing(imports)).toEqual([]);
});

/** The feature folder of a path (`http/control` for src/http/control/routes.ts), or undefined for a file at a layer's root. */
function featureOf(path: string): string | undefined {
  const parts = path.split('/');
  return parts.length > 2 ? parts.slice(0, 2).join('/') : undefined;
}

/** Pairs of feature folders of one layer that import each other, directly or through other feature folders. */
function featureCycles(imports: readonly SourceImport[]): string[] {
  const edges = new Map<string, Set<string>>();
  for (const { from, to } of imports) {
    const [a, b] = [featureOf(from), featureOf(to)];
    if (a && b && a !== b && folderOf(a) === folderOf(b)) edges.set(a, (edges.get(a) ?? new Set()).add(b));
  }
  return fileCycles(edges);
}

it('the feature folders of a layer (http/control/, http/openapi/) do not import each other in a cycle', () => {
  // A planted http/openapi -> http/control -> http/openapi loop is reported.
  expect(
    featureCycles([
      { from: 'http/openapi/document.ts', to: 'http/control/routes.js' },
      { from: 'http/control/routes.ts', to: 'http/openapi/route.js' },
    ]),
  ).toEqual(['http/control -> http/openapi -> http/control']);
  expect(featureCycles(sourceImports())).toEqual([]);
});

it('the serializers of JSON answers live in src/views: no other folder writes a time as ISO 8601 by hand', () => {
  const ISO_BY_HAND = /new Date\([^)]*\)\.toISOString\(\)/;
  // runtime sits below views (the logger stamps wall-clock lines) and the store stamps its migrations.
  const exempt = ['src/views', 'src/runtime', 'src/store', 'src/cli'];
  const offending = sourceFiles(SRC)
    .filter((file) => !exempt.some((dir) => relative(ROOT, file).startsWith(dir)))
    .flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .flatMap((line, i) => (ISO_BY_HAND.test(line) ? [`${relative(ROOT, file)}:${i + 1}`] : [])),
    );
  expect(offending).toEqual([]);
});

// The top-level files of src/ are a layer of their own: errors.ts and code-dir.ts are leaves that
// anything may import; config.ts (the only reader of process.env) parses options with the grammars of
// domain/, crypto/ and tls/ (the --https options) and nothing above them, so no service, route or webhook module sits under it.
const TOP_LEVEL_RULES: Record<string, (to: string) => boolean> = {
  'errors.ts': () => false,
  'code-dir.ts': () => false,
  'version.ts': (to) => to === 'code-dir.js',
  'config.ts': (to) => ['domain', 'crypto', 'tls'].includes(folderOf(to) ?? '') || ['errors.js', 'code-dir.js'].includes(to),
  // The package bundle's entry sits above everything: the library's entry and the CLI of `sandbox start`.
  'bundle-entry.ts': (to) => ['index.js', 'cli/program.js', 'cli/start.js'].includes(to),
};

it('the top-level files of src/ import only what their layer allows, and nothing imports index.ts', () => {
  const imports = sourceImports();
  const topLevel = imports.filter((i) => folderOf(i.from) === undefined);
  expect(new Set(topLevel.map((i) => i.from))).toContain('config.ts');
  const offending = topLevel.filter((i) => TOP_LEVEL_RULES[i.from]?.(i.to) === false).map((i) => `${i.from} -> ${i.to}`);
  // index.ts is the library's entry: importing it from inside would tie a module to the whole package.
  // Only the bundle's entry, which is the whole package, holds it.
  const intoIndex = imports.filter((i) => i.to === 'index.js' && i.from !== 'bundle-entry.ts').map((i) => `${i.from} -> ${i.to}`);
  expect([...offending, ...intoIndex]).toEqual([]);
});

/** The file cycles of an import graph: each strongly connected set, as one shortest path that closes on itself. */
function fileCycles(edges: Map<string, Set<string>>): string[] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const cycles: string[] = [];
  // Tarjan's algorithm: a node whose low link is its own index closes a strongly connected set.
  const lowest = (node: string, seen: number | undefined) => low.set(node, Math.min(low.get(node) ?? next, seen ?? next));
  const connect = (node: string): void => {
    index.set(node, next);
    low.set(node, next++);
    stack.push(node);
    for (const to of edges.get(node) ?? []) {
      if (!index.has(to)) {
        connect(to);
        lowest(node, low.get(to));
      } else if (stack.includes(to)) lowest(node, index.get(to));
    }
    if (low.get(node) !== index.get(node)) return;
    const members = new Set(stack.splice(stack.lastIndexOf(node)));
    if (members.size > 1 || edges.get(node)?.has(node)) cycles.push(shortestLoop(node, members, edges).join(' -> '));
  };
  for (const node of [...edges.keys()].sort()) if (!index.has(node)) connect(node);
  return cycles;
}

/** The shortest path from `start` back to itself inside `members` (breadth first). */
function shortestLoop(start: string, members: Set<string>, edges: Map<string, Set<string>>): string[] {
  const cameFrom = new Map<string, string>();
  const queue = [start];
  for (const node of queue) {
    for (const to of edges.get(node) ?? []) {
      if (to === start) {
        const path = [node];
        for (let step = cameFrom.get(node); step !== undefined; step = cameFrom.get(step)) path.unshift(step);
        return [...path, start];
      }
      if (members.has(to) && !cameFrom.has(to)) {
        cameFrom.set(to, node);
        queue.push(to);
      }
    }
  }
  return [start, start];
}

/** Every file under src/ and the files it imports (type imports included), by path without extension. */
function fileGraph(): Map<string, Set<string>> {
  const edges = new Map<string, Set<string>>();
  for (const { from, to } of sourceImports()) {
    const source = from.replace(/\.tsx?$/, '');
    edges.set(source, (edges.get(source) ?? new Set()).add(to.replace(/\.js$/, '')));
  }
  return edges;
}

it('no file under src/ imports itself back through others (type imports count: they tie the files together too)', () => {
  const edges = fileGraph();
  expect(edges.size).toBeGreaterThan(200);
  // The check finds a cycle when there is one: a planted a -> b -> a is reported as one.
  expect(
    fileCycles(
      new Map([
        ['a', new Set(['b'])],
        ['b', new Set(['a', 'c'])],
      ]),
    ),
  ).toEqual(['a -> b -> a']);
  expect(fileCycles(edges)).toEqual([]);
});

it('no two folders under src/ import each other, directly or through others', () => {
  const edges = new Map<string, Set<string>>();
  for (const { from, to } of sourceImports()) {
    const [a, b] = [folderOf(from), folderOf(to)];
    if (a && b && a !== b) edges.set(a, (edges.get(a) ?? new Set()).add(b));
  }
  // A cycle is a folder that reaches itself; each is reported once, by the path it takes.
  const cycles = new Set<string>();
  const walk = (path: string[]): void => {
    for (const next of edges.get(path.at(-1)!) ?? []) {
      if (next === path[0]) cycles.add([...path, next].join(' -> '));
      else if (!path.includes(next) && next > path[0]!) walk([...path, next]);
    }
  };
  for (const folder of edges.keys()) walk([folder]);
  expect([...cycles]).toEqual([]);
});

it('request schemas live in src/contracts: no route, service, page, library or CLI module defines an object schema', () => {
  // Answers' schemas are in src/views, requests' in src/contracts (one module per resource); a
  // z.object elsewhere is a second home for one of them.
  const OBJECT_SCHEMA = /\bz\.(object|strictObject|looseObject)\(/;
  const offending = [
    'src/http',
    'src/services',
    'src/pages',
    'src/client',
    'src/mcp',
    'src/library',
    'src/cli',
    'src/webhooks',
    'src/faults',
  ]
    .flatMap((layer) => sourceFiles(join(ROOT, layer)))
    .flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .flatMap((line, i) => (OBJECT_SCHEMA.test(line) ? [`${relative(ROOT, file)}:${i + 1}: ${line.trim()}`] : [])),
    );
  expect(offending).toEqual([]);
});
