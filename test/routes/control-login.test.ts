// With --control-token a browser reaches the dashboard through a sign-in form that trades the
// token for an HttpOnly, SameSite=Strict cookie; without the token nothing is served.
import { afterAll, expect, it } from 'vitest';
import { createTestSandbox } from '../helpers/test-sandbox.js';

const sandbox = createTestSandbox({ controlToken: 'ctl_secret_token' });
afterAll(() => sandbox.close());
const HTML = { accept: 'text/html' };

it('a browser without the token is sent to the sign-in form; an API client gets 401', async () => {
  const page = await sandbox.request('GET', '/_sandbox/', undefined, HTML);
  expect(page.status).toBe(303);
  expect(page.headers.get('location')).toBe('/_sandbox/login');
  const form = await sandbox.request('GET', '/_sandbox/login', undefined, HTML);
  expect(form.status).toBe(200);
  expect(form.text).toContain('name="token"');
  const api = await sandbox.request('GET', '/_sandbox/deliveries');
  expect(api.status).toBe(401);
  expect(api.json.error.code).toBe('control_forbidden');
});

it('a wrong token is refused and sets no cookie', async () => {
  const res = await sandbox.request('POST', '/_sandbox/login', 'token=nope', { 'content-type': 'application/x-www-form-urlencoded' });
  expect(res.status).toBe(401);
  expect(res.headers.get('set-cookie')).toBeNull();
  expect(res.text).toContain('not the control token');
});

it('the right token sets an HttpOnly SameSite=Strict cookie that opens the dashboard and the control API', async () => {
  const res = await sandbox.request('POST', '/_sandbox/login', 'token=ctl_secret_token', {
    'content-type': 'application/x-www-form-urlencoded',
  });
  expect(res.status).toBe(303);
  const cookie = res.headers.get('set-cookie')!;
  expect(cookie).toMatch(/^sandbox_control=ctl_secret_token;/);
  expect(cookie).toMatch(/HttpOnly/);
  expect(cookie).toMatch(/SameSite=Strict/);
  expect(cookie).toMatch(/Path=\/_sandbox/);
  const pair = cookie.split(';')[0]!;
  const dashboard = await sandbox.request('GET', '/_sandbox/', undefined, { ...HTML, cookie: pair });
  expect(dashboard.status).toBe(200);
  const api = await sandbox.request('GET', '/_sandbox/deliveries', undefined, { cookie: pair });
  expect(api.status).toBe(200);
  const wrong = await sandbox.request('GET', '/_sandbox/deliveries', undefined, { cookie: 'sandbox_control=ctl_secret_tokeX' });
  expect(wrong.status).toBe(401);
});
