// The layering of ../shared/ARCHITECTURE.md ("Processes and layers"), checked on every form an
// import can take: `import … from`, `export … from`, `import()`, `require()` and TypeScript's
// `import x = require()`. ESLint's own no-restricted-imports sees only the first two, so a
// dynamic import or a require slipped past it (as VS Code's local/code-layering rule, one rule
// that knows the layers, instead of a pattern list per folder).
//
// Layers (by the importing file's path, relative to the repository):
// - `electron` and any `electron/…` subpath: only main/electron/ and preload/;
// - the core (main/ except the shells main/{electron,cli,web,api}/ and the composition root
//   main/host.ts) never imports a shell or main/host.ts;
// - renderer/ imports neither main/ nor preload/ nor Node built-ins;
// - common/ imports only zod and common/ itself;
// - the folders of main/ have a declared order, LAYER_ORDER below (docs/architecture.md "Layer
//   order"): a folder imports only itself and folders below it, type-only imports included (a
//   type is a dependency of the design too). Declared, not computed from the graph at lint time,
//   so a back edge is refused instead of becoming part of a new order, and the list reads as
//   documentation. A folder that is not in the list is refused until it is given a place.
import { builtinModules } from 'node:module';
import path from 'node:path';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const SHELLS = ['main/electron/', 'main/cli/', 'main/web/', 'main/api/'];
const BUILTINS = new Set(builtinModules);

/**
 * main/'s folders from base to top. `base` is the files directly in main/ (paths.ts) and main/base/;
 * main/host.ts is the composition root and sits outside the order (the shells may import it, the
 * core may not: the rule above). Keep in step with docs/architecture.md "Layer order".
 */
export const LAYER_ORDER = [
  'base',
  'native',
  'tools',
  'secrets',
  'sandbox',
  'profiles',
  'packages',
  'protocol',
  'auth',
  'policy',
  'data',
  'approvals',
  'supervisor',
  'trust',
  'audit',
  'gateway',
  'telemetry',
  'model',
  'agents',
  'doctor',
  // The shells: the host API, then the processes that serve it.
  'api',
  'web',
  'cli',
  'electron',
];
const RANK = new Map(LAYER_ORDER.map((name, i) => [name, i]));

function rel(file) {
  return path.relative(ROOT, file).split(path.sep).join('/');
}

/** The repository path an import resolves to (relative specifiers), or undefined for a package. */
function target(fromFile, spec) {
  if (!spec.startsWith('.')) return undefined;
  return rel(path.resolve(path.dirname(fromFile), spec));
}

const isElectron = (spec) => spec === 'electron' || spec.startsWith('electron/');
const isBuiltin = (spec) => spec.startsWith('node:') || BUILTINS.has(spec.split('/')[0]);
const isShellPath = (t) => SHELLS.some((s) => t.startsWith(s)) || /^main\/host(\.ts)?$/.test(t);

/** The layer of a repository path under main/ ('base', a folder name), or undefined (host.ts, outside main/). */
function layerOf(t) {
  const parts = t.replace(/\.[cm]?[jt]sx?$/, '').split('/');
  if (parts[0] !== 'main' || parts.length < 2) return undefined;
  if (parts.length === 2) {
    if (parts[1] === 'host') return undefined;
    // `../profiles` (a folder's index) names the folder; `../paths` is a base file.
    return RANK.has(parts[1]) ? parts[1] : 'base';
  }
  return parts[1];
}

/** Why an import from main/ `from` to main/ `to` goes against LAYER_ORDER, or undefined. */
function orderViolation(from, to) {
  const a = layerOf(from);
  const b = to && layerOf(to);
  if (!a || !b || a === b) return undefined;
  for (const name of [a, b]) {
    if (!RANK.has(name)) return `main/${name}/ has no place in LAYER_ORDER (scripts/eslint-layering.mjs): give it one before it imports or is imported`;
  }
  if (RANK.get(b) < RANK.get(a)) return undefined;
  return `main/${a}/ may import only the folders below it in the layer order (docs/architecture.md "Layer order"), and main/${b}/ is above it: ${to}. Move the shared piece down instead`;
}

/** The reason `file` may not import `spec`, or undefined. */
export function layeringViolation(file, spec) {
  const from = rel(file);
  const to = target(file, spec);
  if (isElectron(spec) && !from.startsWith('main/electron/') && !from.startsWith('preload/')) {
    return `only main/electron/ and preload/ may import ${spec}`;
  }
  if (from.startsWith('main/') && !isShellPath(from.replace(/\.ts$/, '')) && !SHELLS.some((s) => from.startsWith(s)) && to && isShellPath(to)) {
    return `the core (main/ outside main/{electron,cli,web,api}/ and main/host.ts) never imports a shell or the composition root: ${to}`;
  }
  if (from.startsWith('renderer/')) {
    if (to && (to.startsWith('main/') || to.startsWith('preload/'))) return `renderer/ talks only to the host API in common/, not to ${to}`;
    if (!to && isBuiltin(spec)) return `renderer/ runs in a browser: no Node built-in (${spec})`;
  }
  if (from.startsWith('common/')) {
    if (to ? !to.startsWith('common/') : !(spec === 'zod' || spec.startsWith('zod/'))) return `common/ imports nothing but zod and itself, not ${to ?? spec}`;
  }
  const order = orderViolation(from, to);
  if (order) return order;
  return undefined;
}

const rule = {
  meta: { type: 'problem', schema: [], messages: { layer: '{{why}} (ARCHITECTURE.md "Processes and layers")' } },
  create(context) {
    const file = context.filename ?? context.getFilename();
    const check = (node, source) => {
      if (!source || source.type !== 'Literal' || typeof source.value !== 'string') return;
      const why = layeringViolation(file, source.value);
      if (why) context.report({ node, messageId: 'layer', data: { why } });
    };
    return {
      ImportDeclaration: (n) => check(n, n.source),
      ExportNamedDeclaration: (n) => check(n, n.source),
      ExportAllDeclaration: (n) => check(n, n.source),
      ImportExpression: (n) => check(n, n.source),
      TSImportEqualsDeclaration: (n) => n.moduleReference?.type === 'TSExternalModuleReference' && check(n, n.moduleReference.expression),
      TSImportType: (n) => {
        // typescript-eslint 8 names it `source` (a Literal); older versions `argument` (a TSLiteralType).
        const arg = 'source' in n && n.source ? n.source : n.argument;
        check(n, arg?.type === 'TSLiteralType' ? arg.literal : arg);
      },
      CallExpression: (n) => {
        if (n.callee.type === 'Identifier' && n.callee.name === 'require' && n.arguments.length === 1) check(n, n.arguments[0]);
      },
    };
  },
};

export default { rules: { layering: rule } };
