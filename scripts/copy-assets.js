// tsc copies only .ts output; the SQL migrations are read at run time next to the compiled store.
// The directory is replaced, not merged, so a migration renamed or removed in src/ cannot linger
// in dist/ and be applied as well.
import { cpSync, rmSync } from 'node:fs';

rmSync('dist/store/migrations', { recursive: true, force: true });
cpSync('src/store/migrations', 'dist/store/migrations', { recursive: true });
