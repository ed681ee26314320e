export async function runProfileAuth(_sub: string, _argv: string[], usage: string): Promise<number> {
  process.stderr.write(`${usage}\n`);
  return 2;
}
