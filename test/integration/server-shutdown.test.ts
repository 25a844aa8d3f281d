import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { accepts } from '../helpers/redis.js';
import {
  call,
  EXIT_MS,
  isolated,
  portOf,
  sleep,
  startGateway,
  TEST_MS,
  until,
  useGatewayScratch,
  withTimeout,
  writeConfig,
  type Gateway,
  type Reply,
} from './server-harness.js';

let upstream: Server | undefined;

// Registered first, so it runs after the scratch cleanup has killed the gateways.
afterEach(async () => {
  upstream?.closeAllConnections();
  await new Promise((resolve) => (upstream ? upstream.close(resolve) : resolve(undefined)));
  upstream = undefined;
});

useGatewayScratch();

describe('graceful shutdown', { timeout: TEST_MS }, () => {
  /** A loopback upstream that holds each request until the test releases it. */
  async function heldUpstream(): Promise<{ port: number; arrived: Promise<void>; release(): void }> {
    let arrive: () => void = () => {};
    const arrived = new Promise<void>((resolve) => (arrive = resolve));
    const held: ServerResponse[] = [];
    upstream = createServer((_req: IncomingMessage, res: ServerResponse) => {
      held.push(res);
      arrive();
    });
    await new Promise<void>((resolve) => upstream!.listen(0, '127.0.0.1', resolve));
    const address = upstream.address();
    if (!address || typeof address === 'string') throw new Error('no upstream address');
    const release = () => {
      for (const res of held.splice(0)) res.writeHead(200, { 'content-type': 'application/json' }).end('{"answer":42}');
    };
    return { port: address.port, arrived, release };
  }

  async function gatewayWithSlowTool(upstreamPort: number): Promise<{ gateway: Gateway; port: number }> {
    const config = await writeConfig(`
tools:
  - name: slow_lookup
    description: Answers when the upstream does.
    parameters: {type: object}
    http: {method: GET, url: "http://127.0.0.1:${upstreamPort}/slow", allow_private_network: true}
    timeout_ms: 60000
`);
    const gateway = startGateway(isolated({ TOOLGATE_CONFIG: config }));
    const ready = await gateway.ready;
    expect(ready.tools).toContain('slow_lookup');
    return { gateway, port: portOf(ready.address) };
  }

  /** Send a call of the slow tool and wait until it is at the upstream; the reply is wrapped so awaiting this does not await it. */
  async function inFlight(port: number, upstreamArrived: Promise<void>): Promise<{ reply: Promise<Reply> }> {
    const reply = call(port, 'POST', '/execute', [{ id: 'slow-1', name: 'slow_lookup', arguments: {} }]);
    reply.catch(() => {});
    await withTimeout(upstreamArrived, 15_000, 'the tool call reaching the upstream');
    return { reply };
  }

  async function expectDrainedAndExited(gateway: Gateway, port: number, reply: Promise<Reply>, release: () => void): Promise<void> {
    await until('new connections refused', async () => !(await accepts(port)));
    release();
    const response = await withTimeout(reply, 15_000, 'the in-flight request');
    expect(response.status).toBe(200);
    expect(response.json().results[0]).toMatchObject({ tool_call_id: 'slow-1', status: 'success', data: { answer: 42 } });
    expect(await withTimeout(gateway.exited, EXIT_MS, 'gateway exit')).toEqual({ code: 0, signal: null });
    expect(gateway.logs.map((l) => l.msg)).toEqual(expect.arrayContaining(['stopped']));
  }

  it('SIGTERM: the in-flight request completes with its result, new connections are refused, exit 0', async () => {
    const slow = await heldUpstream();
    const { gateway, port } = await gatewayWithSlowTool(slow.port);
    const { reply } = await inFlight(port, slow.arrived);
    gateway.child.kill('SIGTERM');
    await expectDrainedAndExited(gateway, port, reply, slow.release);
  });

  it('SIGINT delivered twice at once (Ctrl-C under npm start) is one graceful stop, exit 0', async () => {
    const slow = await heldUpstream();
    const { gateway, port } = await gatewayWithSlowTool(slow.port);
    const { reply } = await inFlight(port, slow.arrived);
    gateway.child.kill('SIGINT');
    gateway.child.kill('SIGINT');
    await expectDrainedAndExited(gateway, port, reply, slow.release);
  });

  it('a second signal later in the drain exits at once with 1', async () => {
    const slow = await heldUpstream();
    const { gateway, port } = await gatewayWithSlowTool(slow.port);
    const { reply } = await inFlight(port, slow.arrived);
    gateway.child.kill('SIGTERM');
    await until('new connections refused', async () => !(await accepts(port)));
    await sleep(1_500);
    expect(gateway.child.exitCode).toBeNull();
    gateway.child.kill('SIGTERM');
    expect(await withTimeout(gateway.exited, EXIT_MS, 'gateway exit')).toEqual({ code: 1, signal: null });
    await expect(reply).rejects.toThrow();
    expect(gateway.logs.map((l) => l.msg)).toEqual(expect.arrayContaining([expect.stringMatching(/^second signal/)]));
  });
});
