// Backups of a client's configuration file before Gatehouse changes it. The first backup is the
// user's own file as it was before Gatehouse ever touched it, so it is never overwritten: later
// writes keep their previous version as FILE.bak.2, FILE.bak.3, … (two writes used to leave
// only Gatehouse's own first version).
import { copyFileSync, constants, existsSync } from 'node:fs';

/** The first free name among FILE.bak, FILE.bak.2, FILE.bak.3, … */
export function nextBackupPath(file: string): string {
  if (!existsSync(`${file}.bak`)) return `${file}.bak`;
  for (let n = 2; ; n++) if (!existsSync(`${file}.bak.${n}`)) return `${file}.bak.${n}`;
}

/** Copies `file` to its next backup name (never replacing one) and returns that name. */
export function backUp(file: string): string {
  const target = nextBackupPath(file);
  copyFileSync(file, target, constants.COPYFILE_EXCL);
  return target;
}
