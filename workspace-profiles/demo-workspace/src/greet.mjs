// A tiny module with one deliberate bug for an agent to find.

export function greet(name) {
  // TODO: trim the name and fall back to "world" when it is empty.
  return `Hello, ${name}!`;
}

export function greetAll(names) {
  // Bug: joins with no separator.
  return names.map(greet).join('');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  process.stdout.write(`${greetAll(process.argv.slice(2))}\n`);
}
