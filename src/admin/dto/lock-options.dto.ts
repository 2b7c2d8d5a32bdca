import { ApiProperty } from '@nestjs/swagger';
import { IsObject } from 'class-validator';

/** Body of `PATCH /admin/policies/:policy/locks/:lock/options`. */
export class LockOptionsDto {
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    example: { failMode: 'closed', tiers: { free: 1, pro: 5 } },
    description:
      'JSON Merge Patch (RFC 7396) of the lock slice: objects merge, `null` deletes, arrays replace. The lock validates the result.',
  })
  @IsObject()
  options!: Record<string, unknown>;
}
