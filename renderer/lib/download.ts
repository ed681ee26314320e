/** Save text as a file through a Blob download (works in Electron and in the browser shell). */
export function downloadText(text: string, fileName: string, type = 'application/x-ndjson'): void {
  downloadBlob(new Blob([text], { type }), fileName);
}

/** Save bytes (a resource's blob) as a file. */
export function downloadBytes(bytes: Uint8Array, fileName: string, type: string): void {
  downloadBlob(new Blob([bytes as BlobPart], { type }), fileName);
}

function downloadBlob(blob: Blob, fileName: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = fileName;
  a.rel = 'noopener';
  document.body.appendChild(a);
  a.click();
  a.remove();
  // Revoked later, not at once: some browsers read the URL after click() returns.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
