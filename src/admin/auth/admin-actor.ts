import { ExecutionContext, createParamDecorator } from '@nestjs/common';
import { AnyRequest, requestState } from '../../http/http-context.js';

const actors = new WeakMap<object, string>();

/** Remembers which admin token (by id) authenticated this request. */
export function setActor(req: AnyRequest, tokenId: string): void {
  actors.set(requestState(req), tokenId);
}

/** The token id of the authenticated admin request ('unknown' if the guard did not run, which the guard order prevents). */
export function actorOf(req: AnyRequest): string {
  return actors.get(requestState(req)) ?? 'unknown';
}

/** Parameter decorator: the token id of the admin making the request, e.g. `env` or `alice`. */
export const AdminActor = createParamDecorator((_: unknown, ctx: ExecutionContext): string =>
  actorOf(ctx.switchToHttp().getRequest<AnyRequest>()),
);
