import { describe, expect, it } from 'vitest';
import { SHIPPED_POLICIES } from '../../app.policies.js';
import { validateSignatureSlice } from './signature.validate.js';

describe(validateSignatureSlice.name, () => {
  it('should accept required, optional and a missing `signed` (= required)', () => {
    expect(validateSignatureSlice({ mode: 'enforce', signed: 'required' }, 'p')).toEqual([]);
    expect(validateSignatureSlice({ mode: 'shadow', signed: 'optional' }, 'p')).toEqual([]);
    expect(validateSignatureSlice({ mode: 'off' }, 'p')).toEqual([]);
  });

  it('should name a bad `signed` value and unknown options', () => {
    expect(
      validateSignatureSlice(
        { mode: 'enforce', signed: 'sometimes', skew: 5 },
        'policies.x.locks.signature',
      ),
    ).toEqual([
      'policies.x.locks.signature.signed: must be one of required, optional',
      'policies.x.locks.signature.skew: unknown option (known: mode, signed, secretToken, onFailure, override)',
    ]);
  });

  it('should ship inference required, search and search-item optional, admin off', () => {
    const slice = (p: string): unknown => SHIPPED_POLICIES[p]?.locks.signature;
    expect(slice('inference')).toMatchObject({ mode: 'enforce', signed: 'required' });
    expect(slice('search')).toMatchObject({ mode: 'enforce', signed: 'optional' });
    expect(slice('search-item')).toMatchObject({ mode: 'enforce', signed: 'optional' });
    expect(slice('admin')).toMatchObject({ mode: 'off' });
  });

  it('should accept only a registered secret-token source', () => {
    expect(validateSignatureSlice({ mode: 'enforce', secretToken: 'hook' }, 'p', ['hook'])).toEqual(
      [],
    );
    expect(
      validateSignatureSlice({ mode: 'enforce', secretToken: 'other' }, 'p', ['hook']),
    ).toEqual(['p.secretToken: must name a registered secret-token source (known: hook)']);
  });
});
