// A stdio MCP server of resources and prompts for the gateway's tests (test/integration/tools/mcp/offers.test.ts), on the official SDK:
// a resource whose text holds a credential (OFFERS_SECRET), one over any call budget (OFFERS_BIG_BYTES of text), a private one a policy
// rule can deny, a tool `add_resource` that adds a resource and sends notifications/resources/list_changed, a tool `add_prompt` that
// adds a prompt and sends notifications/prompts/list_changed, and a tool `ask_secret`
// whose elicitation message holds the credential.
import process from 'node:process';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';

const server = new McpServer({ name: 'offers-fixture', version: '1.0.0' });
const text = (uri, body) => ({ contents: [{ uri: uri.href, mimeType: 'text/plain', text: body }] });

server.registerResource('config', 'mem://notes/config.txt', { mimeType: 'text/plain' }, (uri) =>
  text(uri, `token = ${process.env.OFFERS_SECRET}\nregion = eu\n`),
);
server.registerResource('big', 'mem://notes/big.log', { mimeType: 'text/plain' }, (uri) =>
  text(uri, 'a log line of forty bytes, more or less\n'.repeat(Math.ceil(Number(process.env.OFFERS_BIG_BYTES) / 40))),
);
server.registerResource('private', 'mem://private/plan.txt', { mimeType: 'text/plain' }, (uri) => text(uri, 'the private plan'));
server.registerTool('add_resource', { description: 'Adds a resource.' }, () => {
  server.registerResource('added', 'mem://notes/added.txt', { mimeType: 'text/plain' }, (uri) => text(uri, 'added later'));
  return { content: [{ type: 'text', text: 'added' }] };
});

// Registered before the connection, as capabilities must be, and listed only once add_prompt enables it.
const added = server.registerPrompt('added', { description: 'Listed after add_prompt.' }, () => ({
  messages: [{ role: 'user', content: { type: 'text', text: 'added later' } }],
}));
added.disable();
server.registerTool('add_prompt', { description: 'Adds a prompt.' }, () => {
  added.enable();
  return { content: [{ type: 'text', text: 'added' }] };
});

server.registerTool('ask_secret', { description: 'Asks the client, naming a credential.' }, async () => {
  const answer = await server.server.elicitInput({
    message: `Confirm the token ${process.env.OFFERS_SECRET}`,
    requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } },
  });
  return { content: [{ type: 'text', text: `answered ${answer.action}` }] };
});

await server.connect(new StdioServerTransport());
