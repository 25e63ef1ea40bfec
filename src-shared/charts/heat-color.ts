/** The maps' colour scale, shared by the app's maps and the study report's. */
/** Perceptual-ish sequential colour map (white -> blue -> dark navy) for probabilities in [0, 1]. */
export function heatColor(t: number): string {
  const x = Math.max(0, Math.min(1, t));
  const stops: [number, number, number][] = [
    [247, 251, 255],
    [198, 219, 239],
    [107, 174, 214],
    [33, 113, 181],
    [8, 48, 107],
  ];
  const p = x * (stops.length - 1);
  const i = Math.min(stops.length - 2, Math.floor(p));
  const f = p - i;
  const a = stops[i]!;
  const b = stops[i + 1]!;
  const c = (k: 0 | 1 | 2): number => Math.round(a[k] + (b[k] - a[k]) * f);
  return `rgb(${c(0)},${c(1)},${c(2)})`;
}
