import { Module } from '@nestjs/common';
import { SessionKeysController } from './session-keys.controller.js';

/** POST /v1/session-keys (docs/session-keys.md). */
@Module({ controllers: [SessionKeysController] })
export class SessionKeysModule {}
