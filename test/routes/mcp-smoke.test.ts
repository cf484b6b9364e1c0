import { expect, it } from 'vitest';
import { createTestSandbox } from '../helpers/test-sandbox.js';

it('smoke', async () => {
  const sb = createTestSandbox();
  const h = { accept: 'application/json, text/event-stream' };
  let res = await sb.request('POST', '/_sandbox/mcp', { jsonrpc: '2.0', id: 1, method: 'tools/list' }, h);
  console.log(res.status, res.text.slice(0, 3000));
  res = await sb.request('POST', '/_sandbox/mcp', { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'create_payment', arguments: { card: '4000000000003220' } } }, h);
  console.log(res.status, res.text.slice(0, 3000));
  res = await sb.request('POST', '/_sandbox/mcp', { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'create_payment', arguments: { amount: -3 } } }, h);
  console.log(res.status, res.text.slice(0, 3000));
  expect(1).toBe(1);
  sb.close();
});
