/**
 * The comparison as an image (Export PNG): its table drawn with the same text as on screen, and its maps side by side
 * under their names with the one legend. Canvas drawing only; the view gathers the canvases.
 */
/** The table as an image (the same text as on screen). */
export function tableCanvas(
  t: { header: string[]; rows: string[][]; notes: string[] },
  title: string,
): HTMLCanvasElement {
  const c = document.createElement('canvas');
  const ctx = c.getContext('2d')!;
  const measure = (s: string, bold: boolean): number => {
    ctx.font = `${bold ? 'bold ' : ''}13px system-ui, sans-serif`;
    return ctx.measureText(s).width;
  };
  const widths = t.header.map(
    (h, j) => Math.max(measure(h, true), ...t.rows.map((r) => measure(r[j] ?? '', false))) + 22,
  );
  const W = Math.max(widths.reduce((a, b) => a + b, 0) + 20, 600);
  const lh = 22;
  c.width = Math.ceil(W);
  c.height = 40 + lh * (t.rows.length + 1) + 18 * t.notes.length + 10;
  ctx.fillStyle = '#fff';
  ctx.fillRect(0, 0, c.width, c.height);
  ctx.fillStyle = '#1f2933';
  ctx.font = 'bold 14px system-ui, sans-serif';
  ctx.fillText(title, 10, 22);
  let y = 40 + 15;
  const line = (cells: string[], bold: boolean): void => {
    ctx.font = `${bold ? 'bold ' : ''}13px system-ui, sans-serif`;
    let x = 10;
    cells.forEach((s, j) => {
      ctx.fillText(s, x, y);
      x += widths[j]!;
    });
    y += lh;
  };
  line(t.header, true);
  ctx.fillStyle = '#1f2933';
  for (const r of t.rows) line(r, false);
  ctx.font = '12px system-ui, sans-serif';
  ctx.fillStyle = '#616e7c';
  for (const n of t.notes) (ctx.fillText(n, 10, y), (y += 18));
  return c;
}

/** The maps as on screen: `perRow` to a row, each under its name, the one legend after the first row. */
export function mapsCanvas(
  maps: { canvas: HTMLCanvasElement; name: string }[],
  legend: HTMLCanvasElement | null,
  perRow: number,
): HTMLCanvasElement {
  const gap = 16;
  const head = 20;
  const w = Math.max(...maps.map((m) => m.canvas.width));
  const h = Math.max(...maps.map((m) => m.canvas.height)) + head;
  const cols = Math.min(perRow, maps.length);
  const out = document.createElement('canvas');
  out.width = cols * w + (cols - 1) * gap + (legend ? legend.width + gap : 0);
  out.height = Math.ceil(maps.length / cols) * (h + gap) - gap;
  const ctx = out.getContext('2d')!;
  ctx.fillStyle = '#fff';
  ctx.fillRect(0, 0, out.width, out.height);
  ctx.fillStyle = '#1f2933';
  ctx.font = 'bold 13px system-ui, sans-serif';
  maps.forEach((m, i) => {
    const x = (i % cols) * (w + gap);
    const y = Math.floor(i / cols) * (h + gap);
    ctx.fillText(m.name, x + 8, y + 14);
    ctx.drawImage(m.canvas, x, y + head);
  });
  if (legend) ctx.drawImage(legend, cols * (w + gap), head);
  return out;
}
