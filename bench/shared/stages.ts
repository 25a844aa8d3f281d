/**
 * Where a request's CPU goes, by stage: each profile sample is charged to the
 * deepest frame on its stack that a rule below names, so the fs binding a
 * path resolution calls counts as resolution, the one the tool calls as file
 * work. Rules name toolgate's own files (src/ and their build in dist/), the
 * floor's, and the packages each stage runs in. Stacks after an `await` start
 * at the function that awaited, which is what the rules name.
 */
export const STAGES = [
  'HTTP parse and routing',
  'auth and request hooks',
  'parse, lookup, validate',
  'permission and path resolution',
  'state admit and settle',
  'tool: file work',
  'tool: deadline timer and AbortSignal',
  'output guardrails',
  'log lines',
  'metrics',
  'rendering results and messages',
  'response write',
  'pipeline and handler glue',
  'garbage collection',
  'native, not attributed',
  'other',
  'bench harness',
] as const;
export type Stage = (typeof STAGES)[number];

type Rule = readonly [Stage, RegExp];

/** Matched against `<function name> <url>`; the first rule that matches a frame names its stage. */
const RULES: readonly Rule[] = [
  // The target's side of the bench: the profiler writing its profile when told to stop, the CPU-time and stats answers.
  ['bench harness', /node:inspector|bench\/child\./],
  [
    'tool: deadline timer and AbortSignal',
    /^(runWithTimeout|LazyAbortController|get signal|abort|createAbortSignal|AbortController|AbortSignal|throwIfAborted)\b|\/(pipeline\/timeout|tools\/builtin\/abort)\.(js|ts)|node:timers|node:internal\/timers|node:internal\/abort_controller/,
  ],
  [
    'permission and path resolution',
    /^(resolveCanonical|locate|locateFor|locateAsDecided|spellingsOf|canonicalArgs|tool\.canonicalArgs|lexical|canonical|isSymlink|contains|isInside) .*\/(tools\/workspace|pipeline\/gate-runner|tools\/builtin\/index)\.|\/pipeline\/gates\/permission\.|\/policy\//,
  ],
  ['tool: file work', /\/tools\/(builtin|workspace|opened-file|utf8)|\/tools\/noop\.|bench\/raw-tools\.|^(Read|Noop) .*bench\//],
  [
    'state admit and settle',
    /\/pipeline\/(state-health|gates\/(breaker|lock|rate-limit|replay|approval))\.|^(admitBatch|recordBatch|interpret|admitRequest|storeCall) .*\/pipeline\/gate-runner\.|\/state\/|node_modules\/(ioredis|redis-parser|standard-as-callback|cluster-key-slot|denque)\//,
  ],
  ['output guardrails', /\/guardrails\/|\/pipeline\/guard\./],
  ['parse, lookup, validate', /\/protocol\/calls\/|\/pipeline\/gates\/(parse|lookup|validate)\.|^planCalls |node_modules\/ajv\//],
  [
    'log lines',
    /node_modules\/(pino|pino-std-serializers|quick-format-unescaped|sonic-boom|fast-redact|safe-stable-stringify)\/|\/observability\/(logger|log-destination)\.|^(redactForLog|sha256Hex|oneShotDigest|digest|createHash|Hash) |^(reportCalls|traceCall) .*\/pipeline\/telemetry\./,
  ],
  ['metrics', /node_modules\/(prom-client|tdigest|bintrees)\/|\/observability\/metrics\./],
  [
    'rendering results and messages',
    /\/protocol\/(response|messages|result|json|canonical)\.|\/pipeline\/(budget|cut-text|call-result)\.|node_modules\/fast-json-stringify\/|^serialize .*fastify\/lib\/reply|^anonymous\d+ $|^withinCallBudget .*\/pipeline\/run-call\./,
  ],
  [
    'response write',
    /^(writev|writeUtf8String|writeBuffer|writeLatin1String|writeAsciiString) $|node:_http_outgoing|node:internal\/stream_base_commons|node:net$|node:internal\/streams\/writable|^(onSendEnd|onSendHook|sendStream) .*fastify/,
  ],
  ['auth and request hooks', /\/http\/(auth|plugins\/|toolsets|early)|node_modules\/fastify\/lib\/hooks\./],
  [
    'HTTP parse and routing',
    /node:_http_(server|common|incoming)|node_modules\/(fastify|find-my-way|avvio|light-my-request|toad-cache|secure-json-parse|@fastify)\/|\/http\/json-body\.|^(parserOnHeadersComplete|parserOnBody|parserOnMessageComplete|parserOnIncoming|execute|connectionListener|onParserExecute) /,
  ],
  ['pipeline and handler glue', /\/pipeline\/|\/http\/execute\.|bench\/floor\.|^(runMicrotasks|processTicksAndRejections) /],
];

/**
 * For frames whose stack names no stage (a continuation inside Node's own fs
 * code after an await, as readFile's are): the stage of what they do.
 */
const FALLBACK: readonly Rule[] = [
  ['tool: file work', /node:internal\/fs\/|^(open|openFileHandle|close|read|fstat|realpath|readlink|lstat|stat) $/],
];

interface Node {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}

/** The stage of one frame alone, or undefined when no rule names it. */
function ruleOf(node: Node): Stage | undefined {
  const { functionName, url } = node.callFrame;
  if (functionName === '(garbage collector)') return 'garbage collection';
  if (functionName === '(program)') return 'native, not attributed';
  const text = `${functionName || '(anonymous)'} ${url}`;
  return RULES.find(([, re]) => re.test(text))?.[0];
}

function fallbackOf(node: Node): Stage | undefined {
  const text = `${node.callFrame.functionName || '(anonymous)'} ${node.callFrame.url}`;
  return FALLBACK.find(([, re]) => re.test(text))?.[0];
}

export interface StageTime {
  /** Microseconds of a CPU profile, bytes of a heap profile. */
  total: number;
  /** Self time of the functions charged to the stage, by `<name> <url>`. */
  functions: Map<string, number>;
}

/** The self time (or bytes) of a profile's nodes summed per stage, idle excluded. */
export function stageTimes(nodes: readonly Node[], self: ReadonlyMap<number, number>): Map<Stage, StageTime> {
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const totals = new Map<Stage, StageTime>();
  const walk = (node: Node, inherited: Stage): void => {
    if (node.callFrame.functionName === '(idle)') return;
    const stage = ruleOf(node) ?? (inherited === 'other' ? fallbackOf(node) : undefined) ?? inherited;
    const us = self.get(node.id) ?? 0;
    if (us > 0) {
      const time = totals.get(stage) ?? { total: 0, functions: new Map<string, number>() };
      const name =
        `${node.callFrame.functionName || '(anonymous)'} ${node.callFrame.url.replace(/^.*\/(node_modules|dist|src|bench)\//, '$1/')}`.trim();
      time.total += us;
      time.functions.set(name, (time.functions.get(name) ?? 0) + us);
      totals.set(stage, time);
    }
    for (const child of node.children ?? []) walk(byId.get(child)!, stage);
  };
  walk(nodes[0]!, 'other');
  return totals;
}
