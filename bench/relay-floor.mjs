// The floor for one stdio hop: a bare Node relay that spawns the server and parses
// and re-serialises every newline-delimited message both ways, nothing else. What the stdio
// gateway adds over direct stdio is compared with what this adds.
//   node bench/relay-floor.mjs <command> [args…]
import { spawn } from 'node:child_process';

const [command, ...args] = process.argv.slice(2);
if (!command) {
  process.stderr.write('usage: node bench/relay-floor.mjs <command> [args…]\n');
  process.exit(2);
}
const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'] });

function relay(from, to) {
  let buf = '';
  from.setEncoding('utf8');
  from.on('data', (chunk) => {
    buf += chunk;
    let out = '';
    for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      if (line.trim() === '') continue;
      out += `${JSON.stringify(JSON.parse(line))}\n`;
    }
    if (out) to.write(out);
  });
}

relay(process.stdin, child.stdin);
relay(child.stdout, process.stdout);
process.stdin.on('end', () => child.stdin.end());
child.on('exit', (code) => process.exit(code ?? 0));
