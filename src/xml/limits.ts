/**
 * Every bound the product enforces, in one place (SPEC §6). Transports, tools and the engine
 * read their limits from here so a change is one edit and the documentation has one source.
 */

/** Largest XML document or XSD schema accepted, in UTF-8 bytes (SPEC §2). */
export const MAX_DOCUMENT_BYTES = 8 * 1024 * 1024;

/**
 * Largest stdio line. A JSON string escape can grow one UTF-8 byte into six characters
 * (`\u0001`), and `xml_validate` carries two documents, so the line limit leaves room for
 * both at their worst plus the JSON-RPC envelope.
 */
export const MAX_MESSAGE_BYTES = 2 * 6 * MAX_DOCUMENT_BYTES + 1024 * 1024;

/** Element nesting depth; libxml2 refuses deeper documents by itself without XML_PARSE_HUGE. */
export const MAX_ELEMENT_DEPTH = 256;

/**
 * Longest element or attribute name: libxml2's own limit without XML_PARSE_HUGE. Attributes per
 * element have no separate bound: the document limit caps them (10^5 attributes parse in ~0.1 s,
 * test/hostile.test.ts).
 */
export const MAX_NAME_LENGTH = 50_000;

/**
 * XPath expression bounds. This libxml2 build runs on emscripten's small WebAssembly stack:
 * ~280 nested predicates hang the compiler and ~4,500 flat operators corrupt the library
 * (ENGINE-NOTES.md), so expressions are capped well below both before they reach it.
 */
export const MAX_XPATH_LENGTH = 2048;
export const MAX_XPATH_NESTING = 32;

/**
 * XPath steps one evaluation may take (libxml2's opLimit). `count(//record)` on an 8 MiB document
 * takes ~5·10^5; `count(//*[count(//*) > 0])` on a large one is stopped within ~0.3 s.
 */
export const MAX_XPATH_OPERATIONS = 50_000_000;

/**
 * Parsed documents a worker keeps for repeat calls, counted as source bytes (a parsed document
 * takes ~6× its text in the heap, which never shrinks): one 8 MiB document and a few small ones.
 */
export const MAX_CACHED_DOCUMENT_BYTES = 12 * 1024 * 1024;

/**
 * A document this large (UTF-8 bytes) takes ~7× its size once parsed, in a heap that never gives
 * memory back: a worker holds at most one such parse at a time. Before it parses a large document
 * it frees the large ones it cached, so the new tree reuses their space instead of growing the
 * heap, and the heap stays near one large tree plus the small documents whatever the mix.
 */
export const LARGE_DOCUMENT_BYTES = 1024 * 1024;

/** Past this size of its (never shrinking) WebAssembly heap, a worker is replaced after its call. */
export const MAX_WORKER_HEAP_BYTES = 512 * 1024 * 1024;

/**
 * Calls the engine pool serves between two recycles: each time the worker that has served the
 * most is replaced by a fresh one, started and warmed first (a rolling restart). A backstop:
 * with one large document at a time the heaps stay flat (ADR 0008), and whatever still creeps
 * over a long uptime (fragmentation, the worker's V8 isolate) is unmapped when the worker exits.
 * Rarer recycling keeps the parse cache warm.
 */
export const MAX_WORKER_CALLS = 5_000;

/** Wall-clock budget of one engine call; past it the worker is terminated and replaced. */
export const DEFAULT_CALL_TIMEOUT_MS = 10_000;

/** Engine calls waiting for a free worker; one more is refused at once rather than left to time out. */
export const MAX_QUEUED_CALLS = 256;

/**
 * Reply bytes written to stdout (or a legacy SSE session's stream) but not yet taken by the
 * client, past which no further request is read until the stream drains (docs/adr/0010-output-back-pressure.md). Without it a
 * client that does not read has every reply it asks for kept in memory: an indented `xml_format`
 * of 8 MiB answers ~128 MB. 64 MiB holds a few hundred ordinary replies, or one huge one
 * (a reply is never split: it is written whole, then reading waits).
 */
export const MAX_UNWRITTEN_OUTPUT_BYTES = 64 * 1024 * 1024;

/**
 * Request bytes read and not yet answered (stdio, or one legacy SSE session), at or past which no
 * further request is read until one is answered; one request is always read when none is in
 * flight. Calls already read run and are written whatever the client does, so this is what bounds
 * the output that can pile up past MAX_UNWRITTEN_OUTPUT_BYTES: two or three 8 MiB documents at a
 * time (one per core on two cores), whose replies are at most ~16× their size (`xml_format`,
 * indent 16).
 */
export const MAX_IN_FLIGHT_REQUEST_BYTES = 16 * 1024 * 1024;

/** Indentation accepted by xml_format. */
export const MAX_INDENT = 16;

/**
 * Output budget of one query answer. Values are cut past either bound so an answer cannot flood
 * a model's context (Claude Code caps tool output near 25,000 tokens, and the values appear in
 * both the text and structuredContent); `count` stays exact. `max_chars` moves the character
 * budget within [MIN, MAX].
 */
export const DEFAULT_OUTPUT_CHARS = 20_000;
export const MIN_OUTPUT_CHARS = 100;
export const MAX_OUTPUT_CHARS = 200_000;
export const MAX_OUTPUT_VALUES = 1_000;
