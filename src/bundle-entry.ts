// The entry of dist/paysandbox.cjs (scripts/bundle-cli.js): the library, which `import('paysandbox')`
// runs, and the CLI of `sandbox start`, which dist/start.js runs from the same file. Each keeps a code
// cache of its own (runtime/compiled-bundle.ts): they run under different V8 flags.
export * from './index.js';

/** The CLI, for `sandbox start`: imported when called, so the library's import runs none of its modules. */
export async function loadCli() {
  const [{ run }, { whenStarted }] = await Promise.all([import('./cli/program.js'), import('./cli/start.js')]);
  return { run, whenStarted };
}
