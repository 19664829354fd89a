import { afterEach } from 'vitest';
import { parseDocument } from '../../src/engine/parse.js';
import { explainedQuery } from '../../src/engine/query/namespace-hints.js';
import { queryDocument } from '../../src/engine/query/query.js';

/**
 * A query as the worker runs it: the answer and, when it explains itself, the hint. Each
 * document is freed after the test that parsed it.
 */
export function explainingQueries(): (
  xml: string,
  xpath: string,
  namespaces?: Record<string, string>,
) => ReturnType<typeof explainedQuery> {
  const documents: Array<{ dispose(): void }> = [];
  afterEach(() => {
    for (const doc of documents.splice(0)) doc.dispose();
  });
  return (xml, xpath, namespaces = {}) => {
    const doc = parseDocument(xml, 'query');
    documents.push(doc);
    return explainedQuery(doc, xpath, namespaces, () => queryDocument(doc, xpath, namespaces));
  };
}
