const mock = new URL('./electron.mjs', import.meta.url).href;
export async function resolve(specifier, context, next) {
  if (specifier === 'electron') return { url: mock, shortCircuit: true };
  return next(specifier, context);
}
