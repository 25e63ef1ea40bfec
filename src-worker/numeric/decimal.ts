/** The strict decimal parser lives in src-shared (the domain grammar and the renderer use it too); the engine imports it from here. */
export { decimalProblem, parseDecimal, parseDigits } from '../../src-shared/numeric/decimal';
