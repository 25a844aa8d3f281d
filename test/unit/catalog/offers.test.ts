import { describe, expect, it } from 'vitest';
import { gatewayUri, resourcesName, upstreamOfPrompt, upstreamOfUri } from '../../../src/catalog/offers.js';
import { NO_OFFERS, type UpstreamOffering } from '../../../src/tools/mcp/offers.js';

/** How an upstream's resources and prompts are named at the gateway (docs/mcp.md, "Resources and prompts"). */

const upstream = (server: string, prefix: string, prompts: string[] = []): UpstreamOffering => ({
  server,
  prefix,
  requestTimeoutMs: 1_000,
  offered: () => ({ ...NO_OFFERS, prompts: prompts.map((name) => ({ name })) }),
  client: () => undefined,
  onOffers: () => undefined,
});

describe('resource and prompt names', () => {
  const ev = upstream('ev', 'ev_', ['simple-prompt']);
  const files = upstream('files', '', ['simple-prompt']);

  it('a resource URI is <server>+<upstream URI>, read back to its server and URI', () => {
    expect(gatewayUri(ev, 'demo://resource/static/a.md')).toBe('ev+demo://resource/static/a.md');
    expect(upstreamOfUri([ev, files], 'files+file:///srv/a+b.txt')).toEqual({ upstream: files, uri: 'file:///srv/a+b.txt' });
    expect(upstreamOfUri([ev, files], 'nope+file:///a')).toBeUndefined();
    expect(upstreamOfUri([ev, files], 'file:///a')).toBeUndefined();
  });

  it("keys and rules see a server's resources as prefix + resources, its prompts as prefix + name", () => {
    expect(resourcesName(ev)).toBe('ev_resources');
    expect(upstreamOfPrompt([ev, files], 'ev_simple-prompt')?.upstream).toBe(ev);
    expect(upstreamOfPrompt([ev, files], 'simple-prompt')?.upstream).toBe(files);
    expect(upstreamOfPrompt([ev, files], 'ev_missing')).toBeUndefined();
  });
});
