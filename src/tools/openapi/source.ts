import type { OpenApiSourceConfig } from '../../config/schema.js';
import { toolNameMatcher } from '../../policy/index.js';
import type { JsonObject } from '../../protocol/json.js';
import type { HttpDispatchers } from '../http/dispatcher.js';
import type { CredentialProvider } from '../credentials.js';
import { headerTemplates } from '../http/secrets.js';
import { compileUrlTemplate } from '../http/template.js';
import type { Tool } from '../tool.js';
import { planArguments } from './arguments.js';
import { readDocument, type Operation } from './document.js';
import { fetchSpec } from './fetch-spec.js';
import { createOperationTool, toolNameOf } from './openapi-tool.js';

export interface OpenApiDeps {
  dispatchers: HttpDispatchers;
  /** Checks that every `${NAME}` in a source's headers can be answered; each call asks its context's credentials. */
  credentials: CredentialProvider;
  /** Relative `spec` paths are read from here: the config file's folder. */
  baseDir: string;
  /** Names other tools hold: an operation whose tool name is one of them is a problem. */
  taken?: ReadonlySet<string>;
}

/** What one source gives: its tools, the operations left out (served without them), and what stops start-up. */
interface SourceOutcome {
  tools: Tool[];
  /** "operationId (METHOD /path): why" for each selected operation that is not served. */
  skipped: string[];
  /** The document as a whole could not be read: start-up stops, nothing of it is served. */
  problems: string[];
}

function label(operationId: string | undefined, method: string, path: string): string {
  return `${operationId ?? '(no operationId)'} (${method.toUpperCase()} ${path})`;
}

/**
 * A tool of each selected operation of one `openapi_sources` entry. A document that cannot be read, a bad base URL, a `${VAR}` not answered
 * or an `include` that selects nothing is a problem, and the source gives no tool; an operation that cannot be a tool is listed in `skipped`.
 */
export async function loadOpenApiSource(source: OpenApiSourceConfig, deps: OpenApiDeps): Promise<SourceOutcome> {
  const fail = (why: string): SourceOutcome => ({ tools: [], skipped: [], problems: [`openapi_sources.${source.name}: ${why}`] });
  const headers = headerTemplates(source.headers ?? {});
  const unanswered = headers.problems(deps.credentials);
  if (unanswered.length > 0) return fail(unanswered.join('; '));
  let document;
  let spec;
  try {
    spec = await fetchSpec(source.spec, {
      dispatchers: deps.dispatchers,
      allowPrivateNetwork: source.allow_private_network ?? false,
      timeoutMs: source.spec_timeout_ms,
      maxBytes: source.max_spec_bytes,
      baseDir: deps.baseDir,
    });
    document = await readDocument(spec, source.spec_timeout_ms);
  } catch (err) {
    return fail(`spec ${source.spec} ${(err as Error).message}`);
  }
  const baseUrl = source.base_url ?? document.serverUrl;
  if (baseUrl === undefined) return fail('the document names no absolute server URL (servers[0].url); set base_url');
  // The headers hold the deployment's secrets: a document fetched from elsewhere must not pick the host they go to.
  if (source.base_url === undefined && spec.isUrl && Object.keys(source.headers ?? {}).length > 0 && !sameOrigin(baseUrl, spec.location)) {
    return fail(`the document names ${originOf(baseUrl)} as its server, not ${originOf(spec.location)} where it was fetched; with headers set, give base_url so the document cannot choose where they are sent`);
  }
  try {
    if (/[?#{}]/.test(baseUrl)) throw new Error('must not hold a query, a fragment or an unfilled {variable}');
    compileUrlTemplate(baseUrl);
  } catch (err) {
    return fail(`base URL ${baseUrl}: ${(err as Error).message.replace(/^url:? ?/, '')}`);
  }
  const globs = (source.include ?? []).map(toolNameMatcher);
  const selected = document.operations.filter((op) => globs.length === 0 || (op.operationId !== undefined && globs.some((g) => g(op.operationId!))));
  if (globs.length > 0 && selected.length === 0) return fail(`include ${JSON.stringify(source.include)} selects no operation of the document`);

  const dispatcher = source.allow_private_network ? deps.dispatchers.open : deps.dispatchers.guarded;
  const seen = new WeakMap<object, JsonObject>();
  const tools: Tool[] = [];
  const skipped: string[] = [];
  const names = new Map<string, string>();
  const problems: string[] = [];
  for (const operation of selected) {
    const where = label(operation.operationId, operation.method, operation.path);
    if (operation.operationId === undefined) {
      skipped.push(`${where}: no operationId to name the tool after`);
      continue;
    }
    const name = toolNameOf(source.prefix, operation.operationId);
    if (deps.taken?.has(name)) {
      problems.push(`openapi_sources.${source.name}: ${where} becomes the tool "${name}", a name another tool has; set a prefix or leave it out with include`);
      continue;
    }
    const other = names.get(name);
    if (other !== undefined) {
      problems.push(`openapi_sources.${source.name}: ${where} and ${other} both become the tool "${name}"; leave one out with include`);
      continue;
    }
    names.set(name, where);
    try {
      const plan = planArguments(operation, seen);
      tools.push(createOperationTool(name, operation, plan, { source, baseUrl: operationBase(operation, baseUrl), origin: originOf(baseUrl), headers, dispatcher }));
    } catch (err) {
      skipped.push(`${where}: ${(err as Error).message}`);
    }
  }
  if (problems.length === 0 && tools.length === 0) problems.push(`openapi_sources.${source.name}: no operation of the document can be a tool (${skipped.length} left out, listed in the log)`);
  return problems.length > 0 ? { tools: [], skipped, problems } : { tools, skipped, problems };
}

/**
 * Where an operation's path is joined: its own server when the document names one (relative to the base URL when relative), which must be
 * at the source's origin (a document never chooses where the calls go); else the source's base URL. Throws a plain Error saying why it
 * cannot be.
 */
function operationBase(operation: Operation, baseUrl: string): string {
  const own = operation.server;
  if (own === undefined) return baseUrl;
  if (/[?#{}]/.test(own) || !URL.canParse(own, baseUrl)) throw new Error(`its servers name ${own}, which is not a base URL (a query, a fragment or an unfilled {variable})`);
  const url = new URL(own, baseUrl);
  if (url.origin !== originOf(baseUrl)) throw new Error(`its servers name ${url.origin}, not ${originOf(baseUrl)} where the source's calls go`);
  return url.href;
}

const originOf = (url: string) => (URL.canParse(url) ? new URL(url).origin : url);
const sameOrigin = (a: string, b: string) => originOf(a) === originOf(b);
