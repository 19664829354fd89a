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

/**
 * `named` simple types in a chain, each wrapping `nesting` anonymous restrictions around its
 * base: libxml2 recurses once per nested level too, so the chain is named × nesting links deep.
 */
export function nestedChainSchema(named: number, nesting: number): string {
  const parts: string[] = [];
  for (let i = named; i >= 1; i--) {
    let inner = `<xs:restriction base="${i === 1 ? 'xs:string' : `t${i - 1}`}"/>`;
    for (let k = 0; k < nesting; k++)
      inner = `<xs:restriction><xs:simpleType>${inner}</xs:simpleType></xs:restriction>`;
    parts.push(`<xs:simpleType name="t${i}">${inner}</xs:simpleType>`);
  }
  return `<xs:schema xmlns:xs="${XS}"><xs:element name="r" type="t${named}"/>${parts.join('')}</xs:schema>`;
}

/**
 * An extension chain of segments × length complex types, where the first type of each segment
 * also holds an element whose anonymous type extends the first type of the segment before: a
 * legal cycle through nested content, declared so that a search that sets lengths while a cycle
 * is open would measure one segment instead of the whole chain.
 */
export function cycleCutChainSchema(segments: number, length: number): string {
  const total = segments * length;
  const definition = (i: number) => {
    const back =
      i % length === 0 && i >= length
        ? `<xs:sequence><xs:element name="e${i}" minOccurs="0"><xs:complexType><xs:complexContent><xs:extension base="c${i - length}"/></xs:complexContent></xs:complexType></xs:element></xs:sequence>`
        : '';
    const base =
      i === total - 1
        ? ''
        : `<xs:complexContent><xs:extension base="c${i + 1}">${back}</xs:extension></xs:complexContent>`;
    return `<xs:complexType name="c${i}">${base}</xs:complexType>`;
  };
  const order: number[] = [];
  for (let j = segments - 1; j >= 0; j--) order.push(j * length);
  for (let i = 0; i < total; i++) if (i % length !== 0) order.push(i);
  return `<xs:schema xmlns:xs="${XS}"><xs:element name="r" type="c0"/>${order.map(definition).join('')}</xs:schema>`;
}

const XS = 'http://www.w3.org/2001/XMLSchema';
