import type { Problem } from './types.js';

/** An admin API call that did not succeed: the problem the service answered (or a made-up one for network errors). */
export class ApiError extends Error {
  constructor(readonly problem: Problem) {
    super(problem.detail ?? problem.title);
  }

  get status(): number {
    return this.problem.status;
  }
}

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * The console's only way to the service: the admin API with the signed-in
 * token as a bearer token, JSON in and out, problems as ApiError. A 401 after
 * sign-in (token revoked or rotated) calls `onUnauthorized`.
 */
export class AdminApi {
  constructor(
    private readonly token: string,
    private readonly onUnauthorized: (e: ApiError) => void = () => undefined,
    private readonly base = '',
  ) {}

  get<T>(path: string): Promise<T> {
    return this.call<T>('GET', path);
  }
  post<T>(path: string, body?: unknown): Promise<T> {
    return this.call<T>('POST', path, body);
  }
  put<T>(path: string, body?: unknown): Promise<T> {
    return this.call<T>('PUT', path, body);
  }
  patch<T>(path: string, body?: unknown): Promise<T> {
    return this.call<T>('PATCH', path, body);
  }
  del<T>(path: string): Promise<T> {
    return this.call<T>('DELETE', path);
  }

  async call<T>(method: Method, path: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.token}`,
      accept: 'application/json',
    };
    if (body !== undefined) headers['content-type'] = 'application/json';
    let res: Response;
    try {
      res = await fetch(`${this.base}${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        cache: 'no-store',
        credentials: 'omit',
      });
    } catch (err) {
      throw new ApiError({
        status: 0,
        error: 'network_error',
        title: 'The service did not answer',
        detail: `Could not reach the service (${(err as Error).message}); it may be restarting`,
      });
    }
    const text = await res.text();
    const parsed: unknown = text ? safeJson(text) : undefined;
    if (res.ok) return parsed as T;
    const problem = isProblem(parsed)
      ? parsed
      : { status: res.status, error: 'http_error', title: `HTTP ${res.status}` };
    const error = new ApiError(problem);
    if (res.status === 401) this.onUnauthorized(error);
    throw error;
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function isProblem(v: unknown): v is Problem {
  return typeof v === 'object' && v !== null && typeof (v as Problem).error === 'string';
}

/** A path segment for a URL (policy, lock, app and secret ids). */
export const seg = (s: string): string => encodeURIComponent(s);
