// Turns TypeBox's JSON Pointers into the JSON paths a person reads in a rejection (`$.emails.work[0].value`).
import { type ValueError, ValueErrorType } from '@sinclair/typebox/errors';

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/**
 * `/emails/work/0/value` → `$.emails.work[0].value`. The value is walked alongside so that an
 * array index is told apart from an object key that happens to be digits.
 */
export function pointerToJsonPath(pointer: string, value: unknown): string {
  let path = '$';
  let node: unknown = value;
  for (const raw of pointer.split('/').slice(1)) {
    const key = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    if (Array.isArray(node) && /^\d+$/.test(key)) path += `[${key}]`;
    else if (IDENTIFIER.test(key)) path += `.${key}`;
    else path += `[${JSON.stringify(key)}]`;
    node = node !== null && typeof node === 'object' ? (node as Record<string, unknown>)[key] : undefined;
  }
  return path;
}

/**
 * The most specific error under a TypeBox error. Every field is `T | null`, so TypeBox reports a
 * bad nested value as "Expected union value" on the outermost field; this follows the variant that
 * got furthest into the value, and words a leaf union as "Expected integer or null".
 */
export function innermostError(error: ValueError): { pointer: string; message: string } {
  if (error.type !== ValueErrorType.Union || error.errors.length === 0) {
    const message =
      error.type === ValueErrorType.ObjectAdditionalProperties ? 'Unknown field' : error.message;
    return { pointer: error.path, message };
  }
  const firsts = error.errors.map((variant) => variant.First()).filter((e) => e !== undefined);
  const deepest = firsts.reduce<ValueError | undefined>(
    (best, e) => (e.path.length > (best?.path.length ?? error.path.length) ? e : best),
    undefined,
  );
  if (deepest) return innermostError(deepest);
  const expected = firsts.map((e) => e.message.replace(/^Expected /, ''));
  return { pointer: error.path, message: `Expected ${expected.join(' or ')}` };
}
