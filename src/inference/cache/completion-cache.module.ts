import { Module } from '@nestjs/common';
import { CompletionRecorder } from './completion-recorder.js';

/** The recorder shared by the inference service and the deterministic answer cache's key source. */
@Module({ providers: [CompletionRecorder], exports: [CompletionRecorder] })
export class CompletionCacheModule {}
