import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Tracing } from '../../../src/observability/spans.js';
import { startTracing, tracingSettings } from '../../../src/observability/tracing.js';
import { buildTestApp, execute, type TestApp } from '../../helpers/app.js';
import { startOtlpReceiver, type OtlpReceiver } from '../../helpers/otlp-receiver.js';
import { forUser, ON_BEHALF_KEYS, whoTool } from '../../helpers/users.js';

/** A call's span names the user it is for (`toolgate.user`), exported over real OTLP/HTTP; a key's own call names none. */
describe('the user on a call span', () => {
  let receiver: OtlpReceiver;
  let tracing: Tracing;
  let t: TestApp;
  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    tracing = (await startTracing(tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.origin }).settings))!;
    t = await buildTestApp({ tracing, builtins: false, tools: [whoTool()], config: { keys: ON_BEHALF_KEYS } });
  });
  afterAll(async () => {
    await t.close();
    await tracing.shutdown();
    await receiver.close();
  });

  it('toolgate.user on the span of a call for alice, and no such attribute on the key’s own', async () => {
    await execute(t.app, [{ id: 'for-alice', name: 'Who', arguments: {} }], forUser('alice'));
    await execute(t.app, [{ id: 'own', name: 'Who', arguments: {} }], forUser());
    await tracing.flush();
    const span = (id: string) => receiver.spans().find((s) => s.attributes['gen_ai.tool.call.id'] === id)!;
    expect(span('for-alice').attributes['toolgate.user']).toBe('alice');
    expect(span('own').attributes).not.toHaveProperty('toolgate.user');
  });
});
