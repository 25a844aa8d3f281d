import { Type, type TSchema } from 'typebox';
import { ApprovalPreviewSchema, ApprovalSchema } from './approval.js';
import { ERROR_CODES } from './errors.js';

/**
 * Wire schemas, each defined once with an `$id`: registered on the app, referenced by the routes for validation and response serialization,
 * and emitted into the OpenAPI document.
 */
const ErrorCodeSchema = Type.Unsafe<string>({
  $id: 'ErrorCode',
  type: 'string',
  enum: Object.keys(ERROR_CODES),
  description: 'The closed set of error codes.',
});

const ref = (id: string) => Type.Unsafe({ $ref: `${id}#` });

const CallErrorSchema = Type.Object(
  {
    code: ref('ErrorCode'),
    message: Type.String(),
    retryable: Type.Boolean(),
    retry_after_ms: Type.Optional(Type.Integer({ minimum: 0 })),
    suggestion: Type.Optional(Type.String()),
    details: Type.Optional(Type.Unknown()),
  },
  { $id: 'CallError' },
);

const ErrorEnvelopeSchema = Type.Object(
  {
    error: Type.Object({
      code: ref('ErrorCode'),
      message: Type.String(),
      details: Type.Optional(Type.Unknown()),
    }),
  },
  { $id: 'ErrorEnvelope', description: 'Every error of the HTTP envelope (not of a single call) has this shape.' },
);

const RpcErrorSchema = Type.Object(
  {
    jsonrpc: Type.Literal('2.0'),
    id: Type.Union([Type.String(), Type.Number(), Type.Null()]),
    error: Type.Object({
      code: Type.Integer(),
      message: Type.String(),
      data: Type.Optional(
        Type.Unknown({ description: "For a refusal of the HTTP exchange, {code, details?} with the gateway's ErrorCode." }),
      ),
    }),
  },
  { $id: 'RpcError', description: 'Every error answer of /mcp: a JSON-RPC 2.0 error, id null unless it answers a known request.' },
);

const TruncationSchema = Type.Union(
  [
    Type.Object({
      original_bytes: Type.Integer(),
      uri: Type.Union([Type.String(), Type.Null()]),
      url: Type.Union([Type.String(), Type.Null()]),
      sha256: Type.String(),
      spill_error: Type.Optional(Type.String({ description: 'Set when the spill store failed: uri and url are then null.' })),
    }),
    Type.Null(),
  ],
  { $id: 'Truncation' },
);

const CallResultSchema = Type.Object(
  {
    tool_call_id: Type.String(),
    name: Type.String(),
    status: Type.Union([Type.Literal('success'), Type.Literal('partial'), Type.Literal('error')]),
    text: Type.String(),
    content: Type.Optional(
      Type.Array(
        Type.Object(
          {
            type: Type.Union([
              Type.Literal('image'),
              Type.Literal('audio'),
              Type.Literal('resource'),
              Type.Literal('resource_link'),
              Type.Literal('text'),
            ]),
          },
          { additionalProperties: true },
        ),
        {
          description:
            'Images, audio and embedded resources, in the order the tool gave them: inline ({type, mime_type, data} base64; a resource {uri, mime_type, text|data}) ' +
            'or, moved to the spill store by a budget or limits.image_bytes, {type, mime_type, bytes, sha256, url, note}; a resource_link {uri, name, mime_type}; ' +
            'an upstream MCP block keeps its annotations. Where the upstream interleaved them with text, each of its text blocks is a {type: "text", bytes} ' +
            'in its place, its text in `text`.',
        },
      ),
    ),
    data: Type.Optional(Type.Unknown()),
    error: Type.Optional(ref('CallError')),
    stats: Type.Object({ time_ms: Type.Number(), output_bytes: Type.Integer() }),
    truncated: ref('Truncation'),
    replayed: Type.Boolean(),
  },
  { $id: 'CallResult' },
);

const ExecuteResponseSchema = Type.Object(
  {
    results: Type.Array(ref('CallResult')),
    messages: Type.Array(Type.Unknown(), {
      description: 'Ready-to-append messages in the request format (openai, responses, anthropic or gemini).',
    }),
  },
  { $id: 'ExecuteResponse' },
);

const ExecutionStatusSchema = Type.Union([
  Type.Literal('queued'),
  Type.Literal('running'),
  Type.Literal('completed'),
  Type.Literal('failed'),
]);

const ExecutionAcceptedSchema = Type.Object(
  {
    execution_id: Type.String(),
    status: Type.Literal('queued'),
    status_url: Type.String({ description: 'Where to poll: /executions/{execution_id}.' }),
  },
  { $id: 'ExecutionAccepted', description: 'A batch sent with "mode":"async", queued.' },
);

const ExecutionSchema = Type.Object(
  {
    execution_id: Type.String(),
    status: ExecutionStatusSchema,
    results: Type.Optional(
      Type.Array(ref('CallResult'), { description: 'Once completed: what the synchronous request would have answered.' }),
    ),
    messages: Type.Optional(Type.Array(Type.Unknown())),
    error: Type.Optional(ref('CallError')),
  },
  { $id: 'Execution', description: 'An async batch; also the body POSTed to its callback_url once finished.' },
);

const CircuitSchema = Type.Object(
  {
    tool: Type.String(),
    state: Type.Union([Type.Literal('closed'), Type.Literal('open'), Type.Literal('half_open')]),
    failures: Type.Integer(),
    reopens_at: Type.Union([Type.Integer(), Type.Null()]),
  },
  { $id: 'Circuit' },
);

export const WIRE_SCHEMAS: readonly TSchema[] = [
  ErrorCodeSchema,
  CallErrorSchema,
  ErrorEnvelopeSchema,
  RpcErrorSchema,
  TruncationSchema,
  CallResultSchema,
  ExecuteResponseSchema,
  ExecutionAcceptedSchema,
  ExecutionSchema,
  CircuitSchema,
  ApprovalPreviewSchema,
  ApprovalSchema,
];

/** Response entries for the envelope errors a route can answer with. */
export function errorResponses(...statuses: number[]): Record<number, TSchema> {
  return Object.fromEntries(statuses.map((s) => [s, ref('ErrorEnvelope')]));
}

/** Response entries for the JSON-RPC error answers of /mcp. */
export function rpcErrorResponses(...statuses: number[]): Record<number, TSchema> {
  return Object.fromEntries(statuses.map((s) => [s, ref('RpcError')]));
}

export { ref as schemaRef };
