import type { McpToolOverride } from '../config/schema.js';
import { rateLimitOf, type BreakerSettings } from '../shared/settings.js';
import type { Tool } from './tool.js';

/** The gateway settings a config entry may give a tool (HTTP tools, MCP servers and their tools). */
type ToolSettingsConfig = McpToolOverride;

const SETTING_KEYS = [
  'concurrency_safe',
  'side_effects',
  'timeout_ms',
  'requires_approval',
  'breaker',
  'rate_limit',
  'max_arg_chars',
] as const;

/** The settings `entries` give, later ones winning where they set a value. */
export function mergedSettings(...entries: ToolSettingsConfig[]): ToolSettingsConfig {
  const merged: Record<string, unknown> = {};
  for (const entry of entries) {
    for (const key of SETTING_KEYS) if (entry[key] !== undefined) merged[key] = entry[key];
  }
  return merged as ToolSettingsConfig;
}

/** A `breaker` entry of the config as a tool carries it; absent values inherit the registry defaults. */
export function breakerSettingsOf(breaker: NonNullable<ToolSettingsConfig['breaker']>): Partial<BreakerSettings> {
  return { failureThreshold: breaker.failure_threshold, recoveryMs: breaker.recovery_ms, shared: breaker.shared };
}

/** A config entry's settings as a tool carries them; absent ones inherit the registry defaults. */
export function settingsOf(
  config: ToolSettingsConfig,
): Pick<Tool, 'sideEffects' | 'timeoutMs' | 'requiresApproval' | 'breaker' | 'rateLimit' | 'maxArgChars'> {
  return {
    sideEffects: config.side_effects,
    timeoutMs: config.timeout_ms,
    requiresApproval: config.requires_approval,
    breaker: config.breaker && breakerSettingsOf(config.breaker),
    rateLimit: config.rate_limit && rateLimitOf(config.rate_limit),
    maxArgChars: config.max_arg_chars,
  };
}
