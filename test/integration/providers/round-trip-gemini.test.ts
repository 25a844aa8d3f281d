import { GoogleGenAI, type Content, type Tool as GeminiTool } from '@google/genai';
import { describe, expect, it } from 'vitest';
import { answer, isObject, useRoundTrip, type Json } from './round-trip-harness.js';

/** See round-trip-harness.ts: the SDK's request must reach the model in the provider's documented format. */
describe('provider round trips through the official SDKs', () => {
  const { gateway, model } = useRoundTrip();

  it('gemini generateContent: functionResponse parts answer every functionCall, by name and id, with an object response', async () => {
    const toolsSent = (await gateway('/tools?format=gemini')).tools as GeminiTool[];
    const fake = await model(({ path, body }, turn) => {
      const contents = body.contents as Json[];
      const problems: (string | false)[] = [
        !path.endsWith('/models/gemini-test:generateContent') && `unexpected path ${path}`,
        JSON.stringify(body.tools) !== JSON.stringify(toolsSent) && 'tools differ from GET /tools',
        !(body.tools as Json[]).every((tool) => Array.isArray(tool.functionDeclarations)) && 'tools must be {functionDeclarations}',
      ];
      contents.forEach((content, i) => {
        problems.push(content.role !== 'user' && content.role !== 'model' && `content ${i}: role must be user or model`);
        const calls = ((content.parts ?? []) as Json[]).filter((p) => isObject(p.functionCall)).map((p) => p.functionCall as Json);
        if (calls.length === 0) return;
        const next = contents[i + 1];
        const responses = ((next?.parts ?? []) as Json[]).map((p) => p.functionResponse as Json | undefined);
        problems.push(next?.role !== 'user' && 'function responses go in the next user turn');
        problems.push(responses.length !== calls.length && 'one functionResponse per functionCall');
        calls.forEach((call, k) => {
          const response = responses[k];
          problems.push(
            (response?.name !== call.name || response?.id !== call.id) && `functionResponse ${k} must carry the call's name and id`,
          );
          problems.push(!isObject(response?.response) && `functionResponse ${k}: response must be an object`);
        });
      });
      const parts =
        turn === 0
          ? [
              { functionCall: { id: 'fc_read', name: 'Read', args: { path: 'notes.txt' } } },
              { functionCall: { name: 'LS', args: { path: '.' } } },
            ]
          : [{ text: 'Two items.' }];
      return answer(problems, {
        candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }],
        modelVersion: 'gemini-test',
      });
    });
    const client = new GoogleGenAI({ apiKey: 'test', httpOptions: { baseUrl: fake.url } });
    const contents: Content[] = [{ role: 'user', parts: [{ text: 'What is in notes.txt?' }] }];
    let text: string | undefined;
    for (;;) {
      const response = await client.models.generateContent({ model: 'gemini-test', contents, config: { tools: toolsSent } });
      const content = response.candidates![0]!.content!;
      contents.push(content);
      if (!response.functionCalls?.length) {
        text = response.text;
        break;
      }
      const executed = await gateway('/execute', content);
      expect(executed.results.map((r: Json) => r.status)).toEqual(['success', 'success']);
      contents.push(...(executed.messages as Content[]));
    }
    expect(fake.requests).toHaveLength(2);
    expect(text).toBe('Two items.');
  });
});
