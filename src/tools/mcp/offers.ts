import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Prompt, Resource, ResourceTemplate } from '@modelcontextprotocol/sdk/types.js';

/** What an upstream server offers besides tools, as it last listed them; empty lists for what it does not declare. */
export interface OfferLists {
  resources: readonly Resource[];
  templates: readonly ResourceTemplate[];
  prompts: readonly Prompt[];
}

export const NO_OFFERS: OfferLists = Object.freeze({ resources: [], templates: [], prompts: [] });

/** One page of a listing and where the next starts. */
type Page<T> = (cursor: string | undefined) => Promise<{ items: readonly T[]; nextCursor?: string | undefined }>;

/** Every page of a listing, at most `maxPages` (a server that pages for ever is cut there). */
export async function allPages<T>(page: Page<T>, maxPages: number): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | undefined;
  for (let n = 0; n < maxPages; n++) {
    const answer = await page(cursor);
    items.push(...answer.items);
    cursor = answer.nextCursor;
    if (cursor === undefined) break;
  }
  return items;
}

/** The resources, resource templates and prompts of a connected server, each listed only when its capabilities declare it. */
export async function listOffers(client: Client, timeout: number, maxPages: number): Promise<OfferLists> {
  const declared = client.getServerCapabilities() ?? {};
  const options = { timeout };
  const params = (cursor: string | undefined) => (cursor === undefined ? {} : { cursor });
  const [resources, templates, prompts] = await Promise.all([
    declared.resources
      ? allPages(async (cursor) => {
          const answer = await client.listResources(params(cursor), options);
          return { items: answer.resources, nextCursor: answer.nextCursor };
        }, maxPages)
      : [],
    declared.resources
      ? allPages(async (cursor) => {
          const answer = await client.listResourceTemplates(params(cursor), options);
          return { items: answer.resourceTemplates, nextCursor: answer.nextCursor };
        }, maxPages)
      : [],
    declared.prompts
      ? allPages(async (cursor) => {
          const answer = await client.listPrompts(params(cursor), options);
          return { items: answer.prompts, nextCursor: answer.nextCursor };
        }, maxPages)
      : [],
  ]);
  return { resources, templates, prompts };
}

/** An upstream server as what it offers besides tools is read through: its supervisor. */
export interface UpstreamOffering {
  readonly server: string;
  readonly prefix: string;
  /** The bound of a read, prompt or completion request. */
  readonly requestTimeoutMs: number;
  offered(): OfferLists;
  /** The client of the live connection; undefined while the server is down. */
  client(): Client | undefined;
  onOffers(listener: (changed: ReadonlySet<'resources' | 'prompts'>) => void): void;
}
