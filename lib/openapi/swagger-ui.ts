// Swagger UI through swagger-ui-express: its page, its init script (pointed at the document next to it,
// `openapi.json`, by a relative URL so any mount path works) and swagger-ui-dist's files, by name.
import { dirname, join } from 'node:path';
import type { Request, Response } from 'express';
import swaggerUi from 'swagger-ui-express';
import { NotFoundError } from '../errors';
import { representationTag } from '../operations/precondition';

/** The files the page loads, besides the generated init script. */
const ASSET_FILES = ['swagger-ui.css', 'swagger-ui-bundle.js', 'swagger-ui-standalone-preset.js', 'favicon-32x32.png', 'favicon-16x16.png'];
const INIT_SCRIPT = 'swagger-ui-init.js';

/** swagger-ui-dist as swagger-ui-express resolves it (it is that package's dependency, not ours). */
function swaggerUiDistPath(): string {
  const express = dirname(require.resolve('swagger-ui-express'));
  return dirname(require.resolve('swagger-ui-dist/package.json', { paths: [express] }));
}

/** Serves the Swagger UI page and its assets. */
export interface SwaggerUi {
  /** The page: relative asset URLs, so it must be served at `.../docs/` (with the slash). */
  page(req: Request, res: Response): void;
  /** One asset by name; anything else is a 404. */
  asset(req: Request, res: Response, name: string): Promise<void>;
}

const OPTIONS: swaggerUi.SwaggerUiOptions = {
  swaggerUrl: 'openapi.json',
  customSiteTitle: 'Content API',
  customCss: '',
  swaggerOptions: { displayOperationId: true },
};

type Middleware = (req: Request, res: Response, next: () => void) => void;

/** The script an init-script middleware of swagger-ui-express sends ('' for the shared one before any setup()). */
function readInitScript(middleware: Middleware): string {
  let script = '';
  const res = { set: () => res, send: (body: string) => void (script = body) };
  middleware({ url: `/${INIT_SCRIPT}` } as Request, res as unknown as Response, () => undefined);
  return script;
}

let page: string | undefined;

/**
 * The page's HTML. generateHTML() also overwrites the init script of swagger-ui-express's shared `serve`
 * middleware, which a host may use for docs of its own: that script is put back as it was.
 */
function pageHtml(): string {
  if (page === undefined) {
    const hostScript = readInitScript(swaggerUi.serve[0] as Middleware);
    page = swaggerUi.generateHTML(undefined, OPTIONS);
    // A template without placeholders is used as is: this restores the host's script verbatim.
    // (Its typings omit the two template parameters the function takes.)
    // eslint-disable-next-line @typescript-eslint/no-deprecated -- only the deprecated overload's signature is; this calls the other form
    const generate = swaggerUi.generateHTML as (...args: unknown[]) => string;
    if (hostScript) generate(undefined, {}, undefined, undefined, undefined, undefined, undefined, undefined, hostScript);
  }
  return page;
}

/** Builds the page, its init script and the asset table once. */
export function createSwaggerUi(): SwaggerUi {
  const html = pageHtml();
  // serveFiles() returns [init-script middleware, static middleware]: the script is read from the first once.
  const init = readInitScript(swaggerUi.serveFiles(undefined, OPTIONS)[0] as Middleware);
  // Their own validators, computed once: Express would hash them on every request, into a weak tag.
  const pageTag = representationTag(html);
  const initTag = representationTag(init);
  const root = swaggerUiDistPath();
  const files = new Map(ASSET_FILES.map((name) => [name, join(root, name)]));

  return {
    page(_req, res) {
      res.type('html').set('ETag', pageTag).send(html);
    },
    async asset(_req, res, name) {
      if (name === INIT_SCRIPT) {
        res.type('application/javascript').set('ETag', initTag).send(init);
        return;
      }
      const file = files.get(name);
      if (!file) throw new NotFoundError(`No documentation asset "${name}".`);
      await new Promise<void>((resolve, reject) => {
        res.sendFile(file, { maxAge: '1h' }, (error) => {
          // A client that went away mid-file is not an error to report.
          if (error && !res.headersSent) reject(error);
          else resolve();
        });
      });
    },
  };
}
