/** The clock's modes as the contract writes them, for the control API and the device frames. */
import Type from 'typebox';

export const ClockModeSchema = Type.Union([
  Type.Literal('virtual'),
  Type.Literal('real'),
  Type.Literal('scaled'),
]);
