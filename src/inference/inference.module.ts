import { Module } from '@nestjs/common';

/** Inference API and its backends (filled in by the inference work). */
@Module({})
export class InferenceModule {}
