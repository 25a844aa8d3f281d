import { randomUUID } from 'node:crypto';
import type { RpcId } from '../protocol/mcp.js';
import { isRecord } from '../protocol/json.js';
import type { Caller } from '../pipeline/types.js';
import type { ClientAnswer, ClientRequest, ToolEvents } from '../tools/tool.js';

/** What an /mcp client declared it can be asked (initialize's `capabilities`), as its Mcp-Session-Id carries it. */
interface Askable {
  form: boolean;
  url: boolean;
  sampling: boolean;
}

/** Ends an Mcp-Session-Id: `.` and one letter for each capability declared (`f` form elicitation, `u` URL elicitation, `s` sampling). */
const DECLARED = /\.([fus]{1,3})$/;

/**
 * The Mcp-Session-Id issued on initialize: random, with what the client declared it can be asked. The gateway keeps no session, so any
 * replica reads the capabilities from the id itself; a client that alters them changes only what it is asked itself.
 */
export function sessionIdFor(capabilities: unknown): string {
  const declared = isRecord(capabilities) ? capabilities : {};
  const elicitation = isRecord(declared.elicitation) ? declared.elicitation : undefined;
  // client, "Elicitation": an empty elicitation capability means form mode.
  const form = elicitation !== undefined && (isRecord(elicitation.form) || !isRecord(elicitation.url));
  const flags = `${form ? 'f' : ''}${elicitation && isRecord(elicitation.url) ? 'u' : ''}${isRecord(declared.sampling) ? 's' : ''}`;
  return flags === '' ? randomUUID() : `${randomUUID()}.${flags}`;
}

function askableOf(mcpSessionId: string | undefined): Askable {
  const flags = (mcpSessionId && DECLARED.exec(mcpSessionId)?.[1]) || '';
  return { form: flags.includes('f'), url: flags.includes('u'), sampling: flags.includes('s') };
}

/** Why the client cannot be asked `request`, or undefined when it declared the capability. */
function undeclared(request: ClientRequest, askable: Askable): string | undefined {
  if (request.method === 'sampling/createMessage') return askable.sampling ? undefined : 'sampling';
  const mode = request.params.mode === 'url' ? 'url' : 'form';
  return askable[mode] ? undefined : `elicitation (${mode} mode)`;
}

const refused = (message: string): ClientAnswer => ({ error: { code: -32600, message } });

/**
 * The requests relayed to /mcp clients from this replica, waiting for their answers, by caller, MCP session and the gateway's request id:
 * a client answers with a POST of its own, which reaches the pending request only from the same key and session.
 */
export class ClientAsks {
  private readonly waiting = new Map<string, (answer: ClientAnswer) => void>();

  private static key(caller: Caller, mcpSessionId: string, id: RpcId): string {
    return `${caller.keyId}\n${mcpSessionId}\n${JSON.stringify(id)}`;
  }

  /**
   * The `ask` of one call's events: sends each request through `send` (the call's event stream) when the client declared the capability,
   * and waits for its answer until `signal`; refuses at once otherwise.
   */
  asker(caller: Caller, mcpSessionId: string | undefined, send: (message: unknown) => void): NonNullable<ToolEvents['ask']> {
    const askable = askableOf(mcpSessionId);
    return (request, signal) => {
      const missing = undeclared(request, askable);
      if (missing !== undefined || mcpSessionId === undefined)
        return Promise.resolve(refused(`The MCP client of this call did not declare the ${missing ?? 'needed'} capability to toolgate.`));
      if (signal.aborted) return Promise.resolve(refused(`The call ended before ${request.method} could be relayed.`));
      const id = `toolgate-${randomUUID()}`;
      const key = ClientAsks.key(caller, mcpSessionId, id);
      return new Promise<ClientAnswer>((resolve) => {
        const settle = (answer: ClientAnswer) => {
          this.waiting.delete(key);
          signal.removeEventListener('abort', onAbort);
          resolve(answer);
        };
        const onAbort = () => {
          send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: 'The call ended.' } });
          settle(refused(`The MCP client did not answer ${request.method} before the call ended.`));
        };
        this.waiting.set(key, settle);
        signal.addEventListener('abort', onAbort, { once: true });
        send({ jsonrpc: '2.0', id, method: request.method, params: request.params });
      });
    };
  }

  /** A client's response: settles the request it answers, if one of this caller and session waits here. */
  answered(caller: Caller, mcpSessionId: string | undefined, response: { id: RpcId; result?: unknown; error?: unknown }): void {
    if (mcpSessionId === undefined) return;
    const settle = this.waiting.get(ClientAsks.key(caller, mcpSessionId, response.id));
    if (!settle) return;
    const { result, error } = response;
    if (isRecord(error) && typeof error.code === 'number' && typeof error.message === 'string') {
      settle({ error: { code: error.code, message: error.message, ...(error.data !== undefined && { data: error.data }) } });
    } else if (isRecord(result)) settle({ result });
    else settle(refused('The MCP client answered with neither a result object nor an error.'));
  }
}
