import { describe, expect, it } from 'vitest';
import { classifyLine } from '../../src/transports/jsonrpc-lines.js';

describe('classifyLine', () => {
  it('delivers requests, notifications and responses', () => {
    expect(classifyLine('{"jsonrpc":"2.0","id":1,"method":"ping"}')).toEqual({
      message: { jsonrpc: '2.0', id: 1, method: 'ping' },
    });
    expect(classifyLine('{"jsonrpc":"2.0","method":"notifications/initialized"}')).toHaveProperty('message');
    expect(classifyLine('{"jsonrpc":"2.0","id":"a","result":{}}')).toHaveProperty('message');
  });

  it('answers malformed JSON with -32700 and a null id', () => {
    expect(classifyLine('{"jsonrpc":')).toMatchObject({ reply: { id: null, error: { code: -32700 } } });
  });

  it('answers an id without a method with -32600 carrying that id', () => {
    expect(classifyLine('{"jsonrpc":"2.0","id":7}')).toMatchObject({
      reply: { id: 7, error: { code: -32600 } },
    });
  });

  it.each([
    '[]',
    '[{"jsonrpc":"2.0","id":1,"method":"ping"}]',
    '42',
    '"text"',
    'null',
    '{"jsonrpc":"1.0","id":1,"method":"ping"}',
    '{"jsonrpc":"2.0","id":1,"method":5}',
  ])('answers %s with -32600', (line) => {
    expect(classifyLine(line)).toMatchObject({ reply: { error: { code: -32600 } } });
  });
});
