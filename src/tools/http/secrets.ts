const ENV_REF = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;
const HAS_ENV_REF = new RegExp(ENV_REF.source);
const REDACTED = '[REDACTED]';

/** Configured headers with their `${VAR}` references filled from the environment. */
export interface ResolvedHeaders {
  /** Lower-cased names. */
  headers: Record<string, string>;
  /** Headers that carry an environment value; never sent to another origin on a redirect. */
  secretHeaders: ReadonlySet<string>;
  /** The substituted values, scrubbed from everything a caller sees. */
  secrets: readonly string[];
}

/** `template` with its `${VAR}` filled from `env`; each unset, empty or multi-line variable adds a problem about `what`. */
function fill(template: string, what: string, env: NodeJS.ProcessEnv, problems: string[], secrets: Set<string>): string {
  return template.replace(ENV_REF, (_, variable: string) => {
    const value = env[variable];
    if (value === undefined || value === '')
      problems.push(`${what} uses \${${variable}}, which is not set in the environment; set ${variable} for the gateway, or take it out`);
    else if (/[\r\n\0]/.test(value))
      problems.push(`${what} uses \${${variable}}, whose value holds a line break or NUL; set ${variable} to a single line`);
    else secrets.add(value);
    return value ?? '';
  });
}

/**
 * Fill `${VAR}` in header values. Throws a plain Error (a start-up problem)
 * naming every variable that is unset or empty, or that would break the
 * header with a line break; values never appear in the message.
 */
export function resolveHeaders(headers: Record<string, string>, env: NodeJS.ProcessEnv): ResolvedHeaders {
  const resolved: Record<string, string> = {};
  const secretHeaders = new Set<string>();
  const secrets = new Set<string>();
  const problems: string[] = [];
  for (const [rawName, template] of Object.entries(headers)) {
    const name = rawName.toLowerCase();
    resolved[name] = fill(template, `header "${name}"`, env, problems, secrets);
    if (HAS_ENV_REF.test(template)) secretHeaders.add(name);
  }
  if (problems.length > 0) throw new Error(problems.join('; '));
  return { headers: resolved, secretHeaders, secrets: [...secrets] };
}

/** Fill `${VAR}` in the values of a child process's environment; throws naming every problem, as {@link resolveHeaders}. */
export function resolveEnvValues(values: Record<string, string>, env: NodeJS.ProcessEnv): Record<string, string> {
  const problems: string[] = [];
  const resolved = Object.fromEntries(
    Object.entries(values).map(([name, template]) => [name, fill(template, `env ${name}`, env, problems, new Set())]),
  );
  if (problems.length > 0) throw new Error(problems.join('; '));
  return resolved;
}

/** Replaces secret values with a marker in a byte stream, also across chunk boundaries. */
interface Scrubber {
  stream(source: AsyncIterable<Buffer>): AsyncIterable<Buffer>;
}

export function createScrubber(secrets: readonly string[]): Scrubber {
  // Longest first, so where two secrets match at one place the longer one is replaced whole.
  const needles = [...secrets].sort((a, b) => b.length - a.length).map((s) => Buffer.from(s));
  const marker = Buffer.from(REDACTED);
  // A match can straddle two chunks: hold back this many bytes until the next one.
  const holdBack = Math.max(0, ...needles.map((n) => n.length - 1));

  /** Replace every whole match in `buf`; return the output and the unmatched tail to carry over. */
  const scrub = (buf: Buffer, final: boolean): { out: Buffer[]; carry: Buffer } => {
    // Past `limit` a longer secret could still be cut off by the chunk end, so matches there wait.
    const limit = final ? buf.length : buf.length - holdBack;
    const out: Buffer[] = [];
    let pos = 0;
    for (;;) {
      let at = -1;
      let length = 0;
      for (const needle of needles) {
        const i = buf.indexOf(needle, pos);
        if (i !== -1 && (at === -1 || i < at)) {
          at = i;
          length = needle.length;
        }
      }
      if (at === -1 || at >= limit) break;
      out.push(buf.subarray(pos, at), marker);
      pos = at + length;
    }
    const cut = Math.max(pos, limit);
    out.push(buf.subarray(pos, cut));
    return { out, carry: buf.subarray(cut) };
  };

  return {
    stream: (source) =>
      needles.length === 0
        ? source
        : (async function* () {
            let carry: Buffer = Buffer.alloc(0);
            for await (const chunk of source) {
              const step = scrub(carry.length === 0 ? chunk : Buffer.concat([carry, chunk]), false);
              carry = step.carry;
              for (const piece of step.out) if (piece.length > 0) yield piece;
            }
            for (const piece of scrub(carry, true).out) if (piece.length > 0) yield piece;
          })(),
  };
}
