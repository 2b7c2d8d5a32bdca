import type { ProblemCode } from '../../common/problem-codes.js';
import { ProblemException } from '../../common/problem.exception.js';
import { SHIELD_HEADER } from './cache-shield.key-source.js';

/**
 * The shield's own problems (the `error` field). A route's answers that the
 * shield gives for it (e.g. a 404 for an id that cannot exist) are the
 * product's, made by its key source.
 */
export enum ShieldProblem {
  /** 400: the key is longer than the slice's `maxQueryLength` after normalisation. */
  QueryTooLong = 'query_too_long',
  /** Admin 404: no filter of that name. */
  FilterNotFound = 'bloom_filter_not_found',
  /** Admin 404: no such build to roll back to. */
  VersionNotFound = 'bloom_version_not_found',
  /** Admin 409: another instance is building the filter. */
  BuildInProgress = 'bloom_build_in_progress',
  /** Admin 422: a new build failed its validation and was not activated. */
  ValidationFailed = 'bloom_validation_failed',
  /** Admin 409: the builds changed during a rollback. */
  Conflict = 'bloom_conflict',
  /** Admin 503: the Bloom store (Redis) is unreachable. */
  StoreUnavailable = 'bloom_store_unavailable',
}

/** Every shield code is in the catalogue (a compile-time check). */
export const SHIELD_CODES = Object.values(ShieldProblem) satisfies readonly ProblemCode[];

/** The problem `code` with its status, title and headers; `detail` and `extra` say what happened. */
export function shieldProblem(
  code: ShieldProblem,
  detail: string,
  extra: Record<string, unknown> = {},
): ProblemException {
  switch (code) {
    case ShieldProblem.QueryTooLong:
      return ProblemException.fast(400, code, 'Query too long', {
        detail,
        headers: { [SHIELD_HEADER]: 'too-long' },
        ...extra,
      });
    case ShieldProblem.FilterNotFound:
      return new ProblemException(404, code, 'No such filter', { detail, ...extra });
    case ShieldProblem.VersionNotFound:
      return new ProblemException(404, code, 'No such build to return to', { detail, ...extra });
    case ShieldProblem.BuildInProgress:
      return new ProblemException(409, code, 'A build is already running', { detail, ...extra });
    case ShieldProblem.ValidationFailed:
      return new ProblemException(422, code, 'The new build failed validation', {
        detail,
        ...extra,
      });
    case ShieldProblem.Conflict:
      return new ProblemException(409, code, 'The builds changed meanwhile', { detail, ...extra });
    case ShieldProblem.StoreUnavailable:
      return new ProblemException(503, code, 'The Bloom store is unreachable', {
        detail,
        headers: { 'retry-after': '5' },
        ...extra,
      });
  }
}

/** 400 `query_too_long`: the key (named by its key source's label) is longer than `max` code points. */
export function queryTooLong(label: string, max: number): ProblemException {
  return shieldProblem(
    ShieldProblem.QueryTooLong,
    `${label} is longer than ${max} characters after normalisation`,
    { max_length: max },
  );
}
