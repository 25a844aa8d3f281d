import { fileURLToPath } from 'node:url';
import { loadRuleFile, type VendorRules } from './rule-file.js';

export { allowedBy, allowedByName, findVendor } from './match.js';
export { loadRuleFile, type VendorRules } from './rule-file.js';

/** gitleaks' own rule file, as of the commit in gitleaks/source.json. */
export const SHIPPED_RULE_FILE = fileURLToPath(new URL('./gitleaks/gitleaks.toml', import.meta.url));

let shipped: VendorRules | undefined;

export function shippedRules(): VendorRules {
  shipped ??= loadRuleFile(SHIPPED_RULE_FILE);
  return shipped;
}

export function shippedRulesProblem(): string | undefined {
  try {
    shippedRules();
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}
