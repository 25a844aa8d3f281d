import { convertObj } from 'swagger2openapi';
import type { JsonObject } from '../../protocol/json.js';

/**
 * A Swagger 2.0 document as OpenAPI 3.0, converted by swagger2openapi (small fixes patched, nothing outside the document read: external
 * references stay as they are and are left out like any other). Throws a plain Error that keeps the advice to convert it first.
 */
export async function fromSwagger2(raw: JsonObject): Promise<JsonObject> {
  if (raw.swagger !== '2.0') throw new Error(`is Swagger ${String(raw.swagger)}; only Swagger 2.0 and OpenAPI 3.0 and 3.1 are read (convert it first, e.g. with swagger2openapi)`);
  try {
    // `text` given: otherwise the converter writes the whole input out as YAML first, for nothing.
    const converted = await convertObj(raw as never, { patch: true, direct: true, text: '-' } as never);
    return converted as unknown as JsonObject;
  } catch (err) {
    const why = (err as Error).message.split('\n')[0];
    throw new Error(`is Swagger 2.0 and could not be converted to OpenAPI 3.0 (${why}); convert it first, e.g. with swagger2openapi`);
  }
}
