// The app as the front thread serves it while the app is still being built (server/front/pending-app.ts):
// requests that come meanwhile wait for it, or get a 503 if the start fails; journal rows are kept for it.
import { describe, expect, it } from 'vitest';
import type { ErrorBody } from '../../src/errors.js';
import { pendingApp } from '../../src/server/front/pending-app.js';
import type { NewJournalRow } from '../../src/store/journal-repo.js';

const request = () => new Request('http://127.0.0.1/_sandbox/health');
const row = (id: string) => ({ requestId: id }) as unknown as NewJournalRow;

describe('pendingApp', () => {
  it('holds a request until the app is built, then answers it with the app', async () => {
    const served = pendingApp();
    let answered = false;
    const answer = Promise.resolve(served.fetch(request(), {})).then((res) => {
      answered = true;
      return res;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(answered).toBe(false);
    served.built({ fetch: () => new Response('built', { status: 200 }), journal: () => {} });
    const res = await answer;
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('built');
    // Once built, a request goes straight to the app.
    const next = await served.fetch(request(), {});
    expect(await next.text()).toBe('built');
  });

  it('answers the requests it holds 503 when the start fails', async () => {
    const served = pendingApp();
    const answer = served.fetch(request(), {});
    served.failed();
    const res = await answer;
    expect(res.status).toBe(503);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const { error } = (await res.json()) as ErrorBody;
    expect(error).toMatchObject({ type: 'api_error', code: 'start_failed', message: expect.stringMatching(/did not start/) });
    expect(error.request_id).toMatch(/^req_/);
  });

  it('keeps the journal rows sent before the app is built and hands them to its journal, in order', () => {
    const served = pendingApp();
    const recorded: NewJournalRow[][] = [];
    served.journal([row('a'), row('b')]);
    served.journal([row('c')]);
    served.built({ fetch: () => new Response(null), journal: (rows) => recorded.push(rows) });
    served.journal([row('d')]);
    expect(recorded).toEqual([[row('a'), row('b'), row('c')], [row('d')]]);
  });
});
