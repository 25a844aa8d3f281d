import { describe, expect, it } from 'vitest';
import { partition } from '../../../src/pipeline/partition.js';
import { GatewayError } from '../../../src/protocol/errors.js';
import { plannedCall } from '../../helpers/gates.js';

const safe = (id: string) => ({ ...plannedCall({ name: 'Read', concurrencySafe: true }), id });
const unsafe = (id: string) => ({ ...plannedCall({ name: 'Write', concurrencySafe: false }), id });
const stopped = (id: string) => ({ ...unsafe(id), failure: new GatewayError('PERMISSION_DENIED') });

describe('partition: batches that run in order', () => {
  it('consecutive concurrency-safe calls share a batch; every other call is a batch of its own', () => {
    const batches = partition([safe('a'), safe('b'), unsafe('c'), unsafe('d'), safe('e')]);
    expect(batches.map((batch) => batch.map((call) => call.id))).toEqual([['a', 'b'], ['c'], ['d'], ['e']]);
  });

  it('a call a gate stopped runs nothing, so it joins the open batch, or opens one', () => {
    const batches = partition([safe('a'), stopped('b'), safe('c'), unsafe('d'), stopped('e')]);
    expect(batches.map((batch) => batch.map((call) => call.id))).toEqual([['a', 'b', 'c'], ['d'], ['e']]);
  });
});
