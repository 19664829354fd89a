import { describe, expect, it } from 'vitest';
import { check } from '../../src/xml/check.js';
import { MAX_SCHEMA_CHAIN } from '../../src/xml/limits.js';
import { armStackGuard, LIBXML2_STACK } from '../../src/xml/stack-guard.js';
import { validate } from '../../src/xml/validate.js';
import { readI32, stackPointer, writeI32 } from '../../src/xml/wasm-memory.js';
import { chainedSchema } from '../support/schema-chains.js';

describe('the stack guard', () => {
  it('finds the stack where LIBXML2_STACK says the loaded libxml2-wasm build has it', () => {
    check('<r/>');
    expect(stackPointer()).toBe(LIBXML2_STACK.top);
    expect(armStackGuard()?.armed).toBe(true);
  });

  it('finds nothing wrong after sound calls, the deepest allowed schema chain among them', () => {
    const guard = armStackGuard();
    check('<a><b/></a>');
    validate('<r>x</r>', chainedSchema('restriction', MAX_SCHEMA_CHAIN - 2));
    expect(guard?.breach()).toBeUndefined();
  });

  it('reports a call that ran into the end of the stack', () => {
    const guard = armStackGuard();
    const bottom = LIBXML2_STACK.top - LIBXML2_STACK.bytes;
    const word = readI32(bottom + 512) as number;
    writeI32(bottom + 512, 0);
    expect(guard?.breach()).toMatch(/end of the stack/);
    writeI32(bottom + 512, word);
  });
});
