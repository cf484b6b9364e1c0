// Where the running code lives: src/ under vitest, dist/ in a build, and dist/ again for the CLI
// bundle (dist/sandbox.js, scripts/bundle-cli.js), which holds every module in this one file, or
// in a chunk of dist/chunks/ when code that only some commands load (the MCP server) shares this
// module with the bundle: a chunk is one folder below.
// Every module that reads a file by path (migrations, fixtures, package.json) starts from here,
// so it finds it from either layout.
export const CODE_DIR = new URL(/\/dist\/chunks\/[^/]+$/.test(new URL(import.meta.url).pathname) ? '../' : './', import.meta.url);
