import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { Config } from '../config/schema.js';
import type { BreakerSettings, RateLimitSettings } from '../shared/settings.js';
import type { Tool } from '../tools/tool.js';

// ajv-formats ships CommonJS; under NodeNext its default import is the module object.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

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
  /** Every other string argument, at any depth. */
  otherChars: number;
  /** `otherChars` is the tool's own `max_arg_chars`, not `limits.arg_chars`. */
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

/** The tools a gateway serves. Immutable once built; lookups are by exact name. */
export class ToolRegistry {
  private readonly byName: Map<string, RegisteredTool>;
  private readonly sorted: RegisteredTool[];

  constructor(entries: RegisteredTool[]) {
    this.sorted = [...entries].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    this.byName = new Map(this.sorted.map((e) => [e.name, e]));
  }

  get(name: string): RegisteredTool | undefined {
    return this.byName.get(name);
  }

  /** Every tool, sorted by name. */
  list(): readonly RegisteredTool[] {
    return this.sorted;
  }
}

/**
 * Resolve each tool's settings and compile its argument validator. Throws
 * listing every tool whose schema does not compile or whose name repeats.
 */
export function createRegistry(tools: Tool[], defaults: RegistryDefaults): ToolRegistry {
  const ajv = new Ajv({ allErrors: true, strict: false, validateSchema: true });
  addFormats(ajv);
  const problems: string[] = [];
  const entries: RegisteredTool[] = [];
  const seen = new Set<string>();
  for (const tool of tools) {
    if (seen.has(tool.name)) problems.push(`tool ${tool.name}: registered twice`);
    seen.add(tool.name);
    let validate: ValidateFunction;
    try {
      const { $schema: _ignored, ...schema } = tool.parameters;
      validate = ajv.compile(schema);
    } catch (err) {
      problems.push(`tool ${tool.name}: parameters are not a valid JSON Schema: ${(err as Error).message}`);
      continue;
    }
    entries.push({
      tool,
      name: tool.name,
      concurrencySafe: tool.concurrencySafe,
      requiresApproval: tool.requiresApproval ?? false,
      timeoutMs: tool.timeoutMs ?? defaults.timeoutMs,
      breaker: { ...defaults.breaker, ...definedOnly(tool.breaker ?? {}) },
      rateLimit: tool.rateLimit ?? defaults.rateLimit,
      argLimits: argLimitsOf(tool, defaults),
      validate,
    });
  }
  if (problems.length > 0) throw new Error(problems.join('\n'));
  return new ToolRegistry(entries);
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

/** The registry defaults the config file sets. */
export function registryDefaults(config: Pick<Config, 'limits' | 'defaults'>): RegistryDefaults {
  const defaults: RegistryDefaults = {
    timeoutMs: config.limits.tool_timeout_ms,
    argChars: config.limits.arg_chars,
    contentChars: config.limits.body_bytes,
    breaker: { failureThreshold: config.defaults.breaker.failure_threshold, recoveryMs: config.defaults.breaker.recovery_ms },
  };
  if (config.defaults.rate_limit) defaults.rateLimit = { perMinute: config.defaults.rate_limit.per_minute };
  return defaults;
}
