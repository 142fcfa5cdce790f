// Reads the multipart/form-data body of an endpoint whose schema has file properties: the router's one
// multipart reader, bounded by the schema (each file's maxSize, the properties it declares), with the
// files held in memory and handed to the handler as EndpointFiles.
import type { RequestHandler } from 'express';
import type { EndpointBodySchema } from '../config/types';
import { createMultipartReader } from '../http/multipart';
import { DEFAULT_MAX_FILE_SIZE } from './body-schema';
import { toEndpointFile } from './validate-body';

/** Largest text field of a form (files have their own limits). */
const MAX_FIELD_SIZE = 1024 * 1024;

/** The body reader of one endpoint: sets `req.body` to the text fields plus each file as an EndpointFile. */
export function createEndpointFormReader(schema: EndpointBodySchema): RequestHandler {
  const properties = Object.entries(schema.properties);
  const files = new Map(properties.flatMap(([name, p]) => (p.type === 'file' ? [[name, p.maxSize ?? DEFAULT_MAX_FILE_SIZE] as const] : [])));
  const read = createMultipartReader({ files, fields: properties.length - files.size, fieldSize: MAX_FIELD_SIZE });
  return (req, res, next) => {
    read(req, res).then((form) => {
      const body: Record<string, unknown> = form.fields;
      for (const [name, file] of form.files) body[name] = toEndpointFile(file);
      req.body = body;
      next();
    }, next);
  };
}
