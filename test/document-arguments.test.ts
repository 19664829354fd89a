import { describe, expect, it } from 'vitest';
import { DOCUMENT_ARGUMENTS, LiftedDocument } from '../src/lifted-document.js';
import { tools } from '../src/tools/index.js';
import { inputKeys, parseArguments } from '../src/tools/tool.js';

/*
 * The transports lift the arguments named in DOCUMENT_ARGUMENTS out of a message as bytes; the
 * tools declare which of their arguments are documents (documentText). The two must agree: an
 * argument lifted but declared a plain string would be refused, one declared but not lifted
 * would lose the large-document path.
 */
describe('the document arguments', () => {
  it('are exactly the arguments the tools declare as documents', () => {
    const lifted = new LiftedDocument(Buffer.from('<r/>'));
    const declared = new Set<string>();
    for (const tool of tools) {
      for (const key of inputKeys(tool)) {
        const required = inputKeys(tool).has('xpath') ? { xpath: '1' } : {};
        const parsed = parseArguments(tool, { ...required, [key]: lifted });
        if (parsed.ok && parsed.args[key] === lifted) declared.add(key);
      }
    }
    expect([...declared].sort()).toEqual([...DOCUMENT_ARGUMENTS].sort());
  });
});
