/**
 * A file picked in the page, read as text when it is at most `maxBytes` (one call to the host must stay under its
 * message cap); else why not, naming the command that reads any size.
 */
export async function readPickedText(
  f: File,
  maxBytes: number,
  command: string,
): Promise<{ text: string } | { error: string }> {
  if (f.size > maxBytes)
    return {
      error: `${f.name} is ${(f.size / 2 ** 20).toFixed(0)} MiB; the app takes up to ${maxBytes / 2 ** 20} MiB (${command} reads any size)`,
    };
  return { text: await f.text() };
}
