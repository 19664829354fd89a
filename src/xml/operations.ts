import { type CheckResult, check } from './check.js';
import { type FormatOptions, format } from './format.js';
import { type InspectResult, inspect } from './inspect.js';
import { type OutputBudget, type QueryResult, query } from './query.js';
import { type ValidateResult, validate } from './validate.js';
import type { Namespaces } from './xpath-guard.js';

/**
 * The engine's operations as the worker runs them. Documents arrive as UTF-8 bytes (they are
 * transferred to the worker, not cloned); every other argument is plain data.
 */
export interface Operations {
  query: {
    args: { xml: Uint8Array; xpath: string; namespaces: Namespaces; budget?: OutputBudget };
    result: QueryResult;
  };
  inspect: { args: { xml: Uint8Array }; result: InspectResult };
  check: { args: { xml: Uint8Array }; result: CheckResult };
  validate: { args: { xml: Uint8Array; xsd: Uint8Array }; result: ValidateResult };
  format: { args: { xml: Uint8Array } & FormatOptions; result: { xml: string } };
}

export type OperationName = keyof Operations;

export const operations: { [K in OperationName]: (args: Operations[K]['args']) => Operations[K]['result'] } =
  {
    query: ({ xml, xpath, namespaces, budget }) => query(xml, xpath, namespaces, budget),
    inspect: ({ xml }) => inspect(xml),
    check: ({ xml }) => check(xml),
    validate: ({ xml, xsd }) => validate(xml, xsd),
    format: ({ xml, indent, emptyElements }) => ({ xml: format(xml, { indent, emptyElements }) }),
  };
