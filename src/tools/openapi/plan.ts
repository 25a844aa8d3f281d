import type { Ajv } from 'ajv';
import type { JsonObject } from '../../protocol/json.js';
import { counted } from '../../shared/count.js';
import { createSchemaAjv } from '../schema-ajv.js';
import { planArguments, type ArgumentPlan } from './arguments.js';
import { readDocument, type OperationHead, type SpecOrigin } from './document.js';
import { SchemaWalk } from './schema.js';

/** The longest a tool's parameters schema may be as JSON, its `$defs` included: past it the operation is left out. */
export const MAX_TOOL_SCHEMA_CHARS = 262_144;
// An ajv message holds the schema path; one past this is cut.
const MESSAGE_MAX = 300;

/** One operation and its verdict: a plan to make its tool from, or why it is left out. */
interface PlannedOperation {
  operation: OperationHead;
  plan?: ArgumentPlan;
  /** Why it cannot be a tool. */
  reason?: string;
  /** What was changed to serve it: a pattern rewritten or dropped, an unknown format ignored. */
  notes: string[];
}

/** A document read, each of its operations with its verdict. */
export interface PlannedDocument {
  version: '3.0' | '3.1';
  serverUrl?: string;
  operations: PlannedOperation[];
}

const cut = (text: string) => (text.length <= MESSAGE_MAX ? text : `${text.slice(0, MESSAGE_MAX - 1)}…`);

/** ajv's verdict on one schema: why it is not valid JSON Schema or does not compile, and the warnings it gave (an unknown format). */
interface Verdict {
  error?: string;
  warnings: string[];
}

/**
 * Each schema ajv judges in one document's load, once: a definition however many operations reach it, each operation's own schema with
 * its `$defs` as empty stand-ins (a `$ref` is only ever `#/$defs/<name>`, so a definition's verdict holds wherever it is reached).
 */
function documentJudge(ajv: Ajv, warnings: () => string[]) {
  const definitions = new Map<string, Verdict>();
  const judge = (schema: JsonObject): Verdict => {
    const before = warnings().length;
    const verdict: Verdict = { warnings: [] };
    if (!ajv.validateSchema(schema)) {
      const first = ajv.errors?.[0];
      verdict.error = cut(`its schema is not valid JSON Schema at ${first?.instancePath || '/'}: ${first?.message ?? 'invalid'}`);
    } else {
      try {
        ajv.compile(schema);
      } catch (err) {
        verdict.error = cut(`its schema does not compile: ${(err as Error).message}`);
      } finally {
        ajv.removeSchema(schema);
      }
    }
    verdict.warnings = warnings().slice(before);
    return verdict;
  };
  const stubs = (defs: JsonObject) => Object.fromEntries(Object.keys(defs).map((name) => [name, {}]));
  return (parameters: JsonObject, defs: JsonObject): Verdict => {
    const verdicts: Verdict[] = [];
    for (const [name, definition] of Object.entries(defs)) {
      let verdict = definitions.get(name);
      if (verdict === undefined) {
        verdict = judge({ $ref: `#/$defs/${name}`, $defs: { ...stubs(defs), [name]: definition } });
        definitions.set(name, verdict);
      }
      verdicts.push(verdict);
    }
    verdicts.push(judge({ ...parameters, $defs: stubs(defs) }));
    return { error: verdicts.find((v) => v.error !== undefined)?.error, warnings: verdicts.flatMap((v) => v.warnings) };
  };
}

/**
 * Read a document and judge each operation on its own: its arguments planned, its schema (with the `$defs` it reaches) within
 * {@link MAX_TOOL_SCHEMA_CHARS}, valid JSON Schema and compiled by ajv as the registry will. Throws a plain Error only when the document as a
 * whole cannot be read. Runs in the load's worker (load.ts), where its time and memory are bounded. `ajv`: one made for this load (a
 * test counts its work).
 */
export async function planDocument(text: string, origin: SpecOrigin, ajv?: Ajv): Promise<PlannedDocument> {
  const document = await readDocument(text, origin);
  const warnings: string[] = [];
  const warn = (...args: unknown[]) => void warnings.push(args.map(String).join(' '));
  const judge = documentJudge(ajv ?? createSchemaAjv({ log: () => undefined, warn, error: warn }), () => warnings);
  const operations = document.operations.map(({ parameters: _parameters, requestBody: _body, ...operation }, i): PlannedOperation => {
    const full = document.operations[i]!;
    const walk = new SchemaWalk(document.schemas);
    let judged: string[] = [];
    const notes = (): string[] => [...new Set([...walk.notes, ...judged])];
    try {
      if (full.unreadable !== undefined) throw new Error(full.unreadable);
      const plan = planArguments(full, walk);
      const reached = document.schemas.closure(walk.uses);
      const chars = JSON.stringify(plan.parameters).length + reached.chars;
      if (chars > MAX_TOOL_SCHEMA_CHARS) {
        throw new Error(`its parameters schema is ${counted(chars, 'character')} as JSON with its definitions, over the ${MAX_TOOL_SCHEMA_CHARS.toLocaleString('en-US')} a tool may have`);
      }
      walk.notes.push(...reached.notes);
      const verdict = judge(plan.parameters, reached.defs);
      judged = verdict.warnings;
      if (verdict.error !== undefined) throw new Error(verdict.error);
      if (Object.keys(reached.defs).length > 0) plan.parameters.$defs = reached.defs;
      return { operation, plan, notes: notes() };
    } catch (err) {
      return { operation, reason: cut((err as Error).message), notes: notes() };
    }
  });
  const planned: PlannedDocument = { version: document.version, operations };
  if (document.serverUrl !== undefined) planned.serverUrl = document.serverUrl;
  return planned;
}
