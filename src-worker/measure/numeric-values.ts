import { MechError } from '../../src-shared/errors';
import { parseDecimal } from '../../src-shared/numeric/decimal';
import type { RowSource } from '../mechanism/channel';
import type { Domain } from '../metric/domain';

/**
 * Numeric values of a channel's secrets (rows) and reports (columns) for
 * (a, b)-usefulness: rows take domain.value; columns take domain.value when
 * the channel's outputs are the domain's points (cols = n), otherwise their
 * labels must parse as numbers.
 */
export function numericValues(channel: RowSource, domain: Domain): { rowValue: Float64Array; colValue: Float64Array } {
  const value = domain.value;
  if (!value)
    throw new MechError(
      'invalid-input',
      `domain ${domain.spec} has no numeric answers; (a, b)-usefulness needs numeric values (line, count, sum, ...)`,
    );
  if (channel.rows !== domain.n)
    throw new MechError(
      'invalid-input',
      `channel has ${channel.rows} rows but the domain ${domain.spec} has ${domain.n} points`,
    );
  const rowValue = new Float64Array(channel.rows);
  for (let i = 0; i < channel.rows; i++) rowValue[i] = value.call(domain, i);
  const colValue = new Float64Array(channel.cols);
  if (channel.cols === domain.n) {
    colValue.set(rowValue);
  } else {
    for (let j = 0; j < channel.cols; j++) {
      const lab = channel.colLabel(j);
      const v = parseDecimal(lab.trim());
      if (v === undefined)
        throw new MechError(
          'invalid-input',
          `output label '${lab}' (column ${j}) is not a number; (a, b)-usefulness needs numeric reports`,
        );
      colValue[j] = v;
    }
  }
  return { rowValue, colValue };
}
