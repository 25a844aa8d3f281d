import { counted } from '../../shared/count.js';
import { isRecord, resolvePointer, type JsonObject } from '../../protocol/json.js';
import { unicodePattern } from './pattern.js';
import { followRef, isInternalRef } from './refs.js';

// Keywords whose value is a map from names to schemas: the names are data, never keywords.
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', 'definitions', '$defs', 'dependentSchemas']);
// Keywords whose value is data: copied as they are.
const DATA = new Set(['enum', 'const', 'default', 'examples', 'required', 'type', 'format', 'description', 'title']);
// OpenAPI annotations that are not JSON Schema, or that only document: dropped from the model's schema.
const DROPPED = new Set(['example', 'xml', 'discriminator', 'externalDocs', 'nullable', 'readOnly', 'writeOnly', 'deprecated']);
// One schema's walk, without the definitions it names: past these it is an attack on the loader or no schema a model can fill.
const MAX_DEPTH = 64;
const MAX_NODES = 50_000;

/** The last segment of a pointer, decoded: what a definition is named after. */
function lastSegment(ref: string): string {
  const raw = (ref.split('/').at(-1) ?? '').replaceAll('~1', '/').replaceAll('~0', '~');
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

interface Definition {
  schema: JsonObject;
  /** The definitions it names itself. */
  uses: Set<string>;
  notes: string[];
  /** Why it could not be converted: every operation that reaches it is left out with this. */
  error?: string;
  /** Its length as JSON, measured once. */
  chars: number;
}

/**
 * A document's schemas, each converted once and named for `$defs` however many operations share it: a `$ref` graph costs its size, never
 * the number of paths through it. Shared by every operation of one document.
 */
export class DocumentSchemas {
  private readonly names = new Map<string, string>();
  private readonly taken = new Set<string>();
  private readonly definitions = new Map<string, Definition>();
  private readonly pending: Array<{ name: string; target: unknown }> = [];

  constructor(
    readonly root: JsonObject,
    readonly version: '3.0' | '3.1',
  ) {}

  /** The `$defs` name of the schema `ref` points at; converted later, once, by {@link closure}. Throws when it points nowhere. */
  nameOf(ref: string): string {
    const known = this.names.get(ref);
    if (known !== undefined) return known;
    const target = resolvePointer(this.root, ref);
    if (target === undefined) throw new Error(`its $ref ${JSON.stringify(ref)} points nowhere in the document`);
    const base = lastSegment(ref).replace(/[^A-Za-z0-9._-]/g, '_') || 'schema';
    let name = base;
    for (let n = 2; this.taken.has(name); n++) name = `${base}_${n}`;
    this.taken.add(name);
    this.names.set(ref, name);
    this.pending.push({ name, target });
    return name;
  }

  /** Converted from a list, not by recursion: a chain of a thousand definitions costs no stack. */
  private drain(): void {
    for (let next = this.pending.pop(); next !== undefined; next = this.pending.pop()) {
      const walk = new SchemaWalk(this);
      const definition: Definition = { schema: {}, uses: walk.uses, notes: walk.notes, chars: 0 };
      try {
        definition.schema = walk.convert(next.target);
        definition.chars = JSON.stringify(definition.schema).length;
      } catch (err) {
        definition.error = (err as Error).message;
      }
      this.definitions.set(next.name, definition);
    }
  }

  /** The definitions `uses` reaches, by name, with their notes and length as JSON; throws the error of one that could not be converted. */
  closure(uses: Iterable<string>): { defs: JsonObject; notes: string[]; chars: number } {
    this.drain();
    const defs: JsonObject = {};
    const notes: string[] = [];
    let chars = 0;
    const queue = [...uses];
    for (let name = queue.pop(); name !== undefined; name = queue.pop()) {
      if (Object.hasOwn(defs, name)) continue;
      const definition = this.definitions.get(name)!;
      if (definition.error !== undefined) throw new Error(definition.error);
      defs[name] = definition.schema;
      notes.push(...definition.notes);
      chars += definition.chars + name.length + 4;
      queue.push(...definition.uses);
    }
    return { defs, notes, chars };
  }
}

/** One conversion: the definitions it names and the notes of what it changed. */
export class SchemaWalk {
  readonly uses = new Set<string>();
  readonly notes: string[] = [];
  private nodes = 0;

  constructor(readonly document: DocumentSchemas) {}

  /**
   * An OpenAPI Schema Object as a request's JSON Schema: an internal `$ref` as `#/$defs/<name>` (followed first when `inlineTop`, so a body's
   * properties can be read), `nullable` and boolean exclusive bounds in JSON Schema's form, read-only properties and non-JSON-Schema
   * annotations left out, a pattern ECMAScript cannot compile rewritten or dropped. The input is never changed. Throws a plain Error for
   * an external `$ref`, one that points nowhere, a schema that contains itself without a `$ref`, or one too deep or too large.
   */
  convert(schema: unknown, inlineTop = false): JsonObject {
    return this.node(inlineTop ? followRef(this.document.root, schema) : schema, []);
  }

  private node(schema: unknown, stack: object[]): JsonObject {
    if (!isRecord(schema)) return {};
    if (stack.includes(schema)) throw new Error('its schema contains itself without a $ref (a YAML alias cycle)');
    if (stack.length === MAX_DEPTH) throw new Error(`its schema nests deeper than ${MAX_DEPTH} levels`);
    if (++this.nodes > MAX_NODES) throw new Error(`its schema has more than ${counted(MAX_NODES, 'subschema')} written out (shared ones should be $ref-ed)`);
    const inner = [...stack, schema];
    if (typeof schema.$ref === 'string') return this.reference(schema, schema.$ref, inner);
    const out: JsonObject = {};
    const readOnly = new Set<string>();
    for (const [key, value] of Object.entries(schema)) {
      if (DROPPED.has(key) || key.startsWith('x-')) continue;
      if (DATA.has(key)) out[key] = value;
      else if (key === 'pattern' && typeof value === 'string') this.pattern(value, out);
      else if (SCHEMA_MAPS.has(key) && isRecord(value)) out[key] = this.map(key, value, inner, readOnly);
      else if (Array.isArray(value)) out[key] = value.map((item) => (isRecord(item) ? this.node(item, inner) : item));
      else if (isRecord(value)) out[key] = this.node(value, inner);
      else out[key] = value;
    }
    if (readOnly.size > 0 && Array.isArray(out.required)) out.required = (out.required as unknown[]).filter((n) => !readOnly.has(String(n)));
    for (const [bound, exclusive] of [['minimum', 'exclusiveMinimum'], ['maximum', 'exclusiveMaximum']] as const) {
      if (typeof schema[exclusive] !== 'boolean') continue;
      delete out[exclusive];
      if (schema[exclusive] === true && typeof schema[bound] === 'number') {
        out[exclusive] = schema[bound];
        delete out[bound];
      }
    }
    if (schema.nullable === true) {
      if (typeof out.type === 'string') out.type = [out.type, 'null'];
      if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...(out.enum as unknown[]), null];
    }
    return out;
  }

  /** `#/$defs/<name>`; in 3.1 the keywords beside it apply too, in 3.0 they are ignored, as each version says. */
  private reference(schema: JsonObject, ref: string, stack: object[]): JsonObject {
    if (!isInternalRef(ref)) {
      throw new Error(`its $ref ${JSON.stringify(ref)} points outside the document; external references are not followed (bundle the document into one)`);
    }
    const name = this.document.nameOf(ref);
    this.uses.add(name);
    const out: JsonObject = { $ref: `#/$defs/${name}` };
    if (this.document.version === '3.1') {
      const { $ref: _ref, ...siblings } = schema;
      if (Object.keys(siblings).length > 0) Object.assign(out, this.node(siblings, stack));
    }
    return out;
  }

  private map(key: string, value: JsonObject, stack: object[], readOnly: Set<string>): JsonObject {
    const map: JsonObject = {};
    for (const [name, sub] of Object.entries(value)) {
      if (key === 'properties' && this.isReadOnly(sub)) readOnly.add(name);
      // Defined, not assigned: a property named `__proto__` stays one instead of becoming the map's prototype.
      else if (key !== 'patternProperties') Object.defineProperty(map, name, { value: this.node(sub, stack), enumerable: true, writable: true, configurable: true });
      else {
        const kept = unicodePattern(name);
        if (kept.note !== undefined) this.notes.push(`patternProperties: ${kept.note}`);
        if (kept.pattern !== undefined) map[kept.pattern] = this.node(sub, stack);
      }
    }
    return map;
  }

  private pattern(value: string, out: JsonObject): void {
    const kept = unicodePattern(value);
    if (kept.note !== undefined) this.notes.push(kept.note);
    if (kept.pattern !== undefined) out.pattern = kept.pattern;
  }

  /** A property the server sets (`readOnly`, here or where its `$ref` points): a request leaves it out. */
  private isReadOnly(sub: unknown): boolean {
    try {
      const target = followRef(this.document.root, sub);
      return isRecord(sub) && (sub.readOnly === true || (isRecord(target) && target.readOnly === true));
    } catch {
      return false;
    }
  }
}
