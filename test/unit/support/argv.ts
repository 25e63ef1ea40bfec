/**
 * A command line written as one line of text: argv`apply --channel ${file} --epsilon 1 --json` is
 * ['apply', '--channel', file, '--epsilon', '1', '--json']. The literal text splits at white space (a
 * line break too, so a long command may wrap); a value stands for itself however many spaces it holds,
 * joined to the text it touches (`points:${file}:cell=1` is one word), and an array value stands for
 * each of its items (it must stand apart from the text around it).
 */
export function argv(text: TemplateStringsArray, ...values: (string | number | readonly string[])[]): string[] {
  const words: string[] = [];
  let word: string | null = null;
  const end = (): void => {
    if (word !== null) words.push(word);
    word = null;
  };
  text.forEach((chunk, i) => {
    chunk.split(/\s+/).forEach((piece, j) => {
      if (j > 0) end();
      if (piece !== '') word = (word ?? '') + piece;
    });
    if (i === values.length) return;
    const value = values[i]!;
    if (typeof value === 'string' || typeof value === 'number') {
      word = (word ?? '') + String(value);
      return;
    }
    const next = text[i + 1] ?? '';
    if (word !== null || (next !== '' && !/^\s/.test(next))) throw new Error('argv: an array value must stand apart');
    words.push(...value);
  });
  end();
  return words;
}
