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
