// The pure parts of uploads: option validation (every problem by path), type patterns, the type decision
// from the first bytes, and file-name sanitizing. No database.
import { ConfigError, contentRouter } from '../../lib';
import type { ContentConfig } from '../../lib';
import { chooseExtension, createStoredName, sanitizeOriginalName, STORED_NAME } from '../../lib/uploads/file-names';
import { detectMimeType, isActiveType } from '../../lib/uploads/mime-policy';
import { compileMimeMatcher, resolveUploadOptions, parseUploadsOptions } from '../../lib/uploads/upload-options';
import { jpegBytes, pngBytes } from './upload-helpers';

const uploadsProblems = (config: ContentConfig) => parseUploadsOptions(config).problems;

const db = { uri: 'mongodb://127.0.0.1:1/never-used' };

describe('parseUploadsOptions', () => {
  it('accepts the defaults and a complete config', () => {
    expect(uploadsProblems({ db, uploads: {} })).toEqual([]);
    expect(
      uploadsProblems({
        db,
        uploads: { bucket: 'media_files', maxFileSize: 1024, allowedMimeTypes: ['image/*', 'application/pdf', '*/*'], access: { read: () => true } },
      }),
    ).toEqual([]);
  });

  it.each([
    ['not an object', 'yes', 'uploads: must be an object'],
    ['an unknown key', { buckets: 'x' }, 'uploads.buckets: unknown option'],
    ['a bucket with a dot', { bucket: 'a.b' }, 'uploads.bucket: must be'],
    ['an empty bucket', { bucket: '' }, 'uploads.bucket: must be'],
    ['a system bucket', { bucket: 'system' }, 'uploads.bucket: must be'],
    ['a fractional size', { maxFileSize: 1.5 }, 'uploads.maxFileSize: must be a positive integer'],
    ['a zero size', { maxFileSize: 0 }, 'uploads.maxFileSize: must be a positive integer'],
    ['a size as text', { maxFileSize: '10mb' }, 'uploads.maxFileSize: must be a positive integer'],
    ['an empty type list', { allowedMimeTypes: [] }, 'uploads.allowedMimeTypes: must be a non-empty array'],
    ['a type with parameters', { allowedMimeTypes: ['text/plain; charset=utf-8'] }, 'uploads.allowedMimeTypes[0]: must be a MIME type'],
    ['a bare word', { allowedMimeTypes: ['png'] }, 'uploads.allowedMimeTypes[0]: must be a MIME type'],
    ['access not an object', { access: true }, 'uploads.access: must be an object'],
    ['an unknown access op', { access: { update: () => true } }, 'uploads.access.update: unknown option'],
    ['an access rule that is not a function', { access: { read: true } }, 'uploads.access.read: must be a function'],
  ])('reports %s', (_name, uploads, expected) => {
    const problems = uploadsProblems({ db, uploads } as unknown as ContentConfig);
    expect(problems.some((p) => p.startsWith(expected))).toBe(true);
  });

  it('reports upload fields when uploads are not configured, and contentRouter() refuses the config', () => {
    const config: ContentConfig = {
      db,
      collections: [{ slug: 'posts', fields: { cover: { type: 'upload' } } }],
      globals: [{ slug: 'site', fields: { logo: { type: 'upload' } } }],
    };
    expect(uploadsProblems(config)).toEqual([
      'collections[0].fields.cover: an upload field needs the `uploads` option (the file store it points at)',
      'globals[0].fields.logo: an upload field needs the `uploads` option (the file store it points at)',
    ]);
    expect(() => contentRouter(config)).toThrow(ConfigError);
    expect(() => contentRouter({ ...config, uploads: { maxFileSize: -1 } })).toThrow(/uploads\.maxFileSize/);
  });

  it('resolves the defaults', () => {
    const resolved = resolveUploadOptions({});
    expect(resolved.bucket).toBe('uploads');
    expect(resolved.maxFileSize).toBe(10 * 1024 * 1024);
    expect(resolved.allowed).toBeUndefined();
  });
});

describe('compileMimeMatcher', () => {
  it('matches exact types and wildcards, case-insensitively', () => {
    const allowed = compileMimeMatcher(['image/*', 'Application/PDF']);
    expect(allowed('image/png')).toBe(true);
    expect(allowed('image/svg+xml')).toBe(true);
    expect(allowed('application/pdf')).toBe(true);
    expect(allowed('application/pdfx')).toBe(false);
    expect(allowed('imagex/png')).toBe(false);
    expect(allowed('text/plain')).toBe(false);
    expect(compileMimeMatcher(['*/*'])('anything/at-all')).toBe(true);
  });
});

describe('detectMimeType', () => {
  it('takes the type from the bytes when they show one', async () => {
    expect(await detectMimeType(pngBytes(), 'image/png')).toEqual({ mimeType: 'image/png', ext: 'png' });
    expect(await detectMimeType(pngBytes(), 'application/octet-stream')).toEqual({ mimeType: 'image/png', ext: 'png' });
    expect(await detectMimeType(pngBytes(), undefined)).toEqual({ mimeType: 'image/png', ext: 'png' });
    expect(await detectMimeType(jpegBytes(), 'image/jpg')).toEqual({ mimeType: 'image/jpeg', ext: 'jpg' });
  });

  it('refuses a declared type the bytes contradict', async () => {
    await expect(detectMimeType(pngBytes(), 'image/jpeg')).rejects.toThrow(/declared as image\/jpeg but its content is image\/png/);
    await expect(detectMimeType(Buffer.from('<html></html>'), 'image/png')).rejects.toThrow(/declared as image\/png/);
    await expect(detectMimeType(Buffer.from('PDF? no'), 'application/pdf')).rejects.toThrow(/declared as application\/pdf/);
    await expect(detectMimeType(Buffer.from([0x41, 0x00, 0x42]), 'text/csv')).rejects.toThrow(/binary/);
  });

  it('keeps a declared text type, or the refinement of a container, when the bytes allow it', async () => {
    expect(await detectMimeType(Buffer.from('a,b\n1,2\n'), 'text/csv')).toEqual({ mimeType: 'text/csv' });
    expect(await detectMimeType(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'), 'image/svg+xml')).toEqual({ mimeType: 'image/svg+xml' });
    expect(await detectMimeType(Buffer.from('<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"/>'), 'image/svg+xml')).toEqual({ mimeType: 'image/svg+xml' });
    expect(await detectMimeType(Buffer.from([0xff, 0xfe, 0x41, 0x00]), 'text/plain')).toEqual({ mimeType: 'text/plain' });
    expect(await detectMimeType(Buffer.alloc(0), 'text/plain')).toEqual({ mimeType: 'text/plain' });
    expect(await detectMimeType(Buffer.from([1, 2, 3]), 'application/x-custom')).toEqual({ mimeType: 'application/x-custom' });
  });

  it('flags the types browsers would run', () => {
    for (const type of ['text/html', 'image/svg+xml', 'application/xml', 'text/xml', 'application/javascript', 'text/javascript', 'application/xhtml+xml']) {
      expect(isActiveType(type)).toBe(true);
    }
    for (const type of ['image/png', 'text/plain', 'application/pdf', 'text/csv']) expect(isActiveType(type)).toBe(false);
  });
});

describe('file names', () => {
  it('keeps only the last path segment, without control characters, never empty or dots', () => {
    expect(sanitizeOriginalName('../../etc/passwd')).toBe('passwd');
    expect(sanitizeOriginalName('C:\\Users\\me\\photo.jpg')).toBe('photo.jpg');
    expect(sanitizeOriginalName('a\u0000b\u001fc\u202e.txt')).toBe('abc.txt');
    expect(sanitizeOriginalName('..')).toBe('file');
    expect(sanitizeOriginalName('dir/')).toBe('file');
    expect(sanitizeOriginalName(undefined)).toBe('file');
    expect(sanitizeOriginalName('x'.repeat(300))).toHaveLength(255);
  });

  it('stores under a random name with a plain extension', () => {
    expect(chooseExtension('photo.JPG', undefined)).toBe('jpg');
    expect(chooseExtension('photo.png', 'jpg')).toBe('jpg');
    expect(chooseExtension('archive.tar.g z', undefined)).toBeUndefined();
    expect(chooseExtension('.hidden', undefined)).toBeUndefined();
    const a = createStoredName('png');
    expect(a).toMatch(STORED_NAME);
    expect(createStoredName(undefined)).toMatch(/^[0-9a-f]{32}$/);
    expect(createStoredName('png')).not.toBe(a);
  });
});
