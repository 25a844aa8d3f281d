// tsc compiles only TypeScript; the Redis store's Lua scripts are read at run time from beside the compiled code.
import { cpSync } from 'node:fs';
import { URL } from 'node:url';

cpSync(new URL('../src/state/redis/lua', import.meta.url), new URL('../dist/state/redis/lua', import.meta.url), { recursive: true });
