/** A small order and Schematron rules over it, shared by the tests of xml_validate with Schematron. */

export const SCHEMATRON_NAMESPACE = 'http://purl.oclc.org/dsdl/schematron';

export const ORDER = `<o:order xmlns:o="urn:order">
  <o:item qty="2" price="3.50"/>
  <o:item qty="0" price="9"/>
  <o:item qty="0"/>
  <o:total>16</o:total>
</o:order>`;

export const VALID_ORDER =
  '<o:order xmlns:o="urn:order"><o:item qty="1" price="2"/><o:total>2</o:total></o:order>';

export const ORDER_SCHEMATRON = `<schema xmlns="${SCHEMATRON_NAMESPACE}" queryBinding="xslt2">
  <ns prefix="o" uri="urn:order"/>
  <phase id="prices"><active pattern="prices"/></phase>
  <pattern id="items">
    <rule context="o:item">
      <assert id="QTY" flag="fatal" test="@qty &gt; 0">Quantity must be above 0, not <value-of select="@qty"/>.</assert>
    </rule>
  </pattern>
  <pattern id="prices">
    <rule context="o:item">
      <assert id="PRICE" role="warning" test="@price">Each <name/> needs a price.</assert>
    </rule>
  </pattern>
</schema>`;
