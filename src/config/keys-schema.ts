import { Type, type Static } from 'typebox';
import { RateLimitSchema } from './tools-schema.js';

/** A toolset's name, as keys and requests name it. */
export const TOOLSET_NAME = '^[A-Za-z0-9_-]{1,64}$';

/** A tenant's name; never `.` or `..`, which as a folder under the workspace would name the workspace or its parent. */
export const TENANT_NAME = '^(?!\\.{1,2}$)[A-Za-z0-9_.-]{1,64}$';

/** One API key entry, in `keys` or in the file `keys_file` names. */
export const KeySchema = Type.Object(
  {
    id: Type.String({ pattern: '^[A-Za-z0-9_.-]{1,64}$' }),
    sha256: Type.String({ pattern: '^[0-9a-f]{64}$' }),
    tenant: Type.String({ pattern: TENANT_NAME }),
    scopes: Type.Array(Type.Union([Type.Literal('execute'), Type.Literal('admin'), Type.Literal('on_behalf')]), {
      minItems: 1,
      uniqueItems: true,
      description: 'on_behalf: the key may name the user a request is for in x-toolgate-user (docs/auth.md).',
    }),
    tools: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
    toolsets: Type.Optional(
      Type.Array(Type.String({ pattern: TOOLSET_NAME }), {
        minItems: 1,
        uniqueItems: true,
        description: 'The key sees only the tools of these sets (and of `tools`, when both are given).',
      }),
    ),
    rate_limit: Type.Optional(RateLimitSchema),
  },
  { additionalProperties: false },
);

export type KeyConfig = Static<typeof KeySchema>;
