import { readFile, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Dispatcher } from 'undici';
import type { HttpDispatchers } from '../http/dispatcher.js';
import { findForbidden } from '../http/ssrf.js';
import { counted } from '../../shared/count.js';
import type { SpecOrigin } from './document.js';
import { LoadBoundError } from './load.js';

/** A document's bytes and where they came from; parsed, with the rest of the load, in a worker (load.ts). */
interface SpecText extends SpecOrigin {
  bytes: Uint8Array;
}

interface FetchSpecOptions {
  dispatchers: HttpDispatchers;
  allowPrivateNetwork: boolean;
  timeoutMs: number;
  maxBytes: number;
  /** Relative file paths are read from here (the config file's folder). */
  baseDir: string;
}

/** Read at most `maxBytes` of a body; throws past it, without reading the rest. */
async function capped(body: AsyncIterable<Buffer>, maxBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > maxBytes) throw new LoadBoundError('max_spec_bytes', `the document is larger than max_spec_bytes (${counted(maxBytes, 'byte')})`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size);
}

/** GET a document through the guarded pools (a private address needs `allow_private_network`); no redirect is followed. */
async function download(url: URL, options: FetchSpecOptions): Promise<Buffer> {
  const dispatcher = options.allowPrivateNetwork ? options.dispatchers.open : options.dispatchers.guarded;
  // One deadline for the whole download; cleared once it is over, so that it cannot abort a request already settled.
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(Object.assign(new Error('timeout'), { name: 'TimeoutError' })), options.timeoutMs);
  try {
    return await downloadWithin(url, dispatcher, deadline.signal, options);
  } finally {
    clearTimeout(timer);
  }
}

async function downloadWithin(url: URL, dispatcher: Dispatcher, signal: AbortSignal, options: FetchSpecOptions): Promise<Buffer> {
  let response;
  try {
    response = await dispatcher.request({
      origin: url.origin,
      path: `${url.pathname}${url.search}`,
      method: 'GET',
      headers: { accept: 'application/json, application/yaml;q=0.9, */*;q=0.5' },
      signal,
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
    });
  } catch (err) {
    const refused = findForbidden(err);
    if (refused) throw new Error(`refused by the SSRF guard: ${refused.message}; set allow_private_network: true for a document on a private network`);
    if (signal.aborted || (err as { code?: string }).code?.endsWith('TIMEOUT')) {
      throw new LoadBoundError('spec_timeout_ms', `no answer within spec_timeout_ms (${options.timeoutMs} ms)`);
    }
    throw new Error(`could not be fetched: ${(err as Error).message}`);
  }
  try {
    if (response.statusCode !== 200) throw new Error(`the server answered ${response.statusCode}; expected 200 with the document (redirects are not followed)`);
    return await capped(response.body, options.maxBytes);
  } catch (err) {
    if (signal.aborted || (err as { code?: string }).code?.endsWith('TIMEOUT')) throw new LoadBoundError('spec_timeout_ms', `no answer within spec_timeout_ms (${options.timeoutMs} ms)`);
    throw err;
  } finally {
    // A body left unread (an error status, a document over the cap) is dropped; undici reports that as an error nobody awaits.
    if (!response.body.readableEnded) response.body.on('error', () => undefined).destroy();
  }
}

/** Read `spec` (an http(s) URL or a file path), at most `maxBytes` of it; a plain Error says what went wrong. */
export async function fetchSpec(spec: string, options: FetchSpecOptions): Promise<SpecText> {
  const isUrl = /^https?:\/\//i.test(spec);
  let bytes: Buffer;
  let location: string;
  if (isUrl) {
    const url = new URL(spec);
    location = url.href;
    bytes = await download(url, options);
  } else {
    location = resolve(options.baseDir, spec);
    let size: number;
    try {
      size = (await stat(location)).size;
      bytes = size > options.maxBytes ? Buffer.alloc(0) : await readFile(location);
    } catch (err) {
      throw new Error(`could not be read: ${(err as Error).message}`);
    }
    if (size > options.maxBytes || bytes.length > options.maxBytes) throw new LoadBoundError('max_spec_bytes', `the document is larger than max_spec_bytes (${counted(options.maxBytes, 'byte')})`);
  }
  return { location, isUrl, bytes };
}
