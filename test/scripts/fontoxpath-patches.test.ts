import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import {
  COMPILED_CACHE_KEY,
  FONTOXPATH_DIST,
  fontoxpathOrderEsbuild,
  ORDER_ANCHOR,
  ORDER_INSERT,
  patchFontoxpath,
  patchFontoxpathCompiledCache,
  patchFontoxpathDistinctSort,
  patchFontoxpathDurations,
  patchFontoxpathIndexOf,
  patchFontoxpathOrder,
  patchFontoxpathOrderBy,
  patchFontoxpathRegex,
  patchFontoxpathStringValue,
  patchFontoxpathUntypedReturn,
  patchIfFontoxpath,
  patchXspattern,
  XSPATTERN_ESM,
} from '../../scripts/fontoxpath-patches.js';

const DIST = join(process.cwd(), 'node_modules', 'fontoxpath', 'dist');
const count = (text: string, part: string) => text.split(part).length - 1;
/** Just the texts the patches rewrite, as fontoxpath 3.34.0 has them. */
const MINIMAL_FONTOXPATH = [
  ORDER_ANCHOR,
  'return w.m(a.reduce((e,f)=>e.value<f.value?f:e))},localName:"max"',
  'return w.m(a.reduce((e,f)=>e.value>f.value?f:e))},localName:"min"',
  'var xb=class{equals(a){return this.o()===a.o()&&this.v()===a.v()}',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: fontoxpath's own template literal, matched as text
  'let k=je.get(h);if(!k){try{k=(0,Cd.compile)(h,{language:"xpath"})}catch(l){throw Error(`FORX0002: ${l}`);}je.set(h,k)}return k(f)?w.$():w.S()',
  'localName:"matches",namespaceURI:"http://www.w3.org/2005/xpath-functions",i:{type:0,g:3}}',
  'e=e.first().value;e=ge(e);e.lastIndex=0;b=[];c=e.exec(a);for(d=0;c;)b.push(a.slice(d,c.index)),d=e.lastIndex,c=e.exec(a);b.push(a.slice(d));return w.create(b.map(f=>g(f,1)))',
  'callFunction(){throw Error("Not implemented: Using flags in tokenize is not supported");}',
  'k=k.value;l=l.value;if(l.includes("$0"))throw Error("Using $0 in fn:replace to replace substrings with full matches is not supported.");',
  'callFunction(){throw Error("Not implemented: Using flags in replace is not supported");',
  'callFunction:(a,b,c,d)=>{const e=rc(d,b).N();return w.create(e).filter((f,h)=>e.slice(0,h).every(k=>!De(f,k)))},localName:"distinct-values",namespaceURI:"http://www.w3.org/2005/xpath-functions",i:{type:46,g:2}}',
  'function Ob(a,b,c){const d=Nb(a,c).getTime();c=Nb(b,c).getTime();return d===c?a.ma===b.ma?0:a.ma>b.ma?1:-1:d>c?1:-1}',
  'Jf=a=>v(a,1)||v(a,20)||v(a,19),Kf=(a,b,c,d,e)=>0===d.length?0!==e.length:0!==e.length&&He(a,b,c,d[0],e[0]).next(0).value?Kf(a,b,c,d.slice(1),e.slice(1)):d[0].value!==d[0].value?!0:Jf(d[0].type)&&0!==e.length&&Jf(e[0].type)?d[0].value<e[0].value:0===e.length?!1:d[0].value<e[0].value,',
  'Lf=(a,b,c,d)=>{d.sort((e,f)=>Ge(a,b,c,w.create(e),w.create(f)).next(0).value?',
  't=Ad(h[0],w.m(t.value),b,"fn:for-each",!1);l=f.value.call(void 0,a,b,c,t).value',
  'function rc(a,b){',
  'const Nk=new Map;',
  'function Pk(a,b,c,d,e,f,h,k){a=Nk.get(a);if(!a)return null;',
  'function qc(a,b){',
  'const e=[];(function k(h){if(8!==d.node.nodeType&&7!==d.node.nodeType){var l=h.nodeType;',
  'case 1:return g(b+"",1);',
  'if(this.A[1])throw Error("More than one order spec is not supported for the order by clause.");const e=[];let f=!1,h,k,l=null;const n=this.A[0];return w.create({next:()=>{if(!f){for(var t=b.next(0);!t.done;)e.push(t.value),t=b.next(0);t=e.map(z=>n.aa.h(z,c)).map(z=>rc(z,c));if(t.find(z=>!z.isEmpty()&&!z.oa()))throw Error("XPTY0004: Order by only accepts empty or singleton sequences");h=\nt.map(z=>z.first());h=h.map(z=>null===z?z:v(19,z.type)?kd(z,1):z);if(Pi(h)&&(h=Oi(h),!h))throw Error("XPTY0004: Could not cast values");t=h.length;k=h.map((z,y)=>y);for(let z=0;z<t;z++)if(z+1!==t)for(let y=z;0<=y;y--){const F=y,N=y+1;if(N===t)continue;const U=h[k[F]],da=h[k[N]];if(null!==da||null!==U){if(n.ec){if(null===U)continue;if(null===da&&null!==U){[k[F],k[N]]=[k[N],k[F]];continue}if(isNaN(da.value)&&null!==U&&!isNaN(U.value)){[k[F],k[N]]=[k[N],k[F]];continue}}else{if(null===da)continue;if(null===\nU&&null!==da){[k[F],k[N]]=[k[N],k[F]];continue}if(isNaN(U.value)&&null!==da&&!isNaN(da.value)){[k[F],k[N]]=[k[N],k[F]];continue}}ui("gtOp",U.type,da.type)(U,da,a)&&([k[F],k[N]]=[k[N],k[F]])}}let u=n.Cb?0:h.length-1;l=d({next:()=>n.Cb?u>=h.length?p:q(e[k[u++]]):0>u?p:q(e[k[u--]])}).value;f=!0}return l.next(0)}})}};',
  'callFunction:(a,b,c,d,e)=>e.M(([f])=>rc(d,b).map((h,k)=>ui("eqOp",h.type,f.type)(h,f,a)?g(k+1,5):g(-1,5)).filter(h=>-1!==h.value)),localName:"index-of"',
  'function ui(a,b,c){const d=',
  'e||=ti[d]=si(a,b,c);return e}',
].join(';');

/**
 * fontoxpath loaded from its dist file, with or without every patch, counting the calls of one of
 * its functions (`counted`, the text that opens it): the mechanism, not a clock, tells n log n or
 * linear from quadratic. Returns an evaluator giving the result and the count.
 */
function countingFontoxpath(
  scratch: string,
  patched: boolean,
  counted: string,
  language: 'xpath' | 'xquery',
) {
  const path = join(DIST, 'fontoxpath.js');
  let source = readFileSync(path, 'utf8');
  if (patched) source = patchFontoxpath(source, path);
  source = source.replace(counted, `${counted}globalThis.oxmlCalls++;`);
  // The copy is outside node_modules, so the packages the dist file requires are named by path.
  const resolve = createRequire(path).resolve;
  for (const dependency of ['xspattern', 'prsc'])
    source = source.replace(`require('${dependency}')`, `require(${JSON.stringify(resolve(dependency))})`);
  const file = join(scratch, `fontoxpath-${patched ? 'patched' : 'unpatched'}.cjs`);
  writeFileSync(file, source);
  const fontoxpath = createRequire(file)(file) as typeof import('fontoxpath');
  return (expression: string) => {
    (globalThis as { oxmlCalls?: number }).oxmlCalls = 0;
    const result = fontoxpath.evaluateXPath(
      expression,
      null,
      null,
      null,
      fontoxpath.evaluateXPath.ALL_RESULTS_TYPE,
      {
        language:
          language === 'xquery'
            ? fontoxpath.evaluateXPath.XQUERY_3_1_LANGUAGE
            : fontoxpath.evaluateXPath.XPATH_3_1_LANGUAGE,
      },
    ) as unknown[];
    return { result, comparisons: (globalThis as { oxmlCalls?: number }).oxmlCalls };
  };
}

describe('fontoxpath-patches', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'oxml-fontoxpath-patch-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('applies once to both of fontoxpath 3.34.0 dist files, after the identity test in rd', () => {
    for (const file of ['fontoxpath.js', 'fontoxpath.esm.js']) {
      const path = join(DIST, file);
      expect(FONTOXPATH_DIST.test(path)).toBe(true);
      const source = readFileSync(path, 'utf8');
      const patched = patchFontoxpathOrder(source, path);
      expect(count(patched, ORDER_INSERT)).toBe(1);
      expect(patched).toContain(`if(c===e)return 0;${ORDER_INSERT}d=qd(b,c);`);
      expect(patched.length).toBe(source.length + ORDER_INSERT.length);
      // fontoxpath's DomFacade wrapper keeps the facade it was given as `h`.
      expect(source).toContain('constructor(a){this.h=a;this.o=[]}');
    }
  });

  it('throws when the text is absent, found twice, or already patched', () => {
    expect(() => patchFontoxpathOrder('function rd(a,b,c,d){return 0}', 'x.js')).toThrow(
      /fontoxpath-patches: expected the text .* exactly once in x\.js, found it 0/,
    );
    expect(() => patchFontoxpathOrder(`${ORDER_ANCHOR};${ORDER_ANCHOR}`)).toThrow(/more than once/);
    expect(() => patchFontoxpathOrder(patchFontoxpathOrder(ORDER_ANCHOR))).toThrow(/found it 0/);
  });

  it('touches only fontoxpath dist files', () => {
    expect(patchIfFontoxpath('/a/node_modules/other/dist/fontoxpath.js', 'x')).toBeNull();
    expect(
      patchIfFontoxpath('C:\\a\\node_modules\\fontoxpath\\dist\\fontoxpath.esm.js', MINIMAL_FONTOXPATH),
    ).toContain(ORDER_INSERT);
  });

  it('fails an esbuild build whose fontoxpath lacks the text', async () => {
    const pkg = join(scratch, 'node_modules', 'fontoxpath');
    mkdirSync(join(pkg, 'dist'), { recursive: true });
    writeFileSync(join(pkg, 'package.json'), '{"name":"fontoxpath","main":"dist/fontoxpath.js"}');
    writeFileSync(join(pkg, 'dist', 'fontoxpath.js'), 'module.exports = { rd() { return 0; } };');
    writeFileSync(join(scratch, 'entry.js'), "import f from 'fontoxpath'; console.log(f);");
    const run = () =>
      build({
        absWorkingDir: scratch,
        entryPoints: ['entry.js'],
        bundle: true,
        write: false,
        platform: 'node',
        logLevel: 'silent',
        plugins: [fontoxpathOrderEsbuild()],
      });
    await expect(run()).rejects.toThrow(/fontoxpath-patches: expected the text/);
    writeFileSync(
      join(pkg, 'dist', 'fontoxpath.js'),
      `module.exports = String.raw\`${MINIMAL_FONTOXPATH}\`;`,
    );
    const built = await run();
    expect(built.outputFiles?.[0]?.text).toContain('compareDocumentOrder');
  });
});

describe('fontoxpath duration patch', () => {
  it('applies once to both dist files and makes min and max compare durations by value', () => {
    for (const file of ['fontoxpath.js', 'fontoxpath.esm.js']) {
      const path = join(DIST, file);
      const patched = patchFontoxpathDurations(readFileSync(path, 'utf8'), path);
      expect(count(patched, 'x instanceof xb&&y instanceof xb')).toBe(2);
    }
  });

  it('throws when fontoxpath no longer has the text it rewrites', () => {
    expect(() => patchFontoxpathDurations('var xb=class{}', 'y.js')).toThrow(
      /fontoxpath-patches: expected the text .*localName:\\"max\\".* exactly once in y\.js/,
    );
  });
});

describe('regular-expression patches', () => {
  const ENGINE = 'globalThis[Symbol.for("oxml-mcp.xsd-regex")]';

  it('sends matches, replace and tokenize, with and without flags, to the one engine in both dist files', () => {
    for (const file of ['fontoxpath.js', 'fontoxpath.esm.js']) {
      const path = join(DIST, file);
      const patched = patchFontoxpathRegex(readFileSync(path, 'utf8'), path);
      expect(count(patched, `${ENGINE}.matches(`)).toBe(2);
      expect(count(patched, `${ENGINE}.replace(`)).toBe(2);
      expect(count(patched, `${ENGINE}.tokenize(`)).toBe(2);
      // Nothing calls fontoxpath's own regular expressions any more.
      expect(count(patched, 'Cd.compile)(')).toBe(0);
      // fontoxpath's RegExp is left only in replace#3's code after the patch's `return`.
      expect(count(patched, '=ge(')).toBe(1);
      expect(patched).toContain(`return w.m(g(${ENGINE}.replace(h,k.value,l.value,""),1));\nl=l.split(`);
      expect(patched).not.toContain('Not implemented: Using flags');
    }
  });

  it("exports xspattern's parser, keeping capturing groups and reluctant quantifiers", () => {
    const path = join(process.cwd(), 'node_modules', 'xspattern', 'dist', 'xspattern.esm.js');
    expect(XSPATTERN_ESM.test(path)).toBe(true);
    expect(patchIfFontoxpath(path, readFileSync(path, 'utf8'))).toContain('oA as oxmlPatternParser');
    expect(() => patchXspattern('export{HA as compile};', 'x.esm.js')).toThrow(
      /fontoxpath-patches: expected the text .* exactly once in x\.esm\.js/,
    );
  });

  it('throws when fontoxpath no longer has the text it rewrites', () => {
    expect(() => patchFontoxpathRegex('je.set(h,k)', 'z.js')).toThrow(
      /fontoxpath-patches: expected the text .* exactly once in z\.js/,
    );
  });
});

describe('compiled-expression cache patch', () => {
  it('applies once to both dist files, making the cache reachable by its registered key', () => {
    for (const file of ['fontoxpath.js', 'fontoxpath.esm.js']) {
      const path = join(DIST, file);
      const patched = patchFontoxpathCompiledCache(readFileSync(path, 'utf8'), path);
      expect(count(patched, `globalThis[Symbol.for("${COMPILED_CACHE_KEY}")]=new Map;`)).toBe(1);
    }
  });

  it('throws when fontoxpath no longer has the cache it exposes', () => {
    expect(() => patchFontoxpathCompiledCache('const Nk=new Map;', 'c.js')).toThrow(
      /fontoxpath-patches: expected the text .*Pk.* exactly once in c\.js/,
    );
  });
});

describe('string-value patch', () => {
  it("applies once to both dist files, asking the facade before fontoxpath's own walk", () => {
    for (const file of ['fontoxpath.js', 'fontoxpath.esm.js']) {
      const path = join(DIST, file);
      const patched = patchFontoxpathStringValue(readFileSync(path, 'utf8'), path);
      expect(count(patched, 'c.h.stringValueOf(d.node)')).toBe(1);
      expect(patched.indexOf('c.h.stringValueOf(d.node)')).toBeLessThan(
        patched.indexOf('const e=[];(function k(h){if(8!==d.node.nodeType'),
      );
    }
  });

  it('throws when fontoxpath no longer has the atomization it rewrites', () => {
    expect(() => patchFontoxpathStringValue('function qc(a,b){', 's.js')).toThrow(
      /fontoxpath-patches: expected the text .* exactly once in s\.js/,
    );
  });
});

describe('untyped return patch', () => {
  it('applies once to both dist files, converting a registered xs:untypedAtomic result as a string is', () => {
    for (const file of ['fontoxpath.js', 'fontoxpath.esm.js']) {
      const path = join(DIST, file);
      const patched = patchFontoxpathUntypedReturn(readFileSync(path, 'utf8'), path);
      expect(count(patched, 'case 1:return g(b+"",1);case 19:return g(b+"",19);')).toBe(1);
    }
  });

  it('throws when fontoxpath no longer has the conversion it extends', () => {
    expect(() => patchFontoxpathUntypedReturn('case 1:return g(b,1);', 'u.js')).toThrow(
      /fontoxpath-patches: expected the text .* exactly once in u\.js/,
    );
  });
});

describe('order by patch', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'oxml-fontoxpath-order-by-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it("applies once to both dist files, replacing order by's adjacent swaps with one sort of every key", () => {
    for (const file of ['fontoxpath.js', 'fontoxpath.esm.js']) {
      const path = join(DIST, file);
      const patched = patchFontoxpathOrderBy(readFileSync(path, 'utf8'), path);
      expect(count(patched, 'k.sort((x,y)=>{for(let i=0;i<S.length;i++)')).toBe(1);
      expect(count(patched, 'More than one order spec is not supported')).toBe(0);
      expect(patched).not.toContain('for(let z=0;z<t;z++)if(z+1!==t)for(let y=z;0<=y;y--)');
    }
  });

  it('throws when fontoxpath no longer has the sort it replaces', () => {
    expect(() => patchFontoxpathOrderBy('t=h.length;k=h.map((z,y)=>y);', 'o.js')).toThrow(
      /fontoxpath-patches: expected the text .* exactly once in o\.js/,
    );
  });

  it('compares n log n pairs where fontoxpath compared n²/2, with the same order', () => {
    // Each comparison looks its function up: counting the lookups counts the comparisons.
    const load = (patched: boolean) => countingFontoxpath(scratch, patched, 'function ui(a,b,c){', 'xquery');
    const patched = load(true);
    const unpatched = load(false);
    const sorted = 'for $i in 1 to 2000 let $v := $i * 7919 mod 2003 order by $v descending return $v';
    expect(patched(sorted).result).toEqual(unpatched(sorted).result);
    expect(unpatched(sorted).comparisons).toBeGreaterThan((2000 * 1999) / 2 - 2000);
    expect(patched(sorted).comparisons).toBeLessThan(2 * 2000 * Math.log2(2000));
  });
});

describe('index-of patch', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'oxml-fontoxpath-index-of-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('applies once to both dist files, comparing the atomized values in one loop', () => {
    for (const file of ['fontoxpath.js', 'fontoxpath.esm.js']) {
      const path = join(DIST, file);
      const patched = patchFontoxpathIndexOf(readFileSync(path, 'utf8'), path);
      expect(count(patched, 'let o=m.get(h.type);')).toBe(1);
      expect(patched).not.toContain('?g(k+1,5):g(-1,5)).filter(h=>-1!==h.value)');
    }
  });

  it('throws when fontoxpath no longer has the index-of it replaces', () => {
    expect(() => patchFontoxpathIndexOf('localName:"index-of"', 'i.js')).toThrow(
      /fontoxpath-patches: expected the text .* exactly once in i\.js/,
    );
  });

  it('looks the comparison up once per type, where fontoxpath looked it up for every value', () => {
    // Each lookup builds a key and reads a table: counting them counts the work per value.
    const load = (patched: boolean) => countingFontoxpath(scratch, patched, 'function ui(a,b,c){', 'xpath');
    const patched = load(true);
    const unpatched = load(false);
    const question = 'index-of(((1 to 2000) ! string(. mod 7), "x"), "3")';
    expect(patched(question).result).toEqual(unpatched(question).result);
    expect(unpatched(question).comparisons).toBeGreaterThanOrEqual(2001);
    expect(patched(question).comparisons).toBeLessThanOrEqual(2);
  });
});

describe('distinct-values and sort patch', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'oxml-fontoxpath-distinct-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('applies once to both dist files, adding fn:sort#1, #2 and #3 after distinct-values', () => {
    for (const file of ['fontoxpath.js', 'fontoxpath.esm.js']) {
      const path = join(DIST, file);
      const patched = patchFontoxpathDistinctSort(readFileSync(path, 'utf8'), path);
      expect(patched).not.toContain('e.slice(0,h).every(k=>!De(f,k))');
      expect(count(patched, 'localName:"sort",namespaceURI:"http://www.w3.org/2005/xpath-functions"')).toBe(
        3,
      );
    }
  });

  it('throws when fontoxpath no longer has the text it rewrites or the names it calls', () => {
    expect(() => patchFontoxpathDistinctSort('function rc(a,b){', 'd.js')).toThrow(
      /fontoxpath-patches: expected the text .*distinct-values.* exactly once in d\.js/,
    );
    const withoutNb = MINIMAL_FONTOXPATH.replace('const d=Nb(a,c)', 'const d=Mb(a,c)');
    expect(() => patchFontoxpathDistinctSort(withoutNb, 'e.js')).toThrow(/Nb\(a,c\)/);
  });

  it('compares no two values: fontoxpath compared each with every one before it', () => {
    // Counting the calls of its pairwise equality `De`.
    const patched = countingFontoxpath(scratch, true, 'function De(a,b){', 'xpath');
    const unpatched = countingFontoxpath(scratch, false, 'function De(a,b){', 'xpath');
    const distinct = 'distinct-values(1 to 2000)';
    expect(patched(distinct)).toEqual({ result: [...Array(2000).keys()].map((k) => k + 1), comparisons: 0 });
    expect(unpatched(distinct).comparisons).toBe((2000 * 1999) / 2);
    const grouped = 'distinct-values((1 to 2000) ! (. mod 50))';
    expect(patched(grouped)).toEqual({
      result: [...Array(50).keys()].map((k) => (k + 1) % 50),
      comparisons: 0,
    });
    expect(unpatched(grouped).result).toEqual(patched(grouped).result);
  });
});
