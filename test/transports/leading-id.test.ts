import { describe, expect, it } from 'vitest';
import { LEADING_ID_BYTES, leadingId } from '../../src/transports/leading-id.js';

const read = (text: string) => leadingId(Buffer.from(text));

describe('leadingId', () => {
  it('reads a numeric or string id among the first keys', () => {
    expect(read('{"jsonrpc":"2.0","id":41,"method":"tools/call","params":{"arguments":{"xml":"<r')).toBe(41);
    expect(read('{"jsonrpc":"2.0","id":"call-7","method":"tools/call","params":{')).toBe('call-7');
    expect(read('{ "method" : "tools/call" , "jsonrpc":"2.0", "id" : -3.5e2 ,"params":{')).toBe(-350);
    expect(read('{"id":0}')).toBe(0);
  });

  it('gives null when the id is not a plain scalar before params', () => {
    expect(read('{"jsonrpc":"2.0","method":"tools/call","params":{"name":"x"},"id":41}')).toBeNull();
    expect(read('{"jsonrpc":"2.0","id":null,"method":"ping"}')).toBeNull();
    expect(read('{"jsonrpc":"2.0","id":true,"method":"ping"}')).toBeNull();
    expect(read('{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}')).toBeNull();
    expect(read('{"jsonrpc":"2.0","id":"a\\"b","method":"ping"}')).toBeNull();
    expect(read('{"jsonrpc":"2.0","id":012,"method":"ping"}')).toBeNull();
    expect(read('{"jsonrpc":"2.0","method":"ping"}')).toBeNull();
    expect(read('aaaaaaaaaaaaaaaaaaaaaaaaaaaa')).toBeNull();
    expect(read('[{"id":1}]')).toBeNull();
  });

  it('gives null for an id cut off by the end of what it reads', () => {
    // Where the bytes end the number may go on: 41 could be 4100.
    expect(read('{"jsonrpc":"2.0","id":41')).toBeNull();
    expect(read('{"jsonrpc":"2.0","id":"call-')).toBeNull();
    const padded = `{"jsonrpc":"2.0","method":"${'m'.repeat(LEADING_ID_BYTES)}","id":5,"params":{}}`;
    expect(read(padded)).toBeNull();
  });
});
