/** Injection token of the validated RampartConfig. */
export const RAMPART_CONFIG = Symbol('RAMPART_CONFIG');
