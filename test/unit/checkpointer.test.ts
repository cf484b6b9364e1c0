import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { it } from 'vitest';
import { openDatabase } from '../../src/store/open-database.js';
import { startCheckpointer } from '../../src/store/checkpointer.js';
import { waitFor } from '../helpers/wait-for.js';

it('copies the WAL into the database file from its own thread while the writer does no checkpoint', async () => {
  const file = join(mkdtempSync(join(tmpdir(), 'checkpointer-')), 'sandbox.db');
  const db = openDatabase(file);
  const checkpointer = startCheckpointer(db, 20);
  // Once the worker runs, the writer's own automatic checkpoints are off.
  await waitFor(() => db.pragma('wal_autocheckpoint', { simple: true }) === 0, 'the writer to hand checkpoints to the worker');
  const before = statSync(file).size;
  db.exec('CREATE TABLE filler (blob BLOB)');
  const insert = db.prepare('INSERT INTO filler VALUES (randomblob(4000))');
  db.transaction(() => {
    for (let i = 0; i < 500; i++) insert.run();
  })();
  // Only a checkpoint moves those 2 MB from the -wal file into the database file.
  await waitFor(() => statSync(file).size > before + 1_000_000, 'the database file to receive the checkpointed pages');
  await checkpointer.stop();
  db.close();
});

it('does nothing for an in-memory database', async () => {
  const db = openDatabase(':memory:');
  await startCheckpointer(db).stop();
  db.close();
});
