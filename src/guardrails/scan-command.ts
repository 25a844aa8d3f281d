import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { loadConfig } from '../config/load.js';
import { isRecord } from '../protocol/json.js';
import { decodeText } from '../shared/decode-text.js';
import { createGuardrails } from './guardrails.js';
import { redactOutput } from './output.js';
import type { RedactionCounts, SecretScanner } from './scanner.js';

function asModelSees(scanner: SecretScanner | undefined, text: string): { text: string; counts: RedactionCounts } {
  if (scanner === undefined) return { text, counts: {} };
  const { output, counts } = redactOutput(scanner, { text });
  return { text: output.text, counts: counts ?? {} };
}

/** `toolgate guardrails scan [FILE] [--jsonl] [--tool NAME]`: a text as a model would read it (docs/guardrails.md). */
export async function guardrailsScan(
  argv: string[],
  env: NodeJS.ProcessEnv,
  io: { stdin: NodeJS.ReadableStream; out: (chunk: string) => void; err: (line: string) => void },
): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { jsonl: { type: 'boolean', default: false }, tool: { type: 'string', default: '*' } },
    allowPositionals: true,
    strict: true,
  });
  if (positionals.length > 1) throw new Error('guardrails scan takes one FILE at most');
  if (values.jsonl && positionals.length > 0) throw new Error('--jsonl reads stdin; it takes no FILE');
  const scanner = createGuardrails(loadConfig(env).guardrails).forTool(values.tool);
  if (!values.jsonl) {
    const bytes = positionals[0] === undefined ? await readAll(io.stdin) : readFileSync(positionals[0]);
    const { text, counts } = asModelSees(scanner, decodeText(bytes, bytes.length));
    io.out(text.endsWith('\n') ? text : `${text}\n`);
    const total = Object.values(counts).reduce((a, b) => a + b, 0);
    const kinds = Object.entries(counts).map(([kind, n]) => `${kind} ${n}`);
    io.err(total === 0 ? 'nothing redacted' : `${total} redacted: ${kinds.join(', ')}`);
    return 0;
  }
  let status = 0;
  for await (const line of createInterface({ input: io.stdin, crlfDelay: Infinity })) {
    if (line.trim() === '') continue;
    let input: unknown;
    try {
      input = JSON.parse(line);
    } catch {
      input = undefined;
    }
    if (!isRecord(input) || typeof input.text !== 'string') {
      io.out(`${JSON.stringify({ error: 'each line must be a JSON object with a string "text"' })}\n`);
      status = 1;
      continue;
    }
    const { text, counts } = asModelSees(scanner, input.text);
    io.out(`${JSON.stringify({ text, redactions: counts })}\n`);
  }
  return status;
}

async function readAll(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string));
  return Buffer.concat(chunks);
}
