import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import { FlowRefused, ProviderError, type Vault } from '../vault/index.js';
import { routes } from './routes.js';

const AuthorizeSchema = {
  summary: "Open an authorization link: the person's browser is sent to the provider (docs/credentials.md)",
  params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 128 }) }),
};

/** The callback's parameters, read by the route itself: whatever arrives, the person sees the page, never an envelope. */
const CallbackSchema = {
  summary: "The provider's redirect back: the grant is stored for the person the link was made for",
  querystring: Type.Object(
    {
      state: Type.Optional(Type.Unknown({ description: 'The flow’s state, at most 512 characters.' })),
      code: Type.Optional(Type.Unknown({ description: 'The authorization code, at most 4096 characters.' })),
      error: Type.Optional(Type.Unknown({ description: 'The provider’s error code, at most 256 characters.' })),
    },
    { additionalProperties: true },
  ),
};

const CALLBACK_LIMITS = { state: 512, code: 4096, error: 256 } as const;

/** The callback's parameters, each one string within its limit; null when one is repeated or too long. */
function callbackQuery(query: Record<string, unknown>): { state?: string; code?: string; error?: string } | null {
  const read: { state?: string; code?: string; error?: string } = {};
  for (const [name, max] of Object.entries(CALLBACK_LIMITS) as Array<[keyof typeof CALLBACK_LIMITS, number]>) {
    const value = query[name];
    if (value === undefined) continue;
    if (typeof value !== 'string' || value.length > max) return null;
    read[name] = value;
  }
  return read;
}

const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** A short page for the person's browser: these routes are visited by people, not agents. */
function page(reply: FastifyReply, status: number, title: string, text: string): FastifyReply {
  return reply
    .code(status)
    .header('content-type', 'text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .header('referrer-policy', 'no-referrer')
    .header('content-security-policy', "default-src 'none'")
    .send(`<!doctype html><meta charset="utf-8"><title>${escape(title)}</title><h1>${escape(title)}</h1><p>${escape(text)}</p>\n`);
}

/** One cookie's value from the Cookie header. */
function cookieOf(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return undefined;
}

/**
 * GET /oauth/authorize/{id} and GET /oauth/callback: public, since a person's browser visits them. A link works once; the flow it
 * begins is bound to that browser by a cookie only the callback reads.
 */
export function oauthLinkRoutes(vault: Vault) {
  return routes((app) => {
    app.get('/oauth/authorize/:id', { schema: AuthorizeSchema }, async (request, reply) => {
      let begun;
      try {
        begun = await vault.begin(request.params.id);
      } catch (err) {
        if (!(err instanceof ProviderError)) throw err;
        request.log.warn({ err: err.message }, 'an authorization could not begin: its provider did not answer');
        return page(
          reply,
          502,
          'Provider unavailable',
          'The provider could not be reached. Ask the agent for a new link and try again later.',
        );
      }
      if (!begun) return page(reply, 404, 'Link expired', 'This link was already used or has expired. Ask the agent for a new one.');
      const { name, value } = begun.cookie;
      const secure = vault.cookie.secure ? '; Secure' : '';
      reply.header(
        'set-cookie',
        `${name}=${value}; Path=/oauth/callback; Max-Age=${vault.cookie.maxAgeS}; HttpOnly; SameSite=Lax${secure}`,
      );
      return reply.code(302).header('cache-control', 'no-store').header('referrer-policy', 'no-referrer').redirect(begun.redirect);
    });

    app.get('/oauth/callback', { schema: CallbackSchema }, async (request, reply) => {
      const query = callbackQuery(request.query);
      if (!query)
        return page(reply, 400, 'Not connected', 'The provider sent the browser back with a malformed answer; ask for a new link.');
      try {
        const owner = await vault.finish(query, (name) => cookieOf(request.headers.cookie, name));
        request.log.info({ tenant: owner.tenant, user: owner.user, provider: owner.provider }, 'a person connected a provider');
        return page(
          reply,
          200,
          'Connected',
          `toolgate may now act as you at ${owner.provider}. You can close this window and go back to the agent.`,
        );
      } catch (err) {
        if (!(err instanceof FlowRefused)) throw err;
        request.log.warn({ reason: err.message }, 'an authorization was refused');
        return page(reply, 400, 'Not connected', err.message);
      }
    });
  });
}
