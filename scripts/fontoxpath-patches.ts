/**
 * The two changes made to fontoxpath 3.34.0's code (docs/adr/0034-two-patches-to-fontoxpath.md).
 *
 * 1. Its document-order comparison of two nodes of
 * an external DOM (minified `rd`, unminified `compareNodePositionsWithTieBreaker` in
 * src/dataTypes/documentOrderUtils.ts) builds both ancestor chains and scans their common
 * parent's whole child list, so sorting the records of a flat export is quadratic in their
 * count (8 MiB: 5 to 14 s for `sum(//record/price)`). The patch asks the external facade first:
 * `b` there is fontoxpath's DomFacade wrapper, whose field `h` is the facade it was given
 * (src/engine/libxml2/xpath31-view.ts, `compareDocumentOrder`); when the facade has no such
 * method, or answers `undefined`, fontoxpath goes on as before. Attributes never reach `rd`
 * (its caller `sd` compares them by their element, and two of one element by local name), so
 * fontoxpath's order is kept exactly.
 *
 * 2. `fn:min` and `fn:max` compare with `<` and `>`, which for its duration objects (no
 * `valueOf`) compares their strings: `max((PT30M, PT1H, PT5M))` was PT5M, silently. The patch
 * compares two durations (instances of the duration base class, minified `xb`) by months, then
 * seconds (`o()`, `v()`, which its own `equals` uses), and anything else as before.
 *
 * 3. Its regular-expression functions call the engine of src/engine/query/xsd-regex.ts (REGEX_PATCHES,
 * below), which reads patterns with xspattern's parser, exported by a patch of xspattern.
 *
 * 4. fn:distinct-values in linear time, and fn:sort (DISTINCT_SORT_PATCHES, below; ADR 0050;
 * sort#1 and sort#2 since ADR 0055's second addendum).
 *
 * 5. Its cache of compiled expressions can be emptied (COMPILED_CACHE_PATCHES, below; ADR 0053).
 *
 * 6. Atomizing an element asks the facade for its string-value (STRING_VALUE_PATCHES, below; ADR 0055).
 *
 * 7. A registered function may return xs:untypedAtomic (UNTYPED_RETURN_PATCHES, below; ADR 0055).
 *
 * 8. XQuery's `order by` sorts in n log n, by one key or several (ORDER_BY_PATCHES, below; ADR 0055).
 *
 * 9. fn:index-of compares values directly, incomparable ones as not equal (INDEX_OF_PATCHES, below; ADR 0055).
 *
 * All are applied to fontoxpath's dist file (CommonJS `fontoxpath.js`, which esbuild, tsx and Node pick
 * through `main`; the ES module `fontoxpath.esm.js`, which Vite picks through `module`; both have
 * the same text) by: the production bundle (scripts/build.ts, esbuild plugin), vitest
 * (vitest.config.ts, Vite plugin) and the engine workers tests start from TypeScript
 * (src/engine/runtime/engine-worker.ts registers scripts/fontoxpath-hooks.ts). It throws
 * unless the expected text is there exactly once, so a fontoxpath upgrade fails the build
 * instead of silently losing the patch.
 */

import { readFileSync } from 'node:fs';
import type { Plugin as EsbuildPlugin } from 'esbuild';
import type { Plugin as VitePlugin } from 'vite';

/** fontoxpath's dist files, as a path (either separator). */
export const FONTOXPATH_DIST = /[\\/]node_modules[\\/]fontoxpath[\\/]dist[\\/]fontoxpath(?:\.esm)?\.js$/;

/** The text the patch goes into; the insertion is after `if(c===e)return 0;`. */
export const ORDER_ANCHOR = 'c=c.node;e=d.node;if(c===e)return 0;d=qd(b,c);c=qd(b,e);';
const INSERT_AFTER = 'if(c===e)return 0;';
export const ORDER_INSERT =
  'if(b.h&&b.h.compareDocumentOrder){const oxmlOrder=b.h.compareDocumentOrder(c,e);if(oxmlOrder!==void 0)return oxmlOrder}';

/** fontoxpath's source with the document-order patch; throws unless the anchor occurs exactly once. */
export function patchFontoxpathOrder(source: string, file = 'fontoxpath'): string {
  const at = source.indexOf(ORDER_ANCHOR);
  const again = at < 0 ? -1 : source.indexOf(ORDER_ANCHOR, at + 1);
  if (at < 0 || again >= 0) {
    throw new Error(
      `fontoxpath-patches: expected the text ${JSON.stringify(ORDER_ANCHOR)} exactly once in ${file}, ` +
        `found it ${at < 0 ? 0 : 'more than once'}; fontoxpath changed (package.json pins 3.34.0): ` +
        'check its document-order comparison (documentOrderUtils) and update scripts/fontoxpath-patches.ts',
    );
  }
  const cut = at + ORDER_ANCHOR.indexOf(INSERT_AFTER) + INSERT_AFTER.length;
  return source.slice(0, cut) + ORDER_INSERT + source.slice(cut);
}

/** `a` before `b`: durations by months then seconds, anything else as fontoxpath compared it. */
const BEFORE = '((x,y)=>x instanceof xb&&y instanceof xb?(x.o()-y.o()||x.v()-y.v())<0:x<y)';
const DURATION_PATCHES: ReadonlyArray<readonly [string, string]> = [
  [
    'return w.m(a.reduce((e,f)=>e.value<f.value?f:e))},localName:"max"',
    `return w.m(a.reduce((e,f)=>${BEFORE}(e.value,f.value)?f:e))},localName:"max"`,
  ],
  [
    'return w.m(a.reduce((e,f)=>e.value>f.value?f:e))},localName:"min"',
    `return w.m(a.reduce((e,f)=>${BEFORE}(f.value,e.value)?f:e))},localName:"min"`,
  ],
  // The class the comparison names must be the duration base class it was written against.
  ['var xb=class{equals(a){return this.o()===a.o()&&this.v()===a.v()}', ''],
];

/** fontoxpath's source with min and max comparing durations by value; throws unless each anchor occurs once. */
export function patchFontoxpathDurations(source: string, file = 'fontoxpath'): string {
  return replaceEachOnce(source, DURATION_PATCHES, file, 'fn:min/fn:max');
}

/**
 * `source` with each anchor replaced (an empty replacement only checks that the anchor is there);
 * throws unless each occurs exactly once, naming `what` to re-read in fontoxpath.
 */
function replaceEachOnce(
  source: string,
  patches: ReadonlyArray<readonly [string, string]>,
  file: string,
  what: string,
): string {
  let patched = source;
  for (const [anchor, replacement] of patches) {
    const at = patched.indexOf(anchor);
    if (at < 0 || patched.indexOf(anchor, at + 1) >= 0) {
      throw new Error(
        `fontoxpath-patches: expected the text ${JSON.stringify(anchor)} exactly once in ${file}; fontoxpath changed (package.json pins 3.34.0): check ${what} and update scripts/fontoxpath-patches.ts`,
      );
    }
    if (replacement !== '') patched = patched.slice(0, at) + replacement + patched.slice(at + anchor.length);
  }
  return patched;
}

/**
 * Where the patched functions find the regular-expression engine (src/engine/query/xsd-regex.ts
 * puts it there as it loads; a worker is its own realm). fontoxpath has no hook to reach it.
 */
const ENGINE = 'globalThis[Symbol.for("oxml-mcp.xsd-regex")]';

/**
 * fn:matches, fn:replace and fn:tokenize, all of them, on the one XSD-regex engine (ADR 0048):
 * fontoxpath gave only `matches` its XSD-regex engine (xspattern) and handed `replace` and
 * `tokenize` to JavaScript's RegExp (backtracking: `(a+)+b` took seconds; `\p{Lu}`, class
 * subtraction read as JavaScript; `(?<=a)b` accepted), kept every pattern for the worker's life,
 * and refused flags. The engine caches patterns for one call only.
 */
const REGEX_PATCHES: ReadonlyArray<readonly [string, string]> = [
  // fn:matches#2: its xspattern matcher and its cache.
  [
    // biome-ignore lint/suspicious/noTemplateCurlyInString: fontoxpath's own template literal, matched as text
    'let k=je.get(h);if(!k){try{k=(0,Cd.compile)(h,{language:"xpath"})}catch(l){throw Error(`FORX0002: ${l}`);}je.set(h,k)}return k(f)?w.$():w.S()',
    `return ${ENGINE}.matches(f,h,"")?w.$():w.S()`,
  ],
  // fn:matches#3, which fontoxpath lacks: declared after #2.
  [
    'localName:"matches",namespaceURI:"http://www.w3.org/2005/xpath-functions",i:{type:0,g:3}}',
    `localName:"matches",namespaceURI:"http://www.w3.org/2005/xpath-functions",i:{type:0,g:3}},{j:[{type:1,g:0},{type:1,g:3},{type:1,g:3}],callFunction:(a,b,c,d,e,f)=>tb([d,e,f],([h,k,l])=>${ENGINE}.matches(h?h.value:"",k.value,l.value)?w.$():w.S()),localName:"matches",namespaceURI:"http://www.w3.org/2005/xpath-functions",i:{type:0,g:3}}`,
  ],
  // fn:tokenize#2 (and #1, which calls it with " "): the RegExp loop.
  [
    'e=e.first().value;e=ge(e);e.lastIndex=0;b=[];c=e.exec(a);for(d=0;c;)b.push(a.slice(d,c.index)),d=e.lastIndex,c=e.exec(a);b.push(a.slice(d));return w.create(b.map(f=>g(f,1)))',
    `e=e.first().value;return w.create(${ENGINE}.tokenize(a,e,"").map(f=>g(f,1)))`,
  ],
  // fn:tokenize#3, refused.
  [
    'callFunction(){throw Error("Not implemented: Using flags in tokenize is not supported");}',
    `callFunction(a,b,c,d,e,f){return d.isEmpty()?w.empty():w.create(${ENGINE}.tokenize(d.first().value,e.first().value,f.first().value).map(x=>g(x,1)))}`,
  ],
  // fn:replace#3: returns before its RegExp code, which is left unreachable.
  [
    'k=k.value;l=l.value;if(l.includes("$0"))throw Error("Using $0 in fn:replace to replace substrings with full matches is not supported.");',
    `return w.m(g(${ENGINE}.replace(h,k.value,l.value,""),1));`,
  ],
  // fn:replace#4, refused; fontoxpath's closing brace follows on the next line.
  [
    'callFunction(){throw Error("Not implemented: Using flags in replace is not supported");',
    `callFunction(a,b,c,d,e,f,h){return tb([d,e,f,h],([i,k,l,m])=>w.m(g(${ENGINE}.replace(i?i.value:"",k.value,l.value,m.value),1)));`,
  ],
];

/** fontoxpath's source with its regular-expression functions on the engine; throws unless each anchor occurs once. */
export function patchFontoxpathRegex(source: string, file = 'fontoxpath'): string {
  return replaceEachOnce(source, REGEX_PATCHES, file, 'fn:matches, fn:replace and fn:tokenize');
}

/**
 * The key of an atomic value `f` for distinct-values: two values are equal exactly when their
 * keys are (a Set compares keys with SameValueZero, so NaN is one key and 0 is -0). Numbers of
 * every numeric type by their value (fontoxpath keeps xs:decimal and xs:float as doubles and
 * compares them so); xs:string, xs:anyURI and xs:untypedAtomic by their text, code point by
 * code point; a date or time by its instant (`Nb`, which fontoxpath's comparison `Ob` uses, with
 * the fraction of a second it keeps apart, `ma`) within its own type; a duration by months and
 * seconds (`xb`'s `equals`, any duration type); a QName by namespace and local name; anything
 * else by type and value. Types XPath cannot compare get different keys, so they stay distinct:
 * fontoxpath's pairwise test took xs:date and xs:dateTime, or xs:hexBinary and a string, as equal,
 * and xs:duration('PT60M') and xs:dayTimeDuration('PT1H') as different in one order.
 */
const DISTINCT_KEY =
  '(f=>{const t=f.type,x=f.value;' +
  'return v(t,3)||v(t,4)||v(t,6)?x' +
  ':v(t,1)||v(t,19)||v(t,20)?"s"+x' +
  ':v(t,0)?"b"+x' +
  ':v(t,16)||v(t,17)||v(t,18)?"d"+x.o()+":"+x.v()' +
  ':v(t,23)?"q"+x.namespaceURI+"}"+x.localName' +
  ':[7,8,11,12,13,14,15].includes(t)||v(t,9)?"t"+(v(t,9)?9:t)+":"+Nb(x).getTime()+":"+x.ma' +
  ':"o"+t+":"+String(x)})';

/**
 * Whether key sequence `d` sorts before `e` in fn:sort#3 (`a`, `b`, `c`: the call's contexts):
 * array:sort's `Kf` (item by item, equal items skipped with `He`, NaN first, a shorter
 * sequence first), except that two items XPath cannot compare (a number and a string) raise
 * XPTY0004 instead of comparing as JavaScript values, and durations compare by months, then
 * seconds, as min and max do (DURATION_PATCHES).
 */
const SORT_KEY_BEFORE =
  '((d,e)=>{const K=t=>v(t,2)?"n":Jf(t)?"s":v(t,0)?"b":v(t,16)||v(t,17)||v(t,18)?"d":v(t,9)?"t9":"o"+t;' +
  'const L=(d,e)=>0===d.length?0!==e.length:0!==e.length&&He(a,b,c,d[0],e[0]).next(0).value?L(d.slice(1),e.slice(1))' +
  ':d[0].value!==d[0].value?!0:0===e.length?!1' +
  ':K(d[0].type)!==K(e[0].type)?(()=>{throw Error("XPTY0004: fn:sort cannot compare the keys "+d[0].value+" and "+e[0].value+": their types are not comparable.")})()' +
  `:${BEFORE}(d[0].value,e[0].value);return L(d,e)})`;

/** fn:sort's name and result type, in each of its three declarations. */
const SORT_NAME = 'localName:"sort",namespaceURI:"http://www.w3.org/2005/xpath-functions",i:{type:59,g:2}';
/** fn:sort's collation argument `e`: absent or the codepoint collation. */
const SORT_COLLATION =
  'const h=e.first();if(h!==null&&h.value!=="http://www.w3.org/2005/xpath-functions/collation/codepoint")throw Error("FOCH0002: The collation "+h.value+" is not supported; use the default.");';
/**
 * fn:sort's body: the items `d` in the order of their keys (`keys`, an expression of `l`, the
 * items, giving each one's atomized key sequence). Two single numbers (NaN first) or two single
 * strings are compared directly; anything else as array:sort compares.
 */
const sortBy = (keys: string) =>
  `const l=d.N(),m=${keys},o=l.map((x,i)=>i);` +
  'o.sort((x,y)=>{const p=m[x],q=m[y];' +
  'if(1===p.length&&1===q.length){const s=p[0],t=q[0];' +
  'if(v(s.type,2)&&v(t.type,2)){const u=s.value,z=t.value;return u!==u?z!==z?0:-1:z!==z?1:u<z?-1:u>z?1:0}' +
  'if(Jf(s.type)&&Jf(t.type))return s.value<t.value?-1:s.value>t.value?1:0}' +
  `return Ge(a,b,c,w.create(p),w.create(q)).next(0).value?0:${SORT_KEY_BEFORE}(p,q)?-1:1});` +
  'return w.create(o.map(i=>l[i]))';

/**
 * fn:distinct-values in linear time, and fn:sort.
 *
 * fontoxpath's distinct-values kept a value unless it equalled one of all the values before it
 * (`e.slice(0,h).every(…)`): quadratic, even with few distinct values (35,834 values, 54
 * distinct: past 10 s). The patch keeps a value unless its DISTINCT_KEY was seen: the first of
 * equal values, in input order, as before.
 *
 * fn:sort, which fontoxpath lacks: declared after distinct-values. sort#3 (a key function)
 * cannot be registered from outside (a registered function gets a function item it cannot call):
 * it calls the key function as fn:for-each does (`Ad` converts the argument to the function's
 * declared type). sort#1 and sort#2 key each item by its atomized value; registered from outside
 * they got JavaScript numbers back and answered an xs:integer as an xs:double. Each atomizes its
 * keys (`rc`) and orders them as array:sort does (`Ge` deep-equal, `Kf` less-than), two single
 * numbers or two single strings compared directly; Array's sort is stable, so equal keys keep
 * their order.
 */
const DISTINCT_SORT_PATCHES: ReadonlyArray<readonly [string, string]> = [
  [
    'callFunction:(a,b,c,d)=>{const e=rc(d,b).N();return w.create(e).filter((f,h)=>e.slice(0,h).every(k=>!De(f,k)))},localName:"distinct-values",namespaceURI:"http://www.w3.org/2005/xpath-functions",i:{type:46,g:2}}',
    `callFunction:(a,b,c,d)=>{const e=rc(d,b).N(),m=new Set,r=[];for(const f of e){const k=${DISTINCT_KEY}(f);if(!m.has(k)){m.add(k);r.push(f)}}return w.create(r)},localName:"distinct-values",namespaceURI:"http://www.w3.org/2005/xpath-functions",i:{type:46,g:2}},` +
      `{j:[{type:59,g:2}],callFunction:(a,b,c,d)=>{${sortBy('l.map(x=>rc(w.m(x),b).N())')}},${SORT_NAME}},` +
      `{j:[{type:59,g:2},{type:1,g:0}],callFunction:(a,b,c,d,e)=>{${SORT_COLLATION}${sortBy('l.map(x=>rc(w.m(x),b).N())')}},${SORT_NAME}},` +
      `{j:[{type:59,g:2},{type:1,g:0},{type:60,g:3}],callFunction:(a,b,c,d,e,f)=>{${SORT_COLLATION}const k=f.first();if(1!==k.o.length)throw Error("XPTY0004: signature of function passed to fn:sort is incompatible.");${sortBy('l.map(x=>rc(k.value.call(void 0,a,b,c,Ad(k.o[0],w.m(x),b,"fn:sort",!1)),b).N())')}},${SORT_NAME}}`,
  ],
  // The names the patch calls must mean what they meant when it was written.
  [
    'function Ob(a,b,c){const d=Nb(a,c).getTime();c=Nb(b,c).getTime();return d===c?a.ma===b.ma?0:a.ma>b.ma?1:-1:d>c?1:-1}',
    '',
  ],
  [
    'Jf=a=>v(a,1)||v(a,20)||v(a,19),Kf=(a,b,c,d,e)=>0===d.length?0!==e.length:0!==e.length&&He(a,b,c,d[0],e[0]).next(0).value?Kf(a,b,c,d.slice(1),e.slice(1)):d[0].value!==d[0].value?!0:Jf(d[0].type)&&0!==e.length&&Jf(e[0].type)?d[0].value<e[0].value:0===e.length?!1:d[0].value<e[0].value,',
    '',
  ],
  ['Lf=(a,b,c,d)=>{d.sort((e,f)=>Ge(a,b,c,w.create(e),w.create(f)).next(0).value?', ''],
  ['t=Ad(h[0],w.m(t.value),b,"fn:for-each",!1);l=f.value.call(void 0,a,b,c,t).value', ''],
  ['function rc(a,b){', ''],
];

/** fontoxpath's source with a linear fn:distinct-values and an fn:sort; throws unless each anchor occurs once. */
export function patchFontoxpathDistinctSort(source: string, file = 'fontoxpath'): string {
  return replaceEachOnce(source, DISTINCT_SORT_PATCHES, file, 'fn:distinct-values and array:sort');
}

/**
 * The key, in the global symbol registry, of fontoxpath's cache of compiled expressions (a Map
 * from the expression's text), so the engine can empty it (src/engine/libxml2/xpath31-view.ts).
 */
export const COMPILED_CACHE_KEY = 'oxml-mcp.fontoxpath.compiled';

/**
 * fontoxpath keeps every expression it compiles, unless told `disableCache`, in a module-level
 * Map (`Nk`) it never empties (ADR 0048). Schematron evaluates the same rules on every call with
 * a held schema, and compiling the EN 16931 rules costs seconds where running them costs a tenth
 * of that, so its evaluations use the cache; the patch makes the Map reachable so the engine can
 * keep one schema's expressions and empty it before another's (ADR 0053).
 */
const COMPILED_CACHE_PATCHES: ReadonlyArray<readonly [string, string]> = [
  ['const Nk=new Map;', `const Nk=globalThis[Symbol.for("${COMPILED_CACHE_KEY}")]=new Map;`],
  ['function Pk(a,b,c,d,e,f,h,k){a=Nk.get(a);if(!a)return null;', ''],
];

/** fontoxpath's source with its compiled-expression cache reachable; throws unless each anchor occurs once. */
export function patchFontoxpathCompiledCache(source: string, file = 'fontoxpath'): string {
  return replaceEachOnce(source, COMPILED_CACHE_PATCHES, file, 'the compiled-expression cache');
}

/**
 * Atomizing an element or the document node (`qc`, unminified `atomizeSingleValue`) walks its
 * subtree through the facade: every descendant gets a wrapper, and `sum(//record !
 * number(price))` spent more on them than on the rest (ADR 0055, addendum). The patch asks the
 * external facade for the string-value first (src/engine/libxml2/xpath31-view.ts,
 * `stringValueOf`; `c` is fontoxpath's DomFacade wrapper, `c.h` the facade it was given); a
 * facade without it, or answering `undefined`, gets fontoxpath's walk. The result is the same
 * xs:untypedAtomic (type 19) either way.
 */
const STRING_VALUE_PATCHES: ReadonlyArray<readonly [string, string]> = [
  [
    'const e=[];(function k(h){if(8!==d.node.nodeType&&7!==d.node.nodeType){var l=h.nodeType;',
    'if(c.h&&c.h.stringValueOf){const oxmlText=c.h.stringValueOf(d.node);if(oxmlText!==void 0)return w.create(g(oxmlText,19))}const e=[];(function k(h){if(8!==d.node.nodeType&&7!==d.node.nodeType){var l=h.nodeType;',
  ],
  // What the inserted text calls must mean what it meant when it was written.
  ['function qc(a,b){', ''],
];

/** fontoxpath's source asking the facade for an element's string-value; throws unless each anchor occurs once. */
export function patchFontoxpathStringValue(source: string, file = 'fontoxpath'): string {
  return replaceEachOnce(
    source,
    STRING_VALUE_PATCHES,
    file,
    'atomization of an element (atomizeSingleValue)',
  );
}

/**
 * A registered function's JavaScript result is converted by its declared type (`Wb`, unminified
 * `adaptJavaScriptValueToXPathValue`), which knows xs:string but not xs:untypedAtomic. The
 * distinct texts of a path libxml2 selected are what `distinct-values` of its nodes gives, typed
 * xs:untypedAtomic (src/engine/libxml2/xpath31-view.ts, `distinct-texts`): cast one by one in
 * XPath instead, 10^5 of them cost 110 ms of a 200 ms call (ADR 0055, second addendum).
 */
const UNTYPED_RETURN_PATCHES: ReadonlyArray<readonly [string, string]> = [
  ['case 1:return g(b+"",1);', 'case 1:return g(b+"",1);case 19:return g(b+"",19);'],
];

/** fontoxpath's source converting a registered function's string to xs:untypedAtomic; throws unless the anchor occurs once. */
export function patchFontoxpathUntypedReturn(source: string, file = 'fontoxpath'): string {
  return replaceEachOnce(
    source,
    UNTYPED_RETURN_PATCHES,
    file,
    'a registered function returning xs:untypedAtomic',
  );
}

/**
 * XQuery's `order by` (`Qi`, unminified `OrderByExpression`), rewritten:
 * - it sorted its keys by adjacent swaps that never stop early: n²/2 comparisons whatever the
 *   order, each looking up its comparison function, so `for $r in //record order by
 *   number($r/price) return …` over 23,000 records took 80 to 155 s. Now Array's sort, stable;
 * - it read each key's lazy sequence three times (`isEmpty`, the singleton test, `first`): now
 *   once, into an array;
 * - it refused a second key ("More than one order spec is not supported"), which models write
 *   for ties (`order by $a descending, $b`): now each key in turn, each with its own direction
 *   and empty order;
 * - descending read the ascending order backwards, so equal keys came out in reverse: now each
 *   key's comparison is reversed instead, and equal keys keep their input order (what `stable
 *   order by` requires, and allowed without it);
 * - its NaN test, `isNaN(value)`, took every text that is not a number for NaN, so `'abc'` sorted
 *   before `'10'`: now numbers only.
 * The "greater-than" of two keys is the specification's, as fontoxpath had it: empty least or
 * greatest, NaN next to the empty sequence, else `gt` (ADR 0055, addendum 2).
 */
const ORDER_BY_GREATER =
  '(W,V)=>{const M=x=>"number"===typeof x.value&&x.value!==x.value;' +
  'if(n.ec){if(null===V)return null!==W;if(null===W)return!1;if(M(V))return!M(W);if(M(W))return!1}' +
  'else{if(null===W)return null!==V;if(null===V)return!1;if(M(W))return!M(V);if(M(V))return!1}' +
  'return ui("gtOp",W.type,V.type)(W,V,a)}';
const ORDER_BY_PATCHES: ReadonlyArray<readonly [string, string]> = [
  [
    'if(this.A[1])throw Error("More than one order spec is not supported for the order by clause.");const e=[];let f=!1,h,k,l=null;const n=this.A[0];return w.create({next:()=>{if(!f){for(var t=b.next(0);!t.done;)e.push(t.value),t=b.next(0);t=e.map(z=>n.aa.h(z,c)).map(z=>rc(z,c));if(t.find(z=>!z.isEmpty()&&!z.oa()))throw Error("XPTY0004: Order by only accepts empty or singleton sequences");h=\nt.map(z=>z.first());h=h.map(z=>null===z?z:v(19,z.type)?kd(z,1):z);if(Pi(h)&&(h=Oi(h),!h))throw Error("XPTY0004: Could not cast values");t=h.length;k=h.map((z,y)=>y);for(let z=0;z<t;z++)if(z+1!==t)for(let y=z;0<=y;y--){const F=y,N=y+1;if(N===t)continue;const U=h[k[F]],da=h[k[N]];if(null!==da||null!==U){if(n.ec){if(null===U)continue;if(null===da&&null!==U){[k[F],k[N]]=[k[N],k[F]];continue}if(isNaN(da.value)&&null!==U&&!isNaN(U.value)){[k[F],k[N]]=[k[N],k[F]];continue}}else{if(null===da)continue;if(null===\nU&&null!==da){[k[F],k[N]]=[k[N],k[F]];continue}if(isNaN(U.value)&&null!==da&&!isNaN(da.value)){[k[F],k[N]]=[k[N],k[F]];continue}}ui("gtOp",U.type,da.type)(U,da,a)&&([k[F],k[N]]=[k[N],k[F]])}}let u=n.Cb?0:h.length-1;l=d({next:()=>n.Cb?u>=h.length?p:q(e[k[u++]]):0>u?p:q(e[k[u--]])}).value;f=!0}return l.next(0)}})}};',
    'const e=[];let f=!1,l=null;const S=this.A;return w.create({next:()=>{if(!f){for(var t=b.next(0);!t.done;)e.push(t.value),t=b.next(0);' +
      'const H=S.map(n=>{let h=e.map(z=>rc(n.aa.h(z,c),c).N());if(h.find(z=>1<z.length))throw Error("XPTY0004: Order by only accepts empty or singleton sequences");' +
      'h=h.map(z=>0===z.length?null:v(19,z[0].type)?kd(z[0],1):z[0]);if(Pi(h)&&(h=Oi(h),!h))throw Error("XPTY0004: Could not cast values");return h});' +
      `const G=S.map(n=>${ORDER_BY_GREATER});` +
      'const k=e.map((z,y)=>y);k.sort((x,y)=>{for(let i=0;i<S.length;i++){const h=H[i],r=G[i](h[x],h[y])?1:G[i](h[y],h[x])?-1:0;if(0!==r)return S[i].Cb?r:-r}return 0});' +
      'let u=0;l=d({next:()=>u>=e.length?p:q(e[k[u++]])}).value;f=!0}return l.next(0)}})}};',
  ],
];

/** fontoxpath's source with an `order by` in n log n, of one key or several; throws unless the anchor occurs once. */
export function patchFontoxpathOrderBy(source: string, file = 'fontoxpath'): string {
  return replaceEachOnce(source, ORDER_BY_PATCHES, file, "XQuery's order by (OrderByExpression)");
}

/**
 * fn:index-of (ADR 0055, addendum 4) compared each value through a lazy chain: an iterator step
 * for the atomizing, the map and the filter, a new integer for every position that did not
 * match, and a comparison function looked up by a string key built per value (`ui`). Now the
 * values are atomized once into an array, the comparison is looked up once per type, and only
 * matching positions become integers: the DocBook question's `$d ! count(index-of($n, .))` (362
 * calls over 382 values) 27 → 19 ms; the rest is fontoxpath converting the argument per call. Two values XPath cannot compare (`ui` throws XPTY0004 when
 * none exists) are not equal, as the function's definition says (fontoxpath raised the error).
 */
const INDEX_OF_PATCHES: ReadonlyArray<readonly [string, string]> = [
  [
    'callFunction:(a,b,c,d,e)=>e.M(([f])=>rc(d,b).map((h,k)=>ui("eqOp",h.type,f.type)(h,f,a)?g(k+1,5):g(-1,5)).filter(h=>-1!==h.value)),localName:"index-of"',
    'callFunction:(a,b,c,d,e)=>e.M(([f])=>{const l=rc(d,b).N(),m=new Map,r=[];' +
      'for(let k=0;k<l.length;k++){const h=l[k];let o=m.get(h.type);' +
      'if(void 0===o){try{o=ui("eqOp",h.type,f.type)}catch(x){if(!/^XPTY0004/.test(x.message))throw x;o=null}m.set(h.type,o)}' +
      'if(null!==o&&o(h,f,a))r.push(g(k+1,5))}return w.create(r)}),localName:"index-of"',
  ],
  // What the replacement calls must mean what it meant when it was written.
  ['function ui(a,b,c){const d=', ''],
  ['e||=ti[d]=si(a,b,c);return e}', ''],
];

/** fontoxpath's source with an fn:index-of that compares values directly; throws unless each anchor occurs once. */
export function patchFontoxpathIndexOf(source: string, file = 'fontoxpath'): string {
  return replaceEachOnce(source, INDEX_OF_PATCHES, file, 'fn:index-of');
}

/** Every patch, in the order applied (each anchors on fontoxpath's own text, not on another's). */
const EVERY_PATCH = [
  patchFontoxpathOrder,
  patchFontoxpathStringValue,
  patchFontoxpathDurations,
  patchFontoxpathRegex,
  patchFontoxpathDistinctSort,
  patchFontoxpathCompiledCache,
  patchFontoxpathUntypedReturn,
  patchFontoxpathOrderBy,
  patchFontoxpathIndexOf,
];

/** Every patch. */
export function patchFontoxpath(source: string, file = 'fontoxpath'): string {
  return EVERY_PATCH.reduce((patched, patch) => patch(patched, file), source);
}

/** xspattern's ES module (the one `import` resolves to; fontoxpath's CommonJS file requires the other). */
export const XSPATTERN_ESM = /[\\/]node_modules[\\/]xspattern[\\/]dist[\\/]xspattern\.esm\.js$/;

/**
 * xspattern parses a pattern to a tree its own matcher reads, but exports only the matcher, a
 * yes/no for the whole string; replace and tokenize need where a match is and what its groups
 * hold. The patch exports the parser, and keeps in the tree the two facts its matcher does not
 * need: whether a group captures (`(?:…)` does not) and whether a quantifier is reluctant (`*?`).
 */
const XSPATTERN_PATCHES: ReadonlyArray<readonly [string, string]> = [
  [
    'u(E(BA,T(D(C("?:")),SA),aA,!0),A=>({kind:"regexp",value:A}))',
    'u(E(BA,I(D(C("?:")),SA,(q,A)=>({kind:"regexp",value:A,capturing:null===q})),aA,!0),A=>A)',
  ],
  ['E(R,fA,V,!0)]),D(GA),(A,B)=>A)', 'E(R,fA,V,!0)]),D(GA),(A,B)=>null===B?A:{min:A.min,max:A.max,lazy:!0})'],
  ['export{HA as compile};', 'export{HA as compile,oA as oxmlPatternParser};'],
];

/** xspattern's ES module with its parser exported; throws unless each anchor occurs once. */
export function patchXspattern(source: string, file = 'xspattern'): string {
  return replaceEachOnce(
    source,
    XSPATTERN_PATCHES,
    file,
    "xspattern's pattern parser (package.json of fontoxpath 3.34.0 takes xspattern ^3.1.0)",
  );
}

/** The patched source when `path` is one of the files patched here, else null. */
export function patchIfFontoxpath(path: string, source: string): string | null {
  if (FONTOXPATH_DIST.test(path)) return patchFontoxpath(source, path);
  return XSPATTERN_ESM.test(path) ? patchXspattern(source, path) : null;
}

/** The patch as an esbuild plugin (scripts/build.ts, the benchmark's bundles). */
export function fontoxpathOrderEsbuild(): EsbuildPlugin {
  return {
    name: 'fontoxpath-order',
    setup(esbuild) {
      esbuild.onLoad({ filter: FONTOXPATH_DIST }, (args) => ({
        contents: patchFontoxpath(readFileSync(args.path, 'utf8'), args.path),
        loader: 'js',
      }));
      esbuild.onLoad({ filter: XSPATTERN_ESM }, (args) => ({
        contents: patchXspattern(readFileSync(args.path, 'utf8'), args.path),
        loader: 'js',
      }));
    },
  };
}

/**
 * The patch as a Vite plugin (vitest.config.ts). Vitest leaves node_modules to Node unless told
 * to inline them, so the config inlines fontoxpath and xspattern for this transform to see them.
 */
export function fontoxpathOrderVite(): VitePlugin {
  return {
    name: 'fontoxpath-order',
    enforce: 'pre',
    transform(code, id) {
      const patched = patchIfFontoxpath(id.split('?')[0] as string, code);
      return patched === null ? null : { code: patched, map: null };
    },
  };
}
