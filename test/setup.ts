import { captureWasmMemory } from '../src/xml/wasm-memory.js';

// As in the worker entry: reach libxml2's memory before libxml2-wasm loads, so engine tests
// run with the XPath operation budget the server has.
captureWasmMemory();
