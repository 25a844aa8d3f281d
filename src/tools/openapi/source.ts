import type { OpenApiSourceConfig } from '../../config/schema.js';
import { toolNameMatcher } from '../../policy/index.js';
import type { HttpDispatchers } from '../http/dispatcher.js';
import type { CredentialProvider } from '../credentials.js';
import { headerTemplates } from '../http/secrets.js';
import { compileUrlTemplate } from '../http/template.js';
import type { Tool } from '../tool.js';
import type { OperationHead } from './document.js';
import { fetchSpec } from './fetch-spec.js';
import { LoadBoundError, loadInWorker, type LoadSlots } from './load.js';
import { routeIdOf, toolNamesOf } from './naming.js';
import { createOperationTool } from './openapi-tool.js';

export interface OpenApiDeps {
  dispatchers: HttpDispatchers;
  /** Checks that every `${NAME}` in a source's headers can be answered; each call asks its context's credentials. */
  credentials: CredentialProvider;
  /** Relative `spec` paths are read from here: the config file's folder. */
  baseDir: string;
  /** Names other tools hold: an operation whose tool name is one of them is a problem. */
  taken?: ReadonlySet<string>;
  /** Aborted when the gateway stops: a load under way ends. */
  signal?: AbortSignal;
  /** Shared by the sources of one gateway: how many documents are read at once. Absent: no limit. */
  slots?: LoadSlots;
}

/** One selected operation of a document and its verdict: its tool, or why it is left out. */
export interface OperationVerdict {
  method: string;
  path: string;
  operationId?: string;
  /** "operationId (METHOD /path)", as messages name it. */
  label: string;
  tool?: Tool;
  /** Why it is left out: set exactly when `tool` is not. */
  reason?: string;
  /** What was changed to serve it (a pattern rewritten or dropped, an unknown format ignored). */
  notes: string[];
}

/** What one source gives: its tools, the operations left out (served without them), and what refuses it whole. */
interface SourceOutcome {
  tools: Tool[];
  /** "operationId (METHOD /path): why" for each selected operation that is not served. */
  skipped: string[];
  /** The document as a whole could not be used: nothing of it is served. */
  problems: string[];
  /** Every selected operation with its verdict, in the document's order; empty when the document could not be read. */
  verdicts: OperationVerdict[];
  /** The load's bound the document went over, when that is why it is refused. */
  bound?: LoadBoundError['bound'];
}

function label(operation: OperationHead): string {
  return `${operation.operationId ?? '(no operationId)'} (${operation.method.toUpperCase()} ${operation.path})`;
}

/** The `${NAME}`s of the source's headers that no credential answers, as one problem; checked before anything is loaded. */
export function headerProblems(source: OpenApiSourceConfig, credentials: CredentialProvider): string[] {
  const unanswered = headerTemplates(source.headers ?? {}, source.auth).problems(credentials);
  return unanswered.length > 0 ? [`openapi_sources.${source.name}: ${unanswered.join('; ')}`] : [];
}

/**
 * A tool of each selected operation of one `openapi_sources` entry, and each operation's verdict. The load (fetch, parse, schemas) is
 * bounded by `spec_timeout_ms` as a whole and by `max_spec_bytes` and `spec_memory_mb`, and runs in a worker thread (load.ts). A document
 * that cannot be read or goes over a bound, a bad base URL, a `${VAR}` not answered or an `include` that selects nothing is a problem, and
 * the source gives no tool; an operation that cannot be a tool is listed in `skipped` and its verdict says why.
 */
export async function loadOpenApiSource(source: OpenApiSourceConfig, deps: OpenApiDeps): Promise<SourceOutcome> {
  const fail = (why: string, bound?: LoadBoundError['bound']): SourceOutcome => ({
    tools: [],
    skipped: [],
    problems: [`openapi_sources.${source.name}: ${why}`],
    verdicts: [],
    ...(bound && { bound }),
  });
  const headers = headerTemplates(source.headers ?? {}, source.auth);
  const unanswered = headerProblems(source, deps.credentials);
  if (unanswered.length > 0) return { tools: [], skipped: [], problems: unanswered, verdicts: [] };
  let document;
  let spec;
  const started = Date.now();
  try {
    spec = await fetchSpec(source.spec, {
      dispatchers: deps.dispatchers,
      allowPrivateNetwork: source.allow_private_network ?? false,
      timeoutMs: source.spec_timeout_ms,
      maxBytes: source.max_spec_bytes,
      baseDir: deps.baseDir,
    });
    const left = Math.max(1, source.spec_timeout_ms - (Date.now() - started));
    const { bytes, ...origin } = spec;
    const load = () => loadInWorker({ bytes, origin }, { timeoutMs: left, memoryMb: source.spec_memory_mb, ...(deps.signal && { signal: deps.signal }) });
    document = await (deps.slots ? deps.slots.run(load) : load());
  } catch (err) {
    return fail(`spec ${source.spec} ${(err as Error).message}`, err instanceof LoadBoundError ? err.bound : undefined);
  }
  const baseUrl = source.base_url ?? document.serverUrl;
  if (baseUrl === undefined) return fail('the document names no absolute server URL (servers[0].url); set base_url');
  // The headers hold the deployment's secrets: a document fetched from elsewhere must not pick the host they go to.
  if (source.base_url === undefined && spec.isUrl && (Object.keys(source.headers ?? {}).length > 0 || source.auth) && !sameOrigin(baseUrl, spec.location)) {
    return fail(`the document names ${originOf(baseUrl)} as its server, not ${originOf(spec.location)} where it was fetched; with headers set, give base_url so the document cannot choose where they are sent`);
  }
  try {
    if (/[?#{}]/.test(baseUrl)) throw new Error('must not hold a query, a fragment or an unfilled {variable}');
    compileUrlTemplate(baseUrl);
  } catch (err) {
    return fail(`base URL ${baseUrl}: ${(err as Error).message.replace(/^url:? ?/, '')}`);
  }
  const globs = (source.include ?? []).map(toolNameMatcher);
  const selected = document.operations.filter(({ operation: op }) => globs.length === 0 || globs.some((g) => g(op.operationId ?? routeIdOf(op))));
  if (globs.length > 0 && selected.length === 0) return fail(`include ${JSON.stringify(source.include)} selects no operation of the document`);

  const dispatcher = source.allow_private_network ? deps.dispatchers.open : deps.dispatchers.guarded;
  const names = new Map<string, string>();
  const problems: string[] = [];
  // A name clash is a problem of the source, not one operation's: it is not listed among those left out.
  const clashes = new Set<OperationVerdict>();
  const toolNames = toolNamesOf(source.prefix, selected.map(({ operation }) => operation));
  const verdicts = selected.map(({ operation, plan, reason, notes }, i): OperationVerdict => {
    const where = label(operation);
    const verdict: OperationVerdict = { method: operation.method, path: operation.path, label: where, notes };
    if (operation.operationId !== undefined) verdict.operationId = operation.operationId;
    const leftOut = (why: string) => Object.assign(verdict, { reason: why });
    if (reason !== undefined || plan === undefined) return leftOut(reason ?? 'its arguments could not be planned');
    const name = toolNames[i]!;
    if (deps.taken?.has(name)) {
      problems.push(`openapi_sources.${source.name}: ${where} becomes the tool "${name}", a name another tool has; set a prefix or leave it out with include`);
      clashes.add(verdict);
      return leftOut(`its tool name "${name}" is another tool's`);
    }
    const other = names.get(name);
    if (other !== undefined) {
      problems.push(`openapi_sources.${source.name}: ${where} and ${other} both become the tool "${name}"; leave one out with include`);
      clashes.add(verdict);
      return leftOut(`its tool name "${name}" is also ${other}'s`);
    }
    names.set(name, where);
    try {
      verdict.tool = createOperationTool(name, operation, plan, { source, baseUrl: operationBase(operation, baseUrl, document.serverUrl), origin: originOf(baseUrl), headers, dispatcher });
      return verdict;
    } catch (err) {
      return leftOut((err as Error).message);
    }
  });
  const tools = verdicts.flatMap((v) => (v.tool ? [v.tool] : []));
  const skipped = verdicts.flatMap((v) => (v.reason !== undefined && !clashes.has(v) ? [`${v.label}: ${v.reason}`] : []));
  if (problems.length === 0 && tools.length === 0) problems.push(`openapi_sources.${source.name}: no operation of the document can be a tool (${skipped.length} left out, listed in the log)`);
  return problems.length > 0 ? { tools: [], skipped, problems, verdicts } : { tools, skipped, problems, verdicts };
}

/**
 * Where an operation's path is joined: its own server when the document names one (relative to the base URL when relative), which must be
 * at the source's origin (a document never chooses where the calls go); else the source's base URL. An own server that is the document's
 * server (`servers[0]`), or a path under it, is that server's: it moves with `base_url` (Twilio repeats its server on every path item).
 * Throws a plain Error saying why it cannot be.
 */
function operationBase(operation: OperationHead, baseUrl: string, documentServer: string | undefined): string {
  const root = documentServer?.replace(/\/+$/, '');
  const under = (url: string) => root !== undefined && (url.replace(/\/+$/, '') === root || url.startsWith(`${root}/`));
  const own = operation.server !== undefined && under(operation.server) ? `${baseUrl.replace(/\/+$/, '')}${operation.server.slice(root!.length)}` : operation.server;
  if (own === undefined) return baseUrl;
  if (/[?#{}]/.test(own) || !URL.canParse(own, baseUrl)) throw new Error(`its servers name ${own}, which is not a base URL (a query, a fragment or an unfilled {variable})`);
  const url = new URL(own, baseUrl);
  if (url.origin !== originOf(baseUrl)) throw new Error(`its servers name ${url.origin}, not ${originOf(baseUrl)} where the source's calls go`);
  return url.href;
}

const originOf = (url: string) => (URL.canParse(url) ? new URL(url).origin : url);
const sameOrigin = (a: string, b: string) => originOf(a) === originOf(b);
