// tsc compiles only TypeScript; the Redis store's Lua scripts, the console's page and assets and the guardrails' rule
// file are read at run time from beside the compiled code.
// A script already there unchanged is not copied again: a build with nothing to do writes nothing.
import { cpSync, existsSync, readFileSync, statSync } from 'node:fs';
import { URL } from 'node:url';

const unchanged = (from, to) => existsSync(to) && readFileSync(from).equals(readFileSync(to));

for (const dir of ['state/redis/lua', 'console/static', 'guardrails/vendor/gitleaks']) {
  cpSync(new URL(`../src/${dir}`, import.meta.url), new URL(`../dist/${dir}`, import.meta.url), {
    recursive: true,
    filter: (from, to) => statSync(from).isDirectory() || !unchanged(from, to),
  });
}
