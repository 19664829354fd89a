/**
 * The one error type the engine throws. `code` lets callers branch without parsing text;
 * `message` is already a sentence a model can act on; `line`/`column` are fields, not text.
 */
export type EngineErrorCode =
  | 'not-well-formed'
  | 'too-large'
  | 'limit-exceeded'
  | 'invalid-xpath'
  | 'unbound-prefix'
  | 'unbound-variable'
  | 'xpath-failed'
  | 'invalid-schema'
  | 'invalid-argument'
  | 'timeout'
  | 'budget-exceeded'
  | 'out-of-memory'
  | 'busy'
  | 'engine-crashed';

export interface EngineErrorData {
  code: EngineErrorCode;
  message: string;
  line?: number;
  column?: number;
}

export class EngineError extends Error {
  readonly code: EngineErrorCode;
  readonly line: number | undefined;
  readonly column: number | undefined;

  constructor(data: EngineErrorData) {
    super(data.message);
    this.name = 'EngineError';
    this.code = data.code;
    this.line = data.line;
    this.column = data.column;
  }

  toData(): EngineErrorData {
    const data: EngineErrorData = { code: this.code, message: this.message };
    if (this.line !== undefined) data.line = this.line;
    if (this.column !== undefined) data.column = this.column;
    return data;
  }
}

/**
 * A WebAssembly trap (`RuntimeError`: "null function", "table index is out of bounds", an
 * unreachable) or a stack overflow (`RangeError`) thrown out of libxml2. Either can leave
 * libxml2's memory corrupt, so it must never be re-labelled as an ordinary failure of the input:
 * it reaches the worker entry, which has the worker replaced (docs/security-model.md).
 */
export function isEngineTrap(error: unknown): boolean {
  return error instanceof RuntimeError || error instanceof RangeError;
}

// @types/node leaves the WebAssembly namespace's values undeclared without the DOM library.
const { RuntimeError } = (globalThis as unknown as { WebAssembly: { RuntimeError: ErrorConstructor } })
  .WebAssembly;
