import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';

interface Issue {
  path?: unknown[];
  message?: string;
}

/**
 * The SDK rejects malformed params of `initialize`, `tools/list` and the like with -32603
 * (internal error) and a JSON dump of zod issues as the message, and malformed `tools/call`
 * params with -32602 and the same dump. A client deserves -32602 and a sentence naming the
 * field. Errors that are not such a dump pass through untouched.
 */
export function clarifyInvalidParams(method: string, error: unknown): unknown {
  if (!(error instanceof Error)) return error;
  if (error instanceof ProtocolError && error.code !== ProtocolErrorCode.InvalidParams) return error;
  const issues = zodIssues(error.message);
  if (!issues) return error;
  const [first, ...rest] = issues;
  const field = first?.path?.length ? `\`${first.path.map(String).join('.')}\`` : 'the params';
  const more = rest.length ? ` (and ${rest.length} more problem${rest.length === 1 ? '' : 's'})` : '';
  return new ProtocolError(
    ProtocolErrorCode.InvalidParams,
    `Invalid params for ${method}: ${field}: ${first?.message ?? 'invalid value'}${more}.`,
  );
}

function zodIssues(message: string): Issue[] | undefined {
  const start = message.indexOf('[');
  if (start < 0) return undefined;
  try {
    const parsed: unknown = JSON.parse(message.slice(start));
    if (!Array.isArray(parsed) || parsed.length === 0) return undefined;
    if (!parsed.every((issue) => typeof issue === 'object' && issue !== null && 'message' in issue))
      return undefined;
    return parsed as Issue[];
  } catch {
    return undefined;
  }
}
