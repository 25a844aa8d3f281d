import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { Counter, Registry } from 'prom-client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { HttpDispatchers } from '../../src/tools/http/index.js';
import { signature, type DeliveryDeps, type WebhookOutbox } from '../../src/webhooks/index.js';

/** A receiver on loopback that answers each POST with the next status of `answers` (then 204), or never. */
export class Receiver {
  readonly got: Array<{ body: string; headers: IncomingMessage['headers']; at: number }> = [];
  answers: Array<number | 'hang'> = [];
  private server!: Server;
  url = '';

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        this.got.push({ body: Buffer.concat(chunks).toString('utf8'), headers: req.headers, at: Date.now() });
        const answer = this.answers.shift() ?? 204;
        if (answer === 'hang') return;
        res.statusCode = answer;
        res.end();
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
    return this;
  }

  async until(count: number, timeoutMs = 10_000): Promise<void> {
    const start = Date.now();
    while (this.got.length < count) {
      if (Date.now() - start > timeoutMs) throw new Error(`the receiver got ${this.got.length} of ${count} deliveries`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

export const SECRET = 'whsec-test-0123456789abcdef';

export function deliveryDeps(dispatchers: HttpDispatchers, overrides: Partial<DeliveryDeps> = {}): DeliveryDeps & { logs: string[] } {
  const logs: string[] = [];
  return {
    secret: SECRET,
    allowPrivateNetwork: true,
    dispatchers,
    retry: { retries: 3, backoffMs: 50, timeoutMs: 500 },
    deliveries: new Counter({ name: 'test_deliveries', help: 'x', labelNames: ['outcome'], registers: [new Registry()] }),
    logger: pino({ level: 'info' }, { write: (line: string) => void logs.push(line) }),
    logs,
    ...overrides,
  };
}

/**
 * What every outbox does alike: sends return at once; each event is POSTed
 * signed, retried with backoff on failure, given up on a refusal by the
 * SSRF guard, and delivered once.
 */
export function describeWebhookOutbox(
  name: string,
  make: (deps: DeliveryDeps) => Promise<WebhookOutbox>,
  dispatchers: () => HttpDispatchers,
): void {
  describe(`WebhookOutbox suite: ${name}`, () => {
    let receiver: Receiver;
    const outboxes: WebhookOutbox[] = [];
    const open = async (overrides: Partial<DeliveryDeps> = {}) => {
      const deps = deliveryDeps(dispatchers(), overrides);
      const outbox = await make(deps);
      outboxes.push(outbox);
      return { outbox, deps };
    };
    beforeEach(async () => {
      receiver = await new Receiver().start();
    });
    afterEach(async () => {
      await Promise.all(outboxes.splice(0).map((o) => o.close()));
      await receiver.close();
    });

    it('POSTs the body as given, signed, with its headers and the attempt number; send returns before any of it', async () => {
      const { outbox } = await open();
      const body = JSON.stringify({ event: 'approval.created', approval: { id: 'apr_1', note: 'é ✓' } });
      receiver.answers = ['hang'];
      const started = performance.now();
      outbox.send({ id: `e-${Date.now()}-1`, url: receiver.url, body, headers: { 'x-toolgate-event': 'approval.created' } });
      expect(performance.now() - started).toBeLessThan(50);
      await receiver.until(2);
      const [first] = receiver.got;
      expect(first!.body).toBe(body);
      expect(first!.headers).toMatchObject({
        'content-type': 'application/json',
        'x-toolgate-signature': signature(SECRET, body),
        'x-toolgate-event': 'approval.created',
        'x-toolgate-delivery': '1',
      });
      // The first attempt never answered: it timed out and was tried again.
      expect(receiver.got[1]!.headers['x-toolgate-delivery']).toBe('2');
    });

    it('retries a failing receiver with growing delays until it answers 2xx, then stops', async () => {
      const { outbox, deps } = await open();
      receiver.answers = [500, 503];
      outbox.send({ id: `e-${Date.now()}-2`, url: receiver.url, body: '{}', headers: {} });
      await receiver.until(3);
      await new Promise((resolve) => setTimeout(resolve, 400));
      expect(receiver.got.map((g) => g.headers['x-toolgate-delivery'])).toEqual(['1', '2', '3']);
      const [a, b, c] = receiver.got.map((g) => g.at);
      expect(b! - a!).toBeGreaterThanOrEqual(45);
      expect(c! - b!).toBeGreaterThanOrEqual(95);
      expect(new Set(receiver.got.map((g) => g.headers['x-toolgate-signature'])).size).toBe(1);
      const counted = await deps.deliveries.get();
      expect(counted.values.find((v) => v.labels.outcome === 'delivered')?.value).toBe(1);
    });

    it('gives up after its retries, and on a target the SSRF guard refuses without retrying', async () => {
      const { outbox } = await open({ retry: { retries: 1, backoffMs: 20, timeoutMs: 500 } });
      receiver.answers = [500, 500, 500];
      outbox.send({ id: `e-${Date.now()}-3`, url: receiver.url, body: '{}', headers: {} });
      await receiver.until(2);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(receiver.got).toHaveLength(2);

      const guarded = await open({ allowPrivateNetwork: false });
      const port = new URL(receiver.url).port;
      guarded.outbox.send({ id: `e-${Date.now()}-4`, url: `http://localhost:${port}/hook`, body: '{}', headers: {} });
      await expect
        .poll(async () => (await guarded.deps.deliveries.get()).values.find((v) => v.labels.outcome === 'refused')?.value, {
          timeout: 5_000,
        })
        .toBe(1);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(receiver.got).toHaveLength(2);
    });
  });
}
