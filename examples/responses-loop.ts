/**
 * A minimal agent loop against toolgate in TypeScript, using the OpenAI
 * Responses API format. The "model" is scripted; replace `scriptedModel` with
 * `client.responses.create({ model, input, tools })` and the loop stays the same.
 *
 *   TOOLGATE_URL=http://127.0.0.1:8080 npx tsx examples/responses-loop.ts
 */
const BASE = process.env.TOOLGATE_URL ?? 'http://127.0.0.1:8080';
const KEY = process.env.TOOLGATE_KEY;

type Item =
  | { role: 'user' | 'assistant'; content: string }
  | { type: 'function_call'; call_id: string; name: string; arguments: string }
  | { type: 'function_call_output'; call_id: string; output: string };

async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(BASE + path, {
    method,
    headers: { 'content-type': 'application/json', ...(KEY ? { authorization: `Bearer ${KEY}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

const fn = (call_id: string, name: string, args: unknown): Item => ({
  type: 'function_call',
  call_id,
  name,
  arguments: JSON.stringify(args),
});

// Each entry is one response's `output`.
const SCRIPT: Item[][] = [
  [fn('call_1', 'Write', { path: 'todo.md', content: '- buy milk\n' }), fn('call_2', 'Glob', { pattern: '*.md' })],
  [fn('call_3', 'Read', { path: 'todo.md' })],
  [{ role: 'assistant', content: 'todo.md holds one item.' }],
];

let turn = 0;
function scriptedModel(input: Item[]): Item[] {
  // As the Responses API does: every function_call in the input needs its function_call_output.
  for (const item of input) {
    if (
      'type' in item &&
      item.type === 'function_call' &&
      !input.some((o) => 'type' in o && o.type === 'function_call_output' && o.call_id === item.call_id)
    ) {
      throw new Error(`No function_call_output for call_id ${item.call_id}`);
    }
  }
  return SCRIPT[turn++]!;
}

async function main(): Promise<void> {
  const { tools } = await call<{ tools: Array<{ name: string }> }>('GET', '/tools?format=responses');
  console.log('tools:', tools.map((t) => t.name).join(', '));
  const input: Item[] = [{ role: 'user', content: 'Start a todo list with one item.' }];
  for (;;) {
    const output = scriptedModel(input);
    input.push(...output);
    const calls = output.filter((item) => 'type' in item && item.type === 'function_call');
    if (calls.length === 0) {
      console.log('assistant:', output.map((item) => ('content' in item ? item.content : '')).join(''));
      return;
    }
    // The response's output goes to toolgate as it is; function_call_output items come back.
    const result = await call<{ results: Array<{ name: string; status: string; error?: { code: string } }>; messages: Item[] }>(
      'POST',
      '/execute',
      { output, session_id: 'example-responses' },
    );
    for (const r of result.results) console.log(`  ${r.name} -> ${r.status}${r.error ? ` (${r.error.code})` : ''}`);
    input.push(...result.messages);
  }
}

await main();
