import { ApiProperty } from '@nestjs/swagger';
import { IsInt, Min } from 'class-validator';

/** Body of `POST /admin/policies/rollback`. */
export class RollbackDto {
  @ApiProperty({
    minimum: 1,
    description: 'Version whose content becomes active again (as a new version)',
  })
  @IsInt()
  @Min(1)
  version!: number;
}
