import { Transform } from 'class-transformer';

const DECIMAL = /^(?:0|[1-9]\d{0,14})$/;

/**
 * A query parameter read as an integer only when written in plain decimal
 * (`10`, never `0x10`, `0b11`, `1e3`, ` 7` or `010`): anything else stays a
 * string, which the property's @IsInt() then refuses with 400.
 */
export function DecimalInt(): PropertyDecorator {
  return Transform(({ value }: { value: unknown }) =>
    typeof value === 'string' && DECIMAL.test(value) ? Number(value) : value,
  );
}
