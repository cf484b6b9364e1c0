#!/usr/bin/env node
import { run } from '../dist/cli/program.js';

await run(process.argv);
