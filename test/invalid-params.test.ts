import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { clarifyInvalidParams } from '../src/invalid-params.js';

const dump = (issues: unknown[]) => JSON.stringify(issues, null, 2);

describe('clarifyInvalidParams', () => {
  it('turns the SDK zod dump into -32602 and a sentence naming the field', () => {
    const error = new Error(
      dump([
        {
          expected: 'string',
          code: 'invalid_type',
          path: ['params', 'cursor'],
          message: 'Invalid input: expected string, received number',
        },
      ]),
    );
    const clarified = clarifyInvalidParams('tools/list', error) as ProtocolError;
    expect(clarified).toBeInstanceOf(ProtocolError);
    expect(clarified.code).toBe(ProtocolErrorCode.InvalidParams);
    expect(clarified.message).toContain(
      'Invalid params for tools/list: `params.cursor`: Invalid input: expected string, received number.',
    );
  });

  it('counts the problems it does not spell out, and handles an issue without a path', () => {
    const error = new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `Invalid tools/call request: ${dump([
        { path: [], message: 'Expected object' },
        { path: ['x'], message: 'y' },
      ])}`,
    );
    expect((clarifyInvalidParams('tools/call', error) as Error).message).toContain(
      'Invalid params for tools/call: the params: Expected object (and 1 more problem).',
    );
  });

  it('leaves every other error as it was', () => {
    const others = [
      new ProtocolError(ProtocolErrorCode.MethodNotFound, `Method not found ${dump([{ message: 'x' }])}`),
      new Error('the engine worker exited'),
      new Error('[not json'),
      new Error('[1, 2]'),
      'a string',
    ];
    for (const error of others) expect(clarifyInvalidParams('tools/list', error)).toBe(error);
  });
});
