import { AwsV4Signer } from 'aws4fetch';
import { Agent, request, type Dispatcher } from 'undici';

/** `endpoint` set means path-style addressing (MinIO, R2…), else AWS's virtual-hosted style. */
export interface S3Location {
  bucket: string;
  region: string;
  endpoint?: string;
}

export interface S3Credentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

export interface S3ClientOptions {
  location: S3Location;
  credentials: S3Credentials;
  /** Connect, answer headers and each body chunk of a write, each within this. */
  timeoutMs: number;
  dispatcher?: Dispatcher;
}

interface S3Request {
  operation: string;
  method: 'GET' | 'HEAD' | 'PUT' | 'POST' | 'DELETE';
  key: string | null;
  query?: Record<string, string>;
  headers?: Record<string, string>;
  body?: Buffer | string;
  /** Statuses that are an answer rather than a failure (2xx always are). */
  accept?: readonly number[];
  bodyTimeoutMs?: number;
}

export class S3Error extends Error {
  constructor(
    readonly operation: string,
    readonly status: number,
    readonly s3Code: string,
  ) {
    super(`S3 ${operation} answered ${status}${s3Code ? ` ${s3Code}` : ''}`);
    this.name = 'S3Error';
  }
}

function encodeRfc3986(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

const XML_ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function unescapeXml(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|amp|lt|gt|quot|apos);/gi, (_, entity: string) => {
    if (entity[0] !== '#') return XML_ENTITIES[entity.toLowerCase()] ?? '';
    return String.fromCodePoint(entity[1] === 'x' || entity[1] === 'X' ? parseInt(entity.slice(2), 16) : Number(entity.slice(1)));
  });
}

/** S3's answers are flat enough that this is all the parsing they need. */
export function xmlValues(xml: string, tag: string): string[] {
  const pattern = new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`, 'g');
  return [...xml.matchAll(pattern)].map((m) => unescapeXml(m[1]!));
}

/** SigV4-signed requests (aws4fetch signs, undici sends), only the operations the spill store uses. */
export class S3Client {
  readonly bucket: string;
  private readonly base: string;
  private readonly credentials: S3Credentials;
  private readonly region: string;
  private readonly dispatcher: Dispatcher;
  private readonly timeoutMs: number;

  constructor(options: S3ClientOptions) {
    const { bucket, region, endpoint } = options.location;
    this.bucket = bucket;
    this.region = region;
    this.base = endpoint ? `${endpoint.replace(/\/+$/, '')}/${encodeRfc3986(bucket)}` : `https://${bucket}.s3.${region}.amazonaws.com`;
    this.credentials = options.credentials;
    this.timeoutMs = options.timeoutMs;
    this.dispatcher =
      options.dispatcher ??
      new Agent({ connect: { timeout: options.timeoutMs }, headersTimeout: options.timeoutMs, bodyTimeout: options.timeoutMs });
  }

  /** Throws S3Error on a status neither 2xx nor accepted. */
  async send(req: S3Request): Promise<Dispatcher.ResponseData> {
    const path = req.key === null ? '/' : `/${req.key.split('/').map(encodeRfc3986).join('/')}`;
    const query = Object.entries(req.query ?? {})
      .map(([name, value]) => `${encodeRfc3986(name)}=${encodeRfc3986(value)}`)
      .join('&');
    const signed = await new AwsV4Signer({
      method: req.method,
      url: `${this.base}${path}${query ? `?${query}` : ''}`,
      headers: req.headers ?? {},
      ...this.credentials,
      service: 's3',
      region: this.region,
    }).sign();
    const response = await request(signed.url, {
      method: req.method,
      headers: Object.fromEntries(signed.headers.entries()),
      body: req.body,
      dispatcher: this.dispatcher,
      headersTimeout: this.timeoutMs,
      bodyTimeout: req.bodyTimeoutMs ?? this.timeoutMs,
    });
    const ok = (response.statusCode >= 200 && response.statusCode < 300) || req.accept?.includes(response.statusCode);
    if (ok) return response;
    const text = req.method === 'HEAD' ? '' : await response.body.text().catch(() => '');
    throw new S3Error(req.operation, response.statusCode, xmlValues(text, 'Code')[0] ?? '');
  }

  /** An `<Error>` in a 200 (CompleteMultipartUpload and CopyObject may answer so) is a failure. */
  async sendForXml(req: S3Request): Promise<string> {
    const text = await (await this.send(req)).body.text();
    if (/<Error>/.test(text)) throw new S3Error(req.operation, 200, xmlValues(text, 'Code')[0] ?? '');
    return text;
  }

  async list(prefix: string): Promise<Array<{ key: string; bytes: number }>> {
    const found: Array<{ key: string; bytes: number }> = [];
    let token: string | undefined;
    do {
      const query: Record<string, string> = { 'list-type': '2', prefix, ...(token && { 'continuation-token': token }) };
      const xml = await this.sendForXml({ operation: 'ListObjectsV2', method: 'GET', key: null, query });
      for (const entry of xmlValues(xml, 'Contents')) {
        const key = xmlValues(entry, 'Key')[0];
        if (key !== undefined) found.push({ key, bytes: Number(xmlValues(entry, 'Size')[0] ?? 0) });
      }
      token = xmlValues(xml, 'IsTruncated')[0] === 'true' ? xmlValues(xml, 'NextContinuationToken')[0] : undefined;
    } while (token);
    return found;
  }

  copySource(key: string): string {
    return `/${encodeRfc3986(this.bucket)}/${key.split('/').map(encodeRfc3986).join('/')}`;
  }
}
