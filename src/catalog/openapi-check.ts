import { configFrom } from '../config/load.js';
import { TOOL_FORMATS, type ToolFormat } from '../protocol/catalog.js';
import { maxToolsOf, renderTools, wrapTools } from '../protocol/providers/index.js';
import { createEnvCredentials } from '../tools/credentials.js';
import type { HttpDispatchers } from '../tools/http/index.js';
import { loadOpenApiSource, type OperationVerdict } from '../tools/openapi/index.js';
import type { Tool } from '../tools/tool.js';

/** What `toolgate openapi check` finds in one document, loaded as an `openapi_sources` entry is by the gateway. */
interface OpenApiCheck {
  /** The tools the gateway would serve, in the document's order. */
  tools: Tool[];
  /** Each selected operation with its verdict: its tool, or why it is left out, and what was changed to serve it. */
  verdicts: OperationVerdict[];
  /** What refuses the document as a whole: the gateway would serve none of its operations. */
  problems: string[];
  /** Bytes of GET /tools's `tools` value in each format (`openai+strict`: with strict=true). */
  sizes: Record<string, number>;
  /** The providers' limits the catalog is over, as GET /tools would warn. */
  limits: string[];
}

interface CheckOptions {
  dispatchers: HttpDispatchers;
  /** Relative file paths are read from here. */
  baseDir: string;
  baseUrl?: string | undefined;
  prefix?: string | undefined;
  allowPrivateNetwork?: boolean | undefined;
  /** As `spec_timeout_ms`; absent: its default. */
  specTimeoutMs?: number | undefined;
}

/** Sizes of every rendering and the limits it is over (a tool sent without strict mode among them). */
function renderings(tools: readonly Tool[]): { sizes: Record<string, number>; limits: string[] } {
  const sizes: Record<string, number> = {};
  const limits: string[] = [];
  const variants: [ToolFormat, boolean][] = TOOL_FORMATS.flatMap((format): [ToolFormat, boolean][] =>
    format === 'openai' || format === 'responses'
      ? [
          [format, false],
          [format, true],
        ]
      : [[format, false]],
  );
  for (const [format, strict] of variants) {
    const list = wrapTools(
      format,
      renderTools(format, tools, strict, (name, note) => limits.push(`${format}: ${name}: ${note}`)),
    );
    sizes[strict ? `${format}+strict` : format] = Buffer.byteLength(JSON.stringify(list));
    const max = maxToolsOf(format);
    if (!strict && max !== undefined && tools.length > max) {
      limits.push(`${format}: ${tools.length} tools, over the ${max} its API takes in one request (serve it with ?q= or toolsets)`);
    }
  }
  return { sizes, limits: [...new Set(limits)] };
}

/**
 * Load one document as the gateway would (`spec` a file or an http(s) URL: fetched, read and judged in a bounded worker, each operation's
 * schema compiled there as the registry compiles it), without a gateway.
 */
export async function checkOpenApi(spec: string, options: CheckOptions): Promise<OpenApiCheck> {
  const source = {
    name: 'check',
    spec,
    ...(options.baseUrl !== undefined && { base_url: options.baseUrl }),
    ...(options.prefix !== undefined && { prefix: options.prefix }),
    ...(options.allowPrivateNetwork !== undefined && { allow_private_network: options.allowPrivateNetwork }),
    ...(options.specTimeoutMs !== undefined && { spec_timeout_ms: options.specTimeoutMs }),
  };
  const config = configFrom({ openapi_sources: [source] });
  const outcome = await loadOpenApiSource(config.openapi_sources[0]!, {
    dispatchers: options.dispatchers,
    credentials: createEnvCredentials({}),
    baseDir: options.baseDir,
  });
  return { tools: outcome.tools, verdicts: outcome.verdicts, problems: outcome.problems, ...renderings(outcome.tools) };
}
