/**
 * Every bound the product enforces, in one place (docs/behaviour.md §6). Transports, tools and the engine
 * read their limits from here so a change is one edit and the documentation has one source.
 */

/** Largest XML document or XSD schema accepted, in UTF-8 bytes (docs/behaviour.md §2). */
export const MAX_DOCUMENT_BYTES = 8 * 1024 * 1024;

/**
 * Largest stdio line. A JSON string escape can grow one UTF-8 byte into six characters
 * (`\u0001`), and `xml_validate` carries two documents, so the line limit leaves room for
 * both at their worst plus the JSON-RPC envelope.
 */
export const MAX_MESSAGE_BYTES = 2 * 6 * MAX_DOCUMENT_BYTES + 1024 * 1024;

/**
 * The most JSON a message may hand `JSON.parse`, which holds the main thread (every session) for
 * its whole length: ~1 s per 90 MiB on an idle core, 2.8–4.5 s measured under load (issue 33
 * F7). Only documents make a message large, and a `tools/call` whose documents are JSON strings
 * has them lifted from the bytes (transports/lift-documents.ts); what is left to parse is the
 * envelope, or a document the lifting leaves to the ordinary path for its error (a lone
 * surrogate, a raw control character): 8 MiB of text in two-byte escapes at most. Anything past
 * this (a 90 MiB string, a `ping` carrying megabytes) cannot be a right message.
 */
export const MAX_PARSED_JSON_BYTES = 2 * MAX_DOCUMENT_BYTES + 1024 * 1024;

/**
 * How deep a JSON-RPC message may nest arrays and objects. The SDK's Node adapter re-serialises
 * every parsed HTTP body with JSON.stringify, which recurses and overflows the stack somewhere
 * between 4,000 and 6,000 levels (measured on Node 20); real MCP requests nest a few dozen.
 * Every transport refuses deeper messages with the same error, stdio included, so a message is
 * served or refused alike whichever way it arrives.
 */
export const MAX_JSON_NESTING = 1_000;

/**
 * About how many members (object keys and array elements) a large message may hold, counted on
 * its bytes before JSON.parse sees them. A tool call needs a few dozen (at most 256 `namespaces`
 * bindings); a million bindings cost 2.4 s of JSON.parse alone on the main thread, where every
 * session waits. Counted as separators (`:` and `,` outside strings), so the bound is exact to
 * within a factor of two, which is all a bound on cost needs.
 */
export const MAX_JSON_MEMBERS = 10_000;

/** Element nesting depth; libxml2 refuses deeper documents by itself without XML_PARSE_HUGE. */
export const MAX_ELEMENT_DEPTH = 256;

/**
 * Entities nested in one another's replacement text: libxml2's own limit without XML_PARSE_HUGE
 * (a chain of 19 entities is read, 20 are refused). Such a document is well-formed; it is
 * refused as a limit, not as an error in the document.
 */
export const MAX_ENTITY_NESTING = 19;

/**
 * Longest element or attribute name: libxml2's own limit without XML_PARSE_HUGE. Attributes per
 * element have no separate bound: the document limit caps them (10^5 attributes parse in ~0.1 s,
 * test/hostile.test.ts).
 */
export const MAX_NAME_LENGTH = 50_000;

/**
 * XPath expression bounds. This libxml2 build runs on emscripten's small WebAssembly stack:
 * ~280 nested predicates hang the compiler and ~4,500 flat operators corrupt the library
 * (docs/security-model.md), so expressions are capped well below both before they reach it.
 */
export const MAX_XPATH_LENGTH = 2048;
export const MAX_XPATH_NESTING = 32;

/**
 * `namespaces` bindings per call, and the length of a prefix and of a URI. A document rarely uses
 * a dozen namespaces; unbounded, one 96 MiB object of 6.8 million bindings held the main thread
 * for ~40 s (parsing, validating, copying to a worker). Checked as the arguments are read, on the
 * main thread, before the call waits for a worker; counting stops at the first binding too many.
 */
export const MAX_NAMESPACE_BINDINGS = 256;
export const MAX_PREFIX_LENGTH = 256;
export const MAX_NAMESPACE_URI_LENGTH = 4096;

/**
 * Links in the longest chain of schema definitions that refer to one another (restriction and
 * extension bases, list item types, union members, group and attribute-group references,
 * substitution groups). libxml2's schema compiler recurses once per link on libxml2-wasm's
 * 64 KiB stack, 16 bytes a link for simple-type chains declared in reverse: 4,000 links fill the
 * stack and 6,000 overwrite libxml2's static data without a trap (measured in a worker,
 * docs/security-model.md). Real schemas chain a handful; 500 links use an eighth of the stack.
 */
export const MAX_SCHEMA_CHAIN = 500;

/**
 * XPath steps one evaluation may take (libxml2's opLimit). `count(//record)` on an 8 MiB document
 * takes ~5·10^5; `count(//*[count(//*) > 0])` on a large one is stopped within ~0.3 s.
 */
export const MAX_XPATH_OPERATIONS = 50_000_000;

/**
 * Expressions in one xml_query batch (`xpath` as an array), evaluated against one parse. Each is
 * bounded like a single expression (MAX_XPATH_LENGTH); the array is refused past this count as
 * the arguments are read, before the call waits for a worker.
 */
export const MAX_BATCH_EXPRESSIONS = 32;

/**
 * XPath steps a whole batch may take, shared in order: each expression may take what the ones
 * before it left. A batch thus costs at most what one runaway expression does (32 runaways would
 * otherwise run ~32 s, past the call's time budget, and cost a worker); 5·10^7 steps still hold
 * a hundred `count(//record)` on an 8 MiB document. The expressions left say so.
 */
export const MAX_BATCH_XPATH_OPERATIONS = MAX_XPATH_OPERATIONS;

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
 * The most a worker's WebAssembly heap may ever take: growth past it is refused while the call
 * runs, which fails that call as out of memory and replaces the worker. The largest legitimate
 * call, an indented `xml_format` of an 8 MiB document answering ~128 MB, peaks far below it;
 * `//a = //b` over two 240-deep chains of an 8 MiB document would take ~1.9 GiB (libxml2 keeps
 * the string-value of every node it compares). A process holds at most one such heap per worker
 * (docs/security-model.md).
 */
export const WORKER_HEAP_CEILING_BYTES = 768 * 1024 * 1024;

/**
 * The JavaScript heap (V8's old generation) of a worker, in MiB: XPath 3.1 runs there
 * (fontoxpath), and `string-join(1 to 50000000)` or a million maps would otherwise take the
 * process to gigabytes before the time budget ends them. Past it V8 stops the worker, the call
 * answers `out-of-memory` and the pool starts another. The view of an 8 MiB document (~550,000
 * node wrappers) takes ~70 MiB of it.
 */
export const WORKER_JS_HEAP_MB = 512;

/**
 * Calls the engine pool serves between two recycles: each time the worker that has served the
 * most is replaced by a fresh one, started and warmed first (a rolling restart). A backstop:
 * with one large document at a time the heaps stay flat (ADR 0008), and whatever still creeps
 * over a long uptime (fragmentation, the worker's V8 isolate) is unmapped when the worker exits.
 * Rarer recycling keeps the parse cache warm.
 */
export const MAX_WORKER_CALLS = 5_000;

/**
 * Wall-clock budget of one engine call, counted from when a worker with libxml2 loaded starts
 * it (not while it waits in the queue or for a fresh worker); past it the worker is terminated
 * and replaced.
 */
export const DEFAULT_CALL_TIMEOUT_MS = 10_000;

/**
 * How long a fresh worker may take to load libxml2 (~0.2 s idle, seconds on a busy machine)
 * before the call waiting for it fails; apart from the call budget, so a small `--timeout-ms`
 * does not fail every call that happens to start a worker.
 */
export const WORKER_START_TIMEOUT_MS = 30_000;

/** Engine calls waiting for a free worker; one more is refused at once rather than left to time out. */
export const MAX_QUEUED_CALLS = 256;

/**
 * What the waiting calls' arguments may hold in all (documents as UTF-8 bytes, other strings by
 * length): 256 calls of two 8 MiB documents each would otherwise hold 4 GiB. 256 MiB is sixteen
 * such calls, more than the workers clear in the time a client waits for an answer.
 */
export const MAX_QUEUED_BYTES = 256 * 1024 * 1024;

/**
 * Reply bytes written to stdout (or a legacy SSE session's stream) but not yet taken by the
 * client, past which no further request is read until the stream drains (docs/adr/0010-output-back-pressure.md). Without it a
 * client that does not read has every reply it asks for kept in memory: an indented `xml_format`
 * of 8 MiB answers ~128 MB. 64 MiB holds a few hundred ordinary replies, or one huge one
 * (a reply is never split: it is written whole, then reading waits).
 */
export const MAX_UNWRITTEN_OUTPUT_BYTES = 64 * 1024 * 1024;

/**
 * Reply bytes all HTTP responses of the process hold unwritten (their clients are not reading),
 * past which the response holding the most is cut off, its connection closed, until the rest fit.
 * Each HTTP connection holds at most one reply at a time, but nothing else bounds the number of
 * connections: 30 unread `xml_format` replies held 5.1 GB. Above the largest reply one call can
 * make (~128 MB), so a single client reading slowly is never cut off alone.
 */
export const MAX_UNREAD_HTTP_REPLY_BYTES = 256 * 1024 * 1024;

/**
 * Request bytes read and not yet answered (stdio, or one legacy SSE session), at or past which no
 * further request is read until one is answered; one request is always read when none is in
 * flight. Calls already read run and are written whatever the client does, so this is what bounds
 * the output that can pile up past MAX_UNWRITTEN_OUTPUT_BYTES: two or three 8 MiB documents at a
 * time (one per core on two cores), whose replies are at most ~16× their size (`xml_format`,
 * indent 16).
 */
export const MAX_IN_FLIGHT_REQUEST_BYTES = 16 * 1024 * 1024;

/**
 * What one xml_inspect answer lists: the most frequent element names and the namespaces, up to
 * these counts and, for the names, this many characters in all; the exact totals are always
 * given. Without a bound a document of 600,000 distinct names answered 22 MB.
 */
export const MAX_INSPECT_NAMES = 1_000;
export const MAX_INSPECT_NAME_CHARS = 20_000;
export const MAX_INSPECT_NAMESPACES = 100;

/**
 * Default character budget of one xml_inspect answer (`max_chars` moves it within
 * [MIN_OUTPUT_CHARS, MAX_OUTPUT_CHARS]): a five-element configuration and a DocBook book of 300
 * element names both get their namespaces, names, outline and the attributes and children of
 * their elements into about 2,000 tokens, and the answer says what was left out.
 */
export const DEFAULT_INSPECT_CHARS = 8_000;

/** Indentation accepted by xml_format. */
export const MAX_INDENT = 16;

/**
 * Output budget of one query answer. Values are cut past either bound so an answer cannot flood
 * a model's context (Claude Code caps tool output near 25,000 tokens, and the values appear in
 * both the text and structuredContent); `count` stays exact. `max_chars` moves the character
 * budget within [MIN, MAX]. A batch shares both bounds: its expressions are answered in order,
 * each within an equal share of what the ones before it left (docs/adr/0019-batch-queries.md).
 */
export const DEFAULT_OUTPUT_CHARS = 20_000;
export const MIN_OUTPUT_CHARS = 100;
export const MAX_OUTPUT_CHARS = 200_000;
export const MAX_OUTPUT_VALUES = 1_000;

/**
 * With `output: "xml"` each matched node is cut at its share of what is left of the character
 * budget (the budget over the nodes still to show), but never at fewer than this many characters
 * while the budget lasts: one node matched gets the whole budget, twelve POM dependencies get a
 * twelfth each, and `//*` on a large document shows its first nodes ~200 characters each
 * instead of a thousand fragments of twenty.
 */
export const MIN_NODE_MARKUP_CHARS = 200;

/**
 * Output budget of one validation answer, for the same reason as a query's: listing them all,
 * 30,000 bad values made 4 M characters of structuredContent and about as much text. Violations
 * past either bound are counted but never read from libxml2 (bench/validation-violations.ts);
 * `total` stays exact. One message or path longer than MAX_VIOLATION_TEXT_CHARS (a message
 * quotes the offending value, which may be megabytes) is cut, so one violation cannot take
 * the whole character budget: at least 10 always fit.
 */
export const MAX_LISTED_VIOLATIONS = 100;
export const VIOLATION_OUTPUT_CHARS = DEFAULT_OUTPUT_CHARS;
export const MAX_VIOLATION_TEXT_CHARS = 1_000;

/**
 * Schematron (docs/adr/0053-schematron-on-the-servers-own-engines.md): elements of a schema read
 * at most, and asserts and reports once abstract rules are expanded (a rule extending a rule of a
 * thousand asserts a thousand times). The EN 16931 rules for UBL, 300 KB, have 1,093 elements and
 * 979 asserts; a schema of 100,000 rules is refused before any is evaluated, where the time budget
 * would otherwise spend itself on it. A `let` of XPath 1.0 (which libxml2 cannot bind as a
 * variable) is written into the expressions that read it: as a node-set, at most this many nodes.
 */
export const MAX_SCHEMATRON_ELEMENTS = 50_000;
export const MAX_SCHEMATRON_CHECKS = 50_000;
export const MAX_SCHEMATRON_LET_NODES = 1_000;

/**
 * Document handles (docs/adr/0016-document-handles.md): the text a session's handles keep on the
 * main thread, and what all sessions keep together, least recently used evicted first. 32 MiB is
 * four documents at the 8 MiB limit (a document and its schema, twice); 128 MiB for the process
 * is four sessions at their bound or 64 HTTP sessions at 2 MiB each, and is at most that much
 * more memory than the server holds without handles. Each held document also counts
 * `HELD_DOCUMENT_OVERHEAD_BYTES` (its handle, map entries, shared buffer and their share of the
 * allocator's pages), so a million tiny documents cannot be held for nothing: 3 KiB, as measured
 * with 128K tiny documents held (~2.7 KB each, where 1 KiB was charged and the 128 MiB bound
 * meant ~340 MiB; issue 24).
 */
export const MAX_HELD_SESSION_BYTES = 32 * 1024 * 1024;
export const MAX_HELD_PROCESS_BYTES = 128 * 1024 * 1024;
export const HELD_DOCUMENT_OVERHEAD_BYTES = 3 * 1024;

/**
 * What xml_inspect keeps of each field's values (an attribute or a text-holding leaf at one
 * path): this many distinct values with their counts, each value's first characters for the
 * answer; past it the counts of those and an estimate of the distinct values, so that a field of
 * 600,000 distinct values costs what a field of 33 does (docs/adr/0037-inspect-shows-values.md).
 */
export const MAX_PROFILE_VALUES = 32;
export const MAX_PROFILE_VALUE_CHARS = 40;
/**
 * Past the kept values, a field's distinct values are still counted exactly, by their hashes
 * alone, up to this many more (16 KB); past that they are estimated (`≈`, ADR 0043).
 */
export const MAX_EXACT_DISTINCT = 1_024;

/**
 * A held text not used for this long is let go (docs/adr/0039-handles-outlive-their-connection.md):
 * a handle outlives its connection, so without a session's end to free it, idleness does. The
 * same 30 minutes as a 2025 HTTP session's idle reaping (`--session-idle-ms`), so a handle lasts
 * as long with a session as without one. Not over stdio, whose one connection is the session.
 */
export const HELD_DOCUMENT_IDLE_MS = 30 * 60 * 1000;
