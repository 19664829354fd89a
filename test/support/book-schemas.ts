/** A small DocBook-like book in RELAX NG (with define/ref) and as a DTD, for the validate tests. */
export const BOOK_RELAX_NG = `<grammar xmlns="http://relaxng.org/ns/structure/1.0"
         datatypeLibrary="http://www.w3.org/2001/XMLSchema-datatypes">
  <start><ref name="book"/></start>
  <define name="book">
    <element name="book">
      <attribute name="id"><data type="ID"/></attribute>
      <ref name="title"/>
      <oneOrMore><ref name="chapter"/></oneOrMore>
    </element>
  </define>
  <define name="title"><element name="title"><text/></element></define>
  <define name="chapter">
    <element name="chapter">
      <optional><attribute name="pages"><data type="positiveInteger"/></attribute></optional>
      <ref name="title"/>
      <zeroOrMore><element name="para"><text/></element></zeroOrMore>
    </element>
  </define>
</grammar>`;

/** One RELAX NG pattern, no grammar: the schema is the element itself. */
export const NOTE_RELAX_NG = `<element name="note" xmlns="http://relaxng.org/ns/structure/1.0">
  <element name="to"><text/></element>
  <element name="body"><text/></element>
</element>`;

export const BOOK_DTD = `<!-- A DocBook-like book -->
<!ELEMENT book (title, chapter+)>
<!ATTLIST book id ID #REQUIRED>
<!ELEMENT title (#PCDATA)>
<!ELEMENT chapter (title, para*)>
<!ATTLIST chapter pages CDATA #IMPLIED>
<!ELEMENT para (#PCDATA)>
`;

export const VALID_BOOK =
  '<book id="b1"><title>XML</title><chapter pages="3"><title>One</title><para>p</para></chapter></book>';

/** Line 3: a chapter without its title; line 4: an element no schema knows. */
export const INVALID_BOOK = `<book id="b1">
<title>XML</title>
<chapter><para>no title</para></chapter>
<chapter><title>Two</title><figure/></chapter>
</book>`;
