/** The optimal request whose whole-job time limit test/integration/lp-time-limit.test.ts checks and the bench times. */
export const TIME_LIMIT_SECONDS = 30;

/** 50 x 50 grid of 0.5 km cells at ln 4, a lumpy prior, expected distance, the exact model under a 30 s limit. */
export function timeLimitRequest(): Record<string, unknown> {
  const values = Array.from({ length: 2500 }, (_, i) => 1 + ((i * 7919) % 13) ** 2);
  const s = values.reduce((a, b) => a + b, 0);
  return {
    type: 'mechanism',
    domain: 'grid:50x50:step=0.5',
    epsilon: Math.log(4),
    kind: 'optimal',
    prior: { kind: 'vector', values: values.map((v) => v / s) },
    loss: 'dist',
    timeLimitSeconds: TIME_LIMIT_SECONDS,
  };
}
