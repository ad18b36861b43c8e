#!/usr/bin/env node
// `npm run bench -- [options]`: runs bench/run.ts through tsx (see docs/performance.md).
import { register } from 'tsx/esm/api';

register();
await import('../bench/run.ts');
