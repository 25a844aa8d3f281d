import { Type, type Static } from 'typebox';

/**
 * The approval request as admins, the console and webhooks see it (docs/policy.md, "The approval object"): defined once here, its types
 * derived, registered with the app and emitted into the OpenAPI document.
 */

const FileStampSchema = Type.Object(
  { file_mtime_ms: Type.Number(), file_size_bytes: Type.Integer({ minimum: 0 }) },
  { description: 'The file as the preview read it.' },
);

const DiffPreviewSchema = Type.Object(
  {
    kind: Type.Literal('diff'),
    path: Type.String({ description: 'The workspace-relative path the call writes.' }),
    diff: Type.String({
      description:
        'Unified diff of the file as it was when the request was made against what the call would leave; empty when the call would fail.',
    }),
    new_file: Type.Boolean({ description: 'No file is there yet: the diff shows the whole new file.' }),
    base: Type.Union([FileStampSchema, Type.Null()], {
      description: 'mtime and size of the file the diff was made against; null for a new file.',
    }),
    truncated: Type.Boolean({ description: 'The diff was cut at 200 KB (the note says how much there was).' }),
    note: Type.Optional(Type.String({ description: 'What a person should know: the diff was cut, or the call would fail as things are.' })),
    file_changed: Type.Optional(
      Type.Boolean({
        description: 'Added when read: the file is no longer the one the diff was made against (or is gone, or was created since).',
      }),
    ),
  },
  { additionalProperties: false },
);

const CommandPreviewSchema = Type.Object(
  {
    kind: Type.Literal('command'),
    command: Type.String(),
    class: Type.Union([Type.Literal('allow'), Type.Literal('ask'), Type.Literal('deny')], {
      description: "The command's class, the most restrictive of its parts.",
    }),
    reasons: Type.Array(Type.String(), { description: 'What the classifier said of each simple command in it.' }),
    sandbox: Type.Union([Type.Literal('bwrap'), Type.Literal('none')], { description: 'Where it would run.' }),
  },
  { additionalProperties: false },
);

const ArgumentsPreviewSchema = Type.Object(
  { kind: Type.Literal('arguments'), arguments: Type.Unknown({ description: 'The arguments, secrets redacted.' }) },
  { additionalProperties: false },
);

export const ApprovalPreviewSchema = Type.Union([DiffPreviewSchema, CommandPreviewSchema, ArgumentsPreviewSchema], {
  $id: 'ApprovalPreview',
  description: 'What the call would do, computed when the request was made and stored with it.',
});

const STATUSES = [Type.Literal('pending'), Type.Literal('approved'), Type.Literal('denied'), Type.Literal('expired')] as const;

/** What `GET /approvals?status=` takes: each status a request can have, or `decided` for every decided one. */
export const ApprovalFilterSchema = Type.Union([...STATUSES, Type.Literal('decided')], {
  default: 'pending',
  description: 'pending: oldest first; decided (approved, denied and expired), or one of those: most recent decision first.',
});

export const ApprovalSchema = Type.Object(
  {
    id: Type.String(),
    tenant: Type.String(),
    session_id: Type.String(),
    user: Type.Optional(
      Type.String({ description: "The person the call is for (x-toolgate-user, a token's subject); absent: the key's own call." }),
    ),
    tool: Type.String(),
    arguments: Type.Unknown({ description: 'The call arguments, secrets redacted and long strings cut.' }),
    preview: Type.Unsafe<ApprovalPreview>({ $ref: 'ApprovalPreview#' }),
    status: Type.Union([...STATUSES], {
      description: 'expired: approved, but the call did not come back before expires_at; it admits nothing any more.',
    }),
    created_at: Type.Integer(),
    expires_at: Type.Integer(),
    decided_at: Type.Optional(Type.Integer()),
    decided_by: Type.Optional(Type.String({ description: 'The id of the key that decided.' })),
    reason: Type.Optional(Type.String()),
  },
  { $id: 'Approval', additionalProperties: false },
);

export type ApprovalPreview = Static<typeof ApprovalPreviewSchema>;
export type ApprovalStatus = ApprovalRecord['status'];
export type ApprovalFilter = Static<typeof ApprovalFilterSchema>;
export type ApprovalRecord = Omit<Static<typeof ApprovalSchema>, 'preview'> & { preview: ApprovalPreview };
