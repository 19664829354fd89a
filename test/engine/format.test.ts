import { describe, expect, it } from 'vitest';
import { type FormatOptions, format, formatToBytes } from '../../src/engine/format.js';

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

describe('formatToBytes', () => {
  it('gives the UTF-8 bytes of the formatted text, across output blocks and multi-byte characters', () => {
    // Well past the sink's first blocks and its 1 MiB block size, with 2-, 3- and 4-byte
    // characters landing on every boundary libxml2's small writes can make.
    const source = `<r>${'<a>é€😀x</a><b/>'.repeat(120_000)}</r>`;
    const bytes = formatToBytes(source, pretty);
    expect(bytes.byteLength).toBeGreaterThan(2 * 1024 * 1024);
    expect(bytes.byteOffset).toBe(0);
    const text = format(source, pretty);
    expect(Buffer.from(bytes).equals(Buffer.from(text, 'utf8'))).toBe(true);
    expect(text.split('\n')[1]).toBe('  <a>é€😀x</a>');
  });

  it('gives a buffer of its own, which a worker can transfer', () => {
    const bytes = formatToBytes('<r><a/></r>', pretty);
    expect(bytes.buffer).toBeInstanceOf(ArrayBuffer);
    expect(bytes.buffer.byteLength).toBeLessThanOrEqual(bytes.byteLength + 1);
  });
});
