/**
 * Documents that test whether xml_inspect stays useful and bounded: a DocBook book with more
 * than 300 element names, and one element with very many attributes. Deterministic.
 */

/** DocBook 5 element names (a book uses a few dozen; this one uses all of them). */
const DOCBOOK_NAMES =
  `abbrev abstract accel acknowledgements acronym address affiliation alt anchor annotation
answer appendix application arc area areaset areaspec arg article artpagenums attribution audiodata
audioobject authorgroup authorinitials bibliocoverage bibliodiv biblioentry bibliography biblioid
bibliolist bibliomisc bibliomixed bibliomset biblioref bibliorelation biblioset bibliosource blockquote
bridgehead callout calloutlist caption caution citation citebiblioid citerefentry citetitle city
classname classsynopsis classsynopsisinfo cmdsynopsis co code col colgroup collab colophon colspec
command computeroutput confdates confgroup confnum confsponsor conftitle constant constraint
constraintdef constructorsynopsis contractnum contractsponsor contrib copyright coref country cover
database date dedication destructorsynopsis edition editor email emphasis entry entrytbl envar epigraph
equation errorcode errorname errortext errortype example exceptionname extendedlink fax fieldsynopsis
figure filename firstterm footnote footnoteref foreignphrase formalpara funcdef funcparams
funcprototype funcsynopsis funcsynopsisinfo function glossary glossdef glossdiv glossentry glosslist
glosssee glossseealso glossterm group guibutton guiicon guilabel guimenu guimenuitem guisubmenu hardware
holder honorific imagedata imageobject imageobjectco indexdiv indexentry indexterm informalequation
informalexample informalfigure informaltable initializer inlineequation inlinemediaobject interfacename
issuenum itemizedlist itermset jobtitle keycap keycode keycombo keysym keyword keywordset label
legalnotice lhs lineage lineannotation link listitem literal literallayout locator manvolnum markup
mathphrase mediaobject member menuchoice methodname methodparam methodsynopsis modifier mousebutton msg
msgaud msgentry msgexplan msginfo msglevel msgmain msgorig msgrel msgset msgsub msgtext nonterminal note
olink ooclass ooexception oointerface option optional orderedlist org orgdiv orgname otheraddr
othercredit othername package pagenums paramdef parameter part partintro person personblurb phone
phrase pob postcode preface primary primaryie printhistory procedure production productionrecap
productionset productname productnumber programlisting programlistingco prompt property publisher
publishername qandadiv qandaentry qandaset question quote refclass refdescriptor refentry refentrytitle
reference refmeta refmiscinfo refname refnamediv refpurpose refsect1 refsect2 refsect3 refsection
refsynopsisdiv releaseinfo remark replaceable returnvalue revdescription revhistory revision revnumber
revremark rhs row sbr screen screenco screenshot secondary secondaryie see seealso seealsoie seeie seg
seglistitem segmentedlist segtitle set setindex shortaffil shortcut sidebar simpara simplelist
simplemsgentry simplesect spanspec state step stepalternatives street subject subjectset subjectterm
subscript substeps subtitle superscript symbol synopfragment synopfragmentref synopsis systemitem table
tag task taskprerequisites taskrelated tasksummary tbody td term termdef tertiary tertiaryie textdata
textobject tfoot tgroup th thead tip titleabbrev toc tocdiv tocentry token tr trademark type uri
userinput varargs variablelist varlistentry varname videodata videoobject void volumenum warning
wordasword xref year`
    .split(/\s+/)
    .filter((name) => name !== '');

/**
 * A DocBook 5 book (default namespace, xml:id, xlink:href) of 12 chapters with sections, in
 * which every DocBook element name appears: more than 300 distinct names, thousands of paths.
 */
export function docbookBook(): string {
  const parts = [
    '<?xml version="1.0" encoding="UTF-8"?>\n',
    '<book xmlns="http://docbook.org/ns/docbook" xmlns:xlink="http://www.w3.org/1999/xlink" version="5.0" xml:id="manual" xml:lang="en">\n',
    '<info><title>Operations Manual</title><author><personname><firstname>Ada</firstname><surname>Kowalski</surname></personname></author><pubdate>2024-05-02</pubdate></info>\n',
  ];
  let next = 0;
  const take = () => DOCBOOK_NAMES[next++ % DOCBOOK_NAMES.length] as string;
  for (let chapter = 1; chapter <= 12; chapter++) {
    parts.push(`<chapter xml:id="ch${chapter}"><title>Chapter ${chapter}</title>\n`);
    for (let section = 1; section <= 6; section++) {
      parts.push(`<section xml:id="ch${chapter}-s${section}"><title>Section ${chapter}.${section}</title>\n`);
      for (let para = 1; para <= 4; para++) {
        // Each paragraph holds two elements, the second inside the first, and a link.
        const outer = take();
        const inner = take();
        parts.push(
          `<para>Step ${para} uses <${outer} role="r${para}">the <${inner}>value</${inner}> shown</${outer}>; see <link xlink:href="#ch${chapter}">chapter ${chapter}</link>.</para>\n`,
        );
      }
      parts.push('</section>\n');
    }
    parts.push('</chapter>\n');
  }
  parts.push('</book>\n');
  return parts.join('');
}

export const DOCBOOK_NAME_COUNT = DOCBOOK_NAMES.length;

/** One element carrying `n` attributes, `a0` … `a(n-1)`. */
export function manyAttributes(n: number): string {
  const attributes = Array.from({ length: n }, (_, i) => ` a${i}="${i}"`).join('');
  return `<r><e${attributes}/><f>x</f></r>`;
}
