// The app as the front thread serves it from the moment it listens, which is while the app is still
// being built (start-server.ts): a request that comes meanwhile waits for the app, and is answered
// 503 if the start fails instead; the journal rows the thread sends before the journal exists are
// kept for it. Once the app is built, requests go straight to it.
import { newId } from '../../domain/ids.js';
import { errorBody, SandboxError } from '../../errors.js';
import type { NewJournalRow } from '../../store/journal-repo.js';
import type { Fetch } from './front-server.js';

/** What the front server runs: the app's fetch, and the journal's recorder of the rows the thread builds. */
export interface Served {
  fetch: Fetch;
  journal: (rows: NewJournalRow[]) => void;
}

/** Served before the app is: its fetch and journal wait for built() or failed(). */
export interface PendingApp extends Served {
  /** The app is built: waiting requests go to it, and kept rows to its journal. */
  built(app: Served): void;
  /** The start failed: waiting requests are answered 503 (the sandbox then stops listening). */
  failed(): void;
}

export function pendingApp(): PendingApp {
  let app: Served | undefined;
  let kept: NewJournalRow[] = [];
  let settle = () => {};
  const settled = new Promise<void>((resolve) => (settle = resolve));
  // The documented error body: a client reads this answer as it reads any other error of the API.
  const didNotStart = () =>
    Response.json(
      errorBody(
        new SandboxError('start_failed', 'the sandbox did not start; its output says why, and it no longer listens: start it again'),
        newId('req'),
      ),
      { status: 503 },
    );
  return {
    fetch: (request, env) => (app ? app.fetch(request, env) : settled.then(() => (app ? app.fetch(request, env) : didNotStart()))),
    journal(rows) {
      if (app) app.journal(rows);
      else kept.push(...rows);
    },
    built(built) {
      app = built;
      if (kept.length > 0) built.journal(kept);
      kept = [];
      settle();
    },
    failed: () => settle(),
  };
}
