import { isRecord, own, type JsonObject } from '../json.js';
import type { ListKind } from './locate.js';
import { badRequest, quote } from './report.js';
import { CALL_SHAPES, type CallFormat, type CallShape } from '../providers/index.js';
import type { NormalizedCall } from './types.js';

// Call ids end up in state-store keys and logs; real providers use ~30 characters.
const CALL_ID_MAX = 256;

export function formatOf(shape: CallShape): CallFormat {
  return CALL_SHAPES[shape].format;
}

/** Which shape an item is, or undefined for a non-call item to skip. */
export function classify(item: JsonObject, kind: ListKind, path: string): CallShape | undefined {
  if (Object.hasOwn(item, 'functionCall')) return 'gemini';
  if (kind === 'parts') return undefined;
  const type = own(item, 'type');
  if (type === undefined || type === null) return own(item, 'function') === undefined ? 'flat' : 'openai';
  if (typeof type !== 'string') throw badRequest(`${path}.type must be a string.`, { path: `${path}.type` });
  if (type === 'function') return 'openai';
  if (type === 'tool_use') return 'anthropic';
  if (type === 'function_call') return 'responses';
  if (kind === 'calls') {
    throw badRequest(`${path}.type ${quote(type)} is not a tool call type (function, tool_use, function_call).`, { path: `${path}.type` });
  }
  return undefined;
}

export function normalize(item: JsonObject, shape: CallShape, path: string, index: number, generateId: () => string): NormalizedCall {
  const fields = CALL_SHAPES[shape];
  let holder = item;
  let holderPath = path;
  if (fields.wrapper !== undefined) {
    const inner = own(item, fields.wrapper);
    holderPath = `${path}.${fields.wrapper}`;
    if (!isRecord(inner)) throw badRequest(`${holderPath} must be an object.`, { index, path: holderPath });
    holder = inner;
  }

  const name = own(holder, 'name');
  if (typeof name !== 'string' || name === '') {
    throw badRequest(`${holderPath}.name must be a non-empty string.`, { index, path: `${holderPath}.name` });
  }
  const idHolder = fields.idBesideWrapper ? item : holder;
  const idPath = `${fields.idBesideWrapper ? path : holderPath}.${fields.id}`;
  const rawId = own(idHolder, fields.id);
  let id: string;
  let idGenerated = false;
  if (rawId === undefined || rawId === null || rawId === '') {
    id = generateId();
    idGenerated = true;
  } else if (typeof rawId !== 'string' || rawId.length > CALL_ID_MAX) {
    throw badRequest(`${idPath} must be a string of at most ${CALL_ID_MAX} characters.`, { index, path: idPath });
  } else {
    id = rawId;
  }

  return { index, id, idGenerated, name, rawArguments: own(holder, fields.args), shape };
}
