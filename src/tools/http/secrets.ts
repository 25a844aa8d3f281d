import type { UpstreamAuth } from '../../config/credentials-schema.js';
import type { CredentialProvider, Credentials } from '../credentials.js';

const REF = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;
const REDACTED = '[REDACTED]';

/** Configured values with their `${NAME}` references filled from the call's credentials. */
interface ResolvedHeaders {
  /** Lower-cased names for headers. Literal or filled, none is ever sent to another origin on a redirect (exchange.ts). */
  headers: Record<string, string>;
  /** The substituted values, scrubbed from everything a caller sees. */
  secrets: readonly string[];
}

/** Configured values (headers, a child's environment) whose `${NAME}` are credentials: checked at start-up, filled per call. */
export interface SecretTemplates {
  /** Start-up problems: one for each `${NAME}` the provider cannot answer, values never shown. */
  problems(provider: CredentialProvider): string[];
  /** The values with every `${NAME}` filled from `credentials`; the same object while the answers stay the same. */
  fill(credentials: Credentials): Promise<ResolvedHeaders>;
}

function compile(
  values: Record<string, string>,
  nameOf: (name: string) => string,
  what: (name: string) => string,
  auth?: UpstreamAuth,
): SecretTemplates {
  const entries = Object.entries(values).map(([raw, template]) => {
    const name = nameOf(raw);
    return { name, template, what: what(name), refs: [...template.matchAll(REF)].map((m) => m[1]!) };
  });
  const names = [...new Set(entries.flatMap((e) => e.refs))];
  let last: { answers: string[]; resolved: ResolvedHeaders } | undefined;
  if (names.length === 0 && !auth)
    last = { answers: [], resolved: { headers: Object.fromEntries(entries.map((e) => [e.name, e.template])), secrets: [] } };
  const clash =
    auth && entries.some((e) => e.name === 'authorization') ? ['header "authorization" and auth both set Authorization; remove one'] : [];
  return {
    problems: (provider) => [...clash, ...entries.flatMap((e) => e.refs.flatMap((ref) => provider.problem(ref, e.what) ?? []))],
    async fill(credentials) {
      if (names.length === 0 && !auth) return last!.resolved;
      const answers = await Promise.all(names.map((name) => credentials.get(name)));
      // The caller's own token at the provider: sent where the provider says, and scrubbed from what comes back like any secret.
      const token = auth ? await credentials.token(auth) : undefined;
      if (token !== undefined) answers.push(token.header, token.value);
      if (last && answers.length === last.answers.length && answers.every((answer, i) => answer === last!.answers[i])) return last.resolved;
      const answer = new Map(names.map((name, i) => [name, answers[i]!]));
      const secrets = new Set<string>();
      const headers: Record<string, string> = {};
      for (const e of entries) {
        headers[e.name] = e.template.replace(REF, (_, ref: string) => {
          const value = answer.get(ref)!;
          if (value !== '') secrets.add(value);
          return value;
        });
      }
      if (token !== undefined) {
        headers[token.header] = token.value;
        secrets.add(token.token);
      }
      last = { answers, resolved: { headers, secrets: [...secrets] } };
      return last.resolved;
    },
  };
}

/** A tool's or upstream's configured headers, names lower-cased; with `auth`, the calling user's token (Authorization: Bearer by default). */
export const headerTemplates = (headers: Record<string, string>, auth?: UpstreamAuth): SecretTemplates =>
  compile(
    headers,
    (name) => name.toLowerCase(),
    (name) => `header "${name}"`,
    auth,
  );

/** The configured environment of a stdio MCP server's process. */
export const envTemplates = (values: Record<string, string>): SecretTemplates =>
  compile(
    values,
    (name) => name,
    (name) => `env ${name}`,
  );

/** Replaces secret values with a marker in a byte stream, also across chunk boundaries. */
interface Scrubber {
  stream(source: AsyncIterable<Buffer>): AsyncIterable<Buffer>;
}

/** A scrubber of `secrets`. */
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
