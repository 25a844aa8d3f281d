import type { McpToolOverride } from '../config/schema.js';
import type { Tool } from './tool.js';

/** The gateway settings a config entry may give a tool (HTTP tools, MCP servers and their tools). */
type ToolSettingsConfig = McpToolOverride;

const SETTING_KEYS = ['concurrency_safe', 'timeout_ms', 'requires_approval', 'breaker', 'rate_limit', 'max_arg_chars'] as const;

/** The settings `entries` give, later ones winning where they set a value. */
export function mergedSettings(...entries: ToolSettingsConfig[]): ToolSettingsConfig {
  const merged: Record<string, unknown> = {};
  for (const entry of entries) {
    for (const key of SETTING_KEYS) if (entry[key] !== undefined) merged[key] = entry[key];
  }
  return merged as ToolSettingsConfig;
}

/** A config entry's settings as a tool carries them; absent ones inherit the registry defaults. */
export function settingsOf(
  config: ToolSettingsConfig,
): Pick<Tool, 'timeoutMs' | 'requiresApproval' | 'breaker' | 'rateLimit' | 'maxArgChars'> {
  return {
    timeoutMs: config.timeout_ms,
    requiresApproval: config.requires_approval,
    breaker: config.breaker && { failureThreshold: config.breaker.failure_threshold, recoveryMs: config.breaker.recovery_ms },
    rateLimit: config.rate_limit && { perMinute: config.rate_limit.per_minute },
    maxArgChars: config.max_arg_chars,
  };
}
