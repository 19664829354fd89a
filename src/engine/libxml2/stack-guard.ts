import { heapWords, stackPointer } from './memory.js';

/**
 * libxml2-wasm 0.7.2's stack, read from its module: the stack pointer starts at 291,104 and the
 * stack is 64 KiB, directly above libxml2's static data (which ends at 223,900). Nothing checks
 * the stack for overflow, so a deep enough recursion writes over that data without a trap, and a
 * trap unwinds without restoring the pointer. `armStackGuard` checks these figures against the
 * loaded module at start-up; an upgrade that moves them disarms the guard region (the stack
 * pointer check still runs) and fails test/engine/libxml2/stack-guard.test.ts until they are re-read.
 */
export const LIBXML2_STACK = { top: 291_104, bytes: 64 * 1024 } as const;

/**
 * The lowest 16 KiB of the stack, painted with a known word. The deepest sound calls measured
 * stay far above it: ~26 KB for a schema type of 124 nested anonymous restrictions (the most the
 * depth limit allows), ~15 KB for an expression at the nesting cap, ~8 KB for a 500-link chain.
 * A call that overwrote the paint ran into, or past, the end of the stack; the paint is deep so
 * that one large stack frame cannot step over it unseen.
 */
const GUARD_BYTES = 16 * 1024;
const CANARY = 0x5a17_c0de;

export interface StackGuard {
  /** The guard region is painted: the layout read from the module matches LIBXML2_STACK. */
  readonly armed: boolean;
  /** Why libxml2's memory can no longer be trusted after the last call, or undefined when it can. */
  breach(): string | undefined;
}

/**
 * Takes note of the stack at rest (no engine call running) and paints the guard region. Call it
 * once libxml2 has loaded, with no engine call under way; undefined when the module's memory was
 * not captured (see libxml2/memory.ts).
 */
export function armStackGuard(): StackGuard | undefined {
  const atRest = stackPointer();
  if (atRest === undefined) return undefined;
  const bottom = LIBXML2_STACK.top - LIBXML2_STACK.bytes;
  const armed = atRest === LIBXML2_STACK.top && paint(bottom);
  return {
    armed,
    breach() {
      const now = stackPointer();
      if (now !== atRest) {
        return `the stack pointer did not return to where it was (${atRest - (now ?? 0)} bytes lower)`;
      }
      if (armed && !intact(bottom)) return 'the call ran into the end of the stack';
      return undefined;
    },
  };
}

function paint(bottom: number): boolean {
  const words = heapWords();
  if (!words || bottom % 4 !== 0 || (bottom + GUARD_BYTES) / 4 > words.length) return false;
  words.fill(CANARY, bottom / 4, (bottom + GUARD_BYTES) / 4);
  return true;
}

function intact(bottom: number): boolean {
  const words = heapWords();
  if (!words) return false;
  for (let index = bottom / 4; index < (bottom + GUARD_BYTES) / 4; index++) {
    if (words[index] !== CANARY) return false;
  }
  return true;
}
