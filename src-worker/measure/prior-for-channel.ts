import { MechError } from '../../src-shared/errors';
import type { RowSource } from '../mechanism/channel';
import { validatePrior } from './prior';

/** A channel needs at least one row and one column. */
export function assertChannelShape(channel: RowSource): void {
  if (!(channel.rows > 0) || !(channel.cols > 0)) {
    throw new MechError(
      'invalid-input',
      `channel has ${channel.rows} rows and ${channel.cols} columns; it needs at least one of each`,
    );
  }
}

/**
 * Validate a prior against a channel's secrets (rows): finite, >= 0, summing
 * to 1 within SUM_TOL, one entry per row. Every measure enters through here.
 * The channel itself is not re-validated (that is a full pass; callers that
 * read channels from files run validateChannel once).
 */
export function priorForChannel(pi: ArrayLike<number>, channel: RowSource): Float64Array {
  assertChannelShape(channel);
  if (pi.length !== channel.rows) {
    throw new MechError(
      'invalid-input',
      `prior has ${pi.length} entries but the channel has ${channel.rows} secrets (rows)`,
    );
  }
  return validatePrior(pi, channel.rows);
}
