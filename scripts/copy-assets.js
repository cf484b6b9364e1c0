// tsc copies only .ts output; the SQL migrations are read at run time next to the compiled store.
import { cpSync, mkdirSync } from 'node:fs';

mkdirSync('dist/store/migrations', { recursive: true });
cpSync('src/store/migrations', 'dist/store/migrations', { recursive: true });
