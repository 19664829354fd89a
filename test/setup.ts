import { captureWasmMemory } from '../src/engine/libxml2/memory.js';

// As in the worker entry: reach libxml2's memory before libxml2-wasm loads, so engine tests
// run with the XPath operation budget the server has.
captureWasmMemory();
