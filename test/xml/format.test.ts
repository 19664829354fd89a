import { describe, expect, it } from 'vitest';
import { type FormatOptions, format } from '../../src/xml/format.js';

const pretty: FormatOptions = { indent: 2, emptyElements: 'self-closing' };
const minify: FormatOptions = { indent: 0, emptyElements: 'self-closing' };

describe('format', () => {
  it('indents element-only content', () => {
    expect(format('<r><a><b/></a><c>t</c></r>', pretty)).toBe(
      '<r>\n  <a>\n    <b/>\n  </a>\n  <c>t</c>\n</r>',
    );
  });

  it('minifies with indent 0', () => {
    expect(format('<r>\n  <a>\n    <b/>\n  </a>\n</r>', minify)).toBe('<r><a><b/></a></r>');
  });

  it('leaves mixed content exactly as it was', () => {
    const out = format('<r><p>Hello <b>big</b>  world</p></r>', pretty);
    expect(out).toContain('<p>Hello <b>big</b>  world</p>');
  });

  it('keeps xml:space="preserve" content byte for byte', () => {
    const out = format('<r><pre xml:space="preserve">  a\n   b  <i> x </i> </pre></r>', pretty);
    expect(out).toContain('<pre xml:space="preserve">  a\n   b  <i> x </i> </pre>');
  });

  it('keeps comments, processing instructions, CDATA and the declaration', () => {
    const source = '<?xml version="1.0"?><r><!-- c --><?pi data?><d><![CDATA[<raw/>]]></d></r>';
    const out = format(source, pretty);
    expect(out.startsWith('<?xml version="1.0"')).toBe(true);
    expect(out).toContain('<!-- c -->');
    expect(out).toContain('<?pi data?>');
    expect(out).toContain('<![CDATA[<raw/>]]>');
  });

  it('adds no declaration the document did not have', () => {
    expect(format('<r/>', pretty)).toBe('<r/>');
  });

  it('writes empty elements in the three styles, leaving comments alone', () => {
    const source = '<r><a/><b></b><!-- <c/> --></r>';
    expect(format(source, { indent: 0, emptyElements: 'self-closing' })).toBe('<r><a/><b/><!-- <c/> --></r>');
    expect(format(source, { indent: 0, emptyElements: 'spaced' })).toBe('<r><a /><b /><!-- <c/> --></r>');
    expect(format(source, { indent: 0, emptyElements: 'expanded' })).toBe(
      '<r><a></a><b></b><!-- <c/> --></r>',
    );
  });

  it('keeps entity references as references', () => {
    expect(format('<!DOCTYPE r [<!ENTITY e "v">]><r>&e;</r>', minify)).toContain('<r>&e;</r>');
  });

  it.each([
    pretty,
    minify,
    { indent: 4, emptyElements: 'spaced' } as FormatOptions,
    { indent: 1, emptyElements: 'expanded' } as FormatOptions,
  ])('is idempotent (%o)', (options) => {
    const source =
      '<?xml version="1.0"?>\n<r a="1"><x><y/><z>t</z></x><p>mixed <b>b</b> text</p><s xml:space="preserve"> <k/> </s><!--c--><e></e></r>';
    const once = format(source, options);
    expect(format(once, options)).toBe(once);
  });
});
