import { isRecord, own, type JsonObject } from '../json.js';

/**
 * OpenAI Structured Outputs, "Supported schemas" (https://developers.openai.com/api/docs/guides/structured-outputs#supported-schemas):
 * "A schema may have up to 5000 object properties total, with up to 10 levels of nesting"; "total string length of all property names,
 * definition names, enum values, and const values cannot exceed 120,000 characters"; "up to 1000 enum values across all enum properties";
 * "For a single enum property with string values, the total string length of all enum values cannot exceed 15,000 characters when there
 * are more than 250 enum values". A strict schema over one of them is refused with the whole request.
 */
const OPENAI_STRICT_LIMITS = {
  properties: 5000,
  nesting: 10,
  stringChars: 120_000,
  enumValues: 1000,
  bigEnum: { above: 250, chars: 15_000 },
};

interface Tally {
  properties: number;
  depth: number;
  chars: number;
  enumValues: number;
  bigEnum?: number;
}

// Keywords whose value is one schema, or a list of schemas, that nests one level deeper.
const NESTED = ['items', 'anyOf'];
const textLength = (values: unknown[]) => values.reduce<number>((sum, v) => sum + (typeof v === 'string' ? v.length : 0), 0);

/**
 * Count what the limits count over a strict-mode schema. The page does not say what a level of nesting is: every object or array schema
 * counts as one (the stricter reading), so a schema that passes here passes there. `$ref`s are not followed: their targets are counted once
 * where `$defs` holds them.
 */
function tally(node: unknown, level: number, into: Tally): void {
  if (!isRecord(node)) return;
  const properties = own(node, 'properties');
  const deeper = isRecord(properties) || own(node, 'items') !== undefined ? level + 1 : level;
  into.depth = Math.max(into.depth, deeper);
  if (isRecord(properties)) {
    into.properties += Object.keys(properties).length;
    into.chars += textLength(Object.keys(properties));
    for (const schema of Object.values(properties)) tally(schema, deeper, into);
  }
  const values = own(node, 'enum');
  if (Array.isArray(values)) {
    into.enumValues += values.length;
    const chars = textLength(values);
    into.chars += chars;
    if (values.length > OPENAI_STRICT_LIMITS.bigEnum.above && values.every((v) => typeof v === 'string' || v === null))
      into.bigEnum = Math.max(into.bigEnum ?? 0, chars);
  }
  const constant = own(node, 'const');
  if (typeof constant === 'string') into.chars += constant.length;
  for (const key of NESTED) {
    const value = own(node, key);
    for (const schema of Array.isArray(value) ? value : [value]) tally(schema, deeper, into);
  }
  for (const key of ['$defs', 'definitions']) {
    const definitions = own(node, key);
    if (!isRecord(definitions)) continue;
    into.chars += textLength(Object.keys(definitions));
    for (const schema of Object.values(definitions)) tally(schema, 0, into);
  }
}

/** Which of OpenAI's strict-mode size limits a strict schema is over, said for a person; undefined when it is within all of them. */
export function overStrictLimits(schema: JsonObject): string | undefined {
  const counted: Tally = { properties: 0, depth: 0, chars: 0, enumValues: 0 };
  tally(schema, 0, counted);
  const limits = OPENAI_STRICT_LIMITS;
  const over = [
    counted.depth > limits.nesting && `${counted.depth} levels of nesting (at most ${limits.nesting})`,
    counted.properties > limits.properties && `${counted.properties} object properties (at most ${limits.properties})`,
    counted.enumValues > limits.enumValues && `${counted.enumValues} enum values (at most ${limits.enumValues})`,
    counted.chars > limits.stringChars && `${counted.chars} characters of names and enum values (at most ${limits.stringChars})`,
    (counted.bigEnum ?? 0) > limits.bigEnum.chars &&
      `an enum of over ${limits.bigEnum.above} values with ${counted.bigEnum} characters (at most ${limits.bigEnum.chars})`,
  ].filter((reason): reason is string => typeof reason === 'string');
  return over.length === 0 ? undefined : `over OpenAI's strict-mode limits: ${over.join(', ')}`;
}
