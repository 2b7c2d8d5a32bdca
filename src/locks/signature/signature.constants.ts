import { Inject } from '@nestjs/common';

/** Injection token of the validated SignatureSettings (CONFIG_FILE `signature:` section). */
export const SIGNATURE_SETTINGS = Symbol('SIGNATURE_SETTINGS');

export const InjectSignatureSettings = (): ParameterDecorator => Inject(SIGNATURE_SETTINGS);
