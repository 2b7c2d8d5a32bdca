import {
  Controller,
  ExecutionContext,
  UseFilters,
  UseGuards,
  ValidationPipe,
  applyDecorators,
  createParamDecorator,
} from '@nestjs/common';
import { ApiBearerAuth, ApiResponse, ApiTags } from '@nestjs/swagger';
import { Protect } from '../chain/protect.decorator.js';
import type { AnyRequest } from '../http/http-context.js';
import { AdminAuthGuard } from './auth/admin-auth.guard.js';
import { AdminErrorFilter } from './admin-error.filter.js';

/**
 * An admin controller under `/admin/<path>`: the chain guard of policy
 * `admin` runs first (the rate-limit lock throttles token guessing), then
 * the bearer-token guard. Guards run in the order they are declared here.
 */
export function AdminController(path: string): ClassDecorator {
  return applyDecorators(
    Controller(path ? `admin/${path}` : 'admin'),
    Protect('admin'),
    UseGuards(AdminAuthGuard),
    UseFilters(AdminErrorFilter),
    ApiTags('admin'),
    ApiBearerAuth('admin'),
    ApiResponse({
      status: 401,
      description: 'admin_unauthorized: missing or invalid bearer token (nothing changed)',
    }),
    ApiResponse({
      status: 429,
      description: 'rate_limited by the rate-limit lock (policy `admin`)',
    }),
    ApiResponse({
      status: 503,
      description:
        'admin_not_configured (no admin credential set) or admin_store_unavailable (Redis down)',
    }),
  );
}

/**
 * Strict validation of admin bodies: unknown fields are an error (not
 * silently dropped), every problem is listed, and nothing applies on failure.
 */
const ADMIN_VALIDATION = new ValidationPipe({
  whitelist: true,
  forbidNonWhitelisted: true,
  forbidUnknownValues: true,
  transform: true,
  stopAtFirstError: false,
  validateCustomDecorators: true,
});

// A custom parameter decorator, so the global (stripping) ValidationPipe leaves
// the body alone and the strict pipe above sees the unknown fields. No body
// at all (express' raw parser gives an empty Buffer) is "no fields".
const RequestBody = createParamDecorator((_: unknown, ctx: ExecutionContext): unknown => {
  const body = ctx.switchToHttp().getRequest<AnyRequest>().body;
  return Buffer.isBuffer(body) && body.length === 0 ? undefined : body;
});

/** The request body, validated strictly against the parameter's DTO class. */
export const AdminBody = (): ParameterDecorator => RequestBody(undefined, ADMIN_VALIDATION);
