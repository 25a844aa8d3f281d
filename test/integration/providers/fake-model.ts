import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the fake model received. */
export interface ModelRequest {
  path: string;
  body: Record<string, unknown>;
}

/**
 * Checks a request against the provider's documented format and answers with
 * the next scripted model reply; a problem it returns becomes a 400, which the
 * SDK raises, so a malformed conversation fails the test with the reason.
 */
export type ModelHandler = (request: ModelRequest, turn: number) => { problem: string } | { reply: unknown };

/** A loopback model server an SDK is pointed at through its base URL. */
export interface FakeModel {
  url: string;
  requests: ModelRequest[];
  close(): Promise<void>;
}

async function readJson(request: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>;
}

export async function startFakeModel(handle: ModelHandler): Promise<FakeModel> {
  const requests: ModelRequest[] = [];
  const server: Server = createServer((request, response) => {
    void readJson(request).then((body) => {
      const received = { path: new URL(request.url ?? '/', 'http://127.0.0.1').pathname, body };
      requests.push(received);
      const answer = handle(received, requests.length - 1);
      const problem = 'problem' in answer ? answer.problem : undefined;
      response.writeHead(problem ? 400 : 200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify(
          problem
            ? { error: { type: 'invalid_request_error', message: problem, code: 400, status: 'INVALID_ARGUMENT' } }
            : (answer as { reply: unknown }).reply,
        ),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
