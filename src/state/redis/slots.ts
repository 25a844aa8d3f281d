import { KeyList } from './codec.js';
import { hashTag } from './keys.js';

/** One script's worth of a batch: its keys, and one spec per call it decides, with that call's index in the batch. */
interface SlotScript<Spec> {
  keys: KeyList;
  specs: Spec[];
  at: number[];
}

/** A batch's work as one script per slot group; on a single node one group, so one atomic script per phase. */
export class SlotScripts<Spec> {
  private readonly groups = new Map<string, SlotScript<Spec>>();

  constructor(private readonly sharded: boolean) {}

  /** The script that holds `key`; `add` there is how a spec names it. */
  for(key: string): SlotScript<Spec> {
    const group = groupOf(key, this.sharded);
    let script = this.groups.get(group);
    if (script === undefined) {
      script = { keys: new KeyList(), specs: [], at: [] };
      this.groups.set(group, script);
    }
    return script;
  }

  get scripts(): SlotScript<Spec>[] {
    return [...this.groups.values()].filter((script) => script.specs.length > 0);
  }
}

export function groupOf(key: string, sharded: boolean): string {
  return sharded ? hashTag(key) : '';
}
