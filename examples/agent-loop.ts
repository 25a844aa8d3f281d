/**
 * A minimal agent loop against toolgate in TypeScript, using the Anthropic
 * message format. The "model" is scripted; replace `scriptedModel` with a
 * Messages API call and the loop stays the same.
 *
 *   TOOLGATE_URL=http://127.0.0.1:8080 npx tsx examples/agent-loop.ts
 */
const BASE = process.env.TOOLGATE_URL ?? 'http://127.0.0.1:8080';
const KEY = process.env.TOOLGATE_KEY;

type Block = { type: 'text'; text: string } | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> };
type Message = { role: 'user' | 'assistant'; content: string | Block[] | unknown[] };

async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(BASE + path, {
    method,
    headers: { 'content-type': 'application/json', ...(KEY ? { authorization: `Bearer ${KEY}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

const SCRIPT: Message[] = [
  {
    role: 'assistant',
    content: [
      { type: 'text', text: 'Let me look at the workspace first.' },
      { type: 'tool_use', id: 'toolu_1', name: 'LS', input: { path: '.' } },
      { type: 'tool_use', id: 'toolu_2', name: 'Write', input: { path: 'hello.md', content: '# Hello\n' } },
    ],
  },
  {
    role: 'assistant',
    content: [
      {
        type: 'tool_use',
        id: 'toolu_3',
        name: 'Edit',
        input: { path: 'hello.md', old_string: '# Hello', new_string: '# Hello, toolgate' },
      },
    ],
  },
  { role: 'assistant', content: [{ type: 'text', text: 'hello.md now greets toolgate.' }] },
];

function scriptedModel(messages: Message[]): Message {
  return SCRIPT[messages.filter((m) => m.role === 'assistant').length]!;
}

async function main(): Promise<void> {
  const { tools } = await call<{ tools: Array<{ name: string }> }>('GET', '/tools?format=anthropic');
  console.log('tools:', tools.map((t) => t.name).join(', '));
  const messages: Message[] = [{ role: 'user', content: 'Create hello.md and make it greet toolgate.' }];
  for (;;) {
    const reply = scriptedModel(messages);
    messages.push(reply);
    const uses = (reply.content as Block[]).filter((b) => b.type === 'tool_use');
    if (uses.length === 0) {
      console.log('assistant:', (reply.content as Block[]).map((b) => (b.type === 'text' ? b.text : '')).join(''));
      return;
    }
    // The assistant message goes to toolgate as the model emitted it; text blocks are ignored.
    const result = await call<{ results: Array<{ name: string; status: string; error?: { code: string } }>; messages: Message[] }>(
      'POST',
      '/execute',
      { ...reply, session_id: 'example-session' },
    );
    for (const r of result.results) console.log(`  ${r.name} -> ${r.status}${r.error ? ` (${r.error.code})` : ''}`);
    messages.push(...result.messages);
  }
}

await main();
