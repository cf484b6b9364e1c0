// tsc copies only .ts output; the SQL migrations are read at run time next to the compiled store.
// The directory is replaced, not merged, so a migration renamed or removed in src/ cannot linger
// in dist/ and be applied as well.
import { cpSync, rmSync } from 'node:fs';

rmSync('dist/store/migrations', { recursive: true, force: true });
cpSync('src/store/migrations', 'dist/store/migrations', { recursive: true });

// The schema snapshot a new database gets in one exec (src/store/schema-snapshot.ts): made by
// migrating an empty database step by step with the migrations just copied, so it always matches them.
const { default: Database } = await import('better-sqlite3');
const { migrate, migrationFiles, SCHEMA_SNAPSHOT } = await import('../dist/store/open-database.js');
const { writeSchemaSnapshot } = await import('../dist/store/schema-snapshot.js');
rmSync(SCHEMA_SNAPSHOT, { force: true });
const db = new Database(':memory:');
migrate(db);
writeSchemaSnapshot(db, migrationFiles(), SCHEMA_SNAPSHOT);
db.close();
