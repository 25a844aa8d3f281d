import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/load.js';
import { file, problemsOf, useConfigDir } from './load-fixtures.js';

useConfigDir();

describe('mcp_servers', () => {
  it('takes a stdio server and a Streamable HTTP server, with the documented defaults', async () => {
    const config = loadConfig(
      {},
      await file(`
mcp_servers:
  - {name: files, command: npx, args: ["-y", "@modelcontextprotocol/server-filesystem", /srv/data], prefix: files_}
  - {name: search, url: "https://mcp.example.com/mcp", headers: {authorization: "Bearer \${T}"}, tools: {web_search: {concurrency_safe: true}}}
`),
    );
    expect(config.mcp_servers).toMatchObject([
      { name: 'files', prefix: 'files_', connect_timeout_ms: 10_000, refresh_ms: 60_000, tools: {} },
      { name: 'search', prefix: '', tools: { web_search: { concurrency_safe: true } } },
    ]);
  });

  it("lists every server that is not exactly one kind, has the other kind's settings, or repeats a name", async () => {
    const problems = problemsOf(
      {},
      await file(`
mcp_servers:
  - {name: both, command: x, url: "http://h/mcp"}
  - {name: neither}
  - {name: mixed, url: "http://h/mcp", env: {A: b}, cwd: /tmp}
  - {name: mixed, command: x, headers: {a: b}}
`),
    );
    expect(problems).toEqual([
      'mcp_servers.both: give either command (a stdio server) or url (a Streamable HTTP server)',
      'mcp_servers.neither: give either command (a stdio server) or url (a Streamable HTTP server)',
      'mcp_servers.mixed: env, cwd do not apply to a Streamable HTTP server (url); remove them',
      'mcp_servers: the name "mixed" is used twice',
      'mcp_servers.mixed: headers does not apply to a stdio server (command); remove it',
    ]);
  });
});
