/**
 * Cases of the W3C XML Conformance Test Suite where `check` departs from the XML 1.0
 * recommendation. test/engine/w3c-conformance.test.ts asserts that every case NOT listed here
 * behaves as the recommendation says, and that every case listed here still departs: a
 * "not-wf" case listed here is still accepted, a "valid"/"invalid" case listed here is still
 * rejected. When a departure is fixed the test fails, and the entry must be removed here and
 * from docs/w3c-conformance.md.
 *
 * `origin` says where the departure comes from: `libxml2` (the parser itself, or how
 * libxml2-wasm turns its diagnostics into a failure) or `engine` (our own code in src/engine/
 * before the text reaches libxml2).
 */
export interface Departure {
  origin: 'libxml2' | 'engine';
  /** One line: what the recommendation requires and what happens instead. */
  reason: string;
  /** For a wrongly rejected case: text the rejection message must contain, so the reason stays true. */
  message?: string;
}

export const DEPARTURES: Readonly<Record<string, Departure>> = {
  // libxml2 records ID values while parsing and reports a repeated one at error level even when
  // not validating; libxml2-wasm fails the parse on any error-level diagnostic.
  'ibm-invalid-P56-ibm56i02.xml': {
    origin: 'libxml2',
    reason: 'a duplicated ID value (VC: ID, a validity constraint) is rejected as "ID Ac999 already defined"',
    message: 'ID Ac999 already defined',
  },
};

/**
 * not-wf cases that `check` rejects, but under another EngineError code than
 * `not-well-formed`, so xml_check answers with a tool error instead of `wellFormed: false`.
 * The recommendation only requires a fatal error, so these are not departures from it; they
 * are listed so the test notices when the classification changes.
 */
export interface Mislabel {
  code: string;
  reason: string;
}

export const MISLABELLED: Readonly<Record<string, Mislabel>> = {};
