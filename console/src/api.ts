// Calls to this server's API with the session cookie the browser holds (never a token in script reach).
// A refusal's problem document becomes an ApiError whose message is its detail.

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** The 401 handler: the session ended (signed out elsewhere, idle, key revoked), so the sign-in form. */
let onSignedOut: () => void = () => {};
export const whenSignedOut = (handler: () => void) => {
  onSignedOut = handler;
};

async function send(
  method: string,
  path: string,
  body?: unknown,
  accept = 'application/json',
): Promise<Response> {
  const headers: Record<string, string> = { accept };
  let payload: BodyInit | undefined;
  if (typeof body === 'string' || body instanceof Blob) payload = body;
  else if (body !== undefined) {
    headers['content-type'] = 'application/json';
    payload = JSON.stringify(body);
  }
  const res = await fetch(path, { method, headers, body: payload, credentials: 'same-origin' });
  if (res.ok) return res;
  let problem: { code?: string; detail?: string; title?: string } = {};
  try {
    problem = await res.json();
  } catch {
    // not a problem document: the status says enough
  }
  if (res.status === 401 && path !== '/console/session') onSignedOut();
  throw new ApiError(
    res.status,
    problem.code ?? String(res.status),
    problem.detail ?? problem.title ?? res.statusText,
  );
}

/** A JSON call: the parsed answer (undefined for a 204). */
export async function api<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
  const res = await send(method, path, body);
  if (res.status === 204) return undefined as T;
  return (await res.json()) as T;
}

/** A call answered as text (CSV). */
export async function apiText(method: string, path: string, accept: string, body?: unknown): Promise<string> {
  return (await send(method, path, body, accept)).text();
}

/** A call whose body is a file, sent as is with its type. */
export async function apiUpload<T>(path: string, body: Blob, type: string): Promise<T> {
  const res = await fetch(path, {
    method: 'POST',
    headers: { 'content-type': type, accept: 'application/json' },
    body,
    credentials: 'same-origin',
  });
  if (!res.ok) {
    const problem = await res.json().catch(() => ({}));
    throw new ApiError(res.status, problem.code ?? String(res.status), problem.detail ?? res.statusText);
  }
  return (await res.json()) as T;
}

export const query = (params: Record<string, string | undefined>) => {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params))
    if (value !== undefined && value !== '') search.set(name, value);
  const text = search.toString();
  return text === '' ? '' : `?${text}`;
};
