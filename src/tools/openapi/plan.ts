import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { counted } from '../../shared/count.js';
import { planArguments, type ArgumentPlan } from './arguments.js';
import { readDocument, type OperationHead, type SpecOrigin } from './document.js';
import { SchemaWalk } from './schema.js';

// ajv-formats ships CommonJS; under NodeNext its default import is the module object.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

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

/**
 * Read a document and judge each operation on its own: its arguments planned, its schema (with the `$defs` it reaches) within
 * {@link MAX_TOOL_SCHEMA_CHARS}, valid JSON Schema and compiled by ajv as the registry will. Throws a plain Error only when the document as a
 * whole cannot be read. Runs in the load's worker (load.ts), where its time and memory are bounded.
 */
export function planDocument(text: string, origin: SpecOrigin): PlannedDocument {
  const document = readDocument(text, origin);
  let warnings: string[] = [];
  const warn = (...args: unknown[]) => void warnings.push(args.map(String).join(' '));
  const ajv = new Ajv({ allErrors: true, strict: false, validateSchema: true, logger: { log: () => undefined, warn, error: warn } });
  addFormats(ajv);
  const operations = document.operations.map(({ parameters: _parameters, requestBody: _body, ...operation }, i): PlannedOperation => {
    const full = document.operations[i]!;
    const walk = new SchemaWalk(document.schemas);
    warnings = [];
    const notes = (): string[] => [...new Set([...walk.notes, ...warnings])];
    try {
      if (full.unreadable !== undefined) throw new Error(full.unreadable);
      const plan = planArguments(full, walk);
      const reached = document.schemas.closure(walk.uses);
      const chars = JSON.stringify(plan.parameters).length + reached.chars;
      if (chars > MAX_TOOL_SCHEMA_CHARS) {
        throw new Error(`its parameters schema is ${counted(chars, 'character')} as JSON with its definitions, over the ${MAX_TOOL_SCHEMA_CHARS.toLocaleString('en-US')} a tool may have`);
      }
      if (Object.keys(reached.defs).length > 0) plan.parameters.$defs = reached.defs;
      walk.notes.push(...reached.notes);
      if (!ajv.validateSchema(plan.parameters)) {
        const first = ajv.errors?.[0];
        throw new Error(cut(`its schema is not valid JSON Schema at ${first?.instancePath || '/'}: ${first?.message ?? 'invalid'}`));
      }
      try {
        ajv.compile(plan.parameters);
      } catch (err) {
        throw new Error(cut(`its schema does not compile: ${(err as Error).message}`));
      } finally {
        ajv.removeSchema(plan.parameters);
      }
      return { operation, plan, notes: notes() };
    } catch (err) {
      return { operation, reason: cut((err as Error).message), notes: notes() };
    }
  });
  const planned: PlannedDocument = { version: document.version, operations };
  if (document.serverUrl !== undefined) planned.serverUrl = document.serverUrl;
  return planned;
}
