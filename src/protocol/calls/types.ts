import type { CallShape } from '../providers/index.js';

/** One tool call of a batch, whatever shape it arrived in. */
export interface NormalizedCall {
  index: number;
  id: string;
  /** The model sent no id; the gateway made one up (`call_<hex>`). */
  idGenerated: boolean;
  name: string;
  /**
   * raw: a string (to JSON-parse later) or an already-parsed value; `undefined` when the call carried no arguments field (Gemini leaves
   * `args` out of a call without arguments). The parse gate decides what each means.
   */
  rawArguments: unknown;
  shape: CallShape;
}
