/**
 * The dashboard's page at `/_stub/ui/`: its HTML, stylesheets and one script, nothing from
 * anywhere else (a Content-Security-Policy says so to the browser). The files sit in
 * `dashboard/` beside the compiled code, so `new URL` finds them from the sources and from
 * dist/. The script is `app.js` there when `npm run build` bundled it (the package, the
 * image); from the sources it is bundled in memory once, with esbuild (a devDependency).
 * The page is open on a locked stub: it holds no secret and asks for the token (UI3).
 */
import { existsSync, readFileSync } from 'node:fs';
import type { FastifyPluginAsync } from 'fastify';

const DASHBOARD = new URL('../../dashboard/', import.meta.url);

/** Only the stub itself: scripts, styles and connections; no inline script runs. */
const DASHBOARD_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

let script: Promise<string> | undefined;

/** The bundled script: dist's `app.js`, or the sources bundled now (once a process). */
function dashboardScript(): Promise<string> {
  script ??= (async () => {
    const built = new URL('app.js', DASHBOARD);
    if (existsSync(built)) return readFileSync(built, 'utf8');
    // From the sources only (dist/ has app.js and no bundle.mjs): it loads esbuild.
    const { bundleDashboard } = await import(new URL('bundle.mjs', DASHBOARD).href);
    return bundleDashboard();
  })();
  script.catch(() => {
    script = undefined;
  });
  return script;
}

const asset = (name: string) => readFileSync(new URL(name, DASHBOARD), 'utf8');

export const uiRoutes: FastifyPluginAsync = async (app) => {
  const hide = { schema: { hide: true } };
  const headers = {
    'content-security-policy': DASHBOARD_CSP,
    'x-content-type-options': 'nosniff',
    'cache-control': 'no-cache',
  };
  // Without the slash, the page's relative links would point one folder up: redirected.
  app.get('', { ...hide, prefixTrailingSlash: 'no-slash' }, async (_request, reply) =>
    reply.redirect(`${app.prefix}/`),
  );
  app.get('/', { ...hide, prefixTrailingSlash: 'slash' }, async (_request, reply) =>
    reply.headers(headers).type('text/html; charset=utf-8').send(asset('index.html')),
  );
  for (const sheet of ['base.css', 'style.css'])
    app.get(`/${sheet}`, hide, async (_request, reply) =>
      reply.headers(headers).type('text/css; charset=utf-8').send(asset(sheet)),
    );
  app.get('/app.js', hide, async (_request, reply) =>
    reply
      .headers(headers)
      .type('text/javascript; charset=utf-8')
      .send(await dashboardScript()),
  );
};
