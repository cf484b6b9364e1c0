// Where the running code lives: src/ under vitest, dist/ in a build, and dist/ again for the CLI
// bundle (dist/sandbox.js, scripts/bundle-cli.js), which holds every module in this one file.
// Modules deeper down that read files next to the code start from here, so they find them from
// either layout.
export const CODE_DIR = new URL('./', import.meta.url);
