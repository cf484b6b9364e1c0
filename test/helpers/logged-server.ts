// A real sandbox (port 0, in-memory database) whose log lines are kept in an array, for tests
// that assert on what the log says: one line per request, no stack for a client's mistake.
import { loadConfig, type ConfigFlags, type LogFormat } from '../../src/config.js';
import { createLogger } from '../../src/runtime/logger.js';
import { startServer } from '../../src/server/start-server.js';
import { senderThread } from './test-sandbox.js';

/** Starts a sandbox logging in `format` to `lines` (every line as written, colours included). */
export async function startLoggedServer(format: LogFormat = 'pretty', flags: ConfigFlags = {}) {
  const lines: string[] = [];
  const logger = createLogger({ format, quiet: false, write: (line) => lines.push(line) });
  const sandbox = await startServer(loadConfig({ port: 0, db: ':memory:', retry: 'none', ...flags }, {}), { logger, ...senderThread() });
  return { sandbox, lines };
}
