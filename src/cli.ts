#!/usr/bin/env -S node --min-semi-space-size=16
import { createHash, randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { stringify } from 'yaml';
import { keyProblems } from './config/load.js';

const USAGE = `usage:
  toolgate serve                      run the gateway (the default)
  toolgate worker [--concurrency N]   run async batches from the Redis queue (REDIS_URL), N at once
  toolgate audit verify [--url URL]   check every chain of the audit trail (default: audit.url); exit 1 naming
                                      the first record changed, removed or reordered
  toolgate guardrails scan [FILE] [--jsonl] [--tool NAME]
                                      print FILE (or stdin) as a model would read it after the configured
                                      guardrails, then the redactions counted; --jsonl: {"text": …} lines in,
                                      {"text": …, "redactions": {kind: n}} lines out, in order
  toolgate keys create --tenant T [--scopes execute,admin,on_behalf] [--id ID] [--tools Read,get_*]
                                      print a new API key once, and the config entry to paste
  toolgate bash classify [--sandbox none|required] ('<command>' | --jsonl)
                                      the verdict, tier and reasons of a Bash command under the configured
                                      policy, running nothing; --jsonl: {"command": …} lines on stdin
  toolgate openapi check <file-or-url> [--base-url URL] [--prefix P] [--allow-private-network] [--json]
                                      load an OpenAPI document as openapi_sources would, without a gateway:
                                      its tools, each operation left out and why, each schema changed, GET
                                      /tools's size per format, the providers' limits it is over; exit 1
                                      when it gives no tool`;

function keysCreate(argv: string[]): void {
  const { values } = parseArgs({
    args: argv,
    options: {
      tenant: { type: 'string' },
      scopes: { type: 'string', default: 'execute' },
      id: { type: 'string' },
      tools: { type: 'string' },
    },
    strict: true,
  });
  if (values.tenant === undefined) throw new Error('--tenant is required');
  const key = `tg_${randomBytes(32).toString('base64url')}`;
  const entry: Record<string, unknown> = {
    // Cut so that a tenant of the longest valid name still gets a valid id.
    id: values.id ?? `${values.tenant.slice(0, 57)}-${randomBytes(3).toString('hex')}`,
    sha256: createHash('sha256').update(key).digest('hex'),
    tenant: values.tenant,
    scopes: values.scopes.split(',').map((s) => s.trim()),
  };
  if (values.tools !== undefined) entry.tools = values.tools.split(',').map((t) => t.trim());
  // Checked with the config's own schema, so what is printed is what the server accepts.
  const problems = keyProblems(entry);
  if (problems.length > 0) throw new Error(`the key entry would be invalid:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  // A YAML writer, not string templates: a tenant like 007 or null must stay a string.
  const yaml = stringify([entry]).replace(/^(?=.)/gm, '  ');
  process.stdout.write(
    `API key (shown once; store it now):\n\n  ${key}\n\nAdd this entry under "keys:" in the config file, or to the list in its keys_file:\n\n${yaml}`,
  );
}

function workerOptions(argv: string[]): { concurrency?: number } {
  const { values } = parseArgs({ args: argv, options: { concurrency: { type: 'string' } }, strict: true });
  if (values.concurrency === undefined) return {};
  const concurrency = Number(values.concurrency);
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 256)
    throw new Error('--concurrency must be a whole number from 1 to 256');
  return { concurrency };
}

async function main(argv: string[]): Promise<void> {
  const [command = 'serve', ...rest] = argv;
  // Loaded on demand: `keys create` needs none of the server's dependencies.
  if (command === 'serve') return (await import('./server.js')).serve();
  if (command === 'worker') return (await import('./worker.js')).work(process.env, workerOptions(rest));
  if (command === 'keys' && rest[0] === 'create') return keysCreate(rest.slice(1));
  if (command === 'audit' && rest[0] === 'verify') {
    const { auditVerify } = await import('./audit/verify-command.js');
    process.exitCode = await auditVerify(rest.slice(1), process.env, (line) => process.stdout.write(`${line}\n`));
    return;
  }
  if (command === 'bash' && rest[0] === 'classify') {
    const { bashClassify } = await import('./tools/bash/classify-command.js');
    process.exitCode = await bashClassify(rest.slice(1), process.env, process.stdin, (line) => process.stdout.write(`${line}\n`));
    return;
  }
  if (command === 'openapi' && rest[0] === 'check') {
    const { openapiCheck } = await import('./catalog/openapi-check-command.js');
    process.exitCode = await openapiCheck(rest.slice(1), (line) => process.stdout.write(`${line}\n`));
    return;
  }
  if (command === 'guardrails' && rest[0] === 'scan') {
    const { guardrailsScan } = await import('./guardrails/scan-command.js');
    const io = { stdin: process.stdin, out: (chunk: string) => process.stdout.write(chunk), err: (line: string) => console.error(line) };
    process.exitCode = await guardrailsScan(rest.slice(1), process.env, io);
    return;
  }
  console.error(USAGE);
  process.exit(command === 'help' || command === '--help' ? 0 : 2);
}

main(process.argv.slice(2)).catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(2);
});
