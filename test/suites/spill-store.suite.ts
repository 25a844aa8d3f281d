import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SpillStore } from '../../src/spill/spill-store.js';
import { ManualClock } from '../../src/shared/clock.js';

/** Fresh, empty storage for each test; `open` makes a store over it. */
export interface SpillStoreHarness {
  open(options: { ttlMs: number; clock: ManualClock }): SpillStore;
  cleanup(): Promise<void>;
}

const TTL = 60_000;
const sha256 = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');

export async function drain(body: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** The SpillStore contract, as every spill store must hold it. */
export function describeSpillStore(name: string, make: () => Promise<SpillStoreHarness>): void {
  describe(`SpillStore suite: ${name}`, () => {
    let harness: SpillStoreHarness;
    let clock: ManualClock;
    let store: SpillStore;

    beforeEach(async () => {
      harness = await make();
      clock = new ManualClock();
      store = harness.open({ ttlMs: TTL, clock });
    });
    afterEach(async () => {
      await harness.cleanup();
    });

    describe('round trip', () => {
      it('stores a string and reads back the same bytes, sha256 and size', async () => {
        const content = 'hello, spill\n'.repeat(1000);
        const record = await store.put('acme', content);
        expect(record.bytes).toBe(Buffer.byteLength(content));
        expect(record.sha256).toBe(sha256(content));
        const read = await store.get('acme', record.id);
        expect(read).not.toBeNull();
        const bytes = await drain(read!.body);
        expect(bytes.toString('utf8')).toBe(content);
        expect(sha256(bytes)).toBe(record.sha256);
        expect({ size: read!.size, sha256: read!.sha256 }).toEqual({ size: record.bytes, sha256: record.sha256 });
        expect(await store.stat('acme', record.id)).toEqual({ size: record.bytes, sha256: record.sha256 });
      });

      it('uses URL-safe ids holding at least 128 random bits', async () => {
        const ids = await Promise.all(Array.from({ length: 50 }, () => store.put('acme', 'x').then((r) => r.id)));
        expect(new Set(ids).size).toBe(50);
        for (const id of ids) {
          expect(id).toMatch(/^[A-Za-z0-9_-]+$/);
          expect(Buffer.from(id, 'base64url').length).toBeGreaterThanOrEqual(16);
        }
      });

      it('stores a Buffer and an async iterable as they arrive', async () => {
        const buffer = Buffer.from([0, 1, 2, 255, 254]);
        const fromBuffer = await store.put('acme', buffer);
        expect(await drain((await store.get('acme', fromBuffer.id))!.body)).toEqual(buffer);

        async function* chunks() {
          for (let i = 0; i < 100; i++) yield Buffer.from(`chunk ${i};`);
        }
        const expected = Array.from({ length: 100 }, (_, i) => `chunk ${i};`).join('');
        const fromIterable = await store.put('acme', chunks());
        expect(fromIterable).toMatchObject({ bytes: Buffer.byteLength(expected), sha256: sha256(expected) });
        expect((await drain((await store.get('acme', fromIterable.id))!.body)).toString()).toBe(expected);
      });

      it('round-trips unicode and serves exactly the inclusive byte range asked for', async () => {
        const content = 'αβγ 漢字テキスト 😀🎉 mixed ascii\n'.repeat(50);
        const bytes = Buffer.from(content, 'utf8');
        const record = await store.put('acme', content);
        expect(record.sha256).toBe(sha256(bytes));
        for (const [start, end] of [
          [0, 0],
          [0, bytes.length - 1],
          [1, 2],
          [7, 40],
          [bytes.length - 1, bytes.length - 1],
          [100, 1000],
        ] as const) {
          const read = await store.get('acme', record.id, { start, end });
          expect(await drain(read!.body)).toEqual(bytes.subarray(start, end + 1));
          expect(read!.size).toBe(bytes.length);
        }
      });

      it('stores an empty output', async () => {
        const record = await store.put('acme', '');
        expect(record).toMatchObject({ bytes: 0, sha256: sha256('') });
        expect((await drain((await store.get('acme', record.id))!.body)).length).toBe(0);
      });

      it('keeps concurrent puts apart', async () => {
        const contents = Array.from({ length: 30 }, (_, i) => `output ${i} `.repeat(500 + i));
        const records = await Promise.all(contents.map((c, i) => store.put(i % 2 ? 'acme' : 'globex', c)));
        expect(new Set(records.map((r) => r.id)).size).toBe(contents.length);
        await Promise.all(
          records.map(async (record, i) => {
            const read = await store.get(i % 2 ? 'acme' : 'globex', record.id);
            expect((await drain(read!.body)).toString()).toBe(contents[i]);
          }),
        );
      });

      it('rejects a put whose async iterable fails, and answers later ones', async () => {
        async function* failing() {
          yield Buffer.from('first part');
          throw new Error('upstream reset');
        }
        await expect(store.put('acme', failing())).rejects.toThrow('upstream reset');
        const record = await store.put('acme', 'after');
        expect((await drain((await store.get('acme', record.id))!.body)).toString()).toBe('after');
      });
    });

    describe('isolation and hostile input', () => {
      it("finds nothing under another tenant's name", async () => {
        const record = await store.put('acme', 'secret');
        expect(await store.get('globex', record.id)).toBeNull();
        expect(await store.stat('globex', record.id)).toBeNull();
        expect(await store.get('ACME', record.id)).toBeNull();
      });

      it('answers null for malformed and unknown ids', async () => {
        const record = await store.put('acme', 'mine');
        const hostile = [
          '',
          '.',
          '..',
          '../outside',
          `../${record.id}`,
          `../acme/${record.id}`,
          '%2e%2e%2foutside',
          `${record.id}\0`,
          `\0${record.id.slice(1)}`,
          `${record.id}.json`,
          `${record.id}/`,
          '/etc/passwd',
          'a'.repeat(10_000),
          'A'.repeat(record.id.length),
        ];
        for (const id of hostile) {
          expect(await store.get('acme', id), JSON.stringify(id.slice(0, 40))).toBeNull();
          expect(await store.stat('acme', id)).toBeNull();
        }
      });

      it('keeps every tenant string apart from the others', async () => {
        const tenants = ['../../escape', '..', '.', 'a/b', 'a', '/abs', '%2e%2e', 'nul\0byte', '', 'ü'.repeat(5000), 'x'.repeat(10_000)];
        const records = await Promise.all(tenants.map((t) => store.put(t, `for ${t.slice(0, 20)}`)));
        for (const [i, tenant] of tenants.entries()) {
          expect((await drain((await store.get(tenant, records[i]!.id))!.body)).toString()).toBe(`for ${tenant.slice(0, 20)}`);
          const other = tenants[(i + 1) % tenants.length]!;
          expect(await store.get(other, records[i]!.id)).toBeNull();
        }
      });
    });

    describe('expiry', () => {
      it('hides an entry once its TTL has passed and sweep deletes it', async () => {
        const record = await store.put('acme', 'short-lived');
        clock.advance(TTL - 1);
        expect(await store.stat('acme', record.id)).not.toBeNull();
        expect(await store.sweep(clock.now())).toBe(0);

        clock.advance(1);
        expect(await store.get('acme', record.id)).toBeNull();
        expect(await store.stat('acme', record.id)).toBeNull();
        expect(await store.sweep(clock.now())).toBe(1);
        expect(await store.sweep(clock.now())).toBe(0);
      });

      it('sweeps by creation time: only the entries older than the TTL go', async () => {
        const old = await store.put('acme', 'old');
        clock.advance(TTL / 2);
        const young = await store.put('globex', 'young');
        clock.advance(TTL / 2);
        expect(await store.sweep(clock.now())).toBe(1);
        expect(await store.stat('acme', old.id)).toBeNull();
        expect(await store.stat('globex', young.id)).not.toBeNull();
        clock.advance(-TTL);
        expect(await store.stat('acme', old.id)).toBeNull();
      });

      it('sweeps a store that has never been written', async () => {
        expect(await store.sweep(clock.now())).toBe(0);
      });
    });

    it('pings', async () => {
      await expect(store.ping()).resolves.toBeUndefined();
    });
  });
}
