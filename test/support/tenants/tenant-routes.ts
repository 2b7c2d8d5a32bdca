/**
 * Test-only routes of the multi-tenant suite (test/e2e/tenants.e2e.spec.ts): what each app gets from one
 * path depends on the app (notes), or not (public pages), plus a route naming its user and a backend that
 * answers client errors. The shield reaches the notes through its extension point (key source
 * `tenant-note`), as any product would.
 */
import { Controller, Get, Module, Param, Req } from '@nestjs/common';
import { Protect } from '../../../src/chain/protect.decorator.js';
import { ProblemException } from '../../../src/common/problem.exception.js';
import { type AnyRequest, markBackendCall, requestState } from '../../../src/http/http-context.js';
import { CacheShieldModule } from '../../../src/locks/cache-shield/cache-shield.module.js';
import {
  SHIELD_HEADER,
  SKIP,
  type KeySource,
} from '../../../src/locks/cache-shield/cache-shield.key-source.js';

/** Each app's own notes: the same name is another note in another app; the hostile app has none. */
export const NOTES: Record<string, Record<string, string>> = {
  'ten-a': { plan: 'a: plan', launch: 'a: launch' },
  'ten-b': { plan: 'b: plan' },
};
/** Public pages: the same answer whoever asks. */
export const PUBLIC: Record<string, string> = { docs: 'public docs', faq: 'public faq' };

/** Handler calls, as `<route>:<app>:<name>`. */
export const calls: string[] = [];
export const callsOf = (entry: string): number => calls.filter((c) => c === entry).length;

function notFound(headers: Record<string, string> = {}): ProblemException {
  return ProblemException.fast(404, 'not_found', 'Not found', { headers });
}

/** Key source `tenant-note`: the `:name` parameter; its filter is registered by no one (always "maybe"). */
const noteKeys: KeySource<string> = {
  read(req: AnyRequest) {
    const name = (req as { params?: Record<string, unknown> }).params?.name;
    return typeof name === 'string' && name !== ''
      ? { request: { filter: 'tenant-notes', keys: [name], cacheKey: name, allowKey: name } }
      : SKIP;
  },
  accept: (r) => r.cacheKey,
  absent(_name: string, header: string): never {
    throw notFound({ [SHIELD_HEADER]: header }).asAnswer();
  },
  found: (_name, body) => body,
  isEmpty: () => false,
  isEmptyError: (err) => err instanceof ProblemException && err.getStatus() === 404,
};

@Controller('tenant-test')
class TenantController {
  @Get('notes/:name')
  @Protect('t-notes')
  note(@Req() req: AnyRequest, @Param('name') name: string): { name: string; text: string } {
    const app = requestState(req).appId ?? '-';
    calls.push(`notes:${app}:${name}`);
    const text = NOTES[app]?.[name];
    if (text === undefined) throw notFound();
    return { name, text };
  }

  @Get('public/:name')
  @Protect('t-public')
  page(@Req() req: AnyRequest, @Param('name') name: string): { name: string; text: string } {
    calls.push(`public:${requestState(req).appId ?? '-'}:${name}`);
    const text = PUBLIC[name];
    if (text === undefined) throw notFound();
    return { name, text };
  }

  /** The app the locks gave the request, and the user of its session key (null with the user header). */
  @Get('who')
  @Protect('t-user')
  who(@Req() req: AnyRequest): { app: string; user: string | null } {
    const s = requestState(req);
    return { app: s.appId ?? '-', user: s.userId ?? null };
  }

  /** Always 400 validation_failed: a risk signal against the app and user the request proves. */
  @Get('bad')
  @Protect('t-bad')
  bad(): never {
    throw new ProblemException(400, 'validation_failed', 'Bad request');
  }

  @Get('app')
  @Protect('t-app')
  app(@Req() req: AnyRequest): { app: string } {
    return { app: requestState(req).appId ?? '-' };
  }

  /** A backend call that answers `ok`, a 404 (`missing`) or a 400 (`invalid`): client errors, the backend is fine. */
  @Get('backend/:what')
  @Protect('t-backend')
  backend(@Req() req: AnyRequest, @Param('what') what: string): { ok: true } {
    markBackendCall(req);
    if (what === 'missing') throw notFound();
    if (what === 'invalid') throw new ProblemException(400, 'validation_failed', 'Bad request');
    return { ok: true };
  }
}

@Module({
  imports: [CacheShieldModule.forFeature({ keySources: { 'tenant-note': noteKeys } })],
  controllers: [TenantController],
})
export class TenantRoutesModule {}
