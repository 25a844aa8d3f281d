import Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import { answer, isObject, useRoundTrip, type Json } from './round-trip-harness.js';

/** See round-trip-harness.ts: the SDK's request must reach the model in the provider's documented format. */
describe('provider round trips through the official SDKs', () => {
  const { gateway, model } = useRoundTrip();

  it('anthropic Messages: the tool_result blocks answer every tool_use id, first in the next user turn', async () => {
    const toolsSent = (await gateway('/tools?format=anthropic')).tools as Json[];
    const fake = await model(({ path, body }, turn) => {
      const messages = body.messages as Json[];
      const problems: (string | false)[] = [
        path !== '/v1/messages' && `unexpected path ${path}`,
        JSON.stringify(body.tools) !== JSON.stringify(toolsSent) && 'tools differ from GET /tools',
        !(body.tools as Json[]).every(
          (tool) => typeof tool.name === 'string' && isObject(tool.input_schema) && tool.input_schema.type === 'object',
        ) && 'tools must be {name, description, input_schema}',
      ];
      messages.forEach((message, i) => {
        problems.push(message.role !== (i % 2 === 0 ? 'user' : 'assistant') && `message ${i}: roles must alternate`);
        if (message.role !== 'assistant' || !Array.isArray(message.content)) return;
        const uses = (message.content as Json[]).filter((b) => b.type === 'tool_use').map((b) => b.id as string);
        if (uses.length === 0) return;
        const next = messages[i + 1];
        const blocks = Array.isArray(next?.content) ? (next.content as Json[]) : [];
        const results = blocks.filter((b) => b.type === 'tool_result');
        problems.push(
          JSON.stringify(results.map((b) => b.tool_use_id).sort()) !== JSON.stringify([...uses].sort()) &&
            'tool_result ids must match the tool_use ids',
        );
        problems.push(
          blocks.findIndex((b) => b.type !== 'tool_result') !== -1 &&
            blocks.findIndex((b) => b.type !== 'tool_result') < results.length &&
            'tool_result blocks must come first',
        );
        problems.push(
          results.some((b) => typeof b.content !== 'string' || typeof b.is_error !== 'boolean') &&
            'tool_result content must be a string, is_error a boolean',
        );
      });
      const content =
        turn === 0
          ? [
              { type: 'text', text: 'Let me look.' },
              { type: 'tool_use', id: 'toolu_read', name: 'Read', input: { path: 'notes.txt' } },
              { type: 'tool_use', id: 'toolu_ls', name: 'LS', input: { path: '.' } },
            ]
          : [{ type: 'text', text: 'Two items.' }];
      return answer(problems, {
        id: `msg_${turn}`,
        type: 'message',
        role: 'assistant',
        model: 'claude-test',
        content,
        stop_reason: turn === 0 ? 'tool_use' : 'end_turn',
        stop_sequence: null,
        usage: { input_tokens: 1, output_tokens: 1 },
      });
    });
    const client = new Anthropic({ apiKey: 'test', baseURL: fake.url, maxRetries: 0 });
    const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'What is in notes.txt?' }];
    for (;;) {
      const reply = await client.messages.create({ model: 'claude-test', max_tokens: 1024, messages, tools: toolsSent as never });
      messages.push({ role: reply.role, content: reply.content });
      if (reply.stop_reason !== 'tool_use') break;
      const executed = await gateway('/execute', reply);
      expect(executed.results.map((r: Json) => r.status)).toEqual(['success', 'success']);
      messages.push(...(executed.messages as Anthropic.MessageParam[]));
    }
    expect(fake.requests).toHaveLength(2);
    expect(messages.at(-1)).toMatchObject({ content: [{ type: 'text', text: 'Two items.' }] });
  });
});
