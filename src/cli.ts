#!/usr/bin/env node
import { createHash, randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { serve } from './server.js';

const USAGE = `usage:
  toolgate serve                      run the gateway (the default)
  toolgate keys create --tenant T [--scopes execute,admin] [--id ID] [--tools Read,get_*]
                                      print a new API key once, and the config entry to paste`;

function keysCreate(argv: string[]): void {
  const { values } = parseArgs({
    args: argv,
    options: { tenant: { type: 'string' }, scopes: { type: 'string', default: 'execute' }, id: { type: 'string' }, tools: { type: 'string' } },
    strict: true,
  });
  const tenant = values.tenant;
  if (!tenant || !/^[A-Za-z0-9_.-]{1,64}$/.test(tenant)) throw new Error('--tenant is required: letters, digits, _ . - (at most 64)');
  const scopes = values.scopes.split(',').map((s) => s.trim());
  if (scopes.some((s) => s !== 'execute' && s !== 'admin')) throw new Error('--scopes takes execute and/or admin');
  const key = `tg_${randomBytes(32).toString('base64url')}`;
  const id = values.id ?? `${tenant}-${randomBytes(3).toString('hex')}`;
  const sha256 = createHash('sha256').update(key).digest('hex');
  const lines = [`  - id: ${id}`, `    sha256: ${sha256}`, `    tenant: ${tenant}`, `    scopes: [${scopes.join(', ')}]`];
  if (values.tools) lines.push(`    tools: [${values.tools.split(',').map((t) => JSON.stringify(t.trim())).join(', ')}]`);
  process.stdout.write(
    `API key (shown once; store it now):\n\n  ${key}\n\nAdd this entry under "keys:" in the config file:\n\n${lines.join('\n')}\n`,
  );
}

async function main(argv: string[]): Promise<void> {
  const [command = 'serve', ...rest] = argv;
  if (command === 'serve') return serve();
  if (command === 'keys' && rest[0] === 'create') return keysCreate(rest.slice(1));
  console.error(USAGE);
  process.exit(command === 'help' || command === '--help' ? 0 : 2);
}

main(process.argv.slice(2)).catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(2);
});
