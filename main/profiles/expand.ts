// `${…}` expansion inside profile strings. Deliberately small and closed: an unknown form is an
// error rather than left as-is, because a literal "${sercet:X}" reaching a server would
// be a silent misconfiguration (and maybe a leaked placeholder in a header).
//
//   ${workspace}             absolute workspace root
//   ${data}                  Gatehouse's data directory
//   ${env:NAME}              host environment variable (error when unset)
//   ${env:NAME:-default}     ... or `default` when unset or empty (as in POSIX sh)
//   ${secret:NAME}           from the SecretProvider; the value is reported so it can be redacted
//   $${                      a literal "${"
//
// There is no nesting: a default runs to the first "}".
import { ENV_NAME_RE } from './schema';
import type { SecretProvider } from '../secrets/provider';

export interface ExpandContext {
  /** Undefined while expanding `workspace:` itself. */
  workspace?: string;
  dataDir: string;
  env: NodeJS.ProcessEnv;
  secrets: SecretProvider;
}

export interface ExpandProblem {
  /** Never contains a secret value. */
  message: string;
  /** The `${…}` text as written, so the error can point at it. */
  token: string;
}

export interface ExpandResult {
  value: string;
  /** Secrets this string used, by name. */
  secrets: { name: string; value: string }[];
  problems: ExpandProblem[];
}

const FORMS = '${workspace}, ${data}, ${env:NAME}, ${env:NAME:-default}, ${secret:NAME}, or $${ for a literal ${';

export function expandString(input: string, ctx: ExpandContext): ExpandResult {
  const secrets: ExpandResult['secrets'] = [];
  const problems: ExpandProblem[] = [];
  let value = '';
  let i = 0;
  while (i < input.length) {
    if (input.startsWith('$${', i)) {
      value += '${';
      i += 3;
      continue;
    }
    if (!input.startsWith('${', i)) {
      value += input[i];
      i += 1;
      continue;
    }
    const end = input.indexOf('}', i + 2);
    if (end < 0) {
      problems.push({ message: `unterminated '\${' (write $\${ for a literal \${)`, token: input.slice(i) });
      break;
    }
    const token = input.slice(i, end + 1);
    const body = input.slice(i + 2, end);
    i = end + 1;
    const out = expandToken(body, token, ctx, secrets);
    if (typeof out === 'string') value += out;
    else problems.push(out);
  }
  return { value, secrets, problems };
}

function expandToken(body: string, token: string, ctx: ExpandContext, secrets: ExpandResult['secrets']): string | ExpandProblem {
  if (body === 'workspace') {
    return ctx.workspace ?? { message: '${workspace} cannot be used in `workspace` itself', token };
  }
  if (body === 'data') return ctx.dataDir;

  if (body.startsWith('env:')) {
    const rest = body.slice(4);
    const sep = rest.indexOf(':-');
    const name = sep < 0 ? rest : rest.slice(0, sep);
    if (!ENV_NAME_RE.test(name)) return { message: `'${name}' is not an environment variable name in ${token}`, token };
    const v = ctx.env[name];
    if (sep >= 0) return v === undefined || v === '' ? rest.slice(sep + 2) : v;
    if (v === undefined) {
      return { message: `environment variable ${name} is not set (write \${env:${name}:-default} to fall back to a default)`, token };
    }
    return v;
  }

  if (body.startsWith('secret:')) {
    const name = body.slice(7);
    if (!ENV_NAME_RE.test(name)) return { message: `'${name}' is not a valid secret name in ${token} (letters, digits and '_')`, token };
    const v = ctx.secrets.get(name);
    if (v === undefined) return { message: `secret ${name} is not set (looked in ${ctx.secrets.describe(name)})`, token };
    secrets.push({ name, value: v });
    return v;
  }

  return { message: `unknown expansion ${token} (expected ${FORMS})`, token };
}
