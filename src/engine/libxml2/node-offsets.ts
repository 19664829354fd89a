/**
 * Byte offsets of the fields of libxml2 2.15.1's `xmlNode` and `xmlAttr` on wasm32, as
 * libxml2-wasm 0.7.2 builds it (its own accessors read the same: XmlTreeCommonStruct,
 * XmlNamedNodeStruct, XmlNodeStruct). Both structs share the layout up to `ns`; `content`,
 * `properties` and `nsDef` are xmlNode's. A new libxml2-wasm must be checked against these:
 * test/engine/libxml2/node-fields.test.ts compares them with the accessors on every node of
 * varied documents.
 */
export const TYPE = 4;
export const NAME = 8;
export const CHILDREN = 12;
export const LAST = 16;
export const PARENT = 20;
export const NEXT = 24;
export const PREV = 28;
export const NS = 36;
export const CONTENT = 40;
export const PROPERTIES = 44;
export const NS_DEF = 48;
