import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { configFrom } from '../../../src/config/load.js';
import { logLineScrubber } from '../../../src/guardrails/index.js';
import { loggerOptions } from '../../../src/observability/logger.js';
import { FAKE_SECRETS } from '../../helpers/fake-secrets.js';
import { call, portOf, startGateway, TEST_MS, useGatewayScratch } from '../server-harness.js';

/**
 * Every log line passes the guardrails on its way out (docs/guardrails.md):
 * whatever field, escaping or message holds a credential, the line written
 * holds its marker.
 */
const token = FAKE_SECRETS.find((s) => s.kind === 'github_token')!.secret;
const aws = FAKE_SECRETS.find((s) => s.kind === 'aws_access_key_id')!.secret;

/** A logger with the process's options, writing its lines here. */
function capture(secrets: 'redact' | 'off' = 'redact') {
  const lines: string[] = [];
  const sink = new Writable({ write: (chunk: Buffer, _encoding, done) => (lines.push(chunk.toString()), done()) });
  const log = pino(loggerOptions('info', logLineScrubber(configFrom({ guardrails: { secrets } }).guardrails)), sink);
  return { log, lines };
}

describe('log lines', () => {
  it('redacts a credential in a message, a nested field, an error and an escaped string, and each line stays JSON', () => {
    const { log, lines } = capture();
    log.info(`login with ${token} failed`);
    log.warn({ upstream: { said: `denied: {"key": "${aws}"}` } }, 'upstream refused');
    log.error({ err: new Error(`bad credentials ${token}`) }, 'call failed');
    log.info({ body: `{"log": "started\\n${aws}\\tdone"}` }, 'body');
    expect(lines).toHaveLength(4);
    for (const line of lines) {
      expect(line).not.toContain(token);
      expect(line).not.toContain(aws);
      expect(() => JSON.parse(line)).not.toThrow();
    }
    expect(JSON.parse(lines[0]!).msg).toBe('login with [REDACTED:github_token] failed');
    expect(JSON.parse(lines[2]!).err.message).toBe('bad credentials [REDACTED:github_token]');
  });

  it('whatever guardrails.secrets says: that setting is about what a model reads', () => {
    const { log, lines } = capture('off');
    log.info({ session_id: token }, 'x');
    expect(lines[0]).toContain('[REDACTED:github_token]');
  });

  it('withholds a line a replacement would leave unreadable, saying which kinds it held', () => {
    const scrub = logLineScrubber(configFrom({}).guardrails);
    const line = JSON.parse(scrub(`not json ${token}`));
    expect(line).toMatchObject({ level: 40, kinds: ['github_token'] });
    expect(line.msg).toMatch(/withheld/);
    expect(scrub('{"msg":"nothing here"}\n')).toBe('{"msg":"nothing here"}\n');
  });
});

describe('a gateway process', { timeout: TEST_MS }, () => {
  useGatewayScratch();

  it("writes no credential a model put in a session id or a call id: the 'tool call' line holds the markers", async () => {
    const gateway = startGateway({ PORT: '0' });
    const port = portOf((await gateway.ready).address);
    const executed = await call(port, 'POST', '/execute', {
      session_id: `s-${token}`,
      tool_calls: [{ id: `c-${aws}`, name: 'LS', arguments: { path: '.' } }],
    });
    expect(executed.status).toBe(200);
    await expect.poll(() => gateway.logs.find((l) => l.msg === 'tool call')).toBeDefined();
    const line = gateway.logs.find((l) => l.msg === 'tool call')!;
    expect(line).toMatchObject({ session_id: 's-[REDACTED:github_token]', call_id: 'c-[REDACTED:aws_access_key_id]' });
    expect(JSON.stringify(gateway.logs)).not.toContain(token);
    expect(JSON.stringify(gateway.logs)).not.toContain(aws);
  });
});
