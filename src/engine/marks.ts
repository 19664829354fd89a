/**
 * Values the tools share with the engine, in a module that imports nothing. The tools run on the
 * main thread, and importing them from the engine modules that define their functions would load
 * and instantiate libxml2-wasm there too (~6 MiB and ~100 ms of its start, for two strings), when
 * libxml2 only ever runs on the engine's workers (docs/adr/0025-libxml2-only-on-the-workers.md).
 */

/** Ends a node's markup that was cut at its share of the budget. */
export const CUT_MARK = '…[cut]';

/** The namespace `xml:` names are in: bound in every XPath context, so it needs no binding. */
export const XML_NAMESPACE = 'http://www.w3.org/XML/1998/namespace';

/** inspect's text indents a field's values under its outline line by this many spaces… */
export const OUTLINE_VALUE_INDENT = 2;
/** …and under its name line by this many: the engine's budget counts them. */
export const NAME_VALUE_INDENT = 4;
