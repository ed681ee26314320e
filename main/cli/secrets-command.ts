// `gatehouse secrets set NAME | delete NAME | list`: the values behind `${secret:NAME}`, in the
// secret store (the OS keychain, else the encrypted file with a warning). `set` reads the value
// from the terminal (not echoed) or from stdin, never from argv: argv is visible to every
// process on the machine (ps) and lands in shell history.
import { parseArgs } from 'node:util';
import { SECRET_NAME_RE, USER_SECRET_PREFIX, openSecretStore } from '../auth/secret-store';
import { dataDir } from '../paths';

const USAGE = `usage:
  gatehouse secrets set NAME       read the value from the terminal (hidden) or stdin
  gatehouse secrets delete NAME
  gatehouse secrets list           names only; values are never printed`;

async function readValue(name: string): Promise<string> {
  const stdin = process.stdin;
  if (!stdin.isTTY) {
    const chunks: Buffer[] = [];
    for await (const c of stdin) chunks.push(c as Buffer);
    // One trailing newline is the shell's (echo, a heredoc), not the secret's.
    return Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
  }
  process.stderr.write(`value for ${name} (not shown): `);
  stdin.setRawMode(true);
  stdin.resume();
  let value = '';
  try {
    await new Promise<void>((resolve, reject) => {
      const onData = (d: Buffer) => {
        for (const ch of d.toString('utf8')) {
          if (ch === '\r' || ch === '\n') return done(resolve);
          if (ch === '\u0003') return done(() => reject(new Error('cancelled')));
          if (ch === '\u007f' || ch === '\b') value = value.slice(0, -1);
          else value += ch;
        }
      };
      const done = (fn: () => void) => {
        stdin.off('data', onData);
        fn();
      };
      stdin.on('data', onData);
    });
  } finally {
    stdin.setRawMode(false);
    stdin.pause();
    process.stderr.write('\n');
  }
  return value;
}

export async function run(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: { 'data-dir': { type: 'string' }, help: { type: 'boolean', short: 'h' } }, allowPositionals: true, strict: true });
  } catch (err) {
    process.stderr.write(`gatehouse secrets: ${(err as Error).message}\n${USAGE}\n`);
    return 2;
  }
  const [sub, name, ...extra] = parsed.positionals;
  if (parsed.values.help || !sub) {
    process.stderr.write(`${USAGE}\n`);
    return parsed.values.help ? 0 : 2;
  }
  if (!['set', 'delete', 'list'].includes(sub)) {
    process.stderr.write(`gatehouse secrets: unknown subcommand '${sub}'\n${USAGE}\n`);
    return 2;
  }
  if (sub === 'list' ? name !== undefined : name === undefined || extra.length > 0) {
    const why = sub === 'set' && extra.length > 0 ? ' (the value is read from stdin, never from the command line)' : '';
    process.stderr.write(`gatehouse secrets ${sub}: expected ${sub === 'list' ? 'no arguments' : 'exactly one NAME'}${why}\n${USAGE}\n`);
    return 2;
  }
  if (name !== undefined && !SECRET_NAME_RE.test(name)) {
    process.stderr.write(`gatehouse secrets ${sub}: a secret name is letters, digits, _ . -, not starting with a digit; got '${name}'\n`);
    return 2;
  }
  let store;
  try {
    store = openSecretStore({ dataDir: parsed.values['data-dir'] ?? dataDir(process.env), env: process.env });
  } catch (err) {
    process.stderr.write(`gatehouse secrets: ${(err as Error).message}\n`);
    return 1;
  }
  if (store.warning) process.stderr.write(`gatehouse: warning: ${store.warning}\n`);
  try {
    if (sub === 'list') {
      const names = store.keys().filter((k) => k.startsWith(USER_SECRET_PREFIX));
      for (const k of names) process.stdout.write(`${k.slice(USER_SECRET_PREFIX.length)}\n`);
      process.stderr.write(`${names.length} secret${names.length === 1 ? '' : 's'} in ${store.description}\n`);
      return 0;
    }
    if (sub === 'delete') {
      const removed = store.delete(`${USER_SECRET_PREFIX}${name}`);
      process.stderr.write(removed ? `deleted ${name}\n` : `no secret named ${name}\n`);
      return removed ? 0 : 1;
    }
    const value = await readValue(name!);
    if (value.length === 0) {
      process.stderr.write(`gatehouse secrets set: the value is empty; nothing stored\n`);
      return 1;
    }
    store.set(`${USER_SECRET_PREFIX}${name}`, value);
    process.stderr.write(`stored ${name} in ${store.description}; use it in a profile as \${secret:${name}}\n`);
    return 0;
  } catch (err) {
    process.stderr.write(`gatehouse secrets ${sub}: ${(err as Error).message}\n`);
    return 1;
  }
}
