/** The provider dialect the response's `messages` are rendered in. */
export type CallFormat = 'openai' | 'responses' | 'anthropic' | 'gemini';

/** The wire shape one call arrived in: OpenAI, flat, Anthropic, Gemini or Responses. */
export type CallShape = 'openai' | 'flat' | 'anthropic' | 'gemini' | 'responses';

/** One tool call of a batch, whatever shape it arrived in. */
export interface NormalizedCall {
  /** Position among the batch's calls (0-based, request order). */
  index: number;
  id: string;
  /** The model sent no id; the gateway made one up (`call_<hex>`). */
  idGenerated: boolean;
  name: string;
  /**
   * raw: a string (to JSON-parse later) or an already-parsed value; `undefined`
   * when the call carried no arguments field (Gemini leaves `args` out of a
   * call without arguments). The parse gate decides what each means.
   */
  rawArguments: unknown;
  shape: CallShape;
}
