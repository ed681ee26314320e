// The approvals relay under a flood, as a person sees it in Chromium: an attacker on the relay
// socket claims to be "gateway pid 4242" and sends 3 connections × 40 requests of 32 KB. The
// Approvals view shows at most the cards the limits allow, each with the real (kernel) pid, and
// ONE notice line for everything refused, not a card per request.
import net from 'node:net';
import path from 'node:path';
import { expect, gotoView, openApp, serveForFile, shot } from './support/app';

const { test, serve } = serveForFile();

function flood(socketPath: string, n: number, count: number): net.Socket {
  const socket = net.connect(socketPath);
  socket.on('error', () => {});
  socket.write(`${JSON.stringify({ type: 'hello', pid: 4242, profile: 'forged', version: '1' })}\n`);
  const content = 'B'.repeat(32 * 1024);
  for (let i = 0; i < count; i++) {
    const request = { tool: 'fs.write', server: 'workspace', args: { file_path: `/etc/flood-${n}-${i}`, content }, reason: 'flood', kind: 'tool', session: 'forged' };
    socket.write(`${JSON.stringify({ type: 'request', id: `f${n}-${i}`, request, timeoutMs: 600_000 })}\n`);
  }
  return socket;
}

test('a relay flood is one notice line and a few cards with the real pid', async ({ page }, testInfo) => {
  // 48 cards at once once crashed the renderer (React #185, renderer/components/use-now.ts).
  const pageErrors: string[] = [];
  page.on('pageerror', (e) => pageErrors.push(e.message));
  await openApp(page, serve());
  await gotoView(page, 'Approvals');
  const sockets = [0, 1, 2].map((n) => flood(path.join(serve().dataDir, 'approvals.sock'), n, 40));
  const view = page.getByRole('main', { name: 'Approvals' });
  const notice = view.getByRole('status').filter({ hasText: /^refused \d+ requests from gateway pid \d+: limit / });
  await expect(notice).toHaveCount(1);
  // 16 per connection fit (32 KB each, well under 1 MiB): 48 cards, 72 refused.
  await expect(notice).toHaveText(`refused 72 requests from gateway pid ${process.pid}: limit 16 pending per gateway`);
  const cards = view.getByRole('dialog', { name: /Approval request/ });
  await expect(cards).toHaveCount(48);
  await expect(view).toContainText(`from gateway process ${process.pid}`);
  await expect(view).not.toContainText('4242');
  await shot(page, testInfo, 'relay-flood-notice');
  for (const s of sockets) s.destroy();
  await expect(cards).toHaveCount(0);
  expect(pageErrors).toEqual([]);
});
