/** Schemas whose definitions chain through one another, the shapes that overflow libxml2's stack. */
export type ChainKind =
  | 'restriction'
  | 'union'
  | 'list'
  | 'extension'
  | 'group'
  | 'attributeGroup'
  | 'substitution';

export const CHAIN_KINDS: ChainKind[] = [
  'restriction',
  'union',
  'list',
  'extension',
  'group',
  'attributeGroup',
  'substitution',
];

/**
 * A schema whose root element `r` accepts `<r>x</r>` and depends on a chain of `links`
 * definitions, each referring to the next one declared after it (the order that makes libxml2's
 * compiler recurse once per link).
 */
export function chainedSchema(kind: ChainKind, links: number): string {
  const parts: string[] = [];
  for (let i = links; i >= 0; i--) parts.push(link(kind, i));
  return `<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema">${root(kind, links)}${parts.join('')}</xs:schema>`;
}

function link(kind: ChainKind, i: number): string {
  const previous = `d${i - 1}`;
  switch (kind) {
    case 'restriction':
      return i === 0
        ? '<xs:simpleType name="d0"><xs:restriction base="xs:string"/></xs:simpleType>'
        : `<xs:simpleType name="d${i}"><xs:restriction base="${previous}"/></xs:simpleType>`;
    case 'union':
      return i === 0
        ? '<xs:simpleType name="d0"><xs:restriction base="xs:string"/></xs:simpleType>'
        : `<xs:simpleType name="d${i}"><xs:union memberTypes="${previous}"/></xs:simpleType>`;
    case 'list':
      // A list's item type may not be a list: the chain restricts down to one list of strings.
      return i === 0
        ? '<xs:simpleType name="d0"><xs:list itemType="xs:string"/></xs:simpleType>'
        : `<xs:simpleType name="d${i}"><xs:restriction base="${previous}"/></xs:simpleType>`;
    case 'extension':
      return i === 0
        ? '<xs:complexType name="d0" mixed="true"/>'
        : `<xs:complexType name="d${i}" mixed="true"><xs:complexContent><xs:extension base="${previous}"><xs:attribute name="a${i}"/></xs:extension></xs:complexContent></xs:complexType>`;
    case 'group':
      return i === 0
        ? '<xs:group name="d0"><xs:sequence><xs:element name="x" minOccurs="0"/></xs:sequence></xs:group>'
        : `<xs:group name="d${i}"><xs:sequence><xs:group ref="${previous}"/><xs:element name="y${i}" minOccurs="0"/></xs:sequence></xs:group>`;
    case 'attributeGroup':
      return i === 0
        ? '<xs:attributeGroup name="d0"><xs:attribute name="x"/></xs:attributeGroup>'
        : `<xs:attributeGroup name="d${i}"><xs:attribute name="a${i}"/><xs:attributeGroup ref="${previous}"/></xs:attributeGroup>`;
    case 'substitution':
      return i === 0
        ? '<xs:element name="d0" type="xs:string"/>'
        : `<xs:element name="d${i}" substitutionGroup="${previous}"/>`;
  }
}

function root(kind: ChainKind, links: number): string {
  const top = `d${links}`;
  switch (kind) {
    case 'group':
      return `<xs:element name="r"><xs:complexType mixed="true"><xs:group ref="${top}"/></xs:complexType></xs:element>`;
    case 'attributeGroup':
      return `<xs:element name="r"><xs:complexType mixed="true"><xs:attributeGroup ref="${top}"/></xs:complexType></xs:element>`;
    case 'substitution':
      return '<xs:element name="r" type="xs:string"/>';
    default:
      return `<xs:element name="r" type="${top}"/>`;
  }
}
