import type { Config } from '../config/schema.js';
import { createGuardrails } from './guardrails.js';
import { createSecretScanner, type SecretScanner } from './scanner.js';

/**
 * Every log line's JSON text is scanned on its way out, behind every place that scans before it cuts; a line the
 * replacement would leave unreadable is replaced by one saying so. When `secrets_allow` does not compile the scanner
 * has no allow patterns: it redacts more, not less.
 */
export function logLineScrubber(guardrails: Config['guardrails']): (line: string) => string {
  let scanner: SecretScanner | undefined;
  return (line) => {
    scanner ??= recordsScanner(guardrails);
    const { text, counts } = scanner.redact(line);
    if (!counts) return line;
    try {
      JSON.parse(text);
      return text;
    } catch {
      const time = Date.now();
      return `${JSON.stringify({ level: 40, time, msg: 'a log line was withheld: it held a credential that could not be replaced in place', kinds: Object.keys(counts) })}\n`;
    }
  };
}

function recordsScanner(guardrails: Config['guardrails']): SecretScanner {
  try {
    return createGuardrails(guardrails).records;
  } catch {
    return createSecretScanner();
  }
}
