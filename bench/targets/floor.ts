import Fastify from 'fastify';
import { childOptions, serveTarget } from './child.js';
import { RAW_TOOLS } from './raw-tools.js';

interface WireCall {
  id: string;
  function: { name: string; arguments: string };
}

/**
 * The floor: a bare Fastify route that takes the same POST /execute body,
 * JSON-parses each call's arguments, runs the raw tool and answers with the
 * same results and messages shape. No validation, no gates, no state, no log
 * line: the limit toolgate can approach but not beat.
 */
const { workspace } = childOptions<{ workspace: string }>();
let toolCalls = 0;
let toolErrors = 0;

async function runCall(call: WireCall) {
  const started = performance.now();
  toolCalls++;
  let status: 'success' | 'error' = 'success';
  let text: string;
  try {
    const tool = RAW_TOOLS[call.function.name];
    if (!tool) throw new Error(`no tool ${call.function.name}`);
    text = await tool(JSON.parse(call.function.arguments) as Record<string, unknown>, workspace);
  } catch (err) {
    toolErrors++;
    status = 'error';
    text = (err as Error).message;
  }
  const payload = { status, text, truncated: null };
  return {
    result: {
      tool_call_id: call.id,
      name: call.function.name,
      ...payload,
      stats: { time_ms: Math.round(performance.now() - started), output_bytes: Buffer.byteLength(text) },
      replayed: false,
    },
    message: { role: 'tool', tool_call_id: call.id, content: JSON.stringify(payload) },
  };
}

await serveTarget(async () => {
  const app = Fastify({ logger: false });
  app.post('/execute', async (request) => {
    const done = await Promise.all((request.body as { tool_calls: WireCall[] }).tool_calls.map(runCall));
    return { results: done.map((d) => d.result), messages: done.map((d) => d.message) };
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  return {
    port: typeof address === 'object' && address ? address.port : 0,
    stats: async () => ({ toolCalls, toolErrors }),
    close: () => app.close(),
  };
});
