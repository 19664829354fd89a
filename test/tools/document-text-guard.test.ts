import { describe, expect, it } from 'vitest';
import { pathInsteadOfText } from '../../src/tools/document-text-guard.js';

describe('a path or URL where a document belongs', () => {
  it.each([
    '/x/y.xml',
    '  /home/me/feed.xml  ',
    './pom.xml',
    '../data/a.svg',
    '~/feeds/a.atom',
    'C:\\Users\\me\\pom.xml',
    'c:/data/a.xml',
    '\\\\server\\share\\a.xml',
    'https://example.org/feed.atom',
    'file:///etc/passwd',
    'pom.xml',
    'Order-Schema.XSD',
  ])('recognises %j', (value) => {
    expect(pathInsteadOfText({ xml: value })).toContain("pass the document's text, not its path or URL");
  });

  it.each(['<a/>', '/x/y.xml <a/>', 'not xml at all', '', '/x\n/y', 'report', `/${'x'.repeat(3000)}.xml`])(
    'leaves %j to the parser',
    (value) => {
      expect(pathInsteadOfText({ xml: value })).toBeUndefined();
    },
  );

  it('names the argument, and looks only at document arguments', () => {
    expect(pathInsteadOfText({ xml: '<a/>', xsd: 'order.xsd' })).toMatch(
      /^The `xsd` argument looks like a path or URL \(`order\.xsd`\)/,
    );
    expect(pathInsteadOfText({ xml: '<a/>', xpath: '/a/b.xml' })).toBeUndefined();
  });
});
