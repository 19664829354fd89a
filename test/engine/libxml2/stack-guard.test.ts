import { describe, expect, it } from 'vitest';
import { check } from '../../../src/engine/check.js';
import { readI32, stackPointer, writeI32 } from '../../../src/engine/libxml2/memory.js';
import { armStackGuard, LIBXML2_STACK } from '../../../src/engine/libxml2/stack-guard.js';
import { query } from '../../../src/engine/query/query.js';
import { validate } from '../../../src/engine/validate/validate.js';
import { MAX_SCHEMA_CHAIN } from '../../../src/limits.js';
import { chainedSchema, nestedChainSchema } from '../../support/schema-chains.js';

describe('the stack guard', () => {
  it('finds the stack where LIBXML2_STACK says the loaded libxml2-wasm build has it', () => {
    check('<r/>');
    expect(stackPointer()).toBe(LIBXML2_STACK.top);
    expect(armStackGuard()?.armed).toBe(true);
  });

  it('finds nothing wrong after the deepest sound calls', () => {
    const guard = armStackGuard();
    check('<a><b/></a>');
    validate('<r>x</r>', chainedSchema('restriction', MAX_SCHEMA_CHAIN - 2));
    // 124 nested anonymous restrictions: as deep as the element depth limit lets a type nest.
    validate('<r>x</r>', nestedChainSchema(4, 124));
    query('<r/>', `${'string('.repeat(31)}/r${')'.repeat(31)}`, {});
    expect(guard?.breach()).toBeUndefined();
  });

  it('reports a call that ran into the end of the stack', () => {
    const guard = armStackGuard();
    const bottom = LIBXML2_STACK.top - LIBXML2_STACK.bytes;
    // The highest word of the painted region: a frame that reached only that far is seen too.
    const top = bottom + 16 * 1024 - 4;
    const word = readI32(top) as number;
    writeI32(top, 0);
    expect(guard?.breach()).toMatch(/end of the stack/);
    writeI32(top, word);
  });
});
