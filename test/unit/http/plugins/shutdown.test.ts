import { connect, type AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { buildTestApp } from '../../../helpers/app.js';
import { slowTool } from '../../../helpers/tools.js';

/**
 * 503 when the gateway is not ready. A request that reaches a
 * gateway that is shutting down (here on a kept-alive connection whose first
 * request is still running) is refused with the envelope, NOT_READY and
 * Retry-After, while the request in flight completes.
 */
describe('503 NOT_READY while shutting down', () => {
  it('the in-flight request completes; the next one on the connection is 503 NOT_READY with Retry-After', async () => {
    const t = await buildTestApp({ builtins: false, tools: [slowTool('Slow', { safe: true, ms: 400 })] });
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = t.app.server.address() as AddressInfo;
    const body = JSON.stringify([{ id: 's', name: 'Slow', arguments: {} }]);
    let answer = '';
    const socket = connect(port, '127.0.0.1');
    socket.setEncoding('utf8').on('data', (chunk: string) => (answer += chunk));
    try {
      socket.write(
        `POST /execute HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
      );
      await new Promise((r) => setTimeout(r, 100));
      const closing = t.app.close();
      await new Promise((r) => setTimeout(r, 20));
      socket.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\nx-request-id: late-1\r\n\r\n');
      await closing;
      for (let i = 0; i < 50 && !answer.includes('NOT_READY'); i++) await new Promise((r) => setTimeout(r, 20));
      const [first, second] = answer.split(/(?=HTTP\/1\.1 )/);
      expect(first).toMatch(/^HTTP\/1\.1 200 /);
      expect(first).toContain('"status":"success"');
      expect(second).toMatch(/^HTTP\/1\.1 503 /);
      expect(second).toMatch(/\r\nretry-after: 1\r\n/i);
      expect(second).toMatch(/\r\nx-request-id: late-1\r\n/i);
      expect(JSON.parse(second!.split('\r\n\r\n')[1]!)).toEqual({ error: { code: 'NOT_READY', message: expect.any(String) } });
    } finally {
      socket.destroy();
      await t.close().catch(() => undefined);
    }
  });
});
