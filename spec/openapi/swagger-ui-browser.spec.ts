// Swagger UI in a real headless Chromium: the page at /api/docs of a listening host app shows the
// collections' operations, "Try it out" runs a GET and renders its 200, and after authorizing with a
// token an authenticated call succeeds. Leaves a screenshot in spec/.output/ (gitignored).
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, type Page, chromium } from 'playwright-core';
import { FAST_HASH, SECRET, registerUser } from '../auth/auth-test-app';
import { type TestApp, createTestApp } from '../helpers/create-test-app';

const CHROMIUM = '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];
const OUTPUT = join(__dirname, '..', '.output');
export const SCREENSHOT = join(OUTPUT, 'swagger-ui.png');

const HAS_CHROMIUM = existsSync(CHROMIUM);
const TITLE = HAS_CHROMIUM
  ? 'Swagger UI in headless Chromium'
  : `Swagger UI in headless Chromium (skipped: ${CHROMIUM} is missing; install Debian's chromium package, as .ci/run does)`;

jest.setTimeout(180_000);

(HAS_CHROMIUM ? describe : describe.skip)(TITLE, () => {
  let t: TestApp;
  let server: Server;
  let base: string;
  let profile: string;
  let context: BrowserContext;
  let page: Page;
  let token: string;

  beforeAll(async () => {
    t = await createTestApp({
      auth: { jwtSecret: SECRET, passwordHash: FAST_HASH },
      email: { send: () => undefined },
      collections: [
        { slug: 'users', auth: true, fields: {} },
        // Anyone may read posts, so the first call needs no token.
        { slug: 'posts', access: { read: () => true }, fields: { title: { type: 'text', required: true } } },
      ],
    });
    await t.api.local.create('posts', { title: 'Hello from the browser test' });
    token = (await registerUser(t)).accessToken;
    server = await new Promise<Server>((resolve) => {
      const s = t.app.listen(0, '127.0.0.1', () => resolve(s));
    });
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    profile = mkdtempSync(join(tmpdir(), 'content-router-chromium-'));
    context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: ARGS });
    page = context.pages()[0] ?? (await context.newPage());
  });

  afterAll(async () => {
    await context?.close();
    if (profile) rmSync(profile, { recursive: true, force: true });
    await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
    await t?.close();
  });

  /** The operation block of METHOD PATH, by its summary's method and path. */
  const operation = (method: string, path: string) =>
    page.locator(`.opblock-${method.toLowerCase()}`).filter({ has: page.locator('.opblock-summary-path', { hasText: new RegExp(`^${path.replace(/[/{}]/g, '\\$&')}$`) }) }).first();

  /** Expands an operation, runs "Try it out" + "Execute", and returns the rendered live response status. */
  async function tryItOut(method: string, path: string): Promise<{ status: string; body: string; url: string }> {
    const block = operation(method, path);
    await block.locator('.opblock-summary').first().click();
    await block.locator('button.try-out__btn').click();
    await block.locator('button.execute').click();
    const live = block.locator('.live-responses-table .response').first();
    await live.waitFor({ state: 'visible', timeout: 30_000 });
    return {
      status: (await live.locator('.response-col_status').innerText()).trim(),
      body: await live.locator('.response-col_description').innerText(),
      url: (await block.locator('.request-url pre').innerText()).trim(),
    };
  }

  it('shows the collections\' operations', async () => {
    const answer = await page.goto(`${base}/api/docs`);
    expect(answer?.status()).toBe(200);
    expect(page.url()).toBe(`${base}/api/docs/`);
    await page.locator('.opblock-tag-section').first().waitFor({ timeout: 60_000 });
    const tags = await page.locator('.opblock-tag').allInnerTexts();
    expect(tags.join(' ')).toEqual(expect.stringContaining('posts'));
    expect(tags.join(' ')).toEqual(expect.stringContaining('users'));
    await expect(operation('get', '/posts').isVisible()).resolves.toBe(true);
    await expect(operation('post', '/users/login').isVisible()).resolves.toBe(true);
  });

  it('runs "Try it out" on GET /posts and renders its 200', async () => {
    const { status, body, url } = await tryItOut('get', '/posts');
    expect(status).toBe('200');
    // Nothing the user did not fill in is sent (a prefilled page or limit would change the envelope).
    expect(url).toBe(`${base}/api/posts`);
    expect(body).toContain('Hello from the browser test');
  });

  it('authorizes with a token and runs an authenticated call', async () => {
    await page.locator('.auth-wrapper button.authorize').click();
    const dialog = page.locator('.dialog-ux .modal-ux');
    const bearer = dialog.locator('.auth-container').filter({ hasText: 'bearerAuth' }).first();
    await bearer.locator('input').fill(token);
    await bearer.locator('button.authorize').click();
    await expect(bearer.innerText()).resolves.toContain('Authorized');
    await dialog.locator('button.btn-done').first().click();
    const { status, body } = await tryItOut('get', '/users/me');
    expect(status).toBe('200');
    expect(body).toContain('"email"');
    mkdirSync(OUTPUT, { recursive: true });
    await page.screenshot({ path: SCREENSHOT, fullPage: true });
    await operation('get', '/users/me').screenshot({ path: join(OUTPUT, 'swagger-ui-users-me.png') });
    expect(existsSync(SCREENSHOT)).toBe(true);
  });
});
