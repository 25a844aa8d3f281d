import type { ValidateFunction } from 'ajv';
import type { Config } from '../config/schema.js';
import { rateLimitOf, type BreakerSettings, type RateLimitSettings } from '../shared/settings.js';
import { createSchemaAjv, unrunnablePatterns, upstreamRegExp } from '../tools/schema-ajv.js';
import type { Tool } from '../tools/tool.js';

/** A tool with its settings resolved against the defaults and its validator compiled once. */
export interface RegisteredTool {
  tool: Tool;
  name: string;
  concurrencySafe: boolean;
  requiresApproval: boolean;
  timeoutMs: number;
  breaker: BreakerSettings;
  rateLimit?: RateLimitSettings;
  argLimits: ArgLimits;
  validate: ValidateFunction;
}

/** How long a string argument may be (ARG_TOO_LARGE past it), resolved per tool. */
export interface ArgLimits {
  /** The tool's content arguments (Tool.contentArgs) and their limit. */
  content: ReadonlySet<string>;
  contentChars: number;
  /** Every other string argument, at any depth; `otherIsOwn`: that is the tool's own `max_arg_chars`, not `limits.arg_chars`. */
  otherChars: number;
  otherIsOwn: boolean;
}

export interface RegistryDefaults {
  timeoutMs: number;
  breaker: BreakerSettings;
  rateLimit?: RateLimitSettings;
  /** `limits.arg_chars`, and the default for content arguments: `limits.body_bytes`. */
  argChars: number;
  contentChars: number;
}

/**
 * What a source's new tools left out: names a provider refuses or another tool holds, and schemas ajv rejects; and `unchecked`, the
 * patterns of served tools that RE2 cannot run, which the gateway does not check (the upstream does).
 */
export interface SourceReport {
  refused: string[];
  invalid: string[];
  unchecked: string[];
}

/** The tools served at one moment; replaced whole, never changed in place. */
interface Catalog {
  byName: Map<string, RegisteredTool>;
  sorted: RegisteredTool[];
}

/** What every provider accepts as a function name (OpenAI's rule is the narrowest). */
const PROVIDER_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

function catalogOf(entries: RegisteredTool[]): Catalog {
  const sorted = [...entries].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { byName: new Map(sorted.map((e) => [e.name, e])), sorted };
}

/**
 * The tools a gateway serves, by exact name: its own fixed at start-up, each upstream MCP server a source whose tools change when it says
 * so. Readers take the catalog of the moment; {@link setSource} is the one place it is replaced.
 */
export class ToolRegistry {
  private catalog: Catalog;
  private readonly sources = new Map<string, RegisteredTool[]>();
  private readonly changeListeners: Array<() => void> = [];

  constructor(
    private readonly fixed: RegisteredTool[],
    private readonly builder: EntryBuilder,
  ) {
    this.catalog = catalogOf(fixed);
  }

  get(name: string): RegisteredTool | undefined {
    return this.catalog.byName.get(name);
  }

  /** Every tool, sorted by name. */
  list(): readonly RegisteredTool[] {
    return this.catalog.sorted;
  }

  /** Told after each {@link setSource}, once the new catalog is in place. */
  onChange(listener: () => void): void {
    this.changeListeners.push(listener);
  }

  /**
   * Replace the tools of `source`: one whose name is refused or taken, or whose schema ajv rejects, is left out and reported. `compiled`:
   * every schema was compiled by ajv where the tools were read (an OpenAPI load), so each validator is compiled on its tool's first call,
   * and hundreds of new tools cost the event loop nothing now.
   */
  setSource(source: string, tools: readonly Tool[], compiled = false): SourceReport {
    const report: SourceReport = { refused: [], invalid: [], unchecked: [] };
    const previous = new Map((this.sources.get(source) ?? []).map((e) => [e.name, e]));
    const taken = new Set(
      [...this.fixed, ...[...this.sources].filter(([name]) => name !== source).flatMap(([, entries]) => entries)].map((e) => e.name),
    );
    const entries: RegisteredTool[] = [];
    for (const tool of tools) {
      if (!PROVIDER_NAME.test(tool.name)) {
        report.refused.push(
          `${JSON.stringify(tool.name.slice(0, 100))}: not a name every provider accepts (1 to 64 of A-Z a-z 0-9 _ -); set a shorter prefix or leave the tool out with include`,
        );
        continue;
      }
      if (taken.has(tool.name)) {
        report.refused.push(
          `${tool.name}: another tool has this name; set a prefix for one of the servers or leave the tool out with include`,
        );
        continue;
      }
      taken.add(tool.name);
      const before = previous.get(tool.name);
      if (before && JSON.stringify(before.tool.parameters) === JSON.stringify(tool.parameters)) {
        entries.push({ ...this.builder.settle(tool), validate: before.validate });
        previous.delete(tool.name);
        continue;
      }
      try {
        entries.push({
          ...this.builder.settle(tool),
          validate: compiled ? this.builder.lazyValidator(tool) : this.builder.validator(tool, true),
        });
        const unchecked = unrunnablePatterns(tool.parameters);
        if (unchecked.length > 0) {
          report.unchecked.push(
            `${tool.name}: ${unchecked.map((p) => JSON.stringify(p)).join(', ')} not checked by the gateway (RE2 has no look-around or back-reference); the upstream checks them`,
          );
        }
      } catch (err) {
        report.invalid.push(`${tool.name}: inputSchema is not a valid JSON Schema, so the tool is left out: ${(err as Error).message}`);
      }
    }
    for (const gone of previous.values()) this.builder.release(gone.validate);
    this.sources.set(source, entries);
    this.catalog = catalogOf([...this.fixed, ...[...this.sources.values()].flat()]);
    for (const listener of this.changeListeners) listener();
    return report;
  }
}

/** How the registry turns a tool into an entry: its settings resolved, its validator compiled, and that validator let go. */
interface EntryBuilder {
  settle(tool: Tool): Omit<RegisteredTool, 'validate'>;
  /** Throws when ajv rejects the schema; `upstream`: a pattern RE2 cannot run is left unchecked, not refused. */
  validator(tool: Tool, upstream?: boolean): ValidateFunction;
  /** The same validator, compiled on its first call. */
  lazyValidator(tool: Tool): ValidateFunction;
  release(validate: ValidateFunction): void;
}

function entryBuilder(defaults: RegistryDefaults): EntryBuilder {
  // No line outside the JSON log: an unknown format is ignored here, and an OpenAPI document's are logged when it is loaded (plan.ts).
  const ajv = createSchemaAjv(false);
  // A source's tools: its upstream checks its own schema again, so a pattern RE2 cannot run does not cost the tool.
  const upstream = createSchemaAjv(false, upstreamRegExp);
  return {
    settle: (tool) => ({
      tool,
      name: tool.name,
      concurrencySafe: tool.concurrencySafe,
      requiresApproval: tool.requiresApproval ?? false,
      timeoutMs: tool.timeoutMs ?? defaults.timeoutMs,
      breaker: { ...defaults.breaker, ...definedOnly(tool.breaker ?? {}) },
      rateLimit: tool.rateLimit ?? defaults.rateLimit,
      argLimits: argLimitsOf(tool, defaults),
    }),
    validator(tool, fromUpstream = false) {
      const { $schema: _ignored, ...schema } = tool.parameters;
      return (fromUpstream ? upstream : ajv).compile(schema);
    },
    lazyValidator(tool) {
      const { $schema: _ignored, ...schema } = tool.parameters;
      let compiled: ValidateFunction | undefined;
      const validate = ((data: unknown) => (compiled ??= upstream.compile(schema))(data)) as ValidateFunction;
      Object.defineProperty(validate, 'errors', { get: () => compiled?.errors ?? null });
      // What `release` removes from ajv: this schema, compiled or not.
      validate.schema = schema;
      return validate;
    },
    // ajv keeps every schema it compiled: an upstream's replaced tools must not pile up there.
    release: (validate) => upstream.removeSchema(validate.schema as object),
  };
}

/** Resolve each tool's settings and compile its validator; throws listing every schema that does not compile and every repeated name. */
export function createRegistry(tools: Tool[], defaults: RegistryDefaults): ToolRegistry {
  const builder = entryBuilder(defaults);
  const problems: string[] = [];
  const entries: RegisteredTool[] = [];
  const seen = new Set<string>();
  for (const tool of tools) {
    if (seen.has(tool.name)) problems.push(`tool ${tool.name}: registered twice`);
    seen.add(tool.name);
    try {
      entries.push({ ...builder.settle(tool), validate: builder.validator(tool) });
    } catch (err) {
      problems.push(`tool ${tool.name}: parameters are not a valid JSON Schema: ${(err as Error).message}`);
    }
  }
  if (problems.length > 0) throw new Error(problems.join('\n'));
  return new ToolRegistry(entries, builder);
}

function argLimitsOf(tool: Tool, defaults: RegistryDefaults): ArgLimits {
  const content = new Set(tool.contentArgs ?? []);
  if (content.size > 0) {
    return { content, contentChars: tool.maxArgChars ?? defaults.contentChars, otherChars: defaults.argChars, otherIsOwn: false };
  }
  return { content, contentChars: 0, otherChars: tool.maxArgChars ?? defaults.argChars, otherIsOwn: tool.maxArgChars !== undefined };
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

export function registryDefaults(config: Pick<Config, 'limits' | 'defaults'>): RegistryDefaults {
  const defaults: RegistryDefaults = {
    timeoutMs: config.limits.tool_timeout_ms,
    argChars: config.limits.arg_chars,
    contentChars: config.limits.body_bytes,
    breaker: { failureThreshold: config.defaults.breaker.failure_threshold, recoveryMs: config.defaults.breaker.recovery_ms },
  };
  if (config.defaults.rate_limit) defaults.rateLimit = rateLimitOf(config.defaults.rate_limit);
  return defaults;
}
